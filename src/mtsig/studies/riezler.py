"""Riezler & Maxwell (2005)'s experiments on a user's own outputs, over the statistics (never the text).

- :func:`type1` (Table 2, section 4.3): (a) the first system against each of the others, which the user calls
  equivalent: differences and the p-value of every test; (b) exact nulls from two real systems (each
  segment's pair of outputs swapped with probability 1/2): how often every test rejects at each level, with
  binomial intervals, and the p-values against the uniform (P-P plot). The seed's Fig. 2 as printed (the
  shift applied to absolute differences) is measured beside the centred shift test.
- :func:`multiplicity` (section 4.4): k pseudo-systems, each segment's output drawn from one of two real
  systems at random (every pair is then an exact null): the experimentwise error of uncorrected tests
  against 1 - (1 - alpha)^K for K pairs, and of every correction, max-T and Tukey's HSD.
- :func:`sensitivity` (section 3): all pairs under several metrics: how many differences each finds
  significant, and where the metrics disagree.

Replicate r draws its null from ``SeedSequence(seed, (study key, r))`` and its resamples from the streams
``(study key, r)`` of the seed, so replicates run anywhere (:mod:`mtsig.studies.replicates`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from mtsig.errors import InputError
from mtsig.resample import STREAM_KEYS, Resampling, stream_rng
from mtsig.stats.engines import ar_counts, bootstrap_many
from mtsig.stats.kinds import KINDS, PairStats
from mtsig.stats.multiple import adjust, experimentwise_error, maxt, p_corrections, studentized_ranges
from mtsig.stats.paired import PAIRED_TESTS, pair_evidence
from mtsig.stats.pvalues import p_from_count
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
from mtsig.studies.inputs import pair_of, pooled_stats
from mtsig.studies.nulls import binomial_interval, shift_abs_p
from mtsig.studies.replicates import Runner
from mtsig.studies.result import StudyResult, StudyTable

if TYPE_CHECKING:
    from mtsig.metrics.base import Metric

#: variants the type-I study measures beside the registered tests: the seed's Fig. 2 as printed, after the shift
#: test it misreads; and the label that tells the two shifts apart
VARIANTS = {"bootstrap": "bootstrap-abs"}
_LABEL = {"bootstrap": "bootstrap (null-centred)", "bootstrap-abs": "bootstrap (R&M Fig. 2: |Δ*| centred)"}


#: max-T single-step and step-down reject some pair in the same families (the same first step): one row
def multiplicity_methods() -> tuple[str, ...]:
    """The rows of ``study multiplicity``: every correction from p-values (registered ones included, ``none``
    aside), max-T over the joint bootstrap and Tukey's HSD."""
    return (*(c for c in p_corrections() if c != "none"), "maxt", "tukey-hsd")


MULTIPLICITY_METHODS = multiplicity_methods()
_NULL_PAIR = "the two real systems the exact nulls are built from (default: the first two)"
_ALPHAS = "significance levels"


def type1_tests() -> tuple[str, ...]:
    """What ``study type1`` calibrates: every registered test of a kind that tests single outputs (stratified
    randomization is approximate randomization there), each followed by its measured variants."""
    out: list[str] = []
    for name, spec in PAIRED_TESTS.items():
        if KINDS[spec.kind].single_output:
            out += [name, *([VARIANTS[name]] if name in VARIANTS else [])]
    return tuple(out)


def label(test: str) -> str:
    return _LABEL.get(test) or PAIRED_TESTS[test].label


@dataclass(frozen=True, kw_only=True)
class Type1Design(Design):
    """``study type1``: the options of Riezler & Maxwell's type-I error experiments."""

    metric: str | None = metric_option()
    replicates: int = option(1000, "null pairs", "int", low=1, high=MAX_REPLICATES)
    n_resamples: int = option(10_000, "shuffles per null pair (randomization tests)", "int", low=1, high=MAX_RESAMPLES)
    n_bootstrap: int = option(
        1000, "bootstrap resamples per null pair (bootstrap tests)", "int", low=1, high=MAX_RESAMPLES
    )
    alphas: tuple[float, ...] = option((0.01, 0.05, 0.1), _ALPHAS, "floats", low=0, high=1, open=True)
    seed: int = seed_option()
    pairs: tuple[tuple[str, str], ...] | None = pairs_option(_NULL_PAIR, most=1)


