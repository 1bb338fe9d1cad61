"""p-values from counts and distributions: the arithmetic every test shares (no resampling here).

p-values of resampling tests are ``(c + 1) / (R + 1)`` where ``c`` counts resamples at least as extreme as the
observed value (ties count, within a relative tolerance of 1e-12, so identical systems get p = 1).
"""

from __future__ import annotations

import numpy as np

from mtsig.errors import InputError, unknown_name

ALTERNATIVES = ("two-sided", "greater", "less")


def check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise unknown_name("alternative", alternative, ALTERNATIVES)


_FLIP = {"greater": "less", "less": "greater", "two-sided": "two-sided"}


def alternative_for(metric, alternative: str) -> str:
    """The alternative on the raw difference Δ = B − A that says what ``alternative`` says in the metric's own
    direction: ``greater`` is "B is better than A", which for a lower-is-better metric (TER) is Δ < 0. A metric
    best at a target value (length, best at 100) has no one-sided alternative in its numbers: refused."""
    check_alternative(alternative)
    if alternative == "two-sided":
        return alternative
    if getattr(metric, "target", None) is not None:
        raise InputError(
            f"{metric.name} is best at {metric.target:g}: 'B better than A' is not a direction of its numbers, so it "
            "has no one-sided test; test it two-sided (or compare distances to the target with a metric of your own)",
            param="alternative",
        )
    return alternative if metric.higher_is_better else _FLIP[alternative]


def tolerance(x: float) -> float:
    """How close to ``x`` a resampled value counts as a tie."""
    return 1e-12 * max(1.0, abs(x))


def count_extreme(null: np.ndarray, observed: float, alternative: str) -> int:
    """How many null values are at least as extreme as ``observed`` (ties count)."""
    t = tolerance(observed)
    if alternative == "two-sided":
        return int(np.count_nonzero(np.abs(null) >= abs(observed) - t))
    if alternative == "greater":
        return int(np.count_nonzero(null >= observed - t))
    return int(np.count_nonzero(null <= observed + t))


def p_from_count(c: float, n: int) -> float:
    return (c + 1) / (n + 1)


def shift_p(boot_delta: np.ndarray, observed: float, alternative: str) -> float:
    """Bootstrap test, shift method: centred bootstrap differences as the null distribution."""
    null = boot_delta - boot_delta.mean()
    return p_from_count(count_extreme(null, observed, alternative), boot_delta.size)


def paired_bootstrap_p(boot_delta: np.ndarray, alternative: str) -> tuple[float, dict[str, float]]:
    """Koehn's paired bootstrap: p-value and the share of resamples won by each system."""
    R = boot_delta.size
    le = int(np.count_nonzero(boot_delta <= 0))
    ge = int(np.count_nonzero(boot_delta >= 0))
    if alternative == "greater":
        p = p_from_count(le, R)
    elif alternative == "less":
        p = p_from_count(ge, R)
    else:
        p = min(1.0, 2 * p_from_count(min(le, ge), R))
    shares = {
        "wins_a": float(np.count_nonzero(boot_delta < 0) / R),
        "wins_b": float(np.count_nonzero(boot_delta > 0) / R),
        "ties": float(np.count_nonzero(boot_delta == 0) / R),
    }
    return p, shares


def sentence_test(kind: str, seg_a: np.ndarray, seg_b: np.ndarray, alternative: str) -> tuple[float, float]:
    """Paired t-test or Wilcoxon signed-rank test on sentence-level scores: (statistic, p)."""
    from scipy import stats as sps

    d = np.asarray(seg_b, dtype=np.float64) - np.asarray(seg_a, dtype=np.float64)
    if not np.all(np.isfinite(d)):
        raise InputError("sentence-level scores are not all finite; the paired tests need finite scores")
    if np.all(d == 0):
        return 0.0, 1.0
    if kind == "ttest":
        if np.all(d == d[0]):  # constant non-zero difference: the t statistic is infinite
            stat = float(np.inf if d[0] > 0 else -np.inf)
            p = 0.0 if alternative == "two-sided" or (alternative == "greater") == (d[0] > 0) else 1.0
            return stat, p
        r = sps.ttest_1samp(d, 0.0, alternative=alternative)
        return float(r.statistic), float(r.pvalue)
    r = sps.wilcoxon(d, zero_method="wilcox", alternative=alternative)
    return float(r.statistic), float(r.pvalue)
