"""NIST (Doddington 2002) exactly as mteval-v13a computes it.

Statistics per segment: ``[hyp_len, avg_ref_len, info_1..info_N, total_1..total_N]`` where ``info_n`` is
the sum of information weights of the clipped matching n-grams, ``total_n`` the number of hypothesis
n-grams and ``avg_ref_len`` the segment's reference words divided by the number of references.
Information weights come once from all segments of all references (see ``NgramIndex.nist_info``) and
stay fixed under resampling, as in Zhang's bootstrap tools. The brevity penalty uses the average
reference length: exp(-beta * ln(ratio)^2) with beta chosen so that ratio 1.5 (sic: 2/3) gives 0.5.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.metrics.ngrams import NgramMetric, ngram_index, ngram_match
from mtsig.metrics.options import Option

_BETA = -np.log(0.5) / np.log(1.5) ** 2


def nist_penalty(ratio: np.ndarray) -> np.ndarray:
    ratio = np.asarray(ratio, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.log(np.where(ratio > 0, ratio, 1.0))
        pen = np.exp(-_BETA * lr * lr)
    return np.where(ratio >= 1, 1.0, np.where(ratio <= 0, 0.0, pen))


class NIST(NgramMetric):
    name = "nist"
    integer_stats = False  # information-weighted matches and an average reference length
    description = "NIST (Doddington), mteval-v13a formulas and information weights"
    options = {**NgramMetric.options, "nist_order": Option(5, "NIST max n-gram order (5)")}
    decimals = 4
    needs_corpus_ngram_counts = True

    def __init__(self, **opts: Any):
        super().__init__(**opts)
        self.order = int(self.config["nist_order"])
        if self.order < 1:
            raise InputError(f"NIST order must be at least 1, got {self.order}")

    @property
    def stat_names(self):
        n = range(1, self.order + 1)
        return ["hyp_len", "avg_ref_len", *(f"info_{i}" for i in n), *(f"total_{i}" for i in n)]

    def _stats(self, hyp):
        idx, (lens, _, totals, info) = ngram_match(self, self.tokenizer, hyp, self.order, info=True)
        avg_ref = idx.ref_lengths.sum(axis=1) / idx.n_refs
        return np.column_stack([lens.astype(np.float64), avg_ref, info, totals])

    @property
    def ngram_order(self) -> int:
        return self.order

    def warm(self) -> None:
        ngram_index(self, self.tokenizer, self.order).nist_info()

    def per_order(self, totals: np.ndarray) -> np.ndarray:
        """Penalized information per order (mteval's "individual" NIST), shape ``(..., order)``."""
        totals = np.asarray(totals, dtype=np.float64)
        o = self.order
        info, t = totals[..., 2 : 2 + o], totals[..., 2 + o : 2 + 2 * o]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = totals[..., 0] / totals[..., 1]
        ratio = np.where(totals[..., 1] > 0, ratio, 1.0)
        return info / np.maximum(t, 1.0) * nist_penalty(ratio)[..., None]

    def score(self, totals):
        return self.per_order(totals).sum(axis=-1)

    def describe(self, totals):
        return {"per_order": [float(x) for x in self.per_order(totals)]}

    def signature_fields(self):
        return [("n", self.order), *super().signature_fields()]