@dataclass(frozen=True, kw_only=True)
class MultiplicityDesign(Design):
    """``study multiplicity``: families of exact-null pseudo-systems."""

    metric: str | None = metric_option()
    replicates: int = option(1000, "null families", "int", low=1, high=MAX_REPLICATES)
    n_resamples: int = option(
        1000, "shuffles per family (approximate randomization, max-T)", "int", low=1, high=MAX_RESAMPLES
    )
    null_systems: int = option(5, "exact-null systems per family (3 to 8)", "int", low=3, high=8)
    alphas: tuple[float, ...] = option((0.01, 0.05, 0.1), _ALPHAS, "floats", low=0, high=1, open=True)
    seed: int = seed_option()
    pairs: tuple[tuple[str, str], ...] | None = pairs_option(_NULL_PAIR, most=1)


@dataclass(frozen=True, kw_only=True)
class SensitivityDesign(Design):
    """``study sensitivity``: every pair under every metric given with -m."""

    test: str = option("ar", "the test", "str", choices=lambda: tuple(PAIRED_TESTS))
    alpha: float = option(0.05, "significance level", "float", low=0, high=1, open=True)
    correction: str = option("holm", "p-value correction", "str", choices=p_corrections())
    n_resamples: int | None = option(None, "resamples of the test (its default)", "int", low=1, high=MAX_RESAMPLES)
    seed: int = seed_option()


def pair_p_values(tests, pair: PairStats, resampling: Resampling, counts: dict) -> dict:
    """Δ (b - a) and the two-sided p-value of every test (and variant) of ``tests`` for one pair, each registered
    test from the evidence its kind gathers (:func:`~mtsig.stats.paired.pair_evidence`)."""
    registered = [t for t in tests if t in PAIRED_TESTS]
    ev = pair_evidence(registered, pair, resampling, counts)
    out = {"delta": pair.delta}
    for t in registered:
        out[t] = PAIRED_TESTS[t].outcome(ev[t][0]).p_value
    if "bootstrap-abs" in tests:
        out["bootstrap-abs"] = shift_abs_p(ev["bootstrap"][0].boot_delta, out["delta"])
    return out


def _counts(tests, n_resamples: int, n_bootstrap: int) -> dict[str, int]:
    """Resamples per registered test: its kind says which of the design's counts it uses."""
    by = {"n_resamples": n_resamples, "n_bootstrap": n_bootstrap}
    return {t: by[KINDS[PAIRED_TESTS[t].kind].study_count] for t in tests if t in PAIRED_TESTS}


@dataclass(frozen=True)
class SwapJob:
    """Replicate r: the two systems' outputs swapped segment by segment with probability 1/2, every test."""

    metric: Metric
    A: np.ndarray
    B: np.ndarray
    sent_a: np.ndarray
    sent_b: np.ndarray
    tests: tuple[str, ...]
    counts: dict
    seed: int

    def replicate(self, r: int) -> dict:
        swap = stream_rng(self.seed, STREAM_KEYS["type1"], r).random(len(self.A)) < 0.5
        a, b = np.where(swap[:, None], self.B, self.A), np.where(swap[:, None], self.A, self.B)
        sents = (np.where(swap, self.sent_b, self.sent_a), np.where(swap, self.sent_a, self.sent_b))
        res = Resampling(None, self.seed, stream=(STREAM_KEYS["type1"], r))
        return pair_p_values(self.tests, PairStats(self.metric, a, b, sents), res, self.counts)


# ------------------------------------------------------------------------------------------------ inputs
def _rate_row(label: str, alpha: float, k: int, n: int, expected: float) -> list:
    lo, hi = binomial_interval(k, n)
    return [label, alpha, k, n, 100 * k / n, 100 * lo, 100 * hi, 100 * expected]


