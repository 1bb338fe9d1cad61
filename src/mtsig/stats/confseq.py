"""Time-uniform confidence sequences for the mean of observations in [0, 1] (Waudby-Smith & Ramdas, "Estimating
means of bounded random variables by betting", JRSS-B 2024): the interval at every time t covers the mean at all
times at once with probability at least 1 - alpha, so a campaign may look after every screen and stop whenever it
likes. Each observation's conditional mean given the past must be the same mean (a martingale difference), as when
documents reach a pair in an order that does not look at their scores.

- :func:`predmix_eb`: the predictable-mixture empirical-Bernstein sequence (PrPl-EB; closed form);
- :func:`betting`: the hedged betting sequence (capital processes for and against each candidate mean on a grid;
  tighter, a grid of ``breaks`` + 1 candidates per time).

Both take the same bets as the reference implementation of the paper (the ``confseq`` package's
``predmix_empbern_twosided_cs`` and ``betting_cs`` with their defaults; ``benchmarks/confseq_oracle.py`` checks them
equal on the same streams): bets shrinking like sqrt(2 log(1/alpha) / (t log(1 + t) sigma^2)) with a regularized
running variance (prior mean 1/2, variance 1/4, one fake observation)."""

from __future__ import annotations

import numpy as np


def _as_stream(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"a stream is one-dimensional, got shape {x.shape}")
    if x.size and (not np.isfinite(x).all() or x.min() < 0 or x.max() > 1):
        raise ValueError("confidence sequences here need observations in [0, 1] (rescale by the known bounds)")
    return x


