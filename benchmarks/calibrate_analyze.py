"""Calibration of ``mtsig analyze``: under exact null pairs, how often is some bucket significant after the correction?

A null pair is made from two real systems by swapping each segment's outputs between them with probability 1/2
(a fresh draw per replicate): the two outputs of every segment are then exchangeable, so no bucket of any
analysis differs in truth. Per replicate, every bucket analysis is run (holm over its buckets, test ar) and we
record whether any bucket was significant at alpha = 0.05 and at 0.01 (from the adjusted p-values), per analysis
and for the four together. Rates are printed with 95% Clopper-Pearson intervals.

    python benchmarks/calibrate_analyze.py --replicates 500 --jobs 2

Pairs: WMT22 de-en JDExploreAcademy / LT22 (BLEU 33.7 vs 26.0) and Online-B / PROMT (33.2 vs 32.5); reads
../shared/data. Each replicate's seed is printed in the header (seed + replicate index).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wmt22-de-en"
PAIRS = [("JDExploreAcademy", "LT22"), ("Online-B", "PROMT")]
ANALYSES = ["ref-length", "length-diff", "sentence-score", "word-frequency"]
ALPHAS = (0.05, 0.01)


def _lines(name: str) -> list[str]:
    return (DATA / f"generaltest2022.de-en.{name}.en").read_text(encoding="utf-8").splitlines()


def replicate(args: tuple[int, str, str, int, int]) -> dict[str, list[bool]]:
    """One null pair: any bucket significant, per analysis and alpha."""
    import mtsig

    index, a, b, seed, n_resamples = args
    ref, ya, yb = _lines("ref.A"), _lines(f"hyp.{a}"), _lines(f"hyp.{b}")
    swap = np.random.default_rng(seed + index).random(len(ref)) < 0.5
    x = [q if s else p for p, q, s in zip(ya, yb, swap)]
    y = [p if s else q for p, q, s in zip(ya, yb, swap)]
    res = mtsig.analyze([ref], {"X": x, "Y": y}, by=ANALYSES, n_resamples=n_resamples, n_bootstrap=100,
                        seed=seed + index)  # fmt: skip
    out = {}
    for an in res.analyses:
        ps = [c.p_adjusted for bk in an.buckets for c in bk.comparisons if c.p_adjusted is not None]
        out[an.kind] = [bool(ps) and min(ps) <= al for al in ALPHAS]
    out["any analysis"] = [any(out[k][i] for k in ANALYSES) for i in range(len(ALPHAS))]
    return out


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    from scipy.stats import beta

    lo = beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicates", type=int, default=500)
    ap.add_argument("--n-resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    print(f"# mtsig analyze under exact null pairs: {a.replicates} replicates per pair, ar with {a.n_resamples} "
          f"resamples, holm per analysis, seeds {a.seed}+i")  # fmt: skip
    print("| pair | analysis | alpha | rejected | rate | 95% CI |")
    print("|---|---|---|---|---|---|")
    for pa, pb in PAIRS:
        t = time.time()
        jobs = [(i, pa, pb, a.seed, a.n_resamples) for i in range(a.replicates)]
        with ProcessPoolExecutor(a.jobs) as ex:
            results = list(ex.map(replicate, jobs, chunksize=4))
        for kind in [*ANALYSES, "any analysis"]:
            for j, al in enumerate(ALPHAS):
                k = sum(r[kind][j] for r in results)
                lo, hi = clopper_pearson(k, a.replicates)
                print(f"| {pa} / {pb} | {kind} | {al} | {k}/{a.replicates} | {k / a.replicates:.3f} | "
                      f"[{lo:.3f}, {hi:.3f}] |", flush=True)  # fmt: skip
        print(f"<!-- {pa} / {pb}: {time.time() - t:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