# ------------------------------------------------------------------------------------------------ type1
def _equivalents(name, m, stats, g: Type1Design, names: list[str]) -> StudyTable:
    """Part (a): the first system against each other one, every test (as in Riezler & Maxwell's Table 2)."""
    first, tests = names[0], type1_tests()
    res, counts = Resampling(None, g.seed), _counts(tests, g.n_resamples, g.n_bootstrap)
    cols = {other: pair_p_values(tests, PairStats(m, stats[first], stats[other]), res, counts) for other in names[1:]}
    head = ["", *(f"{first} : {o}" for o in cols)]
    rows = [[f"{name} difference", *(c["delta"] for c in cols.values())]]
    rows += [[f"p ({label(t)})", *(c[t] for c in cols.values())] for t in tests]
    dec = [None] + [4] * len(cols)
    return StudyTable(
        f"{name}: the first system against each other one (as in Riezler & Maxwell's Table 2)", head, rows, dec
    )


def type1(table, design: Type1Design | None = None, run: Runner | None = None) -> StudyResult:
    """Riezler & Maxwell's type-I error experiments: see the module's description."""
    g, run = design or Type1Design(), run or Runner()
    name, m, stats = pooled_stats(table, g.metric)
    a, b = pair_of(table, g.pairs[0] if g.pairs else None, "two real systems to build exact nulls from")
    R, tests = g.n_resamples, type1_tests()
    tables = [_equivalents(name, m, stats, g, table.system_names)]
    sents = m.sentence_scores(stats[a]), m.sentence_scores(stats[b])
    job = SwapJob(m, stats[a], stats[b], *sents, tests, _counts(tests, g.n_resamples, g.n_bootstrap), g.seed)
    reps = run.replicates("type1: null pairs", job, g.replicates)
    ps = {t: np.array([x[t] for x in reps]) for t in tests}
    rows = [_rate_row(label(t), al, int(np.sum(ps[t] <= al)), len(reps), al) for t in tests for al in g.alphas]
    head = ["test", "α", "rejected", "null pairs", "rejection %", "95% CI low", "95% CI high", "nominal %"]
    tables.append(
        StudyTable(
            f"{name}: rejections under {g.replicates} exact nulls from {a} and {b} (outputs swapped "
            "per segment with probability 1/2)",
            head,
            rows,
            [None, None, None, None, 1, 1, 1, 1],
        )
    )
    data = {
        "pvalues": {t: np.sort(ps[t]).tolist() for t in tests},
        "labels": {t: label(t) for t in tests},
        "rates": [[r[0], r[1], r[4], r[5], r[6]] for r in rows],
        "deltas": [x["delta"] for x in reps],
    }
    settings = {
        "metric": name,
        "null from": f"{a}, {b}",
        "null pairs": g.replicates,
        "shuffles": R,
        "bootstrap": g.n_bootstrap,
        "alphas": list(g.alphas),
        "seed": g.seed,
        "segments": table.n_segments,
    }
    notes = [
        "Under an exact null a calibrated test rejects at level α in α of the null pairs (within the binomial "
        "interval). Riezler & Maxwell's Fig. 2 compares |Δ*| - mean|Δ*| with |Δ|, which is not centred at the null: it "
        "rejects about twice as often as it should; mtsig's bootstrap test centres Δ* itself.",
        "Part (a) calls the systems equivalent because you do: its small p-values are type-I errors only if they are.",
    ]
    return StudyResult("type1", settings, tuple(tables), data, tuple(notes), design_dict(g))


