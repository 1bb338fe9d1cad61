"""METEOR 1.5 (Denkowski & Lavie) in Python: the jar's normalizer, matchers, alignment search and score.

The scoring follows the official ``meteor-1.5.jar`` step for step, including its quirks (they are listed
in :mod:`mtsig.meteor.align`), so that segment statistics equal the jar's. Resources (function words,
WordNet synonyms, non-breaking prefixes, the paraphrase table) are read from an official METEOR 1.5
distribution at run time: :mod:`mtsig.meteor.resources`. The metric itself is
:class:`mtsig.metrics.meteor.METEOR`.
"""
