"""Clark et al. (2011)'s runs experiment and a power analysis, over the statistics (never the text).

- :func:`runs` (Table 2, Figs. 1-2): from each system's pool of optimizer runs, n runs per system are drawn
  (n = 1 ... pool size) many times and compared by stratified approximate randomization: the 95% interval of
  the p-values per n, the distribution of the difference per n, the single-run scenarios (A's best run
  against B's worst, medians, A's worst against B's best), and every run's score (histograms).
- :func:`power` (beyond the seeds): from two pilot systems, test sets of each size are drawn from the pilot's
  segments with replacement; the share of them on which each test finds the pilot's difference (power), the
  smallest difference detectable at that size, and the size a target difference needs.

Draw ``(pair, n, d)`` / ``(size, d)`` takes its runs or segments from ``SeedSequence(seed, (key, ...))`` and
its resamples from the resampling streams of the same key, so draws run anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from mtsig.errors import InputError
from mtsig.resample import STREAM_KEYS, Resampling, stream_rng
from mtsig.stats.engines import runs_ar_many, stratified_ar_many
from mtsig.stats.kinds import KINDS
from mtsig.stats.paired import PAIRED_TESTS, p_from_count, paired_test
from mtsig.studies.design import (
    MAX_REPLICATES,
    MAX_RESAMPLES,
    Design,
    design_dict,
    metric_option,
    option,
    pairs_option,
    seed_option,
)
from mtsig.studies.inputs import metric_of, pair_of, pooled_stats
from mtsig.studies.replicates import Runner
from mtsig.studies.result import StudyResult, StudyTable

if TYPE_CHECKING:
    from mtsig.metrics.base import Metric

POWER_TESTS = ("ar", "paired-bootstrap", "bootstrap", "ttest")


@dataclass(frozen=True, kw_only=True)
class RunsDesign(Design):
    """``study runs``: p-values and differences by the number of optimizer runs."""

    metric: str | None = metric_option()
    replicates: int = option(250, "draws of n runs per number of runs", "int", low=1, high=MAX_REPLICATES)
    n_resamples: int = option(1000, "shuffles of stratified randomization", "int", low=1, high=MAX_RESAMPLES)
    alpha: float = option(0.05, "significance level", "float", low=0, high=1, open=True)
    seed: int = seed_option()
    pairs: tuple[tuple[str, str], ...] | None = pairs_option("pairs of systems (default: all pairs)")


def _pooled_score(metric, runs: np.ndarray) -> float:
    return float(metric.score(runs.sum(axis=(0, 1))))


@dataclass(frozen=True)
class RunsJob:
    """Draw r of one pair: n runs of each system (without replacement), stratified AR of the pooled runs and
    compare's default test for runs (``ar``: randomization of the pooled runs plus run-level variance)."""

    metric: Metric
    A: np.ndarray  # (runs, N, d)
    B: np.ndarray
    n: int
    n_resamples: int
    seed: int
    pair: int

    #: every (A's runs, B's runs) choice, when there are no more of them than draws: each taken once
    subsets: tuple | None = None

    def replicate(self, r: int) -> tuple[float, float, float]:
        key = (STREAM_KEYS["runs"], self.pair, self.n, r)
        if self.subsets is not None:
            ia, ib = self.subsets[r]
        else:
            rng = stream_rng(self.seed, *key)
            ia = np.sort(rng.choice(self.A.shape[0], self.n, replace=False))
            ib = np.sort(rng.choice(self.B.shape[0], self.n, replace=False))
        a, b = self.A[list(ia)], self.B[list(ib)]
        res = Resampling(self.n_resamples, self.seed, stream=key)
        c = stratified_ar_many({0: (self.metric, a, b)}, res)[0]
        p_ar = runs_ar_many({0: (self.metric, a, b)}, res)[0]["p"]
        delta = _pooled_score(self.metric, b) - _pooled_score(self.metric, a)
        return delta, p_from_count(c, self.n_resamples), p_ar


def _all_subsets(na: int, nb: int, n: int, draws: int) -> tuple | None:
    """Every choice of n of A's runs and n of B's, when there are at most ``draws`` of them (else None: draw)."""
    from math import comb

    if comb(na, n) * comb(nb, n) > draws:
        return None
    return tuple((ia, ib) for ia in combinations(range(na), n) for ib in combinations(range(nb), n))


def _run_pairs(table, pairs) -> list[tuple[str, str]]:
    names = table.system_names
    out = list(pairs) if pairs else list(combinations(names, 2))
    for a, b in out:
        for s in (a, b):
            if s not in names:
                raise InputError(f"no system {s!r}; systems: {', '.join(names)}", param="pairs")
    return out


