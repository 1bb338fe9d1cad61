"""The multiplicity problem (Riezler & Maxwell 2005, section 4.4) and significance clusters.

With k comparisons each run at level alpha_c, the chance of at least one false rejection (the
experimentwise error) is p_e = 1 - (1 - alpha_c)^k. Adjusted p-values control it:

- ``holm`` (default): step-down Bonferroni, controls the family-wise error, never worse than Bonferroni;
- ``bonferroni``: min(1, k p);
- ``sidak``: 1 - (1 - p)^k;
- ``bh``: Benjamini-Hochberg step-up, controls the false discovery rate (not the family-wise error);
- ``none``: no adjustment.

Post-hoc procedures that use the dependence between the comparisons (section 4.4 points to Tukey's test):

- :func:`maxt`: Westfall & Young's max-T over the joint randomization of all systems
  (:class:`~mtsig.resample.PermutationPlan`): a pair's adjusted p-value is the share of resamples whose
  largest pairwise difference (single-step), or largest among the pairs not yet rejected (step-down),
  reaches the pair's observed difference. ``compare --correction maxt`` is the step-down version.
- :func:`tukey_hsd`: Tukey's honestly significant difference on sentence-level scores (segments x systems,
  two-way analysis of variance without replication; the studentized range of the system means).
"""

from __future__ import annotations

import numpy as np

from mtsig.errors import InputError, unknown_name
from mtsig.resample import PermutationPlan
from mtsig.stats.pvalues import check_alternative
from mtsig.stats.pvalues import tolerance as _tol

CORRECTIONS = ("holm", "bonferroni", "sidak", "bh", "maxt", "none")
#: corrections computed from p-values alone (maxt needs the statistics)
P_CORRECTIONS = ("holm", "bonferroni", "sidak", "bh", "none")


def experimentwise_error(alpha: float, k: int) -> float:
    """p_e = 1 - (1 - alpha)^k."""
    return 1.0 - (1.0 - alpha) ** k


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """Adjusted p-values (same order as the input)."""
    if method not in P_CORRECTIONS:
        raise unknown_name("correction", method, P_CORRECTIONS)
    p = np.asarray(pvalues, dtype=np.float64)
    k = p.size
    if k == 0 or method == "none":
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * k)
    if method == "sidak":
        return 1.0 - (1.0 - p) ** k
    order = np.argsort(p, kind="stable")
    ps = p[order]
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (k - np.arange(k)) * ps))
    else:  # bh
        adj = np.minimum.accumulate(k / np.arange(k, 0, -1) * ps[::-1])[::-1]
        adj = np.minimum(1.0, adj)
    out = np.empty(k)
    out[order] = adj
    return out


def clusters(scores: dict[str, float], significant: dict[frozenset, bool], higher_is_better: bool) -> list[list[str]]:
    """Group systems, best first, into clusters that are not separable by significant differences.

    Systems are ordered by score; a boundary is drawn between two neighbours only when every system
    above it is significantly different from every system below it. Systems in one cluster share a
    rank, as in WMT rankings. Needs all pairs to have been tested.
    """
    order = sorted(scores, key=lambda s: scores[s], reverse=higher_is_better)
    out: list[list[str]] = []
    current: list[str] = []
    for i, name in enumerate(order):
        current.append(name)
        if i == len(order) - 1:
            break
        above, below = order[: i + 1], order[i + 1 :]
        if all(significant.get(frozenset((x, y)), False) for x in above for y in below):
            out.append(current)
            current = []
    out.append(current)
    return out


def _oriented(delta: np.ndarray, alternative: str) -> np.ndarray:
    return np.abs(delta) if alternative == "two-sided" else (delta if alternative == "greater" else -delta)


def _components(pairs: list[tuple[int, int]]) -> list[tuple[int, ...]]:
    """Connected components (sorted tuples of system indices) of the graph whose edges are ``pairs``."""
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for a, b in pairs:
        parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for x in list(parent):
        groups.setdefault(root(x), []).append(x)
    return [tuple(sorted(g)) for g in groups.values()]


