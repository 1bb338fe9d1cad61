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

from mtsig.errors import InputError
from mtsig.resample import Resampling, resampled_columns, resampled_totals
from mtsig.stats.pvalues import check_alternative, count_extreme


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
    stats: dict[Any, np.ndarray],
    metric,
    pairs: list[tuple[Any, Any]],
    resampling: Resampling,
    alternative: str = "two-sided",
    keep: bool = False,
) -> dict[tuple[Any, Any], Any]:
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
    # W @ (B - A) per pair, or W @ S per system (fewer columns wins); with integer statistics both give the
    # exact integers, so the choice changes no number (fractional ones keep the per-system products)
    by_pair = len(pairs) < len(names) and all(np.array_equal(stats[n], np.round(stats[n])) for n in names)
    arrays = [stats[b] - stats[a] for a, b in pairs] if by_pair else [stats[n] for n in names]
    if not by_pair and not keep:  # many pairs of few systems: every pair of a chunk in a few array operations
        _ar_all_pairs(metric, pairs, names, totals, observed, counts, alternative,
                      resampled_totals(plan, arrays, progress))  # fmt: skip
        return counts
    for P in resampled_totals(plan, arrays, progress):
        Pn = dict(zip(pairs if by_pair else names, P))
        for a, b in pairs:
            move = Pn[(a, b)] if by_pair else Pn[b] - Pn[a]  # W @ (B - A)
            null = metric.score(totals[b] - move) - metric.score(totals[a] + move)
            counts[(a, b)] += count_extreme(null, observed[(a, b)], alternative)
            if keep:
                nulls[(a, b)].append(np.asarray(null, dtype=np.float64))
    if keep:
        return {p: (counts[p], np.concatenate(nulls[p])) for p in pairs}
    return counts


def _ar_all_pairs(metric, pairs, names, totals, observed, counts, alternative, chunks) -> None:  # noqa: PLR0913
    """:func:`ar_counts`' loop over pairs as array operations on blocks of pairs: per pair and shuffle the same
    numbers (``move = W @ B - W @ A``, the scores of the moved totals, the same count of extreme values), the
    metric scoring a block's ``(rows * pairs, d)`` totals in one call instead of one call per pair. Pairs are
    taken by their first system, whose partners are a slice of the systems when they follow it (all pairs)."""
    index = {n: i for i, n in enumerate(names)}
    T = np.stack([totals[n] for n in names])  # (systems, d)
    blocks = []  # (first system, its partners: a slice or an index array, the pairs' positions)
    for first in dict.fromkeys(p[0] for p in pairs):
        at = [j for j, p in enumerate(pairs) if p[0] == first]
        bs = np.array([index[pairs[j][1]] for j in at])
        run = bs.size > 0 and np.array_equal(bs, np.arange(bs[0], bs[0] + bs.size))
        blocks.append((index[first], slice(int(bs[0]), int(bs[0]) + bs.size) if run else bs, np.array(at)))
    obs = np.array([observed[p] for p in pairs])
    found = np.zeros(len(pairs), dtype=np.int64)
    for P in chunks:
        S = np.stack(P, axis=1)  # (rows, systems, d)
        rows, d = S.shape[0], S.shape[2]
        for a, b, where in blocks:
            move = S[:, b] - S[:, a : a + 1]  # (rows, k, d): W @ (B - A) of each pair
            k = move.shape[1]
            tb = (T[b][None] - move).reshape(rows * k, d)
            ta = (T[a][None, None] + move).reshape(rows * k, d)
            null = (np.asarray(metric.score(tb), dtype=np.float64) -
                    np.asarray(metric.score(ta), dtype=np.float64)).reshape(rows, k)  # fmt: skip
            found[where] += _count_columns(null, obs[where], alternative)
    for p, c in zip(pairs, found):
        counts[p] += int(c)


