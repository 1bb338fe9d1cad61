"""The multiplicity problem (Riezler & Maxwell 2005, section 4.4) and significance clusters.

With k comparisons each run at level alpha_c, the chance of at least one false rejection (the
experimentwise error) is p_e = 1 - (1 - alpha_c)^k. Adjusted p-values control it:

- ``holm`` (default): step-down Bonferroni, controls the family-wise error, never worse than Bonferroni;
- ``bonferroni``: min(1, k p);
- ``sidak``: 1 - (1 - p)^k;
- ``bh``: Benjamini-Hochberg step-up, controls the false discovery rate (not the family-wise error);
- ``none``: no adjustment.

Post-hoc procedures that use the dependence between the comparisons (section 4.4 points to Tukey's test):

- :func:`maxt`: step-down max-T over the joint bootstrap of all systems (Romano & Wolf 2005): a pair's
  adjusted p-value is the share of resamples whose largest studentized centred difference among the pairs not
  yet rejected reaches the pair's studentized difference. Valid whichever pairwise nulls hold (no assumption
  that all systems are exchangeable). ``compare --correction maxt`` uses it (never below the test's own p).
- :func:`tukey_hsd`: Tukey's honestly significant difference on sentence-level scores (segments x systems,
  two-way analysis of variance without replication; the studentized range of the system means).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError, unknown_name
from mtsig.registry import Registry
from mtsig.stats.pvalues import check_alternative


@dataclass(frozen=True, kw_only=True)
class Correction:
    """A multiple-comparison correction: one registry entry (:data:`CORRECTIONS`).

    ``adjust(p)`` turns a family's p-values into adjusted ones (same order); ``threshold(alpha, k)`` is the
    smallest threshold an unadjusted p-value must reach to be significant among ``k`` comparisons (what the
    automatic count of resamples is sized for); a correction that works on the joint bootstrap of every system
    (``joint_bootstrap``: ``maxt``) has no ``adjust`` from p-values alone and the engine computes it itself."""

    name: str
    #: one line for ``--help`` and the docs
    help: str
    adjust: Callable[[np.ndarray], np.ndarray] | None
    threshold: Callable[[float, int], float]
    joint_bootstrap: bool = False


def _check_correction(c: object) -> None:
    if not isinstance(c, Correction) or not c.name:
        raise InputError("a correction is a named Correction entry")
    if c.adjust is None and not c.joint_bootstrap:
        raise InputError(f"correction {c.name!r}: give adjust(p) (or mark it joint_bootstrap)")


#: the corrections by name (plugins: the ``mtsig.corrections`` entry-point group)
CORRECTIONS: Registry[Correction] = Registry("correction", "mtsig.corrections", check=_check_correction)


def register_correction(correction: Correction) -> Correction:
    """Add a correction (``--correction NAME``, ``mtsig.compare(correction=)``, ``study multiplicity``'s rows)."""
    return CORRECTIONS.register(correction)


def p_corrections() -> tuple[str, ...]:
    """The corrections computed from p-values alone (every one but the joint-bootstrap ones), now."""
    return tuple(n for n, c in CORRECTIONS.items() if not c.joint_bootstrap)


def __getattr__(name: str):
    if name == "P_CORRECTIONS":  # the registered names when asked for, not when this module was imported
        return p_corrections()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def experimentwise_error(alpha: float, k: int) -> float:
    """p_e = 1 - (1 - alpha)^k."""
    return 1.0 - (1.0 - alpha) ** k


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """Adjusted p-values (same order as the input)."""
    corr = CORRECTIONS.get(method)
    if corr.adjust is None:
        raise unknown_name("correction", method, p_corrections())
    p = np.asarray(pvalues, dtype=np.float64)
    if p.size == 0:
        return p.copy()
    return np.asarray(corr.adjust(p), dtype=np.float64)


def _stepwise(p: np.ndarray, step_down: bool) -> np.ndarray:
    """Holm (step-down Bonferroni) or Benjamini-Hochberg (step-up) adjusted p-values."""
    k = p.size
    order = np.argsort(p, kind="stable")
    ps = p[order]
    if step_down:
        adj = np.maximum.accumulate(np.minimum(1.0, (k - np.arange(k)) * ps))
    else:
        adj = np.minimum.accumulate(k / np.arange(k, 0, -1) * ps[::-1])[::-1]
        adj = np.minimum(1.0, adj)
    out = np.empty(k)
    out[order] = adj
    return out


def _bonferroni_threshold(alpha: float, k: int) -> float:
    return alpha / k  # holm, bonferroni, and bh for its smallest p-value


for _c in (
    Correction(name="holm", help="step-down Bonferroni: controls the family-wise error, never worse than Bonferroni",
               adjust=lambda p: _stepwise(p, True), threshold=_bonferroni_threshold),
    Correction(name="bonferroni", help="min(1, k p): controls the family-wise error",
               adjust=lambda p: np.minimum(1.0, p * p.size), threshold=_bonferroni_threshold),
    Correction(name="sidak", help="1 - (1 - p)^k: controls the family-wise error for independent tests",
               adjust=lambda p: 1.0 - (1.0 - p) ** p.size, threshold=lambda a, k: 1 - (1 - a) ** (1 / k)),
    Correction(name="bh", help="Benjamini-Hochberg step-up: controls the false discovery rate",
               adjust=lambda p: _stepwise(p, False), threshold=_bonferroni_threshold),
    Correction(name="maxt", help="step-down max-T over the joint bootstrap of all systems (Romano & Wolf)",
               adjust=None, threshold=_bonferroni_threshold, joint_bootstrap=True),
    Correction(name="none", help="no adjustment", adjust=lambda p: p.copy(), threshold=lambda a, k: a),
):  # fmt: skip
    register_correction(_c)


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


def maxt(boot_delta: np.ndarray, observed: np.ndarray, alternative: str = "two-sided") -> dict[str, np.ndarray]:
    """Max-T adjusted p-values from a joint bootstrap of every system (Romano & Wolf 2005):
    ``{"single-step": ..., "step-down": ...}``, in the order of the columns.

    ``boot_delta`` ``(R, K)``: every pair's bootstrap difference, all from the same resamples of the segments (so
    their dependence is the real one); ``observed`` ``(K,)``. Each pair is studentized by its bootstrap standard
    deviation; its null is its centred bootstrap difference (the shift method). Single-step: every pair against
    the largest studentized centred difference over all pairs; step-down: pairs in decreasing order of their
    studentized difference, the j-th against the largest over the pairs ranked j and below, made monotone.
    ``(count + 1) / (R + 1)``, ties counted. Valid whichever pairwise nulls hold: unlike max-T over a joint
    randomization of the systems, it does not assume that every system's output is exchangeable with every other
    one's on every segment (an ensemble of two equally good systems broke that: family-wise error 0.10 at 0.05).
    A pair whose bootstrap difference never varies (identical systems) gets 1."""
    check_alternative(alternative)
    D = np.asarray(boot_delta, dtype=np.float64)
    obs = np.asarray(observed, dtype=np.float64)
    R, K = D.shape
    sd = D.std(axis=0, ddof=1) if R > 1 else np.zeros(K)
    live = sd > 0
    scale = np.where(live, sd, 1.0)
    t = np.where(live, _oriented(obs / scale, alternative), -np.inf)
    null = np.where(live, _oriented((D - D.mean(axis=0)) / scale, alternative), -np.inf)
    cut = t - np.abs(t) * 1e-12 - 1e-15  # at least as extreme, ties counted
    single = np.array([np.count_nonzero(null.max(axis=1) >= cut[k]) if live[k] else R for k in range(K)])
    order = np.argsort(-t, kind="stable")
    tail = np.maximum.accumulate(null[:, order[::-1]], axis=1)[:, ::-1]  # max over the pairs ranked j and below
    down = np.empty(K, dtype=np.int64)
    for j, k in enumerate(order):
        down[k] = np.count_nonzero(tail[:, j] >= cut[k]) if live[k] else R
    p_down = np.empty(K)
    p_down[order] = np.maximum.accumulate((down[order] + 1) / (R + 1))
    return {"single-step": np.minimum(1.0, (single + 1) / (R + 1)), "step-down": np.minimum(1.0, p_down)}


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
