"""Bootstrap confidence intervals: percentile, t-interval and BCa, with summary statistics.

- ``percentile``: the [alpha/2, 1-alpha/2] quantiles of the bootstrap scores (Koehn 2004; Zhang's
  [v25, v975] of 1000 resamples at 95%).
- ``t``: mean of the bootstrap scores +- t_{R-1, 1-alpha/2} x their standard deviation (Zhang).
- ``bca``: bias-corrected and accelerated (Efron 1987); the acceleration comes from the
  leave-one-segment-out jackknife, which is exact and cheap on sufficient statistics
  (score(T - S_i) for every segment i in one vectorized call).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from mtsig.errors import unknown_name

CI_METHODS = ("percentile", "t", "bca")


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    method: str
    confidence: float

    def to_list(self) -> list[float]:
        return [self.low, self.high]


@dataclass(frozen=True)
class BootstrapSummary:
    """Zhang's report of a bootstrap distribution: median, mean, standard deviation, RSD."""

    median: float
    mean: float
    std: float
    rsd: float
    n: int

    def to_dict(self) -> dict:
        return asdict(self)


def summarize(samples: np.ndarray) -> BootstrapSummary:
    s = np.asarray(samples, dtype=np.float64)
    mean = float(s.mean())
    std = float(s.std(ddof=1)) if s.size > 1 else 0.0
    rsd = std / abs(mean) if mean != 0 else float("nan")
    return BootstrapSummary(float(np.median(s)), mean, std, rsd, int(s.size))


def interval(
    samples: np.ndarray,
    method: str = "percentile",
    confidence: float = 0.95,
    observed: float | None = None,
    jackknife: np.ndarray | None = None,
) -> Interval:
    """Confidence interval from bootstrap ``samples`` (BCa also needs ``observed`` and ``jackknife``)."""
    if method not in CI_METHODS:
        raise unknown_name("confidence-interval method", method, CI_METHODS)
    if not 0 < confidence < 1:
        from mtsig.errors import InputError

        raise InputError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    s = np.asarray(samples, dtype=np.float64)
    alpha = 1.0 - confidence
    if method == "percentile":
        lo, hi = np.quantile(s, [alpha / 2, 1 - alpha / 2])
    elif method == "t":
        from scipy import stats as sps

        m = s.mean()
        sd = s.std(ddof=1) if s.size > 1 else 0.0
        q = sps.t.ppf(1 - alpha / 2, df=max(s.size - 1, 1))
        lo, hi = m - q * sd, m + q * sd
    else:
        if observed is None or jackknife is None:
            raise ValueError("BCa needs the observed score and the jackknife scores")
        lo, hi = _bca(s, observed, np.asarray(jackknife, dtype=np.float64), alpha)
    return Interval(float(lo), float(hi), method, confidence)


def _bca(s: np.ndarray, observed: float, jack: np.ndarray, alpha: float) -> tuple[float, float]:
    from scipy import stats as sps

    if np.all(s == s[0]):
        return float(s[0]), float(s[0])
    prop = (np.sum(s < observed) + 0.5 * np.sum(s == observed)) / s.size
    prop = min(max(prop, 1.0 / (s.size + 1)), s.size / (s.size + 1))
    z0 = sps.norm.ppf(prop)
    d = jack.mean() - jack
    den = 6.0 * np.sum(d**2) ** 1.5
    a = np.sum(d**3) / den if den > 0 else 0.0
    out = []
    for q in (alpha / 2, 1 - alpha / 2):
        z = sps.norm.ppf(q)
        adj = sps.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
        out.append(np.quantile(s, adj))
    return out[0], out[1]


def jackknife_scores(metric, stats: np.ndarray) -> np.ndarray:
    """Corpus score with each segment left out in turn (vectorized)."""
    stats = np.asarray(stats, dtype=np.float64)
    return np.asarray(metric.score(stats.sum(axis=0)[None, :] - stats), dtype=np.float64)