def ar_counts_many(
    items: dict[Any, tuple[Any, dict[str, np.ndarray], str]],
    pairs: list[tuple[str, str]],
    resampling: Resampling,
) -> dict[Any, dict[tuple[str, str], tuple[float, np.ndarray]]]:
    """:func:`ar_counts` (with ``keep``) for many metrics at once, ``key -> (metric, stats by system,
    alternative)``, from one drawing of the shuffles instead of one per metric. The statistics must be whole
    numbers: the products are then exact, so every count and null value equals :func:`ar_counts`'s on the same
    plan (the same seed, segments and resamples)."""
    keys = list(items)
    names = list(next(iter(items.values()))[1])
    N = next(iter(items[keys[0]][1].values())).shape[0]
    plan = resampling.plan("randomization", N, resampling.count(0))
    totals = {k: {n: items[k][1][n].sum(axis=0) for n in names} for k in keys}
    observed = {
        k: {p: float(items[k][0].score(totals[k][p[1]]) - items[k][0].score(totals[k][p[0]])) for p in pairs}
        for k in keys
    }
    counts = {k: dict.fromkeys(pairs, 0) for k in keys}
    nulls: dict[Any, dict] = {k: {p: [] for p in pairs} for k in keys}
    progress = resampling.advance("randomization", plan.n_resamples)
    order = [(k, n) for k in keys for n in names]
    groups = _same_scorer(items)
    where = dict(zip(order, range(len(order))))
    gather: dict = {}  # (group, system) -> the group's columns among the distinct products (the same each chunk)
    for P, index in resampled_columns(plan, [items[k][1][n] for k, n in order], progress):
        for g, group in enumerate(groups):  # metrics scored alike: one call on their stacked totals (same numbers)
            metric, _, alternative = items[group[0]]
            # (rows, M, d): the group's columns gathered from the distinct products (whole numbers, so a
            # difference of two is exact in float32 too, and adding it to the float64 totals is exact)
            Pg = {}
            for n in names:
                if (g, n) not in gather:
                    gather[(g, n)] = np.concatenate([index[where[(k, n)]] for k in group])
                Pg[n] = P[:, gather[(g, n)]].reshape(P.shape[0], len(group), -1)
            Tg = {n: np.stack([totals[k][n] for k in group]) for n in names}
            for a, b in pairs:
                move = Pg[b] - Pg[a]  # W @ (B - A)
                tb, ta = Tg[b], Tg[a]
                null = np.asarray(metric.score(tb - move) - metric.score(ta + move), dtype=np.float64)
                obs = np.array([observed[k][(a, b)] for k in group])
                c = _count_columns(null, obs, alternative)
                for j, k in enumerate(group):
                    counts[k][(a, b)] += int(c[j])
                    nulls[k][(a, b)].append(null[:, j])
    return {k: {p: (counts[k][p], np.concatenate(nulls[k][p])) for p in pairs} for k in keys}


def _same_scorer(items: dict) -> list[list]:
    """The keys of ``items`` grouped by metrics that score alike (same class and configuration, statistics of one
    width, the same alternative), in their order."""
    groups: dict[tuple, list] = {}
    for k, (metric, stats, alternative) in items.items():
        width = next(iter(stats.values())).shape[1]
        sig = (type(metric), repr(sorted(metric.config.items())), repr(vars(metric).get("measure")), width, alternative)
        groups.setdefault(sig, []).append(k)
    return list(groups.values())


def _count_columns(null: np.ndarray, observed: np.ndarray, alternative: str) -> np.ndarray:
    """:func:`count_extreme` of each column of ``null`` against its own observed value."""
    from mtsig.stats.pvalues import tolerance

    t = np.array([tolerance(float(x)) for x in observed])
    if alternative == "two-sided":
        return np.count_nonzero(np.abs(null) >= np.abs(observed) - t, axis=0)
    if alternative == "greater":
        return np.count_nonzero(null >= observed - t, axis=0)
    return np.count_nonzero(null <= observed + t, axis=0)


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


# ---------------------------------------------------------------------------------------------------
# systems with optimizer runs: randomization of the pooled statistics plus run-level variance


