"""ASO's family-wise error under three nulls: systems × seeds × decision rule, with 95% Clopper-Pearson intervals.

Every family is k systems with n runs (seeds) each, all pairs compared. A family errs when it declares any system
better than another; under these nulls no such claim is true:

- ``identical``: every system's runs N(0, 1) (the violation ratio is 0.5, deep in ASO's null);
- ``skewed``: every system's runs lognormal(0, 1) (run-level noise of another shape);
- ``spread``: equally good, different systems: half N(0, 1), half N(0, 3²) (equal means and medians; ε = 0.5).

Rules: ``bound, deepsig's level`` (ε_min < τ, each bound at c + (1 - c)/k, as deepsig 1.2.8), ``bound, Bonferroni``
(ε_min < τ at 1 - α/k, mtsig's earlier default) and ``gated`` (mtsig's default: the Bonferroni bound and the
permutation gate (Welch's t of the runs' means), Holm over the k(k-1)/2 pairs). ε_min and the gate come from mtsig's
own functions (:func:`mtsig.stats.aso.ratio_and_sigma`, :func:`mtsig.stats.aso.permutation_p`), batched over the
families.

    python benchmarks/aso_family.py [--families 1000] [--seed 20261128] [--cells all|small]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy.special import ndtri
from scipy.stats import beta

from mtsig.stats.aso import TAU, bonferroni_confidence, permutation_p, ratio_and_sigma
from mtsig.stats.multiple import adjust


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    lo = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
    return lo, hi


def _runs(null: str, F: int, k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    if null == "identical":
        return rng.normal(0, 1, (F, k, n))
    if null == "skewed":
        return rng.lognormal(0, 1, (F, k, n))
    sd = np.where(np.arange(k) % 2 == 0, 1.0, 3.0)  # alternating spreads: equal centres, different shapes
    return rng.normal(0, 1, (F, k, n)) * sd[None, :, None]


def cell(null: str, k: int, n: int, F: int, seed: int, alpha: float = 0.05, n_bootstrap: int = 1000) -> dict:  # noqa: PLR0913
    rng = np.random.default_rng([seed, k, n, ["identical", "skewed", "spread"].index(null)])
    X = _runs(null, F, k, n, rng)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    K = len(pairs)
    const = np.sqrt(n * n / (2 * n))
    z = {"deepsig": ndtri(1 - bonferroni_confidence(1 - alpha, K, True)),
         "bonferroni": ndtri(1 - bonferroni_confidence(1 - alpha, K))}  # fmt: skip
    better = {r: np.zeros((F, K), dtype=bool) for r in ("deepsig", "bonferroni", "gated")}
    gate = np.empty((F, K))
    for q, (i, j) in enumerate(pairs):
        gate[:, q] = permutation_p(X[:, i], X[:, j], seed=seed + 1009 * i + j)[0]
        either = np.zeros((F, 2, 2), dtype=bool)  # (family, direction, rule deepsig/bonferroni)
        for d, (x, y) in enumerate(((i, j), (j, i))):
            vr, sig = ratio_and_sigma(X[:, x], X[:, y], n_bootstrap, 0.005, rng)
            for r, rule in enumerate(("deepsig", "bonferroni")):
                eps = np.clip(vr - sig / const * z[rule], 0, 1)
                either[:, d, r] = eps < TAU
        better["deepsig"][:, q] = either[:, :, 0].any(axis=1)
        better["bonferroni"][:, q] = either[:, :, 1].any(axis=1)
        better["gated"][:, q] = either[:, :, 1].any(axis=1)
    padj = np.array([adjust(row, "holm") for row in gate])
    better["gated"] &= padj <= alpha
    return {r: int(b.any(axis=1).sum()) for r, b in better.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261128)
    ap.add_argument("--cells", choices=("all", "small", "alpha01"), default="all")
    ap.add_argument("--alpha", type=float, default=0.05)
    a = ap.parse_args()
    cells = [("identical", k, n) for k in (3, 5, 10) for n in (3, 5, 10, 20)]
    cells += [(null, 5, n) for null in ("skewed", "spread") for n in (5, 10, 20)]
    if a.cells == "small":
        cells = [("identical", 5, 5), ("identical", 5, 20), ("spread", 5, 10)]
    if a.cells == "alpha01":  # the cells where the gate can reach alpha = 0.01 after Holm
        cells = [("identical", 3, 10), ("identical", 5, 10), ("identical", 5, 20), ("identical", 10, 20),
                 ("skewed", 5, 20), ("spread", 5, 10), ("spread", 5, 20)]  # fmt: skip
    print(f"ASO family-wise error at alpha {a.alpha:g}: {a.families} families per cell, seed {a.seed}, 1000 bootstrap "
          "samples per bound, the gate exact up to 20,000 splits (else 9,999 permutations)\n")  # fmt: skip
    print("| null | systems | seeds | bound, deepsig's level | bound, Bonferroni | gated (default) |")
    print("|---|---|---|---|---|---|")
    for null, k, n in cells:
        t = time.perf_counter()
        hits = cell(null, k, n, a.families, a.seed, a.alpha)
        cells_txt = []
        for r in ("deepsig", "bonferroni", "gated"):
            lo, hi = clopper_pearson(hits[r], a.families)
            cells_txt.append(f"{hits[r] / a.families:.3f} [{lo:.3f}, {hi:.3f}]")
        print(f"| {null} | {k} | {n} | " + " | ".join(cells_txt) + " |", flush=True)
        print(f"  ({time.perf_counter() - t:.0f} s)", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
