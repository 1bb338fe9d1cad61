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
  runs), Welch's degrees of freedom, Banerjee's bound (z for the precise part, t with k degrees of freedom
  for each run part) and t with k degrees of freedom;
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
from scipy import optimize
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


RULES = {"default": crit_default, "welch": crit_welch, "banerjee": crit_banerjee, "t_k": crit_tk}


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
    print("| f | runs | α | default | Welch | Banerjee | t_k | best valid (bound) |")
    print("|---|---|---|---|---|---|---|---|")
    for f in a.fs:
        for k in a.ks:
            for alpha in (0.05, 0.01):
                r = two_systems(f, k, alpha)
                cells = " | ".join(f"{p:.3f} / {s:.4f}" for p, s in r.values())
                print(f"| {f} | {k + 1} | {alpha} | {cells} | {best_valid(f, k, alpha):.3f} |", flush=True)


if __name__ == "__main__":
    main()
