"""Optimizer instability (Clark, Dyer, Lavie & Smith 2011): statistics over several optimizer runs.

- ``s_test``: sample standard deviation of the runs' corpus scores on the test set (MultEval's s_opt);
- ``s_sel``: per run, the standard deviation of the corpus score over bootstrap resamples of the test
  segments, averaged over runs (the variance due to test-set selection);
- ``s_dev``: sample standard deviation of the runs' corpus scores on a development set;
- the median run of each system (by score, respecting whether higher is better);
- stratified approximate randomization (section 4.2).

Stratified approximate randomization. For every segment, the outputs of the ``n_a`` runs of system A
and the ``n_b`` runs of system B are exchangeable under the null hypothesis. A shuffle re-partitions
each segment's ``n_a + n_b`` outputs at random into a group of ``n_a`` and a group of ``n_b``: a true
permutation, every subset of size ``n_a`` equally likely. (MultEval swaps items in a way that
duplicates and drops outputs when there are three or more runs.) The statistic is the difference of
the corpus scores of the two groups' pooled statistics, as for the observed systems (all runs of a
system pooled). Unequal numbers of runs are handled exactly this way, with groups of the systems'
own sizes: the partition is still a permutation of exchangeable items, so the test stays exact; no run
is dropped. p = (c + 1) / (R + 1), ties counted.

Randomness: the re-partition of segment i in shuffle r is drawn in fixed blocks of shuffles, block b
from ``SeedSequence(seed, spawn_key=(3, 1000 * (n_a + n_b) + n_a, b))``, so results do not depend on chunk
sizes, and all pairs and metrics with the same run counts share one stream (one matrix product).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from mtsig.resample import DEFAULT_CHUNK_BYTES, DEFAULT_SEED, block_size
from mtsig.stats.paired import _check_alternative, _count_extreme

_MAX_TABLE = 50_000


def _subset_table(m: int, k: int) -> np.ndarray | None:
    """All subsets of size k of m items as 0/1 rows, when there are few enough of them."""
    if math.comb(m, k) > _MAX_TABLE:
        return None
    table = np.zeros((math.comb(m, k), m), dtype=np.uint8)
    for row, combo in enumerate(itertools.combinations(range(m), k)):
        table[row, list(combo)] = 1
    return table


def partitions(
    n_segments: int, m: int, k: int, n_resamples: int, seed: int, key: int, chunk_bytes: int, dtype=np.float32
):
    """Yield membership masks ``(r, N * m)``: 1 where item j of segment i goes to the first group."""
    N = n_segments
    B = block_size(N * m)
    per_chunk = max(1, chunk_bytes // (np.dtype(dtype).itemsize * N * m * B)) * B
    table = _subset_table(m, k)
    done, b = 0, 0
    while done < n_resamples:
        rows = min(per_chunk, n_resamples - done)
        out = np.empty((rows, N, m), dtype=dtype)
        got = 0
        while got < rows:
            size = min(B, n_resamples - b * B)
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(3, key, b))))
            if table is not None:
                out[got : got + size] = table[rng.integers(0, table.shape[0], size=(size, N))]
            else:
                ranks = np.argsort(rng.random((size, N, m)), axis=-1)
                out[got : got + size] = ranks < k
            got += size
            b += 1
        done += rows
        yield out.reshape(rows, N * m)


def stratified_ar_counts(
    stats: dict[Any, np.ndarray],
    metric,
    pairs: list[tuple[Any, Any]],
    n_resamples: int = 10_000,
    seed: int = DEFAULT_SEED,
    alternative: str = "two-sided",
    progress: Callable[[int], None] | None = None,
    chunk_bytes: int | None = None,
) -> dict[tuple[Any, Any], int]:
    """Stratified approximate randomization for each pair; ``stats[name]`` is ``(n_runs, N, d)``."""
    res = stratified_ar_many(
        {(a, b): (metric, stats[a], stats[b]) for a, b in pairs}, n_resamples, seed, alternative, progress, chunk_bytes
    )
    return {(a, b): res[(a, b)] for a, b in pairs}


def stratified_ar_many(
    items: dict[Any, tuple[Any, np.ndarray, np.ndarray]],
    n_resamples: int = 10_000,
    seed: int = DEFAULT_SEED,
    alternative: str = "two-sided",
    progress: Callable[[int], None] | None = None,
    chunk_bytes: int | None = None,
) -> dict[Any, int]:
    """Stratified approximate randomization for many ``key -> (metric, A (n_a, N, d), B (n_b, N, d))``.

    Items with the same run counts share one stream of partitions (one matrix product per chunk for all
    their pairs and metrics), drawn from blocks keyed by the run counts, so each item's result does not
    depend on which other items are tested with it.
    """
    _check_alternative(alternative)
    groups: dict[tuple[int, int], list[Any]] = {}
    for key, (_, A, B) in items.items():
        groups.setdefault((A.shape[0], B.shape[0]), []).append(key)
    counts: dict[Any, int] = {}
    for (na, nb), keys in groups.items():
        m = na + nb
        N = items[keys[0]][1].shape[1]
        flats, totals, observed = [], [], []
        for key in keys:
            metric, A, B = items[key]
            X = np.concatenate([A, B], axis=0)  # (m, N, d)
            flat = np.ascontiguousarray(X.transpose(1, 0, 2).reshape(N * m, X.shape[2]), dtype=np.float64)
            flats.append(flat)
            totals.append(flat.sum(axis=0))
            observed.append(float(metric.score(B.sum(axis=(0, 1))) - metric.score(A.sum(axis=(0, 1)))))
            counts[key] = 0
        S = np.hstack(flats)
        exact32 = np.array_equal(S, np.round(S)) and np.abs(S).sum(axis=0).max(initial=0) < 2**24
        dtype = np.float32 if exact32 else np.float64
        S = S.astype(dtype)
        cuts = np.cumsum([f.shape[1] for f in flats])[:-1]
        stream = partitions(N, m, na, n_resamples, seed, m * 1000 + na, chunk_bytes or DEFAULT_CHUNK_BYTES, dtype)
        for W in stream:
            parts = np.split((W @ S).astype(np.float64), cuts, axis=1)
            for key, ga, tot, obs in zip(keys, parts, totals, observed):
                metric = items[key][0]
                null = metric.score(tot - ga) - metric.score(ga)
                counts[key] += _count_extreme(null, obs, alternative)
            if progress is not None:
                progress(W.shape[0])
    return counts


def median_run(run_scores: np.ndarray, higher_is_better: bool) -> int:
    """Index of the median run: the middle of the runs ranked best first (the better middle one when
    the number of runs is even)."""
    order = np.argsort(-run_scores if higher_is_better else run_scores, kind="stable")
    return int(order[(len(order) - 1) // 2])