def bets(x: np.ndarray, alpha: float, truncation: float = np.inf) -> np.ndarray:
    """The predictable bets lambda_t (each from the observations before t)."""
    t = np.arange(1, len(x) + 1)
    mu = np.minimum((0.5 + np.cumsum(x)) / (t + 1), 1)
    var = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1)
    var_before = np.append(0.25, var[:-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.sqrt(2 * np.log(1 / alpha) / (t * np.log(1 + t) * var_before))
    lam[np.isnan(lam)] = 0
    return np.minimum(truncation, lam)


def _check_population(x: np.ndarray, N: int | None) -> None:
    if N is not None and len(x) > N:
        raise ValueError(f"{len(x)} observations drawn without replacement from a population of {N}")


def predmix_eb_lower(x, alpha: float, truncation: float = 0.5, N: int | None = None) -> np.ndarray:
    """The one-sided (lower) PrPl-EB bound at level ``alpha`` at every time; ``N``: the observations are drawn
    without replacement from a population of N, whose mean is the target."""
    x = _as_stream(x)
    _check_population(x, N)
    t = np.arange(1, len(x) + 1)
    mean_before = np.append(0, (np.cumsum(x) / t)[:-1])
    v = (x - mean_before) ** 2
    lam = bets(x, alpha, truncation)
    psi = -np.log(1 - lam) - lam
    if N is not None:
        before = np.append(0, np.cumsum(x)[:-1])
        z, w = before / (N - t + 1), (t - 1) / (N - t + 1)
    else:
        z, w = np.zeros(len(x)), np.zeros(len(x))
    total = np.cumsum(lam * (1 + w))
    with np.errstate(divide="ignore", invalid="ignore"):
        margin = (np.log(1 / alpha) + np.cumsum(v * psi)) / total
        centre = np.cumsum(lam * (x + z)) / total
    return np.maximum(centre - margin, 0)


def predmix_eb(x, alpha: float = 0.05, truncation: float = 0.5, running_intersection: bool = False,
               N: int | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The two-sided PrPl-EB confidence sequence (lower and upper bound at every time; alpha/2 each side);
    ``N``: sampling without replacement from a population of N."""
    x = _as_stream(x)
    lo = predmix_eb_lower(x, alpha / 2, truncation, N)
    hi = 1 - predmix_eb_lower(1 - x, alpha / 2, truncation, N)
    if running_intersection:
        return np.maximum.accumulate(lo), np.minimum.accumulate(hi)
    return lo, hi


def _capital(x: np.ndarray, m: np.ndarray, lam: np.ndarray, sign: int, trunc_scale: float) -> np.ndarray:
    """The capital process of betting ``sign`` (+1: the mean is above m, -1: below) for every candidate ``m``
    (rows: the candidate's mean of the next observation at every time, columns)."""
    with np.errstate(divide="ignore"):
        up, down = (trunc_scale / m, -trunc_scale / (1 - m)) if sign > 0 else (trunc_scale / (1 - m), -trunc_scale / m)
    lam_m = np.maximum(np.minimum(lam[None, :], up), down)
    with np.errstate(invalid="ignore"):
        step = 1 + sign * lam_m * (x[None, :] - m)
    step[np.isinf(lam_m) & (x[None, :] - m == 0)] = 1
    with np.errstate(invalid="ignore", over="ignore"):
        cap = np.cumprod(step, axis=1)
    cap[np.isnan(cap)] = 0
    return cap


def betting(x, alpha: float = 0.05, breaks: int = 1000, theta: float = 0.5, trunc_scale: float = 0.5,  # noqa: PLR0913
            running_intersection: bool = False, N: int | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The hedged betting confidence sequence on a grid of ``breaks`` + 1 candidate means: a candidate leaves the
    sequence once max(theta K+, (1 - theta) K-) exceeds 1/alpha; the bounds are the extreme candidates left,
    widened by one grid step. ``N``: sampling without replacement from a population of N (each candidate's mean of
    the next draw is what the population has left; the bounds also hold what the draws so far force)."""
    x = _as_stream(x)
    _check_population(x, N)
    grid = np.arange(0, 1 + 1 / breaks, step=1 / breaks)
    if N is not None:
        t = np.arange(1, len(x) + 1)
        before = np.append(0, np.cumsum(x)[:-1])
        with np.errstate(divide="ignore", invalid="ignore"):
            m = (N * grid[:, None] - before[None, :]) / (N - (t - 1))[None, :]
    else:
        m = np.broadcast_to(grid[:, None], (len(grid), len(x)))
    cap = np.maximum(theta * _capital(x, m, bets(x, alpha * theta), +1, trunc_scale),
                     (1 - theta) * _capital(x, m, bets(x, alpha * (1 - theta)), -1, trunc_scale))  # fmt: skip
    if N is not None:
        cap[(m < 0) | (m > 1)] = np.inf
    inside = cap <= 1 / alpha
    anyin = inside.any(axis=0)
    first = np.argmax(inside, axis=0)
    last = len(grid) - 1 - np.argmax(inside[::-1], axis=0)
    lo = np.where(anyin, grid[first], 0.0)
    hi = np.where(anyin, grid[last], 1.0)
    lo = np.maximum(0, lo - 1 / breaks)
    hi = np.minimum(1, hi + 1 / breaks)
    if N is not None:  # what the draws so far force, whatever the rest of the population holds
        t = np.arange(1, len(x) + 1)
        total = np.cumsum(x)
        lo, hi = np.maximum(lo, total / N), np.minimum(hi, 1 - (t - total) / N)
    if running_intersection:
        return np.maximum.accumulate(lo), np.minimum.accumulate(hi)
    return lo, hi


def betting_excludes(x, alpha: float, value: float = 0.5, breaks: int = 1000, theta: float = 0.5,
                     trunc_scale: float = 0.5) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """When :func:`betting`'s sequence lies wholly above ``value`` (its lower bound exceeds it) and wholly below,
    at each time, from two rows of the grid instead of all of them: the capital for "the mean is above m" falls as
    m rises and the capital for "below" grows (every factor is positive and monotone in m), so the lower bound
    exceeds ``value`` exactly when the largest grid point whose bound would not is already out. The same answers
    as the whole grid wherever the sequence is not empty; where the whole grid is out on both sides at once (an
    empty sequence: :func:`betting` then gives [0, 1], this says excluded) they differ. Used by the replay study,
    where the whole grid at every time of every pair would cost a thousand times more."""
    x = _as_stream(x)
    grid = np.arange(0, 1 + 1 / breaks, step=1 / breaks)
    low_bound = np.maximum(0, grid - 1 / breaks)
    high_bound = np.minimum(1, grid + 1 / breaks)
    i_up = int(np.argmax(low_bound > value)) - 1  # the largest grid point whose lower bound is not above value
    i_down = int(np.flatnonzero(high_bound < value)[-1]) + 1 if (high_bound < value).any() else 0
    rows = np.array([grid[max(i_up, 0)], grid[min(i_down, len(grid) - 1)]])
    m = np.broadcast_to(rows[:, None], (2, len(x)))
    up_cap = theta * _capital(x, m, bets(x, alpha * theta), +1, trunc_scale)
    down_cap = (1 - theta) * _capital(x, m, bets(x, alpha * (1 - theta)), -1, trunc_scale)
    return up_cap[0] > 1 / alpha, down_cap[1] > 1 / alpha
