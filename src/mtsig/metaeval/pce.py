"""Soft pairwise accuracy (pce, Thompson et al. 2024) under PERM-BOTH: the one engine behind ``meta --task`` (WMT24
and WMT25's system-level task) and ``meta --level system --statistic spa``.

A metric's pce compares, for every pair of systems, the p-value of a paired permutation test on its segment scores
with the humans' (:func:`~mtsig.metaeval.core.permutation_pvalues`: 1,000 sign vectors from seed 4; systems i < j
count a permutation when ``Y_i - Y_j <= tol / 2``, Y the sums over the segments whose sign it flips). PERM-BOTH swaps
the two metrics' z-scored scores by masks the caller gives (single (system, segment) entries in the task sets, as
mt-metrics-eval does; a system's whole row in ``meta``), and every hybrid needs those counts anew.

A hybrid's sums are metric b's plus the masked entries' products, so the engine takes **one product per metric**
(``W = (mask x z) F'``, for every metric of the pair list at once) and a compiled kernel (``mtsig._meta.pce_block``)
counts both hybrids' permutations for every pair of metrics and draw: ``Y_a = (V_b + W_a) - W_b``, ``Y_b = (V_a +
W_b) - W_a``, in float64 with the value path's tolerance, so a hybrid's pce is the value path's on that hybrid
(held to it in ``tests/meta/test_pce_kernel.py``). :func:`pce_block` is the kernel's numpy reference (the same
numbers, bit for bit) and runs where it is not built.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mtsig._compiled import KERNEL_THREADS
from mtsig.metaeval.core import permutation_flips

#: permutations inside soft pairwise accuracy (mt-metrics-eval's pce: 1,000 from seed 4)
PCE_PERMUTATIONS = 1000
#: the most bytes of one pass's masked sums W (metrics x draws x systems x permutations, float64)
PASS_BYTES = 2**26


class Engine:
    """pce's draws for metrics' z-scores ``Z`` (K, S, N) against the humans' p-values ``ph`` (S, S): the flips F'
    (N, P) (1 where a permutation flips the segment's sign) and ``V = Z F'`` (K, S, P), each system's sum over the
    flipped segments, made once."""

    def __init__(self, Z: np.ndarray, ph: np.ndarray):
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        K, S, N = self.Z.shape
        self.ph = np.ascontiguousarray(ph, dtype=np.float64)
        self.FT = np.ascontiguousarray(permutation_flips(N, PCE_PERMUTATIONS).T, dtype=np.float64)
        self.V = np.ascontiguousarray(self.Z @ self.FT)
        top = np.abs(self.Z).reshape(K, -1).max(axis=1, initial=0.0) if self.Z.size else np.zeros(K)
        #: each metric's share of a pair's tolerance (see :meth:`tolerance`)
        self.top = N * top * 2.0**-47

    def tolerance(self, pairs: np.ndarray) -> np.ndarray:
        """Each pair's tolerance on ``Y_i - Y_j``: the value path's ``n * max|x| * 2^-46``, halved, with the larger
        of the two metrics' largest |z|: far above the rounding of the sums in any order (about ``n * max|x| *
        2^-52``), far below a difference of scores."""
        return np.ascontiguousarray(np.maximum(self.top[pairs[:, 0]], self.top[pairs[:, 1]]))

    def draws(self, pairs: np.ndarray, rows: Callable[[int, int], np.ndarray], r0: int, r1: int) -> np.ndarray:
        """Draws ``r0:r1`` of pce(hybrid a) - pce(hybrid b) for every pair (a, b) (``pairs``, int64 (Q, 2)):
        (Q, r1 - r0). ``rows(lo, hi)``: the draws' masks, bool (hi - lo, S N), 1 where hybrid a takes metric a's
        entry. Per pass, the masked sums W of every metric (one product per metric and system), then the kernel."""
        K, S, N = self.Z.shape
        P = self.FT.shape[1]
        tol = self.tolerance(pairs)
        out = np.empty((pairs.shape[0], r1 - r0))
        step = max(1, PASS_BYTES // max(1, K * S * P * 8))
        for lo in range(r0, r1, step):
            hi = min(r1, lo + step)
            M = rows(lo, hi).reshape(hi - lo, S, N)
            W = np.empty((K, hi - lo, S, P))
            for s in range(S):
                X = M[None, :, s, :] * self.Z[:, None, s, :]  # (K, R, N): each metric's entries the masks select
                W[:, :, s, :] = (X.reshape(-1, N) @ self.FT).reshape(K, hi - lo, P)
            out[:, lo - r0 : hi - r0] = kernel(self.V, W, pairs, tol, self.ph)
        return out

    def deltas(self, pairs: np.ndarray) -> np.ndarray:
        """The observed pce(a) - pce(b) on the draws' footing (a mask that takes every entry from a)."""
        return kernel(self.V, self.V[:, None], pairs, self.tolerance(pairs), self.ph)[:, 0]


def pce_block(V: np.ndarray, W: np.ndarray, pairs: np.ndarray, tol: np.ndarray, ph: np.ndarray,
              out: np.ndarray) -> None:  # fmt: skip
    """The numpy reference of the compiled ``mtsig._meta.pce_block`` (the same numbers, bit for bit): for each pair
    (a, b) of metrics and draw r, hybrid a's sums ``(V[b] + W[a, r]) - W[b, r]``, hybrid b's ``(V[a] + W[b, r]) -
    W[a, r]``; in each, systems i < j's p-value is the share of permutations with ``Y_i - Y_j <= tol``; pce is
    ``1 - sum |ph - p| / n`` (summed one term at a time, row by row); ``out[q, r]`` = pce(a) - pce(b)."""
    S, P = V.shape[1], V.shape[2]
    iu = np.triu_indices(S, 1)
    n = iu[0].size

    def pce(Y: np.ndarray, t: float) -> float:
        cnt = (Y[iu[0]] - Y[iu[1]] <= t).sum(axis=1)
        return 1.0 - float(np.cumsum(np.abs(ph[iu] - cnt / P))[-1]) / n

    for q, (a, b) in enumerate(pairs):
        for r in range(W.shape[1]):
            ya = (V[b] + W[a, r]) - W[b, r]
            yb = (V[a] + W[b, r]) - W[a, r]
            out[q, r] = pce(ya, tol[q]) - pce(yb, tol[q]) if n else float("nan")


def kernel(V: np.ndarray, W: np.ndarray, pairs: np.ndarray, tol: np.ndarray, ph: np.ndarray) -> np.ndarray:
    """:func:`pce_block` through the compiled kernel where it is built (the pairs split over :data:`KERNEL_THREADS`
    threads: the kernel releases the GIL), through numpy elsewhere."""
    from mtsig._compiled import load

    out = np.empty((pairs.shape[0], W.shape[1]))
    mod = load("_meta")
    fn = mod.pce_block if mod is not None else pce_block
    cuts = np.linspace(0, pairs.shape[0], min(KERNEL_THREADS, max(1, pairs.shape[0])) + 1).astype(int)
    parts = [(lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo]

    def part(c: tuple[int, int]) -> None:
        lo, hi = c
        fn(V, W, pairs[lo:hi], tol[lo:hi], ph, out[lo:hi])

    if mod is not None and len(parts) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(parts)) as pool:
            list(pool.map(part, parts))
    else:
        for c in parts:
            part(c)
    return out


__all__ = ["PCE_PERMUTATIONS", "Engine", "kernel", "pce_block"]
