"""The built-in analyses, registered in the order ``mtsig analyze`` runs and lists them."""

from __future__ import annotations

from mtsig.analysis.buckets import DEFAULT_CUTOFFS
from mtsig.analysis.items import examples, ngrams
from mtsig.analysis.partition import corpus, documents, labels, ref_length
from mtsig.analysis.registry import AnalysisEntry, register_analysis
from mtsig.analysis.shares import length_diff, sentence_score
from mtsig.analysis.word_accuracy import word_frequency, word_labels

for _e in (
    AnalysisEntry("corpus", corpus, "corpus scores with intervals and each pair's test (shown first)",
                  needs_texts=False),
    AnalysisEntry("ref-length", ref_length, "scores by reference length (words)",
                  cutoffs=DEFAULT_CUTOFFS["ref-length"]),
    AnalysisEntry("length-diff", length_diff, "segments by output length minus reference length", batched=True,
                  cutoffs=DEFAULT_CUTOFFS["length-diff"]),
    AnalysisEntry("sentence-score", sentence_score, "segments by each system's segment-level score", batched=True,
                  cutoffs=DEFAULT_CUTOFFS["sentence-score"], needs_texts=False),
    AnalysisEntry("labels", labels, "scores by a label per segment: --by labels=FILE (WMT XML: its domains)",
                  takes_arg=True, default=False),
    AnalysisEntry("documents", documents, "scores by document (SGML/XML input or --docids)", default=False),
    AnalysisEntry("word-frequency", word_frequency, "word accuracy by word frequency (--freq-corpus)", batched=True,
                  cutoffs=DEFAULT_CUTOFFS["word-frequency"], options=("freq_corpus",)),
    AnalysisEntry("word-labels", word_labels, "word accuracy by a label per word: --by word-labels=FILE (reference "
                  "word labels) with --out-labels NAME=FILE", takes_arg=True, needs_arg=True, default=False,
                  batched=True, options=("out_labels",)),
    AnalysisEntry("ngrams", ngrams, "the n-grams each system matches more often",
                  options=("top", "ngram_alpha", "ngram_order")),
    AnalysisEntry("examples", examples, "the segments where each system beats the other most",
                  options=("top", "source")),
):  # fmt: skip
    register_analysis(_e)
