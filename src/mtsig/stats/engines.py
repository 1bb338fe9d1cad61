"""Resampling engines over many systems at once: one plan, one matrix product per chunk for all of them.

- :func:`bootstrap_many`: bootstrap corpus scores of any number of (metric, statistics) items.
- :func:`ar_counts`: approximate randomization of many pairs under one metric.
- :func:`stratified_ar_many`: stratified approximate randomization over optimizer runs (Clark et al.
  2011, section 4.2). For every segment, the outputs of the ``n_a`` runs of system A and the ``n_b`` runs
  of system B are re-partitioned at random into a group of ``n_a`` and a group of ``n_b`` (a true
  permutation, every subset equally likely; MultEval's shuffle duplicates and drops outputs with three or
  more runs). The statistic is the difference of the corpus scores of the two groups' pooled statistics,
  as for the observed systems (all runs of a system pooled). Unequal run counts use groups of the
  systems' own sizes; no run is dropped. This tests whether the two systems' outputs are exchangeable
  segment by segment (the same system), not whether two different systems are equally good.

Every engine takes a :class:`~mtsig.resample.Resampling` (count, seed, memory budget, progress); with
``keep=True`` the null (or bootstrap) distributions are returned beside the counts, for plots and studies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig.resample import Resampling, resampled_totals
from mtsig.stats.paired import check_alternative, count_extreme


def bootstrap_many(items: dict[Any, tuple[Any, np.ndarray]], resampling: Resampling) -> dict[Any, np.ndarray]:
    """Bootstrap corpus scores of many ``key -> (metric, stats (N, d))`` items from one plan: the same
    resamples for every system, run and metric. ``resampling.n_resamples`` must be set."""
    keys = list(items)
    N = items[keys[0]][1].shape[0]
    plan = resampling.plan("bootstrap", N, resampling.count(0))
    out: dict[Any, list[np.ndarray]] = {k: [] for k in keys}
    progress = resampling.advance("bootstrap", plan.n_resamples)
    for P in resampled_totals(plan, [items[k][1] for k in keys], progress):
        for k, tot in zip(keys, P):
            out[k].append(np.asarray(items[k][0].score(tot), dtype=np.float64))
    return {k: np.concatenate(v) for k, v in out.items()}


def ar_counts(
    stats: dict[str, np.ndarray],
    metric,
    pairs: list[tuple[str, str]],
    resampling: Resampling,
    alternative: str = "two-sided",
    keep: bool = False,
) -> dict[tuple[str, str], Any]:
    """Approximate randomization for many pairs: per pair, how many shuffles were at least as extreme
    (with ``keep``: ``(count, null distribution)``)."""
    check_alternative(alternative)
    names = list(stats)
    N = next(iter(stats.values())).shape[0]
    plan = resampling.plan("randomization", N, resampling.count(0))
    totals = {n: stats[n].sum(axis=0) for n in names}
    observed = {p: float(metric.score(totals[p[1]]) - metric.score(totals[p[0]])) for p in pairs}
    counts = dict.fromkeys(pairs, 0)
    nulls: dict[tuple[str, str], list[np.ndarray]] = {p: [] for p in pairs}
    progress = resampling.advance(f"{metric.name}: randomization", plan.n_resamples)
    for P in resampled_totals(plan, [stats[n] for n in names], progress):
        Pn = dict(zip(names, P))
        for a, b in pairs:
            move = Pn[b] - Pn[a]  # W @ (B - A)
            null = metric.score(totals[b] - move) - metric.score(totals[a] + move)
            counts[(a, b)] += count_extreme(null, observed[(a, b)], alternative)
            if keep:
                nulls[(a, b)].append(np.asarray(null, dtype=np.float64))
    if keep:
        return {p: (counts[p], np.concatenate(nulls[p])) for p in pairs}
    return counts


def _flatten_runs(metric, A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, float]:
    """Both systems' runs as one ``(N * m, d)`` array (segment-major) and the observed difference."""
    X = np.concatenate([A, B], axis=0)  # (m, N, d)
    N, m = X.shape[1], X.shape[0]
    flat = np.ascontiguousarray(X.transpose(1, 0, 2).reshape(N * m, X.shape[2]), dtype=np.float64)
    observed = float(metric.score(B.sum(axis=(0, 1))) - metric.score(A.sum(axis=(0, 1))))
    return flat, observed


def stratified_ar_many(
    items: dict[Any, tuple[Any, np.ndarray, np.ndarray]],
    resampling: Resampling,
    alternative: str = "two-sided",
    keep: bool = False,
) -> dict[Any, Any]:
    """Stratified approximate randomization for many ``key -> (metric, A (n_a, N, d), B (n_b, N, d))``.

    Items with the same run counts share one plan (one matrix product per chunk for all their pairs and
    metrics), whose blocks are keyed by the run counts, so each item's result does not depend on which
    other items are tested with it. Returns counts (with ``keep``: ``(count, null distribution)``).
    """
    check_alternative(alternative)
    groups: dict[tuple[int, int], list[Any]] = {}
    for key, (_, A, B) in items.items():
        groups.setdefault((A.shape[0], B.shape[0]), []).append(key)
    out: dict[Any, Any] = {}
    for (na, nb), keys in groups.items():
        N = items[keys[0]][1].shape[1]
        flats, observed = zip(*(_flatten_runs(*items[k]) for k in keys))
        totals = [f.sum(axis=0) for f in flats]
        counts = dict.fromkeys(keys, 0)
        nulls: dict[Any, list[np.ndarray]] = {k: [] for k in keys}
        plan = resampling.plan("stratified", N, resampling.count(0), groups=(na + nb, na))
        progress = resampling.advance("stratified randomization", plan.n_resamples)
        for parts in resampled_totals(plan, list(flats), progress):
            for key, ga, tot, obs in zip(keys, parts, totals, observed):
                metric = items[key][0]
                null = metric.score(tot - ga) - metric.score(ga)
                counts[key] += count_extreme(null, obs, alternative)
                if keep:
                    nulls[key].append(np.asarray(null, dtype=np.float64))
        out.update({k: (counts[k], np.concatenate(nulls[k])) if keep else counts[k] for k in keys})
    return out
