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


def _quantiles(sorted_scores: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The empirical quantile function of each row of ``sorted_scores`` (..., n) at ``t``: the value of rank
    ceil(n t) (1-based), clipped to the sample."""
    n = sorted_scores.shape[-1]
    idx = np.clip(np.ceil(n * t).astype(np.int64) - 1, 0, n - 1)
    return np.take(sorted_scores, idx, axis=-1)


def violation_ratio(a: np.ndarray, b: np.ndarray, dt: float = 0.005) -> np.ndarray:
    """ε_W2 of "A is better than B" for each row of score samples ``a`` (..., n) and ``b`` (..., m)."""
    t = np.arange(dt, 1, dt)
    f = _quantiles(np.sort(a, axis=-1), t)
    g = _quantiles(np.sort(b, axis=-1), t)
    diff = g - f
    total = np.sum(diff**2 * dt, axis=-1)
    viol = np.where(f >= g, 0.0, diff)
    part = np.sum(viol[..., 1:] ** 2 * dt, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total == 0, 0.5, part / np.where(total == 0, 1.0, total))


@dataclass(frozen=True, kw_only=True)
class ASOResult:
    """``eps_min`` (small: A is better than B), the violation ratio, σ̂ and the decision at ``tau``."""

    eps_min: float
    violation_ratio: float
    sigma: float
    tau: float
    #: eps_min < tau: A is better than B at this threshold
    better: bool = field(init=False)
    confidence: float
    n_a: int
    n_b: int
    n_bootstrap: int
    seed: int
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "better", bool(self.eps_min < self.tau))

    to_dict = as_dict


def _check(scores, name: str) -> np.ndarray:
    x = np.asarray(scores, dtype=np.float64).ravel()
    if x.size == 0:
        raise InputError(f"{name}: no scores")
    if not np.all(np.isfinite(x)):
        raise InputError(f"{name}: scores must be finite numbers")
    return x


def bonferroni_confidence(confidence: float, k: int, deepsig_level: bool = False) -> float:
    """The confidence of each of k bounds so that all hold together with probability at least ``confidence``:
    1 - (1 - confidence)/k (deepsig 1.2.8's ``confidence + (1 - confidence)/k`` with ``deepsig_level``)."""
    if k <= 1:
        return confidence
    return confidence + (1 - confidence) / k if deepsig_level else 1 - (1 - confidence) / k


def aso(scores_a, scores_b, *, confidence: float = 0.95, num_comparisons: int = 1, n_bootstrap: int = 1000,  # noqa: PLR0913
        dt: float = 0.005, tau: float = TAU, seed: int = 12345, deepsig_level: bool = False) -> ASOResult:  # fmt: skip
    """ε_min of "A is better than B" from the scores of A's and B's runs (seeds); see the module's docstring.
    deepsig's ``aso(scores_a, scores_b)`` computes the same quantity (with its own random draws); with
    ``num_comparisons`` k > 2 the two differ in the confidence level (Bonferroni's here; ``deepsig_level`` for
    deepsig's)."""
    a, b = _check(scores_a, "scores_a"), _check(scores_b, "scores_b")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must lie strictly between 0 and 1, got {confidence}", param="confidence")
    if num_comparisons < 1 or n_bootstrap < 2 or not 0 < dt < 1:
        raise InputError("num_comparisons >= 1, n_bootstrap >= 2 and 0 < dt < 1 are needed")
    conf = bonferroni_confidence(confidence, num_comparisons, deepsig_level)
    vr = float(violation_ratio(a, b, dt))
    rng = np.random.default_rng(seed)
    sa = _quantiles(np.sort(a), rng.random((n_bootstrap, a.size)))  # draws from each empirical distribution
    sb = _quantiles(np.sort(b), rng.random((n_bootstrap, b.size)))
    samples = violation_ratio(sa, sb, dt)
    const = np.sqrt(a.size * b.size / (a.size + b.size))
    sigma = float(np.std(const * (samples - vr)))
    eps = float(np.clip(vr - sigma / const * ndtri(1 - conf), 0.0, 1.0))
    notes: tuple[str, ...] = ()
    if min(a.size, b.size) <= 5:
        notes = (f"with {a.size} and {b.size} scores, eps_min is mostly the bootstrap term: "
                 f"{sigma / const * -ndtri(1 - conf):.3f} of {eps:.3f}",)  # fmt: skip
    return ASOResult(eps_min=eps, violation_ratio=vr, sigma=sigma, tau=tau, confidence=conf, n_a=a.size,
                     n_b=b.size, n_bootstrap=n_bootstrap, seed=seed, notes=notes)  # fmt: skip


def multi_aso(scores: dict[str, Any], *, confidence: float = 0.95, bonferroni: bool = True, n_bootstrap: int = 1000,  # noqa: PLR0913
              dt: float = 0.005, seed: int = 12345,
              deepsig_level: bool = False) -> dict[tuple[str, str], ASOResult]:  # fmt: skip
    """ε_min of every ordered pair ("row is better than column"), Bonferroni over the k(k-1)/2 pairs (as deepsig's
    ``multi_aso``, with Bonferroni's level: see :func:`bonferroni_confidence`); each pair's draws come from its own
    stream of ``seed``."""
    names = list(scores)
    k = len(names) * (len(names) - 1) // 2
    out = {}
    for i, x in enumerate(names):
        for j, y in enumerate(names):
            if i != j:
                out[(x, y)] = aso(scores[x], scores[y], confidence=confidence, num_comparisons=k if bonferroni else 1,
                                  n_bootstrap=n_bootstrap, dt=dt, seed=seed + 1009 * min(i, j) + max(i, j),
                                  deepsig_level=deepsig_level)  # fmt: skip
    return out
