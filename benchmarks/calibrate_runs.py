"""Calibration and power of the tests for systems with optimizer runs, under four nulls built from real systems,
with 2, 3 and 5 runs per system (and unequal counts).

    python benchmarks/calibrate_runs.py [--reps 1000] [--reps5 500] [--shuffles 1000] [--jobs 2] [--runs 2 3 5]

Datasets:
- MultEval's example: baseline vs sys1, three runs each (so 2 and 3 runs only), BLEU on the tokenized text.
- WMT22 de-en pseudo-runs: system A = runs that take each segment from JDExploreAcademy, or from LT22 with a
  probability of 0.1, 0.2, 0.3, 0.15, 0.25 (one per run, drawn once with seed 0), so that the runs differ in
  quality as optimizer runs do; system B = the same for PROMT. BLEU (13a, both references).
- WMT22 de-fr pseudo-runs (the WMT XML test set): the same with Online-W and Online-Y, weak segments from LT22.
- ``-xz`` (de-en: JDExploreAcademy and LT22; de-fr: Online-W and LT22): two real systems of different quality
  as the only sources, so that under one-sided run-level noise A's runs are bimodal in quality (issue 40).

Nulls (``mtsig.studies.nulls.RUN_NULLS``): repartition (per segment, the outputs of all runs re-partitioned
at random: stratified AR's own null), pair-swap (per segment, run j of A swapped with run j of B with
probability 1/2), block-swap (per segment, all runs of A swapped with all runs of B: two different systems
that are equally good), run-level (pseudo-runs drawing a share p ~ Beta(1/2, 1/2) of segments from one
system: run-level optimizer noise, both pseudo-systems from one process), one-sided run-level (A's pseudo-runs
as under run-level, B's drawing every segment from a run chosen anew: all the run-level variance on one side).

Power: the block-swap pairs tilted (all runs swapped with probability 0.4 instead of 1/2: A' keeps 60% of A's
segments, a fifth of the real difference), where runs differ in quality; and runs that agree (``power (runs
agree)``: every run of A' takes each segment from B's first run with probability 0.4, independently per run and
segment, else from A's first run, and B' the other way round: no run effect, a fifth of the real difference).

Tests: ``ar`` (mtsig's default for runs), ``ar-paired`` (the same with ``--paired-runs``), ``ar-before`` (the
default before this change: runs paired by position with equal counts, the variance floored at a quarter of
AR's, no permutation bound), ``pooled-ar`` (AR on the pooled runs, no run variance), ``stratified-ar`` (Clark
et al.). Prints the rejection rates at alpha = 0.05 and 0.01 with 95% Clopper-Pearson intervals.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import mtsig
from mtsig.executor import ProcessExecutor, SerialExecutor
from mtsig.resample import Resampling
from mtsig.stats.engines import _contributions, _mean_squares, ar_counts, runs_ar_many
from mtsig.studies.calibration import RUNS_TESTS, runs_p_values
from mtsig.studies.nulls import RUN_NULLS, binomial_interval

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SHARES = (0.1, 0.2, 0.3, 0.15, 0.25)
TESTS = (*RUNS_TESTS, "ar-paired", "ar-satterthwaite", "ar-before")


def multeval() -> tuple:
    d = DATA / "multeval-example"
    t = mtsig.compute(
        [str(d / "refs.test2010.lc.tok.en.0")],
        [f"{s}={d}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1")],
        ["bleu"],
        tokenize="none",
    )
    return t.metrics["bleu"], t.stats["bleu"]["baseline"], t.stats["bleu"]["sys1"]


def _pseudo(metric, S: dict, main_a: str, main_b: str, weak: str) -> tuple:
    rng = np.random.default_rng(0)

    def runs(main: str) -> np.ndarray:
        out = []
        for share in SHARES:
            w = rng.random(S[main].shape[0]) < share
            out.append(np.where(w[:, None], S[weak], S[main]))
        return np.stack(out)

    return metric, runs(main_a), runs(main_b)


def wmt_de_en() -> tuple:
    d = DATA / "wmt22-de-en"
    names = ["JDExploreAcademy", "LT22", "PROMT"]
    t = mtsig.compute(
        [str(d / f"generaltest2022.de-en.ref.{r}.en") for r in "AB"],
        {s: str(d / f"generaltest2022.de-en.hyp.{s}.en") for s in names},
        ["bleu"],
    )
    return _pseudo(t.metrics["bleu"], {s: t.stats["bleu"][s][0] for s in names}, "JDExploreAcademy", "PROMT", "LT22")


def wmt_de_fr() -> tuple:
    x = str(DATA / "wmt22-de-fr" / "wmttest2022.de-fr.all.xml")
    names = ["Online-W", "Online-Y", "LT22"]
    t = mtsig.compute(x, [f"{x}:{s}" for s in names], ["bleu"])
    return _pseudo(t.metrics["bleu"], {s: t.stats["bleu"][s][0] for s in names}, "Online-W", "Online-Y", "LT22")


def _two_systems(metric, X: np.ndarray, Z: np.ndarray) -> tuple:
    """Two real systems of different quality as the sources of pseudo-runs: ten identical copies each, so that
    under one-sided run-level noise every pseudo-run of A takes a share s ~ Beta(1/2, 1/2) of its segments from Z
    and the rest from X (runs bimodal in quality), and every pseudo-run of B takes each segment from X or Z with
    probability 1/2 (issue 40's construction)."""
    return metric, np.repeat(X[None], 10, axis=0), np.repeat(Z[None], 10, axis=0)


def wmt_de_en_xz() -> tuple:
    d = DATA / "wmt22-de-en"
    names = ["JDExploreAcademy", "LT22"]
    t = mtsig.compute(
        [str(d / f"generaltest2022.de-en.ref.{r}.en") for r in "AB"],
        {s: str(d / f"generaltest2022.de-en.hyp.{s}.en") for s in names},
        ["bleu"],
    )
    return _two_systems(t.metrics["bleu"], *(t.stats["bleu"][s][0] for s in names))


def wmt_de_fr_xz() -> tuple:
    x = str(DATA / "wmt22-de-fr" / "wmttest2022.de-fr.all.xml")
    names = ["Online-W", "LT22"]
    t = mtsig.compute(x, [f"{x}:{s}" for s in names], ["bleu"])
    return _two_systems(t.metrics["bleu"], *(t.stats["bleu"][s][0] for s in names))


DATASETS = {"multeval": multeval, "wmt22-de-en-pseudo": wmt_de_en, "wmt22-de-fr-pseudo": wmt_de_fr,
            "wmt22-de-en-xz": wmt_de_en_xz, "wmt22-de-fr-xz": wmt_de_fr_xz}  # fmt: skip


def ar_before(metric, A: np.ndarray, B: np.ndarray, r: Resampling) -> float:
    """The default runs test before this change, for comparison: runs paired by position when the counts are
    equal, v = max(v_ar + v_run, v_ar / 4), Satterthwaite's degrees of freedom."""
    from scipy import stats as sps

    _, null = ar_counts({0: A.sum(axis=0), 1: B.sum(axis=0)}, metric, [(0, 1)], r, keep=True)[(0, 1)]
    delta = float(metric.score(B.sum(axis=(0, 1))) - metric.score(A.sum(axis=(0, 1))))
    if A.shape[0] == B.shape[0]:
        ms = _mean_squares(_contributions(metric, B) - _contributions(metric, A))
        comps = [(ms[0] / A.shape[0], ms[1] / A.shape[0], ms[2])]
    else:
        comps = []
        for X in (A, B):
            ms = _mean_squares(_contributions(metric, X))
            comps.append((ms[0] / X.shape[0], ms[1] / X.shape[0], ms[2]))
    v_ar = float(np.var(null))
    v_tot = max(v_ar + sum(c - e for c, e, df in comps if df > 0), v_ar / 4)
    den = sum(c * c / df for c, _, df in comps if df > 0)
    nu = v_tot * v_tot / den if den > 0 else float("inf")
    if delta == 0 or v_tot <= 0:
        return 1.0
    t = sps.t(nu) if np.isfinite(nu) else sps.norm()
    return float(min(1.0, 2 * t.sf(abs(delta) / np.sqrt(v_tot))))


def ar_satterthwaite(metric, A: np.ndarray, B: np.ndarray, r: Resampling) -> float:
    """The default runs test of the previous version, for comparison: the same variance terms, one t with
    Satterthwaite's degrees of freedom (at the fewest runs), the permutation bound with 2 runs."""
    from scipy import stats as sps

    from mtsig.stats.engines import MIN_RUNS_CALIBRATED, run_components, run_permutation_p, runs_variance

    _, null = ar_counts({0: A.sum(axis=0), 1: B.sum(axis=0)}, metric, [(0, 1)], r, keep=True)[(0, 1)]
    delta = float(metric.score(B.sum(axis=(0, 1))) - metric.score(A.sum(axis=(0, 1))))
    comps = run_components(metric, A, B)
    v, _, nu = runs_variance(float(np.var(null)), comps)
    if abs(delta) <= 1e-12 or v <= 0:
        return 1.0
    t = sps.t(nu) if np.isfinite(nu) else sps.norm()
    p = float(min(1.0, 2 * t.sf(abs(delta) / np.sqrt(v))))
    if all(c == 0 for c, _, _ in comps):
        p = (int(np.sum(np.abs(null) >= abs(delta) - 1e-9)) + 1) / (null.size + 1)
    if min(A.shape[0], B.shape[0]) < MIN_RUNS_CALIBRATED:
        p = max(p, run_permutation_p(metric, A, B, "two-sided")[0])
    return p


def tilted(A: np.ndarray, B: np.ndarray, n: int, seed: int = 0, q: float = 0.4):
    """Block-swap pairs with swap probability q < 1/2: A' keeps most of A's segments (a real difference)."""
    from mtsig.resample import stream_rng

    for r in range(n):
        m = stream_rng(seed, 7_000, r).random(A.shape[1]) < q
        mask = np.broadcast_to(m, A.shape[:2])
        yield np.where(mask[:, :, None], B, A), np.where(mask[:, :, None], A, B)


def agree(A: np.ndarray, B: np.ndarray, n: int, seed: int = 0, q: float = 0.4):
    """Runs that agree (no run effect) and a real difference: every run of A' takes each segment from B's first
    run with probability q, else from A's first run, independently per run and segment; B' the other way round.
    The runs of a system differ only by which segments they draw, as outputs of one system differ by chance."""
    from mtsig.resample import stream_rng

    for r in range(n):
        g = stream_rng(seed, 8_000, r)
        ma = g.random(A.shape[:2]) < q
        mb = g.random(B.shape[:2]) < q
        yield np.where(ma[:, :, None], B[0], A[0]), np.where(mb[:, :, None], A[0], B[0])


GENERATORS = {**RUN_NULLS, "power (tilted block-swap)": tilted, "power (runs agree)": agree}


def _task(args):
    dataset, null, ka, kb, reps, shuffles, seed, tests = args
    metric, A, B = DATASETS[dataset]()
    A, B = A[:ka], B[:kb]
    if null in ("block-swap", "power (tilted block-swap)", "power (runs agree)") and ka != kb:
        return dataset, null, ka, kb, None, 0.0
    t0 = time.perf_counter()
    ps: dict[str, list[float]] = {t: [] for t in tests}
    lib = [t for t in RUNS_TESTS if t in tests]
    for i, (a, b) in enumerate(GENERATORS[null](A, B, reps, seed=seed)):
        r = Resampling(shuffles, seed, stream=(i,))
        for t, p in runs_p_values(metric, a, b, r, lib).items() if lib else ():
            ps[t].append(p)
        if "ar-satterthwaite" in tests:
            ps["ar-satterthwaite"].append(ar_satterthwaite(metric, a, b, r))
        if "ar-before" in tests:
            ps["ar-before"].append(ar_before(metric, a, b, r))
        if ka == kb and "ar-paired" in tests:
            ps["ar-paired"].append(runs_ar_many({0: (metric, a, b)}, r, paired=True)[0]["p"])
    return dataset, null, ka, kb, ps, time.perf_counter() - t0


def _cell(p: list[float], alpha: float) -> str:
    k = int(np.sum(np.asarray(p) <= alpha))
    lo, hi = binomial_interval(k, len(p))
    return f"{k / len(p):.3f} [{lo:.3f}, {hi:.3f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=1000, help="replicates per cell with 2 and 3 runs")
    ap.add_argument("--reps5", type=int, default=500, help="replicates per cell with 5 runs and unequal counts")
    ap.add_argument("--shuffles", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--runs", nargs="+", default=["2", "3", "5", "2:3", "3:5"], help="runs per system (A:B)")
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--tests", nargs="+", default=list(TESTS), choices=list(TESTS), help="the tests to run (all)")
    ap.add_argument("--nulls", nargs="+", default=list(GENERATORS), choices=list(GENERATORS), help="(all)")
    a = ap.parse_args()
    if not DATA.exists():
        print(f"needs {DATA}", file=sys.stderr)
        return 2
    tasks = []
    for spec in a.runs:
        ka, kb = (int(x) for x in spec.split(":")) if ":" in spec else (int(spec), int(spec))
        reps = a.reps if max(ka, kb) <= 3 and ka == kb else a.reps5
        for d in a.datasets:
            if d == "multeval" and max(ka, kb) > 3:
                continue
            tasks += [(d, n, ka, kb, reps, a.shuffles, a.seed, tuple(a.tests)) for n in a.nulls]
    ex = ProcessExecutor(a.jobs) if a.jobs > 1 else SerialExecutor()
    print(f"{a.shuffles} shuffles per test, seed {a.seed}; rejection rate [95% Clopper-Pearson]\n")
    print("| dataset | runs | null | test | replicates | α = 0.05 | α = 0.01 |")
    print("|---|---|---|---|---|---|---|")
    for dataset, null, ka, kb, ps, secs in ex.map(_task, tasks):
        if ps is None:
            continue
        for t in ps:
            n = len(ps[t])
            if n == 0:
                continue
            print(f"| {dataset} | {ka}:{kb} | {null} | {t} | {n} | {_cell(ps[t], 0.05)} | {_cell(ps[t], 0.01)} |")
        print(f"<!-- {dataset} {ka}:{kb} {null}: {secs:.0f} s -->", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
