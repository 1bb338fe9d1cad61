"""The resampling behind ``mtsig human``: each system's segment scores summed per resampling unit (a segment, or a
document), then every test is ``W @ S`` on those sums, vectorized over resamples, from the plans of
:mod:`mtsig.resample` (so every number is reproducible from the reported seed).

- :func:`unit_sums`: per unit and system, the sum of the judged segment scores and their count.
- :func:`joint_bootstrap`: every system's mean over its judged segments in each resample of the units (all
  systems from the same resamples, so their dependence is the real one): intervals and the rank sets.
- :func:`paired_ar`: approximate randomization of every pair at once, on the segments both were judged on: the
  per-unit sums of the paired differences, their signs flipped by one swap mask per resample.
- :func:`paired_bootstrap`: Koehn's paired bootstrap of the same differences.
- :func:`rank_sets`: simultaneous rank confidence sets: step-down max-T over all ordered pairs of the joint
  bootstrap (Romano & Wolf 2005; the construction of Mogstad, Romano, Shaikh & Wilhelm 2024): with probability at
  least the confidence level, every system's true rank lies in its set, all at once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mtsig.errors import InputError
from mtsig.io.human import HumanScores
from mtsig.resample import Resampling
from mtsig.stats.multiple import maxt
from mtsig.stats.pvalues import count_extreme, p_from_count


class Units(NamedTuple):
    """Per resampling unit (row) and system (column): the sum of the judged segment scores, and their count."""

    sums: np.ndarray
    counts: np.ndarray
    #: the unit of each segment
    of_segment: np.ndarray
    labels: tuple[str, ...]
    kind: str


def unit_sums(h: HumanScores, unit: str = "segment") -> Units:
    X = np.nan_to_num(h.scores, nan=0.0)
    M = h.judged.astype(np.float64)
    if unit == "segment":
        idx = np.arange(len(h.segments))
        return Units(X.T.copy(), M.T.copy(), idx, h.segments, unit)
    labels = h.documents if unit == "document" else h.domains
    if labels is None:
        raise InputError(f"resample_unit {unit}: these judgments have no {unit}s (the {h.input_format} input "
                         f"carries none); use segment", param="resample_unit")  # fmt: skip
    order = list(dict.fromkeys(labels))
    at = {d: i for i, d in enumerate(order)}
    idx = np.array([at[d] for d in labels], dtype=np.int64)
    S = np.zeros((len(order), X.shape[0]))
    C = np.zeros((len(order), X.shape[0]))
    np.add.at(S, idx, X.T)
    np.add.at(C, idx, M.T)
    return Units(S, C, idx, tuple(order), unit)


def joint_bootstrap(units: Units, resampling: Resampling, n: int) -> np.ndarray:
    """``(n, K)``: each system's mean score in each bootstrap resample of the units (NaN in a resample that drew
    none of its judged segments)."""
    K = units.sums.shape[1]
    S = np.concatenate([units.sums, units.counts], axis=1)
    out = np.empty((n, K))
    plan = resampling.plan("bootstrap", S.shape[0], n)
    row = 0
    advance = resampling.advance("bootstrap of the systems", n)
    for W in plan.chunks():
        T = W @ S
        with np.errstate(invalid="ignore", divide="ignore"):
            out[row : row + len(W)] = np.where(T[:, K:] > 0, T[:, :K] / np.maximum(T[:, K:], 1e-300), np.nan)
        row += len(W)
        if advance:
            advance(len(W))
    return out


class PairData(NamedTuple):
    """Per pair (column): the per-unit sums of ``x_a - x_b`` over the segments both were judged on, how many
    such segments, and the observed mean difference over them."""

    D: np.ndarray
    n_common: np.ndarray
    observed: np.ndarray


def pair_differences(h: HumanScores, units: Units, pairs: list[tuple[int, int]]) -> PairData:
    X = h.scores
    J = h.judged
    D = np.zeros((len(units.labels), len(pairs)))
    n = np.zeros(len(pairs), dtype=np.int64)
    for j, (a, b) in enumerate(pairs):
        both = J[a] & J[b]
        d = np.where(both, np.nan_to_num(X[a]) - np.nan_to_num(X[b]), 0.0)
        np.add.at(D[:, j], units.of_segment, d)
        n[j] = int(both.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        obs = np.where(n > 0, D.sum(axis=0) / np.maximum(n, 1), np.nan)
    return PairData(D, n, obs)


def paired_ar(pd: PairData, resampling: Resampling, R: int) -> np.ndarray:
    """Two-sided p-values of every pair by approximate randomization (each unit's paired difference keeps or
    flips its sign with probability 1/2): ``(c + 1) / (R + 1)`` with ties counted; 1 for identical systems."""
    total = pd.D.sum(axis=0)
    counts = np.zeros(pd.D.shape[1], dtype=np.int64)
    cut = np.abs(total) - 1e-12 * np.maximum(1.0, np.abs(total))
    plan = resampling.plan("randomization", pd.D.shape[0], R)
    advance = resampling.advance("randomization of the pairs", R)
    for W in plan.chunks():
        # a swapped unit's difference changes sign: sum(d) - 2 W @ d
        T = total - 2.0 * (W @ pd.D)
        counts += np.count_nonzero(np.abs(T) >= cut, axis=0)
        if advance:
            advance(len(W))
    return (counts + 1) / (R + 1)


def paired_bootstrap(pd: PairData, resampling: Resampling, R: int) -> np.ndarray:
    """Koehn's paired bootstrap of every pair (two-sided: twice the share of resamples the worse system wins or
    ties, at most 1), on the units' paired differences."""
    p = np.empty(pd.D.shape[1])
    boot = np.empty((R, pd.D.shape[1]))
    plan = resampling.plan("bootstrap", pd.D.shape[0], R)
    row = 0
    for W in plan.chunks():
        boot[row : row + len(W)] = W @ pd.D
        row += len(W)
    for j in range(pd.D.shape[1]):
        le = int(np.count_nonzero(boot[:, j] <= 0))
        ge = int(np.count_nonzero(boot[:, j] >= 0))
        p[j] = min(1.0, 2 * p_from_count(min(le, ge), R))
    return p


