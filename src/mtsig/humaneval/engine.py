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
from mtsig.stats.pvalues import count_extreme


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


#: floats of a block of paired differences (units x pairs) held at once (32 MB)
#: the most floats of one (resamples x pairs) product of the paired tests (16M: 128 MB)
PRODUCT_FLOATS = 1 << 24
PAIR_BLOCK_FLOATS = 2**22


def _block_differences(h: HumanScores, units: Units, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The per-unit sums of ``x_a - x_b`` over the segments both were judged on (units x pairs) and their counts."""
    X = h.scores
    J = h.judged
    both = J[a] & J[b]  # (pairs, N)
    d = np.where(both, np.nan_to_num(X[a]) - np.nan_to_num(X[b]), 0.0)
    if units.kind == "segment":
        D = np.ascontiguousarray(d.T)
    else:
        D = np.zeros((len(units.labels), len(a)))
        np.add.at(D, units.of_segment, d.T)  # each column summed in segment order, as one pair alone
    return D, both.sum(axis=1).astype(np.int64)


def pair_differences(h: HumanScores, units: Units, pairs: list[tuple[int, int]]) -> PairData:
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    D, n = _block_differences(h, units, a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        obs = np.where(n > 0, D.sum(axis=0) / np.maximum(n, 1), np.nan)
    return PairData(D, n, obs)


class PairTests:
    """The paired tests of many pairs without the (units x pairs) matrix of differences: pairs in blocks of
    :data:`PAIR_BLOCK_FLOATS`, every block from the same resamples (the plan is drawn again per block from its
    seed), or, when every system was judged on the same segments, from the systems' unit sums alone
    (``W @ (x_a - x_b) = W @ x_a - W @ x_b``: one product per chunk for all pairs).

    ``pairs`` ``(P, 2)`` system indices; ``n_common`` and ``observed`` (the mean difference over the common
    segments) per pair."""

    def __init__(self, h: HumanScores, units: Units, pairs: np.ndarray):
        self.h, self.units = h, units
        self.pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        P = len(self.pairs)
        self.block = max(1, PAIR_BLOCK_FLOATS // max(1, len(units.labels)))
        used = np.unique(self.pairs) if P else np.zeros(0, dtype=np.int64)
        J = h.judged[used]
        #: every system of the pairs judged on the same segments: the separable path
        self.separable = bool(P >= 64 and len(used) and np.all(J == J[:1]))
        n = np.empty(P, dtype=np.int64)
        totals = np.empty(P)
        for lo, hi, D, nb in self._blocks():
            n[lo:hi] = nb
            totals[lo:hi] = D.sum(axis=0)
        self.n_common, self.totals = n, totals
        with np.errstate(invalid="ignore", divide="ignore"):
            self.observed = np.where(n > 0, totals / np.maximum(n, 1), np.nan)

    def _blocks(self):
        for lo in range(0, len(self.pairs), self.block):
            hi = min(lo + self.block, len(self.pairs))
            D, n = _block_differences(self.h, self.units, self.pairs[lo:hi, 0], self.pairs[lo:hi, 1])
            yield lo, hi, D, n

    def subset(self, keep: np.ndarray) -> PairTests:
        out = object.__new__(PairTests)
        out.__dict__.update(self.__dict__)
        out.pairs, out.n_common, out.totals = self.pairs[keep], self.n_common[keep], self.totals[keep]
        out.observed = self.observed[keep]
        out.separable = self.separable and len(out.pairs) >= 64
        return out

    def _products(self, resampling: Resampling, kind: str, R: int, label: str):
        """``(lo, hi, (W @ D).T)`` (pairs x resamples, C order) for each block of pairs and each chunk of the plan,
        with progress in resamples; no product above :data:`PRODUCT_FLOATS` floats."""
        U = len(self.units.labels)
        advance = resampling.advance(label, R * max(1, -(-len(self.pairs) // self.block)) if not self.separable
                                     else R)  # fmt: skip
        if self.separable:
            S = self.units.sums  # (U, K): each system's sum per unit over the (shared) judged segments
            ST = np.ascontiguousarray(S.T)  # (K, U)
            for W in resampling.plan(kind, U, R).chunks():
                WST = ST @ W.T  # (K, rows): a system's row is contiguous, so gathering pairs' rows is cheap
                # pairs in blocks small enough that a block's (pairs x resamples) product stays within budget
                block = max(1, min(self.block, PRODUCT_FLOATS // max(1, len(W))))
                for lo in range(0, len(self.pairs), block):
                    hi = min(lo + block, len(self.pairs))
                    yield lo, hi, WST[self.pairs[lo:hi, 0]] - WST[self.pairs[lo:hi, 1]]
                if advance:
                    advance(len(W))
            return
        for lo, hi, D, _ in self._blocks():
            rows = max(1, PRODUCT_FLOATS // max(1, D.shape[1]))  # resamples per product, within budget
            DT = np.ascontiguousarray(D.T)
            for W in resampling.plan(kind, U, R).chunks():
                for r0 in range(0, len(W), rows):
                    yield lo, hi, DT @ W[r0 : r0 + rows].T
                if advance:
                    advance(len(W))

    def ar(self, resampling: Resampling, R: int) -> np.ndarray:
        """Two-sided p-values by approximate randomization (each unit's paired difference keeps or flips its sign
        with probability 1/2): ``(c + 1) / (R + 1)`` with ties counted; 1 for identical systems."""
        total = self.totals
        cut = np.abs(total) - 1e-12 * np.maximum(1.0, np.abs(total))
        counts = np.zeros(len(self.pairs), dtype=np.int64)
        # a swapped unit's difference changes sign: T = total - 2 W @ d, and |T| >= cut exactly when W @ d lies at
        # or below (total - cut) / 2 or at or above (total + cut) / 2 (two comparisons, no temporary T)
        low, high = (total - cut) / 2, (total + cut) / 2
        every = cut <= 0  # identical systems: every resample is as extreme (counted once: below +inf, never above)
        low[every], high[every] = np.inf, np.inf
        for lo, hi, DW in self._products(resampling, "randomization", R, "randomization of the pairs"):
            counts[lo:hi] += np.count_nonzero(DW <= low[lo:hi, None], axis=1)
            counts[lo:hi] += np.count_nonzero(DW >= high[lo:hi, None], axis=1)
        return (counts + 1) / (R + 1)

    def bootstrap(self, resampling: Resampling, R: int) -> np.ndarray:
        """Koehn's paired bootstrap (two-sided: twice the share of resamples the worse system wins or ties, at
        most 1) on the units' paired differences."""
        le = np.zeros(len(self.pairs), dtype=np.int64)
        ge = np.zeros(len(self.pairs), dtype=np.int64)
        for lo, hi, DW in self._products(resampling, "bootstrap", R, "paired bootstrap of the pairs"):
            le[lo:hi] += np.count_nonzero(DW <= 0, axis=1)
            ge[lo:hi] += np.count_nonzero(DW >= 0, axis=1)
        return np.minimum(1.0, 2 * (np.minimum(le, ge) + 1) / (R + 1))


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
    le = np.zeros(pd.D.shape[1], dtype=np.int64)
    ge = np.zeros(pd.D.shape[1], dtype=np.int64)
    for W in resampling.plan("bootstrap", pd.D.shape[0], R).chunks():
        B = W @ pd.D
        le += np.count_nonzero(B <= 0, axis=0)
        ge += np.count_nonzero(B >= 0, axis=0)
    return np.minimum(1.0, 2 * (np.minimum(le, ge) + 1) / (R + 1))