def maxt(  # noqa: PLR0913 - the statistics, what to test, how, and which versions
    stats: dict[str, np.ndarray],
    metric,
    pairs: list[tuple[str, str]],
    resampling,
    alternative: str = "two-sided",
    step_down: bool = True,
) -> dict[str, np.ndarray]:
    """Max-T adjusted p-values of ``pairs`` (b - a) from joint randomizations of the systems in ``stats``
    (``name -> (N, d)``): ``{"single-step": ..., "step-down": ...}``, each in the order of ``pairs``;
    ``(count + 1) / (R + 1)``, ties counted.

    Single-step: every pair against the largest pairwise difference when all systems are dealt at random.
    Step-down: pairs in decreasing order of their observed difference; the j-th against the largest difference
    among the pairs ranked j and below, with only the systems those pairs tie together dealt among themselves
    (the intersection of the remaining null hypotheses, so a clearly different system does not widen the
    null of the others); adjusted values made monotone in that order. Both reject some pair exactly when the
    largest observed difference reaches the single-step null (their first steps are one computation), so
    ``step_down=False`` (single-step only) suffices to measure the family-wise error."""
    check_alternative(alternative)
    names = list(stats)
    if len(names) > 8:
        raise InputError(f"maxt deals at most 8 systems at a time, got {len(names)}: use holm", param="correction")
    col = {n: i for i, n in enumerate(names)}
    S = np.stack([np.asarray(stats[n], dtype=np.float64) for n in names], axis=1)  # (N, k, d)
    R = resampling.count(10_000)
    idx = [(col[a], col[b]) for a, b in pairs]
    full = np.asarray(metric.score(S.sum(axis=0)), dtype=np.float64)
    obs = _oriented(np.array([full[b] - full[a] for a, b in idx]), alternative)
    order = np.argsort(-obs, kind="stable")
    cut = obs - np.array([_tol(x) for x in obs])  # at least as extreme, with the ties of count_extreme
    cache: dict[tuple[int, ...], np.ndarray] = {}

    def null(rank: np.ndarray) -> np.ndarray:
        """``(R, len(rank))`` null differences of the pairs ``rank``, dealt within their components."""
        comps = _components([idx[i] for i in rank])
        where = {x: (c, c.index(x)) for c in comps for x in c}
        cols = []
        for i in rank:
            a, b = idx[i]
            c = where[a][0]
            if c not in cache:
                mask = sum(1 << x for x in c)
                plan = PermutationPlan(S.shape[0], R, len(c), resampling.seed, (*resampling.stream, mask))
                cache[c] = np.concatenate([np.asarray(metric.score(t), dtype=np.float64) for t in plan.totals(S[:, c])])
            cols.append(cache[c][:, where[b][1]] - cache[c][:, where[a][1]])
        return _oriented(np.stack(cols, axis=1), alternative)

    top = null(order).max(axis=1)
    single = np.array([np.count_nonzero(top >= cut[i]) for i in range(len(idx))])
    if not step_down:
        return {"single-step": (single + 1) / (R + 1)}
    down = np.empty(len(idx), dtype=np.int64)
    for j, i in enumerate(order):
        down[i] = np.count_nonzero(null(order[j:]).max(axis=1) >= cut[i])
    p_down = np.empty(len(idx))
    p_down[order] = np.maximum.accumulate((down[order] + 1) / (R + 1))
    return {"single-step": (single + 1) / (R + 1), "step-down": p_down}


def studentized_ranges(scores: np.ndarray, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, int]:
    """Per pair (column indices) of sentence-level scores ``(N, k)`` (segments x systems), the studentized range
    ``q = |mean_b - mean_a| / sqrt(MSE / N)``, with the residual mean square of the two-way analysis of variance
    without replication, and its degrees of freedom ``(N - 1)(k - 1)``."""
    x = np.asarray(scores, dtype=np.float64)
    N, k = x.shape
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    df = (N - 1) * (k - 1)
    mse = float((resid**2).sum() / df)
    means = x.mean(axis=0)
    diff = np.array([means[b] - means[a] for a, b in pairs])
    q = np.abs(diff) / np.sqrt(mse / N) if mse > 0 else np.where(diff == 0, 0.0, np.inf)
    return q, df


def tukey_hsd(scores: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Tukey's HSD adjusted p-values of ``pairs`` from sentence-level scores ``(N, k)``: the studentized range
    distribution of k means (:func:`studentized_ranges`)."""
    from scipy.stats import studentized_range

    q, df = studentized_ranges(scores, pairs)
    return np.asarray(studentized_range.sf(q, np.shape(scores)[1], df), dtype=np.float64)