def _gradient(metric, totals: np.ndarray) -> np.ndarray:
    """d score / d totals at ``totals`` by central differences (one vectorized call)."""
    d = totals.shape[0]
    h = 1e-6 * np.maximum(1.0, np.abs(totals))
    steps = np.eye(d) * h
    up = np.asarray(metric.score(totals[None, :] + steps), dtype=np.float64)
    down = np.asarray(metric.score(totals[None, :] - steps), dtype=np.float64)
    g = (up - down) / (2 * h)
    return np.where(np.isfinite(g), g, 0.0)


def _contributions(metric, runs: np.ndarray) -> np.ndarray:
    """Each segment's linearized contribution to each run's corpus score, ``(n, N)``: ``g . S_ri`` with ``g``
    the gradient of the score at the runs' mean totals."""
    return runs @ _gradient(metric, runs.sum(axis=1).mean(axis=0))


def _mean_squares(c: np.ndarray) -> tuple[float, float, int]:
    """Two-way analysis of variance of ``c`` (runs x segments, one value per cell): the mean square of runs
    (on the run totals' scale: ``Var(sum_i c_ri)``), ``N`` times the residual (segment-by-run) mean square,
    and the runs' degrees of freedom. Their difference estimates the run-level variance of a run's total."""
    n, N = c.shape
    if n < 2:
        return 0.0, 0.0, 0
    resid = c - c.mean(axis=0, keepdims=True) - c.mean(axis=1, keepdims=True) + c.mean()
    ms_res = float((resid**2).sum()) / ((n - 1) * max(N - 1, 1))
    return float(np.var(c.sum(axis=1), ddof=1)), N * ms_res, n - 1


#: fewer optimizer runs than this on either side: run-level variation cannot be estimated well enough for a
#: calibrated t-based p-value (measured: 2 runs reject 4% at 0.01 under run-level noise), so the exact
#: permutation test over the runs bounds the p-value from below
MIN_RUNS_CALIBRATED = 3


def run_components(metric, A: np.ndarray, B: np.ndarray, paired: bool = False) -> list[tuple[float, float, int]]:
    """The mean-square terms of the run-level variance of the difference of the two systems' mean scores:
    ``[(ms_runs / n, ms_res / n, df), ...]``.

    By default each system is analysed alone (its runs are not paired with the other system's: the result does
    not depend on the order in which runs are listed). With ``paired`` (equal run counts, run j of A and run j of
    B share something, e.g. an optimizer seed) the analysis is done on the per-segment differences of paired
    runs, so that run effects the two systems share cancel.
    """
    na, nb = A.shape[0], B.shape[0]
    if paired:
        if na != nb:
            raise InputError(f"paired runs need the same number of runs on both sides, got {na} and {nb}")
        ms = _mean_squares(_contributions(metric, B) - _contributions(metric, A))
        return [(ms[0] / na, ms[1] / na, ms[2])]
    out = []
    for X in (A, B):
        ms = _mean_squares(_contributions(metric, X))
        out.append((ms[0] / X.shape[0], ms[1] / X.shape[0], ms[2]))
    return out


def runs_variance(v_seg: float, comps: list[tuple[float, float, int]]) -> tuple[float, float, float]:
    """The variance of the difference of pooled scores, its run-level part and Satterthwaite's degrees of freedom.

    ``v_seg``: the segment-level variance (of approximate randomization's shuffled differences, or of the
    bootstrap's). It includes the segment-by-run interaction that also inflates the runs' mean square, so that
    part (``ms_res``, estimated from the residuals on (runs-1)(segments-1) degrees of freedom: precise) is taken
    out of it, not out of the runs' noisy mean square: ``v = max(v_seg - sum ms_res/n, 0) + sum ms_runs/n``, whose
    uncertain part is ``sum ms_runs/n`` alone (n-1 degrees of freedom per system; Satterthwaite's degrees of
    freedom taken at the fewest of them, a conservative bound). Returns ``(v, v_run, df)``;
    ``v_run = sum (ms_runs - ms_res)/n`` is the run-level estimate (it may be negative: runs that agree).
    """
    live = [(r, e, df) for r, e, df in comps if df > 0]
    r_sum, e_sum = sum(r for r, _, _ in live), sum(e for _, e, _ in live)
    v = max(v_seg - e_sum, 0.0) + r_sum
    # Satterthwaite's degrees of freedom with the runs' terms pooled at the fewest degrees of freedom among them (a
    # lower bound of Welch's): with 3 runs each and run effects far from normal, Welch's rejected 2.1% at 0.01
    nu = v * v / (r_sum * r_sum / min(df for _, _, df in live)) if live and r_sum > 0 else float("inf")
    return v, r_sum - e_sum, nu