def rank_sets(boot: np.ndarray, scores: np.ndarray, confidence: float) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Simultaneous rank sets (1 = best) of every system, and the ``(K, K)`` matrix of step-down max-T adjusted
    p-values of "row is better than column" (the ordered pairs' one-sided hypotheses, all at once).

    A system's set runs from 1 + the systems found better than it to K - the systems found worse; with
    probability at least ``confidence``, no ordered pair is decided wrongly, so every true rank lies in its set
    simultaneously (ties in the true scores share the best rank among them)."""
    K = len(scores)
    ordered = [(j, k) for j in range(K) for k in range(K) if j != k]
    finite = np.all(np.isfinite(boot), axis=1)
    B = boot[finite]
    P = np.ones((K, K))
    if K < 2 or len(B) < 2:
        return [(1, K)] * K, P
    D = np.stack([B[:, j] - B[:, k] for j, k in ordered], axis=1)
    obs = np.array([scores[j] - scores[k] for j, k in ordered])
    adj = maxt(D, obs, "greater")["step-down"]
    for (j, k), p in zip(ordered, adj):
        P[j, k] = p
    better = P <= 1 - confidence  # better[j, k]: j is found better than k
    out = [(1 + int(better[:, j].sum()), K - int(better[j].sum())) for j in range(K)]
    return out, P


def percentile(boot: np.ndarray, confidence: float) -> list[tuple[float, float] | None]:
    """Each column's percentile interval (None for a column without enough finite values)."""
    out = []
    a = (1 - confidence) / 2
    for col in boot.T:
        v = col[np.isfinite(col)]
        out.append((float(np.quantile(v, a)), float(np.quantile(v, 1 - a))) if v.size >= 2 else None)
    return out


__all__ = ["Units", "unit_sums", "joint_bootstrap", "pair_differences", "paired_ar", "paired_bootstrap",
           "rank_sets", "percentile", "count_extreme"]  # fmt: skip
