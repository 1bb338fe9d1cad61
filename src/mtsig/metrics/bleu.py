"""BLEU, Modified BLEU and the length ratio, on shared n-gram statistics.

Statistics per segment: ``[hyp_len, ref_len, match_1..match_N, total_1..total_N]`` with clipped
counts against all references and the closest reference length (ties go to the shorter), as
mteval-v13a and sacreBLEU compute them.

Smoothing (``smooth``):
- ``exp`` (default): sacreBLEU's: an order with no match gets precision 1 / (2^k * total), k counting such
  orders so far (the NIST scorer's rule); a corpus with no match at any order, or with no hypothesis n-grams of
  some order, scores 0 (sacreBLEU's early stop and its zero precision).
- ``nist``: the NIST scorer's (mteval-v13a) exactly: the same rule, without the early stop, and an order with no
  hypothesis n-grams at all has log-precision 0 (so a corpus with no match scores a small positive BLEU where
  sacreBLEU gives 0). The two differ only in those corners; the signature tells them apart.
- ``floor``: precision ``smooth_value / total`` (default 0.1), ``add-k``: add ``smooth_value``
  (default 1) to matches and totals of orders >= 2, ``none``: any zero precision gives BLEU 0.
An order with no hypothesis n-grams at all is left out of the mean with ``effective_order`` (the default for
sentence scores).
Sentence scores follow sacreBLEU's ``sentence_bleu``: effective order, and 0 when nothing matches.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.metrics.ngrams import NgramMetric, length_and_match_stats
from mtsig.metrics.options import Option

SMOOTHING = ("exp", "nist", "floor", "add-k", "none")
_SMOOTH_DEFAULTS = {"floor": 0.1, "add-k": 1.0}

BLEU_ORDER = Option(4, "BLEU / Modified BLEU max n-gram order (4)")


def _brevity_penalty(hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.exp(np.minimum(0.0, 1.0 - ref_len / hyp_len))
    return np.where(hyp_len > 0, bp, 0.0)


def bleu_log_precisions(totals: np.ndarray, order: int, smooth: str, smooth_value: float | None):
    """Log precision per order (shape ``(..., order)``) and a mask of orders with hypothesis n-grams."""
    totals = np.asarray(totals, dtype=np.float64)
    m = totals[..., 2 : 2 + order]
    t = totals[..., 2 + order : 2 + 2 * order]
    if smooth == "add-k":
        k = _SMOOTH_DEFAULTS["add-k"] if smooth_value is None else smooth_value
        m, t = m.copy(), t.copy()
        m[..., 1:] += k
        t[..., 1:] += k
    has = t > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.log(m / t)
        # the smoothing of orders without a match, only where there is one (the common corpus-level case has
        # none: the same numbers, without the passes over every resample)
        if smooth in ("exp", "nist"):
            zero = (m == 0) & has
            if zero.any():
                nth = np.cumsum(zero, axis=-1)
                logp = np.where(zero, -(nth * np.log(2.0) + np.log(t)), logp)
        elif smooth == "floor":
            v = _SMOOTH_DEFAULTS["floor"] if smooth_value is None else smooth_value
            logp = np.where((m == 0) & has, np.log(v / t), logp)
        if not has.all():
            logp = np.where(has, logp, 0.0 if smooth == "nist" else -np.inf)
    return logp, has


class BLEU(NgramMetric):
    name = "bleu"
    scale = 100.0
    description = "BLEU (Papineni et al.), mteval-v13a / sacreBLEU formulas, 0-100"
    sentence_score_label = "sentence BLEU (sacreBLEU's sentence_bleu: effective order, exp smoothing)"
    options = {
        **NgramMetric.options,
        "bleu_order": BLEU_ORDER,
        "smooth": Option(
            "exp",
            "BLEU smoothing (exp: sacreBLEU's, default; nist: mteval-v13a's exactly, which "
            "differs only for a corpus with no match)",
            choices=SMOOTHING,
        ),
        "smooth_value": Option(None, "value for floor (0.1) / add-k (1)", type=float),
        "effective_order": Option(False, "BLEU: leave orders without hypothesis n-grams out of the mean"),
    }

    def __init__(self, **opts: Any):
        super().__init__(**opts)
        self.order = int(self.config["bleu_order"])
        if self.order < 1:
            raise InputError(f"BLEU order must be at least 1, got {self.order}")
        self.smooth = self.config["smooth"]
        if self.smooth not in SMOOTHING:
            raise InputError(f"unknown BLEU smoothing {self.smooth!r}; choose from: {', '.join(SMOOTHING)}")
        v = self.config["smooth_value"]
        if v is not None and not (isinstance(v, (int, float)) and np.isfinite(v) and v > 0):
            raise InputError(f"smooth_value must be a positive finite number, got {v!r}", param="smooth_value")

    @property
    def stat_names(self):
        n = range(1, self.order + 1)
        return ["hyp_len", "ref_len", *(f"match_{i}" for i in n), *(f"total_{i}" for i in n)]

    def _stats(self, hyp):
        return length_and_match_stats(self, self.tokenizer, self.order, hyp)

    def _score(self, totals, effective_order: bool):
        totals = np.asarray(totals, dtype=np.float64)
        logp, has = bleu_log_precisions(totals, self.order, self.smooth, self.config["smooth_value"])
        if effective_order:
            # sentence scoring follows sacreBLEU: no match at any order gives 0 (its issue #141)
            no_match = ~np.any(totals[..., 2 : 2 + self.order] > 0, axis=-1)
            n_eff = np.where(no_match, 0, has.sum(axis=-1))
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(n_eff > 0, np.where(has, logp, 0.0).sum(axis=-1) / np.maximum(n_eff, 1), -np.inf)
        else:
            mean = logp.mean(axis=-1)
            if self.smooth == "exp":  # sacreBLEU: no match at any order scores 0 (its early stop)
                mean = np.where(np.any(totals[..., 2 : 2 + self.order] > 0, axis=-1), mean, -np.inf)
        bp = _brevity_penalty(totals[..., 0], totals[..., 1])
        return 100.0 * bp * np.exp(mean)

    def score(self, totals):
        return self._score(totals, bool(self.config["effective_order"]))

    def sentence_scores(self, stats):
        """Sentence BLEU: effective order (orders with no hypothesis n-grams are left out), as sacreBLEU."""
        return self._score(np.asarray(stats, dtype=np.float64), True)

    def describe(self, totals):
        totals = np.asarray(totals, dtype=np.float64)
        logp, _ = bleu_log_precisions(totals, self.order, self.smooth, self.config["smooth_value"])
        return {
            "precisions": [float(100 * np.exp(x)) for x in logp],
            "bp": float(_brevity_penalty(totals[0], totals[1])),
            "ratio": float(totals[0] / totals[1]) if totals[1] else float("nan"),
            "hyp_len": int(totals[0]),
            "ref_len": int(totals[1]),
        }

    def signature_fields(self):
        f = [("n", self.order), *super().signature_fields(), ("smooth", self.smooth)]
        if self.config["smooth_value"] is not None and self.smooth in ("floor", "add-k"):
            f.append(("smooth_value", self.config["smooth_value"]))
        if self.config["effective_order"]:
            f.append(("eff", "yes"))
        return f


class ModifiedBLEU(NgramMetric):
    """Zhang's Modified BLEU: arithmetic (not geometric) mean of the n-gram precisions times the BP."""

    name = "mbleu"
    scale = 100.0
    description = "Modified BLEU (Zhang): arithmetic mean of n-gram precisions x brevity penalty, 0-100"
    options = {**NgramMetric.options, "bleu_order": BLEU_ORDER}

    @property
    def order(self):
        return int(self.config["bleu_order"])

    @property
    def stat_names(self):
        return BLEU.stat_names.fget(self)  # same layout as BLEU

    def _stats(self, hyp):
        return length_and_match_stats(self, self.tokenizer, self.order, hyp)

    def score(self, totals):
        totals = np.asarray(totals, dtype=np.float64)
        o = self.order
        m, t = totals[..., 2 : 2 + o], totals[..., 2 + o : 2 + 2 * o]
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(t > 0, m / t, 0.0)
        return 100.0 * _brevity_penalty(totals[..., 0], totals[..., 1]) * p.mean(axis=-1)

    def signature_fields(self):
        return [("n", self.order), *super().signature_fields()]


class LengthRatio(NgramMetric):
    """MultEval's "Length": 100 x total hypothesis tokens / total closest reference length."""

    name = "length"
    description = "length ratio: 100 x hypothesis tokens / closest reference tokens (MultEval's Length)"
    target = 100.0
    options = dict(NgramMetric.options)

    @property
    def stat_names(self):
        return ["hyp_len", "ref_len"]

    def _stats(self, hyp):
        return length_and_match_stats(self, self.tokenizer, 1, hyp)[:, :2]

    def score(self, totals):
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return 100.0 * totals[..., 0] / totals[..., 1]