def runs_half_width(v_seg: float, comps: list[tuple[float, float, int]], tail: float) -> float:
    """The threshold of ``|delta|`` at upper-tail probability ``tail``, component by component (Banerjee's bound
    for a sum of variances estimated on few degrees of freedom): ``sqrt(z^2 base + sum_X t_(df_X)^2 r_X)``, with
    ``base = max(v_seg - sum e_X, 0)`` the precise segment-level part (normal quantile ``z``) and ``r_X`` each
    system's run mean square over its runs (``ms_runs / n``, the t quantile of its own ``n - 1`` degrees of
    freedom). Unlike one t with Satterthwaite's degrees of freedom, this holds its level however the run-level
    variance is split between the two systems (one system's runs carrying it all included: measured, the
    Satterthwaite t rejected 3.2% at 0.01 with 3 runs); the price is a heavier threshold when several terms are
    large."""
    from scipy.special import ndtri, stdtrit  # the quantile functions themselves (scipy.stats' are far slower)

    live = [(r, e, df) for r, e, df in comps if df > 0]
    base = max(v_seg - sum(e for _, e, _ in live), 0.0)
    total = float(ndtri(tail)) ** 2 * base  # the upper quantile is -ndtri(tail): the same square
    for r, _, df in live:
        total += float(stdtrit(df, tail)) ** 2 * r
    return float(np.sqrt(total))


def _runs_tail(delta: float, v_seg: float, comps: list[tuple[float, float, int]]) -> float:
    """The upper-tail probability at which ``runs_half_width`` equals ``|delta|`` (``delta != 0``)."""
    from scipy.optimize import brentq

    target = abs(delta)

    def gap(log_tail: float) -> float:
        return runs_half_width(v_seg, comps, float(np.exp(log_tail))) - target

    lo, hi = np.log(1e-15), np.log(0.5)
    if gap(lo) <= 0:
        return 1e-15
    # at a tail of 1/2 every quantile is 0, so gap(hi) = -|delta| < 0: a root lies in between
    return float(np.exp(brentq(gap, lo, hi, xtol=1e-10, rtol=1e-10)))


def _runs_p(
    delta: float, v_seg: float, comps: list[tuple[float, float, int]], alternative: str
) -> tuple[float, float, float]:
    """p-value of ``delta`` against the component-wise threshold of :func:`runs_half_width` (the smallest level
    at which it rejects); returns ``(p, run variance, fewest degrees of freedom of a run term)``."""
    v_tot, v_run, _ = runs_variance(v_seg, comps)
    dfs = [df for r, _, df in comps if df > 0 and r > 0]
    df_min = float(min(dfs)) if dfs else float("inf")
    if abs(delta) <= 1e-12 or v_tot <= 0:  # identical pooled statistics: p = 1 (not 0.99999999999999)
        return 1.0, v_run, df_min
    tail = _runs_tail(delta, v_seg, comps)
    if alternative == "two-sided":
        p = 2 * tail
    else:
        toward = delta > 0 if alternative == "greater" else delta < 0
        p = tail if toward else 1 - tail
    return float(min(1.0, p)), v_run, df_min


