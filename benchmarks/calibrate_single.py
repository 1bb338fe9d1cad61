"""Calibration of the single-run tests under an exact null built from two real systems.

    python benchmarks/calibrate_single.py [--reps 1000] [--resamples 1000]

WMT22 de-en, BLEU (13a, both references): pseudo-system pairs made from JDExploreAcademy and PROMT by
swapping each segment's pair of outputs with probability 1/2 (Riezler & Maxwell 2005, section 4.3). Prints
the rejection rate of every test at alpha = 0.05 and 0.01 with 95% Clopper-Pearson intervals, including
Riezler & Maxwell's Fig. 2 as printed (the absolute-value shift).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import mtsig
from mtsig.resample import Resampling
from mtsig.stats.engines import bootstrap_many
from mtsig.studies import rejection_rate, shift_abs_p, swapped_pairs

WMT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wmt22-de-en"
TESTS = ("ar", "bootstrap", "paired-bootstrap", "ttest", "wilcoxon")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    if not WMT.exists():
        print(f"needs {WMT}", file=sys.stderr)
        return 2
    names = ["JDExploreAcademy", "PROMT"]
    t = mtsig.compute(
        [str(WMT / f"generaltest2022.de-en.ref.{r}.en") for r in "AB"],
        {s: str(WMT / f"generaltest2022.de-en.hyp.{s}.en") for s in names},
        ["bleu"],
    )
    m = t.metrics["bleu"]
    ps: dict[str, list[float]] = {k: [] for k in (*TESTS, "fig2-as-printed")}
    for i, (x, y) in enumerate(swapped_pairs(t.stats["bleu"][names[0]][0], t.stats["bleu"][names[1]][0], a.reps,
                                             seed=a.seed)):  # fmt: skip
        r = Resampling(a.resamples, a.seed, stream=(i,))
        for test in TESTS:
            ps[test].append(mtsig.paired_test(test, x, y, m, resampling=r).p_value)
        boot = bootstrap_many({"x": (m, x), "y": (m, y)}, r)
        ps["fig2-as-printed"].append(shift_abs_p(boot["y"] - boot["x"], m.corpus_score(y) - m.corpus_score(x)))
    print(f"{a.reps} pseudo-system pairs (WMT22 JDExploreAcademy/PROMT swapped per segment), {a.resamples} resamples")
    print("| test | rejected at 0.05 [95% CI] | rejected at 0.01 [95% CI] |\n|---|---|---|")
    for k, v in ps.items():
        r5, r1 = rejection_rate(v, 0.05), rejection_rate(v, 0.01)
        print(f"| {k} | {r5.rate:.3f} [{r5.ci[0]:.3f}, {r5.ci[1]:.3f}] | "
              f"{r1.rate:.3f} [{r1.ci[0]:.3f}, {r1.ci[1]:.3f}] |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
