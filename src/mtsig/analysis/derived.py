"""The metrics ``mtsig analyze`` derives for its buckets: a bucket's share of segments and compare-mt's word
accuracy. Their statistics are built by the analyses, never scored from text."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mtsig.errors import InputError
from mtsig.metrics.base import Metric


class _Derived(Metric):
    """A metric whose statistics ``mtsig analyze`` derives from other statistics or from words (never scored
    from text directly)."""

    options: ClassVar[dict] = {}
    signature_has_refs = False

    def _stats(self, hyp):  # pragma: no cover - never called: the statistics are built by the analysis
        raise InputError(f"{self.name} statistics are built by mtsig analyze")


class BucketShare(_Derived):
    """The share (%) of segments that fall in a bucket: statistics ``[in bucket, 1]``."""

    name = "share"
    description = "share of segments in a bucket (%)"
    decimals = 1
    sentence_score_label = "100 when the segment is in the bucket, else 0"

    @property
    def stat_names(self):
        return ["in_bucket", "segments"]

    def score(self, totals):
        t = np.asarray(totals, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return 100.0 * t[..., 0] / t[..., 1]


class WordAccuracy(_Derived):
    """compare-mt's word accuracy of one bucket: statistics ``[matched, output words, reference words]``;
    ``measure`` is ``f`` (2m / (o + r)), ``p`` (m / o) or ``r`` (m / r); 0 when nothing matches."""

    name = "word-accuracy"
    description = "word F-measure, precision or recall of a bucket"
    decimals = 4
    sentence_score_label = "the segment's own word accuracy"

    def __init__(self, measure: str = "f"):
        super().__init__()
        self.measure = measure

    @property
    def stat_names(self):
        return ["matched", "output_words", "reference_words"]

    def score(self, totals):
        t = np.asarray(totals, dtype=np.float64)
        m, o, r = t[..., 0], t[..., 1], t[..., 2]
        if self.measure == "f":
            num, den = 2 * m, o + r
        else:
            num, den = m, (o if self.measure == "p" else r)
        # m > 0 implies den > 0 (matched words are output and reference words): no other guard is needed
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(m > 0, num / den, 0.0)
