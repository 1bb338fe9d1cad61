"""BLEU, Modified BLEU and the length ratio, on shared n-gram statistics.

Statistics per segment: ``[hyp_len, ref_len, match_1..match_N, total_1..total_N]`` with clipped
counts against all references and the closest reference length (ties go to the shorter), as
mteval-v13a and sacreBLEU compute them.

Smoothing (``smooth``):
- ``exp`` (default): an order with no match gets precision 1 / (2^k * total), k counting such orders
  so far: the NIST scorer's rule, which sacreBLEU also uses.
- ``floor``: precision ``smooth_value / total`` (default 0.1), ``add-k``: add ``smooth_value``
  (default 1) to matches and totals of orders >= 2, ``none``: any zero precision gives BLEU 0.
An order with no hypothesis n-grams at all has log-precision 0 in ``exp`` mode (mteval-v13a's rule;
sacreBLEU gives 0 there instead; this only happens when the whole corpus is shorter than N tokens per
segment), and is left out of the mean with ``effective_order`` (the default for sentence scores).
Sentence scores follow sacreBLEU's ``sentence_bleu``: effective order, and 0 when nothing matches.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.io.segments import Segments
from mtsig.metrics.base import Metric
from mtsig.metrics.ngrams import NgramIndex
from mtsig.tokenize import Tokenizer

SMOOTHING = ("exp", "floor", "add-k", "none")
_SMOOTH_DEFAULTS = {"floor": 0.1, "add-k": 1.0}


def ngram_index(metric: Metric, tokenizer: Tokenizer, max_n: int) -> NgramIndex:
    """The references' n-gram index for ``tokenizer``, built once per RefSet (orders 1..4 at least;
    rebuilt only when a larger order is asked for: warm the largest order first to build it once)."""
    refs = metric.refs
    key = ("ngram-index", tokenizer.key)
    idx = refs._cache.get(key)
    if idx is None or idx.max_n < max_n:
        toks = [tokenizer.tokenize_all(r) for r in refs]
        idx = refs._cache[key] = NgramIndex(toks, max(max_n, 4))
    return idx


def ngram_match(metric: Metric, tokenizer: Tokenizer, hyp: Segments, max_n: int, info: bool = False):
    """Matches of ``hyp`` against the references for orders 1..``max_n``.

    One pass per hypothesis and tokenizer (all orders of the index; NIST information when asked),
    memoized on the hypothesis, so BLEU, NIST, Modified BLEU and the length ratio share it.
    """
    idx = ngram_index(metric, tokenizer, max_n)
    res = hyp._cache.get(("ngram-match", tokenizer.key, idx, True))
    if res is None:
        res = hyp.memo(
            ("ngram-match", tokenizer.key, idx, info), lambda: idx.match(tokenizer.tokenize_all(hyp), info=info)
        )
    lens, matches, totals, info_m = res
    return idx, (lens, matches[:, :max_n], totals[:, :max_n], info_m[:, :max_n] if info else None)


class _NgramMetric(Metric):
    options = {"tokenize": "13a", "lowercase": False}

    def __init__(self, **opts: Any):
        super().__init__(**opts)
        self.tokenizer = Tokenizer(self.config["tokenize"], bool(self.config["lowercase"]))

    def signature_fields(self):
        return [("tok", self.tokenizer.name), ("case", "lc" if self.tokenizer.lowercase else "mixed")]

    #: highest n-gram order the metric needs (warm the largest first, so the index is built once)
    @property
    def ngram_order(self) -> int:
        return int(self.config.get("bleu_order", 1))

    def warm(self) -> None:
        ngram_index(self, self.tokenizer, self.ngram_order)


def _bleu_stats(metric, order: int, hyp: Segments) -> np.ndarray:
    idx, (lens, matches, totals, _) = ngram_match(metric, metric.tokenizer, hyp, order)
    ref_len = idx.closest_ref_length(lens)
    return np.column_stack([lens.astype(np.float64), ref_len.astype(np.float64), matches, totals])


def _brevity_penalty(hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.exp(np.minimum(0.0, 1.0 - ref_len / hyp_len))
    return np.where(hyp_len > 0, bp, 0.0)


def bleu_log_precisions(totals: np.ndarray, order: int, smooth: str, smooth_value: float | None):
    """Log precision per order (shape ``(..., order)``) and a mask of orders with hypothesis n-grams."""
    m = np.array(totals[..., 2 : 2 + order], dtype=np.float64)
    t = np.array(totals[..., 2 + order : 2 + 2 * order], dtype=np.float64)
    if smooth == "add-k":
        k = _SMOOTH_DEFAULTS["add-k"] if smooth_value is None else smooth_value
        m[..., 1:] += k
        t[..., 1:] += k
    has = t > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.log(m / t)
        if smooth == "exp":
            zero = (m == 0) & has
            k = np.cumsum(zero, axis=-1)
            logp = np.where(zero, -(k * np.log(2.0) + np.log(t)), logp)
        elif smooth == "floor":
            v = _SMOOTH_DEFAULTS["floor"] if smooth_value is None else smooth_value
            logp = np.where((m == 0) & has, np.log(v / t), logp)
        logp = np.where(has, logp, 0.0 if smooth == "exp" else -np.inf)
    return logp, has


class BLEU(_NgramMetric):
    name = "bleu"
    description = "BLEU (Papineni et al.), mteval-v13a / sacreBLEU formulas, 0-100"
    options = {**_NgramMetric.options, "bleu_order": 4, "smooth": "exp", "smooth_value": None, "effective_order": False}

    def __init__(self, **opts: Any):
        super().__init__(**opts)
        self.order = int(self.config["bleu_order"])
        if self.order < 1:
            raise InputError(f"BLEU order must be at least 1, got {self.order}")
        self.smooth = self.config["smooth"]
        if self.smooth not in SMOOTHING:
            raise InputError(f"unknown BLEU smoothing {self.smooth!r}; choose from: {', '.join(SMOOTHING)}")

    @property
    def stat_names(self):
        n = range(1, self.order + 1)
        return ["hyp_len", "ref_len", *(f"match_{i}" for i in n), *(f"total_{i}" for i in n)]

    def _stats(self, hyp):
        return _bleu_stats(self, self.order, hyp)

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


class ModifiedBLEU(_NgramMetric):
    """Zhang's Modified BLEU: arithmetic (not geometric) mean of the n-gram precisions times the BP."""

    name = "mbleu"
    description = "Modified BLEU (Zhang): arithmetic mean of n-gram precisions x brevity penalty, 0-100"
    options = {**_NgramMetric.options, "bleu_order": 4}

    @property
    def order(self):
        return int(self.config["bleu_order"])

    @property
    def stat_names(self):
        return BLEU.stat_names.fget(self)  # same layout as BLEU

    def _stats(self, hyp):
        return _bleu_stats(self, self.order, hyp)

    def score(self, totals):
        totals = np.asarray(totals, dtype=np.float64)
        o = self.order
        m, t = totals[..., 2 : 2 + o], totals[..., 2 + o : 2 + 2 * o]
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(t > 0, m / t, 0.0)
        return 100.0 * _brevity_penalty(totals[..., 0], totals[..., 1]) * p.mean(axis=-1)

    def signature_fields(self):
        return [("n", self.order), *super().signature_fields()]


class LengthRatio(_NgramMetric):
    """MultEval's "Length": 100 x total hypothesis tokens / total closest reference length."""

    name = "length"
    description = "length ratio: 100 x hypothesis tokens / closest reference tokens (MultEval's Length)"
    options = dict(_NgramMetric.options)

    @property
    def stat_names(self):
        return ["hyp_len", "ref_len"]

    def _stats(self, hyp):
        return _bleu_stats(self, 1, hyp)[:, :2]

    def score(self, totals):
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return 100.0 * totals[..., 0] / totals[..., 1]
