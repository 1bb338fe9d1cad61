"""Exact nulls built from real systems, and how often a test rejects under them.

- :func:`swapped_pairs`: two pseudo-systems from two real ones, each segment's pair of outputs swapped
  with probability 1/2 (Riezler & Maxwell 2005, section 4.3): the two are exchangeable segment by segment.
- :func:`permuted_runs`: two pseudo-systems with runs from the runs of two real ones, each segment's
  outputs re-partitioned at random (the null of stratified randomization over runs).
- :func:`rejection_rate`: the share of replicates a test rejects at alpha, with its binomial interval.
- :func:`shift_abs_p`: Riezler & Maxwell's Fig. 2 exactly as printed (the absolute-value shift), kept to
  measure it: it rejects about twice as often as it should under the null.

Replicate ``r`` draws from its own stream of the study's seed (``SeedSequence(seed, spawn_key=(r,))``),
so any replicate can be recomputed alone and the same seed gives the same figures anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from mtsig.resample import stream_rng
from mtsig.stats.pvalues import count_extreme, p_from_count


def _rng(seed: int, replicate: int) -> np.random.Generator:
    return stream_rng(seed, replicate)


def swapped_pairs(sx: np.ndarray, sy: np.ndarray, n: int, seed: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``n`` pseudo-system pairs ``(a, b)`` of statistics ``(N, d)``: per segment, a takes sx's row and b sy's,
    or the other way round, with probability 1/2."""
    for r in range(n):
        swap = _rng(seed, r).random(len(sx)) < 0.5
        yield np.where(swap[:, None], sy, sx), np.where(swap[:, None], sx, sy)