def rank_sets(boot: np.ndarray, scores: np.ndarray, confidence: float, resampling: Resampling | None = None,
              jobs: int = 1) -> tuple[list[tuple[int, int]], np.ndarray]:  # fmt: skip
    """Simultaneous rank sets (1 = best) of every system, and the ``(K, K)`` matrix of step-down max-T adjusted
    p-values of "row is better than column" (the ordered pairs' one-sided hypotheses, all at once).

    A system's set runs from 1 + the systems found better than it to K - the systems found worse; with
    probability at least ``confidence``, no ordered pair is decided wrongly, so every true rank lies in its set
    simultaneously (ties in the true scores share the best rank among them).

    The same numbers as :func:`mtsig.stats.multiple.maxt` over the matrix of every ordered pair's bootstrap
    differences, computed without that matrix (K(K-1) columns): pairs' scales in blocks, then the step-down
    maxima over a few bootstrap rows at a time, so memory stays bounded for a thousand systems."""
    K = len(scores)
    P = np.ones((K, K))
    finite = np.all(np.isfinite(boot), axis=1)
    B = boot[finite]
    if K < 2 or len(B) < 2:
        return [(1, K)] * K, P
    R = len(B)
    jj, kk = np.nonzero(~np.eye(K, dtype=bool))  # ordered pairs (j, k), j != k, row-major as before
    n = jj.size
    mean, sd = np.empty(n), np.empty(n)
    step = max(1, PAIR_BLOCK_FLOATS // R)
    for lo in range(0, n, step):
        D = B[:, jj[lo : lo + step]] - B[:, kk[lo : lo + step]]
        mean[lo : lo + step] = D.mean(axis=0)
        sd[lo : lo + step] = D.std(axis=0, ddof=1)
    live = sd > 0
    scale = np.where(live, sd, 1.0)
    obs = scores[jj] - scores[kk]
    t = np.where(live, obs / scale, -np.inf)
    cut = t - np.abs(t) * 1e-12 - 1e-15  # at least as extreme, ties counted
    order = np.argsort(-t, kind="stable")
    oj, ok, om, os_, olive = jj[order], kk[order], mean[order], scale[order], live[order]
    rows = max(1, PAIR_BLOCK_FLOATS // n)
    dead = ~olive

    order_arrays = (oj, ok, om, os_, dead, cut[order])

    def counts(span: tuple[int, int], advance=None) -> np.ndarray:
        return _step_down_counts(B, order_arrays, span, rows, advance)

    from mtsig.executor import ProcessExecutor, start_method

    if jobs > 1 and R >= 2 * jobs and n * R >= 50_000_000 and start_method() == "fork":
        cuts = np.linspace(0, R, 4 * jobs + 1).astype(np.int64)  # the rows split; the counts add up the same
        spans = [(int(a), int(b)) for a, b in zip(cuts, cuts[1:]) if b > a]
        prog = resampling.advance(f"rank sets (max-T over {n:,} ordered pairs) in {jobs} processes",
                                  len(spans)) if resampling else None  # fmt: skip
        down = np.sum(ProcessExecutor(jobs).map(counts, spans, prog), axis=0)
    else:
        advance = resampling.advance(f"rank sets (max-T over {n:,} ordered pairs)", R) if resampling else None
        down = counts((0, R), advance)
    down = np.where(olive, down, R)
    p_down = np.empty(n)
    p_down[order] = np.minimum(1.0, np.maximum.accumulate((down + 1) / (R + 1)))
    P[jj, kk] = p_down
    better = P <= 1 - confidence  # better[j, k]: j is found better than k
    out = [(1 + int(better[:, j].sum()), K - int(better[j].sum())) for j in range(K)]
    return out, P


def _step_down_counts(B: np.ndarray, ordered: tuple, span: tuple[int, int], rows: int, advance=None) -> np.ndarray:
    """Rank sets' step-down counts over bootstrap rows span[0] .. span[1] of ``B``: per ordered pair (in the order
    of their observed t), how many rows' maximum null t over the pairs ranked at or below it reaches its cut.
    ``ordered``: the pairs' (j, k) indices, null means and scales, dead mask and cuts, in that order."""
    oj, ok, om, os_, dead, ocut = ordered
    down = np.zeros(len(oj), dtype=np.int64)
    for lo in range(span[0], span[1], rows):
        Bc = B[lo : min(lo + rows, span[1])]
        if advance:
            advance(len(Bc))
        null = np.empty((len(Bc), len(oj)))
        for r, b in enumerate(Bc):  # a row at a time: 1-D gathers are several times faster than 2-D ones
            x = null[r]
            np.take(b, oj, out=x)
            x -= np.take(b, ok)
            x -= om
            x /= os_
        null[:, dead] = -np.inf
        tail = np.maximum.accumulate(null[:, ::-1], axis=1)[:, ::-1]  # max over the pairs ranked j and below
        down += np.count_nonzero(tail >= ocut, axis=0)
    return down


def percentile(boot: np.ndarray, confidence: float) -> list[tuple[float, float] | None]:
    """Each column's percentile interval (None for a column without enough finite values)."""
    out = []
    a = (1 - confidence) / 2
    for col in boot.T:
        v = col[np.isfinite(col)]
        out.append((float(np.quantile(v, a)), float(np.quantile(v, 1 - a))) if v.size >= 2 else None)
    return out


__all__ = ["PairTests", "Units", "unit_sums", "joint_bootstrap", "pair_differences", "paired_ar",
           "paired_bootstrap", "rank_sets", "percentile", "count_extreme"]  # fmt: skip
