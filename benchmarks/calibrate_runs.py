"""Calibration of the tests for systems with optimizer runs, under four nulls built from real systems.

    python benchmarks/calibrate_runs.py [--reps 1000] [--shuffles 1000] [--jobs 2]

Datasets:
- MultEval's example: baseline vs sys1, three runs each, BLEU on the tokenized text.
- WMT22 pseudo-runs: system A = three runs that take each segment from JDExploreAcademy, or from LT22 with a
  probability of 0.1, 0.2 and 0.3 (one per run, drawn once with seed 0), so that the runs differ in quality
  as optimizer runs do; system B = the same for PROMT. BLEU (13a, both references).

Nulls (``mtsig.studies.nulls.RUN_NULLS``): repartition (per segment, the outputs of all runs re-partitioned
at random: stratified AR's own null), pair-swap (per segment, run j of A swapped with run j of B with
probability 1/2), block-swap (per segment, all runs of A swapped with all runs of B: two different systems
that are equally good), run-level (pseudo-runs drawing a share p ~ Beta(1/2, 1/2) of segments from one
system: run-level optimizer noise, both pseudo-systems from one process).

Tests: ``ar`` (mtsig's default for runs), ``pooled-ar`` (the same without the run variance), ``stratified-ar``
(Clark et al.). Prints the rejection rates at alpha = 0.05 and 0.01 with 95% Clopper-Pearson intervals, and
the p-values of the real comparisons (10,000 shuffles).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import mtsig
from mtsig.executor import ForkExecutor, SerialExecutor
from mtsig.resample import Resampling
from mtsig.studies.calibration import RUNS_TESTS, runs_calibration, runs_p_values
from mtsig.studies.nulls import RUN_NULLS

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def multeval() -> tuple:
    d = DATA / "multeval-example"
    t = mtsig.compute(
        [str(d / "refs.test2010.lc.tok.en.0")],
        [f"{s}={d}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1")],
        ["bleu"],
        tokenize="none",
    )
    return t.metrics["bleu"], t.stats["bleu"]["baseline"], t.stats["bleu"]["sys1"]


def wmt_pseudo_runs() -> tuple:
    d = DATA / "wmt22-de-en"
    names = ["JDExploreAcademy", "LT22", "PROMT"]
    t = mtsig.compute(
        [str(d / f"generaltest2022.de-en.ref.{r}.en") for r in "AB"],
        {s: str(d / f"generaltest2022.de-en.hyp.{s}.en") for s in names},
        ["bleu"],
    )
    S = {s: t.stats["bleu"][s][0] for s in names}
    rng = np.random.default_rng(0)

    def runs(main: str) -> np.ndarray:
        out = []
        for share in (0.1, 0.2, 0.3):
            weak = rng.random(S[main].shape[0]) < share
            out.append(np.where(weak[:, None], S["LT22"], S[main]))
        return np.stack(out)

    return t.metrics["bleu"], runs("JDExploreAcademy"), runs("PROMT")


DATASETS = {"multeval": multeval, "wmt22-pseudo-runs": wmt_pseudo_runs}


def _task(args):
    dataset, null, reps, shuffles, seed = args
    metric, A, B = DATASETS[dataset]()
    t0 = time.perf_counter()
    rates = runs_calibration(metric, (A, B), null, reps, Resampling(shuffles, seed))
    return dataset, null, rates, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--shuffles", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    if not DATA.exists():
        print(f"needs {DATA}", file=sys.stderr)
        return 2
    tasks = [(d, n, a.reps, a.shuffles, a.seed) for d in DATASETS for n in RUN_NULLS]
    ex = ForkExecutor(a.jobs) if a.jobs > 1 else SerialExecutor()
    print(f"{a.reps} replicates per null, {a.shuffles} shuffles per test, seed {a.seed}\n")
    print("| dataset | null | test | rejected at 0.05 [95% CI] | rejected at 0.01 [95% CI] |")
    print("|---|---|---|---|---|")
    for dataset, null, rates, secs in ex.map(_task, tasks):
        for t in RUNS_TESTS:
            r5, r1 = rates[(t, 0.05)], rates[(t, 0.01)]
            print(
                f"| {dataset} | {null} | {t} | {r5.rate:.3f} [{r5.interval[0]:.3f}, {r5.interval[1]:.3f}] | "
                f"{r1.rate:.3f} [{r1.interval[0]:.3f}, {r1.interval[1]:.3f}] |"
            )
        print(f"<!-- {dataset} {null}: {secs:.0f} s -->", flush=True)
    print("\nReal comparisons, 10,000 shuffles (p-values):")
    for name, make in DATASETS.items():
        metric, A, B = make()
        ps = runs_p_values(metric, A, B, Resampling(10_000, 1), RUNS_TESTS)
        delta = metric.corpus_score(B.sum(axis=0)) - metric.corpus_score(A.sum(axis=0))
        print(f"  {name}: delta {delta:+.3f} BLEU; " + ", ".join(f"{t}: p = {p:.4f}" for t, p in ps.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