def _scenarios(metric, A, B, R: int, seed: int) -> list[list]:
    """Clark's single-run rows: (A high, B low), (medians), (A low, B high), each by stratified AR."""
    sa = [_pooled_score(metric, A[i : i + 1]) for i in range(A.shape[0])]
    sb = [_pooled_score(metric, B[i : i + 1]) for i in range(B.shape[0])]
    oa, ob = np.argsort(sa, kind="stable"), np.argsort(sb, kind="stable")
    rows = []
    mid_a, mid_b = oa[len(oa) // 2], ob[len(ob) // 2]
    for la, lb, ia, ib in (
        ("high", "low", oa[-1], ob[0]),
        ("median", "median", mid_a, mid_b),
        ("low", "high", oa[0], ob[-1]),
    ):
        c = stratified_ar_many({0: (metric, A[ia : ia + 1], B[ib : ib + 1])}, Resampling(R, seed))[0]
        rows.append([la, lb, sb[ib] - sa[ia], p_from_count(c, R)])
    return rows


def _drawn_rows(m, systems: tuple, pair: tuple[int, str], g: RunsDesign, run: Runner, data: dict) -> list[list]:
    """Per n = 1 ... pool size: n runs of each system ``(A, B)`` drawn (or every choice), the p-values' 95%
    interval, the distribution of Δ; ``pair``: (number, label); the draws go to ``data``."""
    (A, B), (k, label) = systems, pair
    rows = []
    data["deltas"][label], data["p_intervals"][label] = {}, []
    for n in range(1, min(A.shape[0], B.shape[0]) + 1):
        subsets = _all_subsets(A.shape[0], B.shape[0], n, g.replicates)
        count = len(subsets) if subsets is not None else g.replicates
        out = np.array(
            run.replicates(f"runs: {label}, n = {n}", RunsJob(m, A, B, n, g.n_resamples, g.seed, k, subsets), count)
        )
        delta, p, p_ar = out[:, 0], out[:, 1], out[:, 2]
        lo, hi, med = (float(x) for x in np.quantile(p, [0.025, 0.975, 0.5]))
        sd = float(delta.std(ddof=1)) if delta.size > 1 else 0.0
        shown = f"all {count}" if subsets is not None else count
        ar = [float(np.median(p_ar)), 100 * float(np.mean(p_ar <= g.alpha))]
        rows.append([label, n, shown, lo, hi, med, 100 * float(np.mean(p <= g.alpha)), *ar, float(delta.mean()), sd,
                     100 * float(np.mean(delta <= 0))])  # fmt: skip
        data["deltas"][label][str(n)] = delta.tolist()
        data["p_intervals"][label].append([n, lo, hi, med])
    return rows


def runs(table, design: RunsDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Clark et al.'s Table 2 and Figs. 1-2 on the user's systems with optimizer runs."""
    g, run = design or RunsDesign(), run or Runner()
    name, m = metric_of(table, g.metric)
    S = {s: np.asarray(table.stats[name][s], dtype=np.float64) for s in table.system_names}
    if min(x.shape[0] for x in S.values()) < 2:
        raise InputError("the runs study needs at least two optimizer runs per system (-s NAME=run1,run2,...)")
    d = m.decimals
    rows_s: list[list] = []
    rows_n: list[list] = []
    data: dict[str, dict] = {"run_scores": {}, "deltas": {}, "p_intervals": {}}
    for s, X in S.items():
        data["run_scores"][s] = [_pooled_score(m, X[i : i + 1]) for i in range(X.shape[0])]
    for k, (a, b) in enumerate(_run_pairs(table, g.pairs)):
        label = f"{a} vs {b}"
        rows_s += [[label, 1, *sc] for sc in _scenarios(m, S[a], S[b], g.n_resamples, g.seed)]
        rows_n += _drawn_rows(m, (S[a], S[b]), (k, label), g, run, data)
    t1 = StudyTable(f"{name}: single runs (Clark et al.'s Table 2, first rows)",
                    ["pair (B - A)", "n", "A's run", "B's run", "Δ", "p (stratified AR)"], rows_s,
                    [None, None, None, None, d, 4])  # fmt: skip
    head = ["pair (B - A)", "n runs each", "draws (or all choices)", "p 2.5%", "p 97.5%", "median p",
            f"p <= {g.alpha:g} %", "median p (ar)", f"ar p <= {g.alpha:g} %", "mean Δ", "sd Δ", "Δ <= 0 %"]  # fmt: skip
    t2 = StudyTable(f"{name}: n runs drawn at random from each pool (stratified AR: 95% interval of the p-values; "
                    "beside it compare's default test, ar)", head, rows_n,
                    [None, None, None, 4, 4, 4, 1, 4, 1, d, d, 1])  # fmt: skip
    rows_r = [[s, len(v), float(np.mean(v)), float(np.std(v, ddof=1)), float(np.min(v)), float(np.max(v))]
              for s, v in data["run_scores"].items()]  # fmt: skip
    t3 = StudyTable(f"{name}: test-set score of every run", ["system", "runs", "mean", "sd", "min", "max"], rows_r,
                    [None, None, d, d, d, d])  # fmt: skip
    settings = {"metric": name, "draws per n": g.replicates, "shuffles": g.n_resamples, "alpha": g.alpha,
                "seed": g.seed, "segments": table.n_segments}  # fmt: skip
    notes = [
        'When a pool holds no more choices of n runs than draws, every choice is tested once ("all k"): the'
        " spread then shows which runs one happens to have, as Clark et al.'s pool of 300 did by sampling. More"
        " runs narrow the p-values around the truth.",
        "Stratified AR (Clark et al.) asks whether these runs differ on this test set: it is exact when the runs "
        "of both systems are exchangeable segment by segment, and rejects far too often when runs differ in quality "
        "as optimizer runs do (0.45-0.55 at α = 0.05 under run-level noise, benchmarks/calibrate_runs.py). "
        "compare's default test for runs (ar) also counts the run-level variance: whether other runs of the same "
        "systems would differ; with fewer than 3 runs per system its p-value is bounded by the exact permutation "
        "test over runs (at least 1/3 with 2 runs each), so expect it larger.",
    ]
    return StudyResult("runs", settings, (t3, t1, t2), data, tuple(notes), design_dict(g))


# ------------------------------------------------------------------------------------------------ power
def _single_output_tests() -> tuple[str, ...]:
    return tuple(t for t, spec in PAIRED_TESTS.items() if KINDS[spec.kind].single_output)


@dataclass(frozen=True, kw_only=True)
class PowerDesign(Design):
    """``study power``: power and the detectable difference by test-set size, from a pilot pair."""

    metric: str | None = metric_option()
    sizes: tuple[int, ...] | None = option(None, "test-set sizes (default: 100 250 500 1000 2000 below N, N, 2N)",
                                           "ints", low=2)  # fmt: skip
    replicates: int = option(200, "test sets drawn per size", "int", low=2, high=MAX_REPLICATES)
    n_resamples: int = option(1000, "resamples per test", "int", low=1, high=MAX_RESAMPLES)
    alpha: float = option(0.05, "significance level", "float", low=0, high=1, open=True)
    power: float = option(0.8, "the power wanted", "float", low=0, high=1, open=True)
    target: float | None = option(None, "the difference to detect (default: the pilot's)", "float")
    seed: int = seed_option()
    pairs: tuple[tuple[str, str], ...] | None = pairs_option("the pilot pair A:B (default: the first two)", most=1)
    tests: tuple[str, ...] = option(POWER_TESTS, "the tests", "strs", choices=_single_output_tests)


@dataclass(frozen=True)
class PowerJob:
    """Draw r at one size: a test set of ``size`` segments drawn with replacement from the pilot pair."""

    metric: Metric
    A: np.ndarray
    B: np.ndarray
    size: int
    tests: tuple[str, ...]
    n_resamples: int
    seed: int

    def replicate(self, r: int) -> list[float | None]:
        key = (STREAM_KEYS["power"], self.size, r)
        rows = stream_rng(self.seed, *key).integers(0, self.A.shape[0], self.size)
        a, b = self.A[rows], self.B[rows]
        res = Resampling(self.n_resamples, self.seed, stream=key)
        out: list[float | None] = [float(self.metric.score(b.sum(axis=0)) - self.metric.score(a.sum(axis=0)))]
        return out + [paired_test(t, a, b, self.metric, resampling=res).p_value for t in self.tests]


def _power_sizes(N: int, sizes) -> list[int]:
    chosen = sorted(set(sizes)) if sizes else sorted({s for s in (100, 250, 500, 1000, 2000) if s < N} | {N, 2 * N})
    if any(s < 2 for s in chosen):
        raise InputError("test-set sizes must be at least 2 segments", param="sizes")
    return chosen


def _power_rows(m, A, B, g: PowerDesign, run: Runner, z: float) -> tuple[list, dict, dict]:
    """Per test-set size: Δ's mean and sd over the drawn test sets, the detectable Δ, each test's power."""
    pilot = float(m.score(B.sum(axis=0)) - m.score(A.sum(axis=0)))
    rows: list[list] = []
    curves: dict[str, list] = {t: [] for t in g.tests}
    se: dict = {}
    for size in _power_sizes(A.shape[0], g.sizes):
        job = PowerJob(m, A, B, size, g.tests, g.n_resamples, g.seed)
        out = np.array(run.replicates(f"power: {size} segments", job, g.replicates))
        delta = out[:, 0]
        se[size] = float(delta.std(ddof=1))
        found = []
        for j, t in enumerate(g.tests):
            hit = (out[:, 1 + j] <= g.alpha) & (np.sign(delta) == np.sign(pilot))
            found.append(100 * float(hit.mean()))
            curves[t].append([size, found[-1]])
        rows.append([size, g.replicates, float(delta.mean()), se[size], z * se[size], *found])
    return rows, curves, se


def _needed(curve: list, wanted: float, pilot: float, target: float) -> list:
    """The test-set size at which a simulated power curve (``[[size, power %], ...]`` for the pilot's Δ) reaches
    ``wanted`` %, interpolated linearly in log size between the sizes around the crossing; for another target Δ,
    scaled by (pilot / target)² (the standard error falls as 1/√n, so Δ_t at n is as hard as the pilot's Δ at
    n (Δ_t / Δ_p)²). ``[size or None, how]``."""
    if not target or not pilot:
        return [None, "no difference to detect"]
    pts = sorted((float(s), float(p)) for s, p in curve)
    hit = next((i for i, (_, p) in enumerate(pts) if p >= wanted), None)
    if hit is None:
        return [None, f"not reached up to {int(pts[-1][0])} segments: give larger --sizes"]
    if hit == 0:
        size, how = pts[0][0], f"reached at the smallest size studied, {int(pts[0][0])}: at most this"
    else:
        (s0, p0), (s1, p1) = pts[hit - 1], pts[hit]
        size = float(np.exp(np.log(s0) + (wanted - p0) / (p1 - p0) * (np.log(s1) - np.log(s0))))
        how = f"the simulated curve, between {int(s0)} and {int(s1)} segments"
    if abs(target) != abs(pilot):
        size *= (pilot / target) ** 2
        how += f", scaled by (pilot Δ / target Δ)² = {(pilot / target) ** 2:.3g}"
    return [int(np.ceil(size)), how]


def power(table, design: PowerDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Power of each test and the smallest detectable difference by test-set size, from a pilot pair."""
    from scipy.stats import norm

    g, run = design or PowerDesign(), run or Runner()
    name, m, stats = pooled_stats(table, g.metric)
    a, b = pair_of(table, g.pairs[0] if g.pairs else None, "a pilot pair")
    A, B = stats[a], stats[b]
    pilot = float(m.score(B.sum(axis=0)) - m.score(A.sum(axis=0)))
    z = float(norm.ppf(1 - g.alpha / 2) + norm.ppf(g.power))
    rows, curves, se = _power_rows(m, A, B, g, run, z)
    head = ["test-set size", "draws", "mean Δ", "sd Δ", f"detectable Δ (α {g.alpha:g}, power {g.power:g})",
            *(f"power % {t}" for t in g.tests)]  # fmt: skip
    d = m.decimals
    t1 = StudyTable(f"{name}: power to find {a} vs {b} (pilot Δ {pilot:.{d}f}) by test-set size", head, rows,
                    [None, None, d, d, d, *([1] * len(g.tests))])  # fmt: skip
    target = g.target if g.target is not None else pilot
    rows_n = [[t, abs(target), *_needed(curves[t], 100 * g.power, pilot, target)] for t in g.tests]
    t2 = StudyTable(f"{name}: segments needed for Δ = {abs(target):.{d}f} at α = {g.alpha:g} with power {g.power:g}",
                    ["test", "target Δ", "segments needed", "from"], rows_n, [None, d, None, None])  # fmt: skip
    data = {"curves": curves, "detectable": [[s, z * v] for s, v in se.items()], "pilot": pilot, "target": target}
    settings = {"metric": name, "pilot": f"{a} vs {b}", "draws per size": g.replicates, "resamples": g.n_resamples,
                "alpha": g.alpha, "power": g.power, "seed": g.seed, "segments": A.shape[0]}  # fmt: skip
    notes = [
        "Test sets are drawn with replacement from the pilot's segments (the pilot stands for the population);"
        " power: the share of draws on which the test is significant in the pilot's direction.",
        "Segments needed: where each test's simulated power curve crosses the power wanted (not a normal "
        "approximation, which ignores how each test spends its power; measured: it promised 80% at 1,026 segments "
        "where AR had 74%).",
    ]
    return StudyResult("power", settings, (t1, t2), data, tuple(notes), design_dict(g))