# ------------------------------------------------------------------------------------------------ multiplicity
@dataclass(frozen=True)
class FamilyJob:
    """Replicate r: k pseudo-systems, each segment's output drawn from A or B with probability 1/2 each;
    all pairs tested by approximate randomization, max-T over the joint bootstrap, and Tukey's HSD on sentence
    scores."""

    metric: Metric
    A: np.ndarray
    B: np.ndarray
    sent_a: np.ndarray
    sent_b: np.ndarray
    k: int
    n_resamples: int
    seed: int

    def replicate(self, r: int) -> dict:
        pick = stream_rng(self.seed, STREAM_KEYS["multiplicity"], r).random((self.A.shape[0], self.k)) < 0.5
        X = {j: np.where(pick[:, j, None], self.B, self.A) for j in range(self.k)}
        pairs = list(combinations(range(self.k), 2))
        res = Resampling(self.n_resamples, self.seed, stream=(STREAM_KEYS["multiplicity"], r))
        counts = ar_counts(X, self.metric, pairs, res)
        sents = np.where(pick, self.sent_b[:, None], self.sent_a[:, None])
        q = studentized_ranges(sents, pairs)[0]
        p_ar = [p_from_count(counts[p], self.n_resamples) for p in pairs]
        boot = bootstrap_many({j: (self.metric, X[j]) for j in range(self.k)}, res)  # one joint bootstrap
        D = np.stack([boot[b] - boot[a] for a, b in pairs], axis=1)
        full = {j: float(self.metric.score(X[j].sum(axis=0))) for j in range(self.k)}
        obs = np.array([full[b] - full[a] for a, b in pairs])
        padj = np.maximum(maxt(D, obs)["step-down"], p_ar)  # as compare --correction maxt
        return {"p": p_ar, "maxt": float(padj.min()), "q_max": float(q.max())}


def _family_rejects(rep: dict, method: str, alpha: float, q_crit: float, R: int) -> bool:
    if method == "tukey-hsd":
        return rep["q_max"] >= q_crit
    if method == "maxt":
        return rep["maxt"] <= alpha
    return bool(adjust(rep["p"], method).min() <= alpha)


