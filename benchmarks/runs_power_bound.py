"""How much power can a runs test have when the runs agree, if it must hold its level under any run-level noise?

A normal model of the default runs test (``mtsig.stats.engines.runs_variance``), in units of the segment-level
variance of approximate randomization (AR): the difference of the pooled scores is normal with variance
``1 + s_A + s_B`` (``s_X``: run-level variance of system X's mean score, unknown, >= 0); each system's runs
estimate ``e_X + s_X`` from a mean square with ``k`` = runs - 1 degrees of freedom, where ``e_X`` (known
precisely) is the part of AR's variance due to the segment-by-run interaction, ``f = e_A + e_B``. Runs that
agree: ``s_A = s_B = 0``; the real cases in benchmarks/calibrate_runs.md have ``f`` about 0.8 (outputs of two
runs of one system differ on most segments).

For each ``f``, ``k`` and alpha it prints, by numerical integration over the mean squares:
- the power, when the runs agree, of AR on the pooled runs (which ignores run-level variance) against a
  shift that gives it 80% power, and of the default test (Satterthwaite's degrees of freedom at the fewest
  runs, the default before the fifth null), Welch's degrees of freedom, Banerjee's bound (z for the precise
  part, t with k degrees of freedom for each run part: today's default), t with k degrees of freedom, and the
  fiducial test (generalized p-value: the run variances drawn from their fiducial distributions, as in
  Behrens and Fisher's solution, interpolated from a table);
- each test's largest rejection rate under the null over how the run-level variance is split between the
  two systems (s_A, s_B on a grid from 0 to 300 times e_X): above alpha means liberal somewhere;
- the largest power any test of the form "reject when |difference| > c(run mean square)" can have while
  holding alpha for every run-level variance, when one system's runs carry it all (``k`` degrees of freedom,
  c optimized over a flexible family): an upper bound for what a valid test can reach.

    python benchmarks/runs_power_bound.py [--fs 0.5 0.8 0.95] [--ks 2 4]
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import optimize, special
from scipy import stats as sps

Z_POWER = 0.8416  # the shift is z_(alpha/2) + this: pooled AR's power is 0.80


def nodes(k: int, m: int) -> np.ndarray:
    """Quantile nodes of chi2_k / k (equal weights)."""
    return sps.chi2(k).ppf((np.arange(m) + 0.5) / m) / k


def crit_default(rA, rB, base, k, alpha):
    r = rA + rB
    v = base + r
    return sps.t.isf(alpha / 2, v * v / (r * r / k)) * np.sqrt(v)


def crit_welch(rA, rB, base, k, alpha):
    v = base + rA + rB
    return sps.t.isf(alpha / 2, v * v / ((rA * rA + rB * rB) / k)) * np.sqrt(v)


def crit_banerjee(rA, rB, base, k, alpha):
    z, t = sps.norm.isf(alpha / 2), sps.t.isf(alpha / 2, k)
    return np.sqrt(z * z * base + t * t * (rA + rB))


def crit_tk(rA, rB, base, k, alpha):
    return sps.t.isf(alpha / 2, k) * np.sqrt(base + rA + rB)


def _chi2_nodes(k: int, m: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """Generalized Gauss-Laguerre nodes and weights of chi2_k / k."""
    x, w = special.roots_genlaguerre(m, k / 2 - 1)
    return 2 * x / k, w / special.gamma(k / 2)


def _fiducial_table(k: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Critical values of the fiducial (generalized p-value) test on a grid of log(r_A / base), log(r_B / base):
    reject when P(|N(0, base + r_A / X_A + r_B / X_B)| >= |d|) <= alpha, X ~ chi2_k / k (Behrens-Fisher's
    solution with a third, precisely known term)."""
    grid = np.linspace(np.log(1e-4), np.log(1e4), 81)
    x, w = _chi2_nodes(k)
    RA, RB = np.meshgrid(np.exp(grid), np.exp(grid), indexing="ij")
    V = 1 + RA[..., None, None] / x[:, None] + RB[..., None, None] / x[None, :]
    W = w[:, None] * w[None, :]
    lo, hi = np.zeros(RA.shape), 50 * np.sqrt(1 + RA + RB) + 10
    for _ in range(45):
        mid = (lo + hi) / 2
        tail = np.einsum("abij,ij->ab", 2 * sps.norm.sf(mid[..., None, None] / np.sqrt(V)), W)
        lo, hi = np.where(tail > alpha, mid, lo), np.where(tail > alpha, hi, mid)
    return grid, (lo + hi) / 2


