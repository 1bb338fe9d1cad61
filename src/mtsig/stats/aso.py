"""Almost Stochastic Order (Dror, Shlomov & Reichart 2019; del Barrio, Cuesta-Albertos & Matrán 2018) over the
scores of several runs or seeds, as deepsig (Ulmer et al. 2022) computes it, vectorized over bootstrap samples.

For scores of A and B (any numbers of runs), with empirical quantile functions F⁻¹ and G⁻¹ on the grid t = dt,
2dt, ... < 1: the violation ratio ε_W2 = ∫_{F⁻¹(t) < G⁻¹(t)} (G⁻¹ - F⁻¹)² dt / ∫ (G⁻¹ - F⁻¹)² dt (the share of the
squared Wasserstein distance where A is below B; deepsig leaves the grid's first point out of the numerator, and
so does this). Its bootstrap (samples of each system's scores drawn from its empirical distribution) gives σ̂ of
sqrt(nm/(n+m)) (ε* - ε); ε_min = ε_W2 + Φ⁻¹(confidence) σ̂ / sqrt(nm/(n+m)), clipped to [0, 1]: an upper
confidence bound of the violation ratio. A is declared better than B when ε_min < τ (τ = 0.2, the authors'
recommendation; 0.5 is the limit). With a Bonferroni correction over k comparisons the confidence is
1 - (1 - confidence)/k: each bound may fail with probability (1 - confidence)/k, so all k hold together with
probability at least ``confidence``. deepsig 1.2.8 computes ``confidence + (1 - confidence)/k`` instead, which is
the same only at k = 2 (0.951 instead of 0.9989 at k = 45): mtsig uses Bonferroni's level (``deepsig_level=True``
gives deepsig's, for comparisons with its numbers).

With 3-5 seeds ε_min is mostly the σ̂ term: the bootstrap of so few scores is coarse and the bound wide. mtsig says
so in the result's note.

**The decision.** ε_min < τ alone does not hold a level with few seeds: when every run of A lies above B's at each
quantile (probability 1/(n+1) for n against n exchangeable runs), the violation ratio and its bootstrap spread are
both near 0, so no confidence level widens the bound. Under identical run distributions it declared some pair better
in a third or more of families of 5 systems × 5 seeds (docs/guide/runs.md has the table). mtsig's default rule
(``rule="gated"``) declares "better" only when ε_min < τ *and* a permutation test of the two systems' runs rejects
exchangeability at the family's level (Holm over the pairs in :func:`multi_aso`, Bonferroni over
``num_comparisons`` in :func:`aso`). Its statistic is Welch's t of the runs' mean difference, two-sided; every split
of the pooled runs is enumerated when there are at most 20,000, and otherwise ``n_permutations`` random splits are
drawn; its p-value is never below Welch's t-test's own. When the systems' runs are exchangeable (the deep null) the
gate is exact, whatever the runs' distribution; studentized and bounded by Welch's test, it also holds its level
where two systems are equally good on average but their runs spread differently, where an unstudentized statistic
does not (measured: benchmarks/aso_family.py). With n = m = 3 runs the smallest two-sided p-value is 0.1, with 5
and 5 0.0079: such a family can make no claim, and the result says so.
``rule="bound"`` is deepsig's rule (ε_min < τ alone).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtri

from mtsig.errors import InputError
from mtsig.serialize import as_dict

#: the decision threshold the authors recommend
TAU = 0.2
#: the decision rules: ε_min < τ and the permutation gate (mtsig's default), or ε_min < τ alone (deepsig's)
RULES = ("gated", "bound")
#: splits of the pooled runs enumerated exactly up to this many (beyond: random permutations)
MAX_EXACT = 20_000


def _quantiles(sorted_scores: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The empirical quantile function of each row of ``sorted_scores`` (..., n) at ``t``: the value of rank
    ceil(n t) (1-based), clipped to the sample."""
    n = sorted_scores.shape[-1]
    idx = np.clip(np.ceil(n * t).astype(np.int64) - 1, 0, n - 1)
    return np.take(sorted_scores, idx, axis=-1)