def permuted_runs(A: np.ndarray, B: np.ndarray, n: int, seed: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``n`` pseudo-system pairs with runs: per segment, the ``n_a + n_b`` outputs of A's and B's runs
    ``(runs, N, d)`` shuffled and split into groups of A's and B's sizes."""
    X = np.concatenate([A, B], axis=0)
    m, N = X.shape[0], X.shape[1]
    for r in range(n):
        perm = np.argsort(_rng(seed, r).random((N, m)), axis=1)
        P = X[perm.T, np.arange(N)[None, :]]
        yield P[: A.shape[0]], P[A.shape[0] :]


def shift_abs_p(boot_delta: np.ndarray, observed: float) -> float:
    """Riezler & Maxwell's Fig. 2 as printed: the absolute bootstrap differences minus their mean,
    compared with the absolute observed difference."""
    a = np.abs(boot_delta)
    return p_from_count(count_extreme(a - a.mean(), abs(observed), "greater"), boot_delta.size)


def binomial_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson interval of a proportion k / n."""
    from scipy import stats as sps

    a = 1 - confidence
    lo = 0.0 if k == 0 else float(sps.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(sps.beta.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


@dataclass(frozen=True)
class RejectionRate:
    rejected: int
    replicates: int
    alpha: float
    #: the 95% Clopper-Pearson interval of the rate
    ci: tuple[float, float]

    @property
    def rate(self) -> float:
        return self.rejected / self.replicates

    def __str__(self) -> str:
        lo, hi = self.ci
        return f"{self.rate:.3f} [{lo:.3f}, {hi:.3f}] ({self.rejected}/{self.replicates} at alpha={self.alpha})"


def rejection_rate(p_values: Callable[[], Iterator[float]] | list[float], alpha: float = 0.05) -> RejectionRate:
    """How many of the p-values are at most ``alpha``, with the 95% Clopper-Pearson interval."""
    ps = list(p_values() if callable(p_values) else p_values)
    k = sum(p <= alpha for p in ps)
    return RejectionRate(k, len(ps), alpha, binomial_interval(k, len(ps)))


# ---------------------------------------------------------------------------------------------------
# nulls for systems with optimizer runs: from two real systems A, B of shape (runs, N, d)


def _swap(mask: np.ndarray, X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = mask[..., None]
    return np.where(m, Y, X), np.where(m, X, Y)


def pair_swapped_runs(A: np.ndarray, B: np.ndarray, n: int, seed: int = 0):
    """Per segment, each run pair (A's run j, B's run j) swapped with probability 1/2, independently."""
    k = min(A.shape[0], B.shape[0])
    for r in range(n):
        mask = _rng(seed, r).random((k, A.shape[1])) < 0.5
        a, b = _swap(mask, A[:k], B[:k])
        yield np.concatenate([a, A[k:]]), np.concatenate([b, B[k:]])


def block_swapped_runs(A: np.ndarray, B: np.ndarray, n: int, seed: int = 0):
    """Per segment, all of A's runs swapped with all of B's with probability 1/2 (two different systems that
    are equally good). Needs equal run counts."""
    for r in range(n):
        mask = _rng(seed, r).random(A.shape[1]) < 0.5
        yield _swap(np.broadcast_to(mask, A.shape[:2]), A, B)


def run_level_runs(A: np.ndarray, B: np.ndarray, n: int, seed: int = 0, a: float = 0.5):
    """Run-level optimizer noise: both pseudo-systems come from one process. Each pseudo-run draws a share
    ``p ~ Beta(a, a)`` and one run of A and one of B as its sources, and takes each segment from A's with
    probability p, else from B's: pseudo-runs differ in quality across the whole test set, as optimizer
    runs do, independently of each other."""
    for r in range(n):
        rng = _rng(seed, r)
        # as many pseudo-runs per side as the side has runs
        yield _quality_runs(rng, A, B, A.shape[0], a), _quality_runs(rng, A, B, B.shape[0], a)


def _quality_runs(rng: np.random.Generator, A: np.ndarray, B: np.ndarray, k: int, a: float) -> np.ndarray:
    """``k`` pseudo-runs that differ in quality: each draws a share ``p ~ Beta(a, a)``, one run of A and one of B,
    and takes each segment from A's with probability p, else from B's."""
    runs = []
    for _ in range(k):
        p = rng.beta(a, a)
        src_a, src_b = A[rng.integers(A.shape[0])], B[rng.integers(B.shape[0])]
        runs.append(np.where((rng.random(int(A.shape[1])) >= p)[:, None], src_b, src_a))
    return np.stack(runs)


def one_sided_run_level_runs(A: np.ndarray, B: np.ndarray, n: int, seed: int = 0, a: float = 0.5):
    """Run-level optimizer noise on one side only: A's pseudo-runs as in :func:`run_level_runs` (each its own
    share ``p ~ Beta(a, a)`` of segments from one run of A, the rest from one run of B, both drawn per pseudo-run);
    B's take each segment from a run drawn anew for that segment (one of A's or one of B's with probability 1/2
    each, then one of that system's runs at random): B's pseudo-runs differ only segment by segment, by chance
    (runs that agree, no run-level variance at all). Both sides have the same expected pooled statistics; all
    the run-level variance is A's, the case where it is estimated from one side's runs alone."""
    both = np.concatenate([A, B])
    for r in range(n):
        rng = _rng(seed, r)
        runs = _quality_runs(rng, A, B, A.shape[0], a)
        agree = []
        for _ in range(B.shape[0]):
            side_b = rng.random(A.shape[1]) < 0.5
            src = np.where(side_b, A.shape[0] + rng.integers(B.shape[0], size=A.shape[1]),
                           rng.integers(A.shape[0], size=A.shape[1]))  # fmt: skip
            agree.append(both[src, np.arange(A.shape[1])])
        yield runs, np.stack(agree)


RUN_NULLS = {
    "repartition": permuted_runs,
    "pair-swap": pair_swapped_runs,
    "block-swap": block_swapped_runs,
    "run-level": run_level_runs,
    "one-sided run-level": one_sided_run_level_runs,
}
