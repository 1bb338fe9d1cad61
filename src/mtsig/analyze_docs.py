"""What each setting of ``mtsig analyze`` means: the descriptions of
:class:`~mtsig.analysis.options.AnalyzeOptions`' fields, kept apart from the analyses so that the API documents
``mtsig.analyze`` without importing them (one source: the fields take their descriptions from here)."""

DOCS = {
    "by": (
        "Analyses (``mtsig analyze --help`` lists them): ``ref-length``, ``length-diff``, ``sentence-score``,"
        " ``labels=FILE``, ``documents``, ``word-frequency``, ``word-labels=FILE``, ``ngrams``, ``examples`` "
        "(default: the ones that need no extra file)."
    ),
    "test": "The test of every bucket (``ar`` default; any test of ``compare``).",
    "baseline": "Each system against this one (default: all pairs).",
    "correction": (
        "The p-value adjustment over every bucket and pair of an analysis (``holm`` default, ``bonferroni``, "
        "``sidak``, ``bh``, ``none``)."
    ),
    "alpha": "The level of the decisions (0.05).",
    "alternative": "As in :func:`mtsig.compare`.",
    "confidence": "The level of every interval (0.95).",
    "n_bootstrap": "Bootstrap resamples behind the intervals (1000).",
    "cutoffs": 'Bucket boundaries per analysis (``{"ref-length": [10, 20, 30]}``; compare-mt\'s defaults otherwise).',
    "top": "N-grams and example segments per pair and direction (10).",
    "ngram_alpha": "The smoothing of the n-gram ratio (1).",
    "ngram_order": "The highest n-gram order (4).",
    "freq_corpus": "A file whose word frequencies bucket the words (default: the reference's).",
    "out_labels": "With ``word-labels``: each system's file of output word labels ``{name: path}``.",
    "source": "A file of source segments shown with the examples (WMT XML input brings its own).",
    "resample_unit": "What every bucket's tests and intervals resample, as in compare.",
}
