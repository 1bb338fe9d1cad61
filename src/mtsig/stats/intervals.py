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
    return BootstrapSummary(float(median(s)), mean, std, rsd, int(s.size))


# np.quantile and np.median call np.unique, which imports numpy.ma (20 ms of a command's start-up); the two
# below compute the same numbers as numpy's (default, linear) arithmetic from a sorted copy, and leave to numpy
# the arrays where a sort and a partition could pick different values (both signs of zero, which compare
# equal) or that hold NaN or infinities.


def _plain(s: np.ndarray) -> bool:
    return s.size > 1 and bool(np.isfinite(s).all()) and not bool(((s == 0) & np.signbit(s)).any())


def quantiles(samples: np.ndarray, qs) -> np.ndarray:
    """``np.quantile(samples, qs)`` for a 1-d array and a list of levels."""
    s = np.asarray(samples, dtype=np.float64)
    if s.ndim != 1 or not _plain(s):
        return np.quantile(s, qs)
    n = s.size
    v = (n - 1) * np.asarray(qs, dtype=np.float64)
    prev = np.floor(v)
    nxt = prev + 1
    prev[v >= n - 1], nxt[v >= n - 1] = -1, -1
    prev[v < 0], nxt[v < 0] = 0, 0
    prev, nxt = prev.astype(np.intp), nxt.astype(np.intp)
    srt = np.sort(s)
    a, b, t = srt[prev], srt[nxt], v - prev
    diff = b - a
    out = a + diff * t
    np.subtract(b, diff * (1 - t), out=out, where=t >= 0.5)
    return out


def median(samples: np.ndarray) -> float:
    """``np.median(samples)`` for a 1-d array."""
    s = np.asarray(samples, dtype=np.float64)
    if s.ndim != 1 or not _plain(s):
        return float(np.median(s))
    srt, h = np.sort(s), s.size // 2
    return float(srt[h]) if s.size % 2 else float((srt[h - 1] + srt[h]) / 2)


def interval(
    samples: np.ndarray,
    method: str = "percentile",
    confidence: float = 0.95,
    observed: float | None = None,
    jackknife: np.ndarray | None = None,
    n: int | None = None,
) -> Interval:
    """Confidence interval from bootstrap ``samples`` (BCa also needs ``observed`` and ``jackknife``).

    ``t``: the observed score plus or minus the t quantile with ``n - 1`` degrees of freedom (``n``: the segments,
    or units, resampled; the normal quantile without it) times the bootstrap standard error; centred on the
    bootstrap mean only when the observed score is not given."""
    if method not in CI_METHODS:
        raise unknown_name("confidence-interval method", method, CI_METHODS)
    if not 0 < confidence < 1:
        from mtsig.errors import InputError

        raise InputError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    s = np.asarray(samples, dtype=np.float64)
    alpha = 1.0 - confidence
    if method == "percentile":
        lo, hi = quantiles(s, [alpha / 2, 1 - alpha / 2])
    elif method == "t":
        from scipy import stats as sps

        m = float(observed) if observed is not None else s.mean()
        sd = s.std(ddof=1) if s.size > 1 else 0.0
        q = sps.t.ppf(1 - alpha / 2, df=max(n - 1, 1)) if n else sps.norm.ppf(1 - alpha / 2)
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
        out.append(quantiles(s, [adj])[0])
    return out[0], out[1]


def jackknife_scores(metric, stats: np.ndarray) -> np.ndarray:
    """Corpus score with each segment left out in turn (vectorized)."""
    stats = np.asarray(stats, dtype=np.float64)
    return np.asarray(metric.score(stats.sum(axis=0)[None, :] - stats), dtype=np.float64)