def run_permutation_p(
    metric, A: np.ndarray, B: np.ndarray, alternative: str, paired: bool = False
) -> tuple[float, int]:
    """The exact permutation test over whole runs: every way of dealing the n_a + n_b runs to the two systems
    (paired: every way of swapping paired runs), the difference of the pooled scores of each deal against the
    observed one. Valid whatever the run-level variation; with few runs its p-value cannot be small (2 runs
    each: 6 deals, p >= 1/3). Returns ``(p, deals)``."""
    from itertools import combinations, product

    ta, tb = A.sum(axis=1), B.sum(axis=1)  # run totals (runs, d)
    observed = float(metric.score(tb.sum(axis=0)) - metric.score(ta.sum(axis=0)))
    if paired:
        flips = np.array(list(product((False, True), repeat=ta.shape[0])))
        ga = np.where(flips[:, :, None], tb[None], ta[None]).sum(axis=1)
        gb = np.where(flips[:, :, None], ta[None], tb[None]).sum(axis=1)
    else:
        allruns = np.concatenate([ta, tb])
        total = allruns.sum(axis=0)
        pick = np.array(list(combinations(range(allruns.shape[0]), tb.shape[0])))
        gb = allruns[pick].sum(axis=1)
        ga = total[None] - gb
    null = np.asarray(metric.score(gb), dtype=np.float64) - np.asarray(metric.score(ga), dtype=np.float64)
    if abs(observed) <= 1e-12:
        return 1.0, null.size
    return count_extreme(null, observed, alternative) / null.size, null.size


def runs_ar_many(
    items: dict[Any, tuple[Any, np.ndarray, np.ndarray]],
    resampling: Resampling,
    alternative: str = "two-sided",
    paired: bool = False,
) -> dict[Any, dict[str, Any]]:
    """The test for systems with optimizer runs: the difference of the run-pooled corpus scores, with a null
    variance that adds run-level variance to the segment-level variance of approximate randomization.

    ``items``: ``key -> (metric, A (n_a, N, d), B (n_b, N, d))``. The segment-level variance is that of the
    shuffled differences when each segment's pooled statistics are swapped with probability 1/2 (plain AR
    on the pooled runs, shuffles shared by all items); the run-level variance of the difference of the mean
    scores comes from a runs x segments analysis of variance of the linearized per-segment contributions
    (:func:`run_components`), each system on its own unless ``paired``. The p-value is the level at which the
    component-wise threshold of :func:`runs_half_width` equals ``|delta|``: close to plain AR when the
    segment-level part dominates, a t test on the runs when one system's run variation does. With fewer than
    :data:`MIN_RUNS_CALIBRATED` runs on a side the threshold is not calibrated (run-level variation is
    estimated from one degree of freedom), so the p-value is at least the exact permutation test's over whole
    runs (:func:`run_permutation_p`; at least 1/3 with two runs each). Identical systems get p = 1. Returns
    per item ``{"p", "plain_count", "run_variance", "df", "null"}`` (plain_count: the AR count without the run
    variance; null: the shuffled differences), and ``run_permutation_p``/``run_deals`` when the bound applied.
    """
    by_metric: dict[Any, list[Any]] = {}
    for key, (metric, _, _) in items.items():
        by_metric.setdefault(id(metric), []).append(key)
    out: dict[Any, dict[str, Any]] = {}
    for keys in by_metric.values():
        metric = items[keys[0]][0]
        pooled = {}
        for k in keys:
            _, A, B = items[k]
            pooled[(k, "a")], pooled[(k, "b")] = A.sum(axis=0), B.sum(axis=0)
        pairs = [((k, "a"), (k, "b")) for k in keys]
        res = ar_counts(pooled, metric, pairs, resampling, alternative, keep=True)
        for k, pair in zip(keys, pairs):
            _, A, B = items[k]
            _, null = res[pair]
            observed = float(metric.score(B.sum(axis=(0, 1))) - metric.score(A.sum(axis=(0, 1))))
            comps = run_components(metric, A, B, paired)
            p, v_run, df = _runs_p(observed, float(np.var(null)), comps, alternative)
            plain = count_extreme(null, observed, alternative)
            if all(r == 0 for r, _, _ in comps):  # the runs agree exactly: no run-level term, plain AR itself
                p = (plain + 1) / (null.size + 1)
            out[k] = {"p": p, "plain_count": plain, "run_variance": v_run, "df": df, "null": null}
            if min(A.shape[0], B.shape[0]) < MIN_RUNS_CALIBRATED:  # too few runs for the t: the exact bound
                p_perm, deals = run_permutation_p(metric, A, B, alternative, paired)
                out[k].update(p=max(p, p_perm), run_permutation_p=p_perm, run_deals=deals)
    return out
