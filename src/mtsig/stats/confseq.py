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


def predmix_eb_lower(x, alpha: float, truncation: float = 0.5) -> np.ndarray:
    """The one-sided (lower) PrPl-EB bound at level ``alpha`` at every time."""
    x = _as_stream(x)
    t = np.arange(1, len(x) + 1)
    mean_before = np.append(0, (np.cumsum(x) / t)[:-1])
    v = (x - mean_before) ** 2
    lam = bets(x, alpha, truncation)
    psi = -np.log(1 - lam) - lam
    total = np.cumsum(lam)
    with np.errstate(divide="ignore", invalid="ignore"):
        margin = (np.log(1 / alpha) + np.cumsum(v * psi)) / total
        centre = np.cumsum(lam * x) / total
    return np.maximum(centre - margin, 0)


def predmix_eb(x, alpha: float = 0.05, truncation: float = 0.5,
               running_intersection: bool = False) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The two-sided PrPl-EB confidence sequence (lower and upper bound at every time; alpha/2 each side)."""
    x = _as_stream(x)
    lo = predmix_eb_lower(x, alpha / 2, truncation)
    hi = 1 - predmix_eb_lower(1 - x, alpha / 2, truncation)
    if running_intersection:
        return np.maximum.accumulate(lo), np.minimum.accumulate(hi)
    return lo, hi


def _capital(x: np.ndarray, grid: np.ndarray, lam: np.ndarray, sign: int, trunc_scale: float) -> np.ndarray:
    """The capital process of betting ``sign`` (+1: the mean is above m, -1: below) for every candidate m of
    ``grid`` (rows) at every time (columns)."""
    m = grid[:, None]
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


def betting(x, alpha: float = 0.05, breaks: int = 1000, theta: float = 0.5, trunc_scale: float = 0.5,
            running_intersection: bool = False) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The hedged betting confidence sequence on a grid of ``breaks`` + 1 candidate means: a candidate leaves the
    sequence once max(theta K+, (1 - theta) K-) exceeds 1/alpha; the bounds are the extreme candidates left,
    widened by one grid step."""
    x = _as_stream(x)
    grid = np.arange(0, 1 + 1 / breaks, step=1 / breaks)
    cap = np.maximum(theta * _capital(x, grid, bets(x, alpha * theta), +1, trunc_scale),
                     (1 - theta) * _capital(x, grid, bets(x, alpha * (1 - theta)), -1, trunc_scale))  # fmt: skip
    inside = cap <= 1 / alpha
    anyin = inside.any(axis=0)
    first = np.argmax(inside, axis=0)
    last = len(grid) - 1 - np.argmax(inside[::-1], axis=0)
    lo = np.where(anyin, grid[first], 0.0)
    hi = np.where(anyin, grid[last], 1.0)
    lo = np.maximum(0, lo - 1 / breaks)
    hi = np.minimum(1, hi + 1 / breaks)
    if running_intersection:
        return np.maximum.accumulate(lo), np.minimum.accumulate(hi)
    return lo, hi