def _family_rows(reps: list[dict], g: MultiplicityDesign, K: int, df: int, R: int) -> list[list]:
    """Per level: rejections of each comparison alone, of any pair uncorrected, and with every method."""
    from scipy.stats import studentized_range

    rows, n = [], len(reps)
    for al in g.alphas:
        per_pair = sum(int(np.sum(np.asarray(x["p"]) <= al)) for x in reps)
        row = _rate_row("each comparison (uncorrected)", al, per_pair, n * K, al)
        rows.append(row)
        unc = sum(min(x["p"]) <= al for x in reps)
        rows.append(_rate_row("any of the pairs, uncorrected", al, unc, n, experimentwise_error(al, K)))
        if n >= K:  # K independent comparisons: pair j from family j of each run of K families (disjoint)
            ind = sum(any(reps[i * K + j]["p"][j] <= al for j in range(K)) for i in range(n // K))
            label = f"any of {K} independent comparisons, uncorrected"
            rows.append(_rate_row(label, al, ind, n // K, experimentwise_error(al, K)))
        crit = float(studentized_range.isf(al, g.null_systems, df))
        for meth in multiplicity_methods():
            k = sum(_family_rejects(x, meth, al, crit, R) for x in reps)
            label = "maxt (joint bootstrap, step-down)" if meth == "maxt" else meth
            rows.append(_rate_row(f"any of the pairs, {label}", al, k, n, al))
    return rows


def multiplicity(table, design: MultiplicityDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Riezler & Maxwell section 4.4: the experimentwise error of k-fold pairwise comparisons under an exact
    null, uncorrected and with every correction."""
    g, run = design or MultiplicityDesign(), run or Runner()
    name, m, stats = pooled_stats(table, g.metric)
    a, b = pair_of(table, g.pairs[0] if g.pairs else None, "two real systems to build exact nulls from")
    R = g.n_resamples
    job = FamilyJob(m, stats[a], stats[b], m.sentence_scores(stats[a]), m.sentence_scores(stats[b]), g.null_systems, R,
                    g.seed)  # fmt: skip
    reps = run.replicates("multiplicity: null families", job, g.replicates)
    K = g.null_systems * (g.null_systems - 1) // 2
    rows = _family_rows(reps, g, K, (table.n_segments - 1) * (g.null_systems - 1), R)
    head = [
        "rejections",
        "α",
        "rejected",
        "out of",
        "rate %",
        "95% CI low",
        "95% CI high",
        "expected % (≤ for corrected)",
    ]
    t = StudyTable(
        f"{name}: {g.replicates} families of {g.null_systems} exact-null systems ({K} pairs) from {a} and {b}",
        head,
        rows,
        [None, None, None, None, 1, 1, 1, 1],
    )
    data = {"rates": [[r[0], r[1], r[4], r[5], r[6], r[7]] for r in rows], "pairs": K}
    settings = {
        "metric": name,
        "null from": f"{a}, {b}",
        "systems": g.null_systems,
        "pairs": K,
        "families": g.replicates,
        "shuffles": R,
        "alphas": list(g.alphas),
        "seed": g.seed,
        "segments": table.n_segments,
    }
    notes = [
        f"1 - (1 - α)^{K} is the experimentwise error of {K} independent comparisons (checked on pair j of family j"
        f" of every {K} families); all pairs of {g.null_systems} systems share systems and are positively dependent,"
        " so their uncorrected error lies below it, but far above α.",
        "Corrected: at most α (within the interval) for holm, bonferroni, sidak, max-T and Tukey's HSD; bh controls "
        "the false discovery rate, which equals the experimentwise error when every null is true.",
    ]
    return StudyResult("multiplicity", settings, (t,), data, tuple(notes), design_dict(g))


# ------------------------------------------------------------------------------------------------ sensitivity
def sensitivity(table, design: SensitivityDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Riezler & Maxwell section 3: every pair under every metric of the table; which differences each metric
    finds significant, and the pairs where the metrics disagree (``run``: only its progress bar is used)."""
    from mtsig.engine import CompareOptions, compare_table

    g = design or SensitivityDesign()
    test, alpha, correction = g.test, g.alpha, g.correction
    if len(table.metrics) < 2:
        raise InputError("the sensitivity study compares metrics: give at least two with -m (e.g. -m nist bleu)")
    progress = run.progress if run is not None else None
    resampling = Resampling.of(g.n_resamples, g.seed, progress=progress)
    res = compare_table(table, CompareOptions(tests=(test,), correction=correction, alpha=alpha), resampling)
    metrics = list(table.metrics)
    pairs = list(dict.fromkeys(c.pair for c in res.comparisons))
    by = {(c.result.metric, c.pair): c for c in res.comparisons}
    rows1 = []
    for mn in metrics:
        sig = sum(by[(mn, p)].significant for p in pairs)
        rows1.append([mn, sig, len(pairs), 100 * sig / len(pairs)])
    t1 = StudyTable(
        f"significant differences by metric ({test}, α = {alpha:g}, {correction})",
        ["metric", "significant", "pairs", "%"],
        rows1,
        [None, None, None, 1],
    )
    rows2, grid = [], []
    for p in pairs:
        marks = [by[(mn, p)].significant for mn in metrics]
        cells = []
        for mn in metrics:
            c = by[(mn, p)]
            cells += [c.result.delta, c.p_adjusted]
        rows2.append([f"{p[0]} vs {p[1]}", *cells, "yes" if len(set(marks)) == 1 else "no"])
        grid.append([by[(mn, p)].p_adjusted for mn in metrics])
    head2 = ["pair (B - A)", *(x for mn in metrics for x in (f"{mn} Δ", f"{mn} p ({correction})")), "metrics agree"]
    dec2 = [None, *(x for mn in metrics for x in (res.decimals.get(mn, 2), 4)), None]
    t2 = StudyTable("per pair: difference and adjusted p-value under each metric", head2, rows2, dec2)
    data = {"metrics": metrics, "pairs": [f"{a} vs {b}" for a, b in pairs], "p_adjusted": grid, "alpha": alpha}
    settings = {
        "test": test,
        "alpha": alpha,
        "correction": correction,
        "metrics": metrics,
        "seed": res.settings.seed,
        "segments": table.n_segments,
    }
    notes = [
        "The seed found NIST more sensitive than BLEU and the dependency F-score on small differences: a metric"
        " that finds more significant differences among systems of similar quality discriminates better."
    ]
    return StudyResult("sensitivity", settings, (t1, t2), data, tuple(notes), design_dict(g))