_FIDUCIAL: dict = {}


def crit_fiducial(rA, rB, base, k, alpha):
    from scipy.interpolate import RegularGridInterpolator

    if (k, alpha) not in _FIDUCIAL:
        grid, table = _fiducial_table(k, alpha)
        _FIDUCIAL[k, alpha] = RegularGridInterpolator((grid, grid), table)
    clip = np.log([1e-4, 1e4])
    la = np.clip(np.log(np.maximum(rA, 1e-300) / base), *clip)
    lb = np.clip(np.log(np.maximum(rB, 1e-300) / base), *clip)
    pts = np.stack([la, lb], axis=-1)
    return np.sqrt(base) * _FIDUCIAL[k, alpha](pts.reshape(-1, 2)).reshape(la.shape)


RULES = {
    "default": crit_default,
    "welch": crit_welch,
    "banerjee": crit_banerjee,
    "t_k": crit_tk,
    "fiducial": crit_fiducial,
}


def two_systems(f: float, k: int, alpha: float, m: int = 120) -> dict[str, tuple[float, float]]:
    """Per rule: (power when the runs agree, largest null rejection rate over the split of run variance)."""
    X = nodes(k, m)
    XA, XB = np.meshgrid(X, X, indexing="ij")
    e = f / 2
    base = max(1 - f, 0.0)
    grid = np.concatenate([[0.0], np.geomspace(0.05, 300, 14)])
    delta = sps.norm.isf(alpha / 2) + Z_POWER
    out = {}
    for name, rule in RULES.items():
        worst = 0.0
        for la in grid:
            for lb in grid:
                c = rule(e * (1 + la) * XA, e * (1 + lb) * XB, base, k, alpha)
                worst = max(worst, float(np.mean(2 * sps.norm.sf(c / np.sqrt(1 + e * (la + lb))))))
        c = rule(e * XA, e * XB, base, k, alpha)
        out[name] = (float(np.mean(sps.norm.sf(c - delta) + sps.norm.cdf(-c - delta))), worst)
    return out


def best_valid(f: float, k: int, alpha: float, m: int = 2000) -> float:
    """Largest power when the runs agree of a test with critical value c(U) = sqrt(1 - f + f U) g(log U), g
    piecewise linear on 8 knots, that holds alpha for every run-level variance (one run mean square U, k
    degrees of freedom)."""
    X = nodes(k, m)
    lams = np.concatenate([[0.0], np.geomspace(0.01, 1e4, 80)])
    knots = np.log([0.05, 0.2, 0.5, 1, 2, 4, 10, 100])
    delta = sps.norm.isf(alpha / 2) + Z_POWER

    def crit(U, g):
        return np.sqrt(1 - f + f * U) * np.interp(np.log(U), knots, g)

    def size(g):
        return max(float(np.mean(2 * sps.norm.sf(crit((1 + lam) * X, g) / np.sqrt(1 + f * lam))))
                   for lam in lams)  # fmt: skip

    def power(g):
        c = crit(X, g)
        return float(np.mean(sps.norm.sf(c - delta) + sps.norm.cdf(-c - delta)))

    def loss(g):
        return -power(g) + 1e4 * max(0.0, size(g) - alpha)

    g0 = np.full(len(knots), sps.t.isf(alpha / 2, k))  # the t test: exact level
    res = optimize.minimize(loss, g0, method="Nelder-Mead", options={"maxiter": 3000, "xatol": 1e-4})
    g = res.x if size(res.x) <= alpha * 1.0005 else g0
    return power(g)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fs", type=float, nargs="+", default=[0.3, 0.5, 0.8, 0.95])
    ap.add_argument("--ks", type=int, nargs="+", default=[2, 4], help="runs - 1 per system")
    a = ap.parse_args()
    print("power when the runs agree (pooled AR: 0.800) / largest null rejection rate over the split of run variance\n")
    print("| f | runs | α | Satterthwaite | Welch | Banerjee (default) | t_k | fiducial | best valid (bound) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for f in a.fs:
        for k in a.ks:
            for alpha in (0.05, 0.01):
                r = two_systems(f, k, alpha)
                cells = " | ".join(f"{p:.3f} / {s:.4f}" for p, s in r.values())
                print(f"| {f} | {k + 1} | {alpha} | {cells} | {best_valid(f, k, alpha):.3f} |", flush=True)


if __name__ == "__main__":
    main()