def violation_ratio(a: np.ndarray, b: np.ndarray, dt: float = 0.005) -> np.ndarray:
    """ε_W2 of "A is better than B" for each row of score samples ``a`` (..., n) and ``b`` (..., m). The grid
    visits at most n + m - 1 distinct pairs of ranks, so the integrals are sums over those, weighted by how often
    the grid visits each (the numerator without the grid's first point)."""
    n, m = a.shape[-1], b.shape[-1]
    i, j, w = _grid_pairs(n, m, dt)
    w_first = w.copy()
    w_first[0] -= dt  # the first grid point (t = dt) falls on the first pair; deepsig leaves it out of the numerator
    diff = np.sort(b, axis=-1)[..., j] - np.sort(a, axis=-1)[..., i]
    sq = diff**2
    total = np.sum(sq * w, axis=-1)
    part = np.sum(np.where(diff > 0, sq, 0.0) * w_first, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total == 0, 0.5, part / np.where(total == 0, 1.0, total))


def _grid_pairs(n: int, m: int, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (rank in A, rank in B) pairs the grid t = dt, 2dt, ... < 1 visits, with their weights (dt times
    how often each is visited): D is then a sum over at most n + m - 1 terms."""
    t = np.arange(dt, 1, dt)
    i = np.clip(np.ceil(n * t).astype(np.int64) - 1, 0, n - 1)
    j = np.clip(np.ceil(m * t).astype(np.int64) - 1, 0, m - 1)
    key, w = np.unique(i * m + j, return_counts=True)
    return key // m, key % m, w * dt


def welch_t(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Welch's t of the mean difference, A minus B, for each row of ``a`` (..., n) and ``b`` (..., m): the gate's
    statistic (studentized, so that its permutation test holds its level for equal means even where the runs'
    spreads differ; Janssen 1997, Chung & Romano 2013). 0 where both samples are constant and equal, ±inf where
    they are constant and differ."""
    n, m = a.shape[-1], b.shape[-1]
    d = a.mean(axis=-1) - b.mean(axis=-1)
    va = a.var(axis=-1, ddof=1) if n > 1 else np.zeros(a.shape[:-1])
    vb = b.var(axis=-1, ddof=1) if m > 1 else np.zeros(b.shape[:-1])
    se = np.sqrt(va / n + vb / m)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = d / se
        return np.where(se > 0, t, np.where(d == 0, 0.0, np.sign(d) * np.inf))


def _welch_p(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Welch's two-sided t-test p-value per row (Welch-Satterthwaite degrees of freedom; 1 where both samples are
    constant and equal, 0 where constant and different; 1 with fewer than 2 runs on a side, where it says nothing)."""
    from scipy.stats import t as student

    n, m = a.shape[-1], b.shape[-1]
    if n < 2 or m < 2:
        return np.ones(a.shape[:-1])
    va, vb = a.var(axis=-1, ddof=1) / n, b.var(axis=-1, ddof=1) / m
    with np.errstate(invalid="ignore", divide="ignore"):
        df = (va + vb) ** 2 / (va**2 / (n - 1) + vb**2 / (m - 1))
        p = 2 * student.sf(np.abs(welch_t(a, b)), np.where(np.isfinite(df), df, 1.0))
    return np.where(va + vb > 0, p, np.where(welch_t(a, b) == 0, 1.0, 0.0))


def _splits(n: int, m: int, n_permutations: int, seed: int) -> tuple[np.ndarray, bool]:
    """Index sets of A's runs in the pooled n + m: every split when there are at most :data:`MAX_EXACT` (and the
    second element True), otherwise ``n_permutations`` random ones (from ``seed``)."""
    from itertools import combinations
    from math import comb

    N = n + m
    if comb(N, n) <= MAX_EXACT:
        idx = np.fromiter((k for c in combinations(range(N), n) for k in c), dtype=np.int64, count=comb(N, n) * n)
        return idx.reshape(-1, n), True
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n_permutations, N)), axis=1)[:, :n], False


def permutation_p(a, b, *, dt: float = 0.005, n_permutations: int = 9999, seed: int = 12345):
    """The gate's two-sided p-value of "A's and B's runs are exchangeable" with the statistic |t| (Welch's,
    :func:`welch_t`), never below Welch's t-test's own p-value: exact over every split of the pooled runs when there
    are at most :data:`MAX_EXACT` (p = the share of splits with |t*| ≥ |t|, the observed split included), else
    ``(1 + #) / (R + 1)`` over ``n_permutations`` random splits. Returns (p, the number of splits, exact); with
    2-D ``a`` (F, n) and ``b`` (F, m), F independent pairs at once (the same splits for each) and p an array.
    Identical samples give p = 1."""
    a2, b2 = np.atleast_2d(np.asarray(a, dtype=np.float64)), np.atleast_2d(np.asarray(b, dtype=np.float64))
    F, n, m = a2.shape[0], a2.shape[1], b2.shape[1]
    pooled = np.concatenate([a2, b2], axis=1)
    obs = np.abs(welch_t(a2, b2))
    tol = 1e-9 * np.maximum(1.0, obs)  # equal up to rounding: as extreme
    idx, exact = _splits(n, m, n_permutations, seed)
    count = np.zeros(F, dtype=np.int64)
    step = max(1, 4_000_000 // (F * (n + m)))  # bounded memory
    for lo in range(0, len(idx), step):
        part = idx[lo : lo + step]
        inA = np.zeros((len(part), n + m), dtype=bool)
        np.put_along_axis(inA, part, True, axis=1)
        ia = np.nonzero(inA)[1].reshape(len(part), n)
        ib = np.nonzero(~inA)[1].reshape(len(part), m)
        d = np.abs(welch_t(pooled[:, ia], pooled[:, ib]))  # (F, splits)
        count += np.count_nonzero(d >= (obs - tol)[:, None], axis=1)
    total = len(idx)
    p = count / total if exact else (1 + count) / (total + 1)
    # and never below Welch's own t-test: where the runs' spreads differ, the permutation distribution of t is right
    # only asymptotically, and its far tail (Holm's thresholds) came out liberal with 10 runs; the larger of two
    # valid p-values is valid wherever either is
    p = np.maximum(p, _welch_p(a2, b2))
    if np.ndim(a) == 1:
        return float(p[0]), total, exact
    return p, total, exact


def smallest_p(n: int, m: int, n_permutations: int = 9999) -> float:
    """The smallest two-sided p-value the gate can give for n and m runs (2 / C(n+m, n) when enumerated; with equal
    sizes each split and its mirror give the same |D|)."""
    from math import comb

    c = comb(n + m, n)
    if c > MAX_EXACT:
        return 1 / (n_permutations + 1)
    return (2 if n == m else 1) / c


@dataclass(frozen=True, kw_only=True)
class ASOResult:
    """``eps_min`` (small: A is better than B), the violation ratio, σ̂, the permutation gate's p-value and the
    decision: ``better`` is ε_min < τ and, with ``rule="gated"``, the gate's adjusted p-value at most ``alpha``."""

    eps_min: float
    violation_ratio: float
    sigma: float
    tau: float
    #: A is better than B: eps_min < tau (and, gated, p_adjusted <= alpha)
    better: bool = field(init=False)
    confidence: float
    n_a: int
    n_b: int
    n_bootstrap: int
    seed: int
    #: "gated" (mtsig's default) or "bound" (deepsig's: eps_min < tau alone)
    rule: str = "gated"
    #: the gate's two-sided permutation p-value of exchangeable runs (None with rule="bound")
    p_value: float | None = None
    #: p_value corrected for the family (Bonferroni in aso, Holm in multi_aso)
    p_adjusted: float | None = None
    #: the family's error rate the gate holds: 1 - the confidence given (before Bonferroni)
    alpha: float = 0.05
    n_permutations: int = 0
    exact: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        gate = self.rule == "bound" or (self.p_adjusted is not None and self.p_adjusted <= self.alpha)
        object.__setattr__(self, "better", bool(self.eps_min < self.tau and gate))

    to_dict = as_dict


def _check(scores, name: str) -> np.ndarray:
    x = np.asarray(scores, dtype=np.float64).ravel()
    if x.size == 0:
        raise InputError(f"{name}: no scores")
    if not np.all(np.isfinite(x)):
        raise InputError(f"{name}: scores must be finite numbers")
    return x


def ratio_and_sigma(a: np.ndarray, b: np.ndarray, n_bootstrap: int, dt: float, rng: np.random.Generator):
    """The violation ratio and σ̂ of F pairs at once (``a`` (F, n), ``b`` (F, m)): each pair's bootstrap draws
    n_bootstrap samples from each empirical distribution (A's then B's, pair by pair from ``rng``). ε_min at
    confidence c is then clip(vr - σ̂ / sqrt(nm/(n+m)) Φ⁻¹(1 - c), 0, 1)."""
    F, n, m = a.shape[0], a.shape[1], b.shape[1]
    vr = violation_ratio(a, b, dt)
    const = np.sqrt(n * m / (n + m))
    sigma = np.empty(F)
    for f in range(F):
        sa = _quantiles(np.sort(a[f]), rng.random((n_bootstrap, n)))  # draws from each empirical distribution
        sb = _quantiles(np.sort(b[f]), rng.random((n_bootstrap, m)))
        sigma[f] = np.std(const * (violation_ratio(sa, sb, dt) - vr[f]))
    return vr, sigma


def bonferroni_confidence(confidence: float, k: int, deepsig_level: bool = False) -> float:
    """The confidence of each of k bounds so that all hold together with probability at least ``confidence``:
    1 - (1 - confidence)/k (deepsig 1.2.8's ``confidence + (1 - confidence)/k`` with ``deepsig_level``)."""
    if k <= 1:
        return confidence
    return confidence + (1 - confidence) / k if deepsig_level else 1 - (1 - confidence) / k


def aso(scores_a, scores_b, *, confidence: float = 0.95, num_comparisons: int = 1, n_bootstrap: int = 1000,  # noqa: PLR0913
        dt: float = 0.005, tau: float = TAU, seed: int = 12345, deepsig_level: bool = False, rule: str = "gated",
        n_permutations: int = 9999, _gate: tuple[float, int, bool] | None = None) -> ASOResult:  # fmt: skip
    """ε_min of "A is better than B" from the scores of A's and B's runs (seeds), and the decision; see the
    module's docstring. deepsig's ``aso(scores_a, scores_b)`` computes the same ε_min (with its own random draws);
    with ``num_comparisons`` k > 2 the two differ in the confidence level (Bonferroni's here; ``deepsig_level`` for
    deepsig's). ``rule="gated"`` (default) also asks the permutation gate at 1 - ``confidence`` (Bonferroni over
    ``num_comparisons``); ``rule="bound"`` decides on ε_min < τ alone, as deepsig does."""
    a, b = _check(scores_a, "scores_a"), _check(scores_b, "scores_b")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must lie strictly between 0 and 1, got {confidence}", param="confidence")
    if isinstance(num_comparisons, bool) or not isinstance(num_comparisons, int | np.integer) or num_comparisons < 1:
        raise InputError(f"num_comparisons must be a whole number >= 1, got {num_comparisons!r}",
                         param="num_comparisons")  # fmt: skip
    if n_bootstrap < 2 or not 0 < dt < 1:
        raise InputError("n_bootstrap >= 2 and 0 < dt < 1 are needed")
    if rule not in RULES:
        raise InputError(f"rule must be one of {', '.join(RULES)}, got {rule!r}", param="rule")
    if n_permutations < 19:
        raise InputError(f"n_permutations must be at least 19, got {n_permutations}", param="n_permutations")
    conf = bonferroni_confidence(confidence, num_comparisons, deepsig_level)
    vr_, sigma_ = ratio_and_sigma(a[None], b[None], n_bootstrap, dt, np.random.default_rng(seed))
    vr, sigma = float(vr_[0]), float(sigma_[0])
    const = np.sqrt(a.size * b.size / (a.size + b.size))
    eps = float(np.clip(vr - sigma / const * ndtri(1 - conf), 0.0, 1.0))
    notes: list[str] = []
    if min(a.size, b.size) <= 5:
        notes.append(f"with {a.size} and {b.size} scores, eps_min is mostly the bootstrap term: "
                     f"{sigma / const * -ndtri(1 - conf):.3f} of {eps:.3f}")  # fmt: skip
    alpha = float(f"{1 - confidence:.12g}")
    p = padj = None
    n_perm, exact = 0, False
    if rule == "gated":
        p, n_perm, exact = _gate or permutation_p(a, b, dt=dt, n_permutations=n_permutations, seed=seed)
        padj = min(1.0, p * num_comparisons)
        low = smallest_p(a.size, b.size, n_permutations)
        if low * num_comparisons > alpha:
            notes.append(f"with {a.size} and {b.size} runs the permutation gate's smallest p-value is {low:.3g}, "
                         f"above alpha{'/k' if num_comparisons > 1 else ''} = {alpha / num_comparisons:.3g}: no "
                         "claim of 'better' can be made; more runs are needed")  # fmt: skip
    return ASOResult(eps_min=eps, violation_ratio=vr, sigma=sigma, tau=tau, confidence=conf, n_a=a.size,
                     n_b=b.size, n_bootstrap=n_bootstrap, seed=seed, rule=rule, p_value=p, p_adjusted=padj,
                     alpha=alpha, n_permutations=n_perm, exact=exact, notes=tuple(notes))  # fmt: skip


def multi_aso(scores: dict[str, Any], *, confidence: float = 0.95, bonferroni: bool = True, n_bootstrap: int = 1000,  # noqa: PLR0913
              dt: float = 0.005, seed: int = 12345, deepsig_level: bool = False, rule: str = "gated",
              n_permutations: int = 9999) -> dict[tuple[str, str], ASOResult]:  # fmt: skip
    """ε_min of every ordered pair ("row is better than column"), Bonferroni over the k(k-1)/2 pairs inside the
    bound (as deepsig's ``multi_aso``, with Bonferroni's level: see :func:`bonferroni_confidence`); with
    ``rule="gated"`` (default) a pair is "better" only when the permutation gate also rejects, Holm over the k pairs
    (``bonferroni=False``: no correction, each pair at 1 - ``confidence``). Each pair's draws come from its own
    stream of ``seed``."""
    from mtsig.stats.multiple import adjust

    names = list(scores)
    if len(names) < 2:
        raise InputError("multi_aso needs the scores of at least two systems")
    k = len(names) * (len(names) - 1) // 2
    gates: dict[tuple[int, int], tuple[float, int, bool]] = {}
    if rule == "gated":
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                xs, ys = _check(scores[names[i]], names[i]), _check(scores[names[j]], names[j])
                gates[(i, j)] = permutation_p(xs, ys, dt=dt, n_permutations=n_permutations, seed=seed + 1009 * i + j)
    holm = dict(zip(gates, adjust([g[0] for g in gates.values()], "holm" if bonferroni else "none"))) if gates else {}
    out = {}
    for i, x in enumerate(names):
        for j, y in enumerate(names):
            if i != j:
                key = (min(i, j), max(i, j))
                r = aso(scores[x], scores[y], confidence=confidence, num_comparisons=k if bonferroni else 1,
                        n_bootstrap=n_bootstrap, dt=dt, seed=seed + 1009 * key[0] + key[1],
                        deepsig_level=deepsig_level, rule=rule, n_permutations=n_permutations,
                        _gate=gates.get(key))  # fmt: skip
                if rule == "gated":
                    from dataclasses import replace

                    r = replace(r, p_adjusted=float(holm[key]))
                out[(x, y)] = r
    return out
