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

import numpy as np

from mtsig.errors import InputError
from mtsig.resample import DEFAULT_SEED, PermutationPlan, Resampling, resampled_totals, stream_rng
from mtsig.stats.engines import ar_counts, bootstrap_many
from mtsig.stats.multiple import P_CORRECTIONS, adjust, experimentwise_error, studentized_ranges
from mtsig.stats.pvalues import count_extreme, p_from_count, paired_bootstrap_p, sentence_test, shift_p
from mtsig.stats.pvalues import tolerance as _tol
from mtsig.studies.inputs import pair_of, pooled_stats
from mtsig.studies.nulls import binomial_interval, shift_abs_p
from mtsig.studies.replicates import Runner
from mtsig.studies.result import StudyResult, StudyTable

#: every test the type-I study measures; ``bootstrap-abs`` is the seed's Fig. 2 as printed
TYPE1_TESTS = ("ar", "bootstrap", "bootstrap-abs", "paired-bootstrap", "ttest", "wilcoxon")
_LABEL = {
    "ar": "approx. randomization",
    "bootstrap": "bootstrap (centred shift)",
    "bootstrap-abs": "bootstrap (Fig. 2 as printed: |Δ*| shifted)",
    "paired-bootstrap": "paired bootstrap",
    "ttest": "paired t-test",
    "wilcoxon": "Wilcoxon",
}
_KEY = {"type1": 51, "multiplicity": 52}
#: max-T single-step and step-down reject some pair in the same families (the same first step): one row
MULTIPLICITY_METHODS = (*(c for c in P_CORRECTIONS if c != "none"), "maxt", "tukey-hsd")


@dataclass(frozen=True)
class NullDesign:
    """How the null studies run: replicates (null pairs or families), shuffles of approximate randomization
    (``n_resamples``), bootstrap resamples, levels, seed, the two real systems the nulls are built from
    (None: the first two), and the number of pseudo-systems of the multiplicity study."""

    replicates: int = 1000
    n_resamples: int | None = None
    n_bootstrap: int = 1000
    alphas: tuple[float, ...] = (0.01, 0.05, 0.1)
    seed: int = DEFAULT_SEED
    pair: tuple[str, str] | None = None
    systems: int = 5


def ar_p(metric, a: np.ndarray, b: np.ndarray, resampling: Resampling, alternative: str = "two-sided") -> float:
    """Approximate randomization of one pair from the weights times the per-segment differences alone (half
    the work of :func:`~mtsig.stats.engines.ar_counts`, the same shuffles and the same null values)."""
    R = resampling.count(10_000)
    plan = resampling.plan("randomization", a.shape[0], R)
    ta, tb = a.sum(axis=0), b.sum(axis=0)
    observed = float(metric.score(tb) - metric.score(ta))
    c = 0
    for (move,) in resampled_totals(plan, [b - a]):
        c += count_extreme(metric.score(tb - move) - metric.score(ta + move), observed, alternative)
    return p_from_count(c, R)


def every_test(metric, a, b, sents: tuple[np.ndarray, np.ndarray], resampling: Resampling, n_bootstrap: int) -> dict:
    """Δ (b - a) and the two-sided p-value of every test of :data:`TYPE1_TESTS` for one pair."""
    delta = float(metric.score(b.sum(axis=0)) - metric.score(a.sum(axis=0)))
    boot = bootstrap_many({0: (metric, a), 1: (metric, b)}, resampling.with_count(n_bootstrap))
    bd = boot[1] - boot[0]
    return {
        "delta": delta,
        "ar": ar_p(metric, a, b, resampling),
        "bootstrap": shift_p(bd, delta, "two-sided"),
        "bootstrap-abs": shift_abs_p(bd, delta),
        "paired-bootstrap": paired_bootstrap_p(bd, "two-sided")[0],
        "ttest": sentence_test("ttest", *sents, "two-sided")[1],
        "wilcoxon": sentence_test("wilcoxon", *sents, "two-sided")[1],
    }


@dataclass(frozen=True)
class SwapJob:
    """Replicate r: the two systems' outputs swapped segment by segment with probability 1/2, every test."""

    metric: object
    A: np.ndarray
    B: np.ndarray
    sent_a: np.ndarray
    sent_b: np.ndarray
    n_resamples: int
    n_bootstrap: int
    seed: int

    def replicate(self, r: int) -> dict:
        swap = stream_rng(self.seed, _KEY["type1"], r).random(self.A.shape[0]) < 0.5
        a, b = np.where(swap[:, None], self.B, self.A), np.where(swap[:, None], self.A, self.B)
        sents = (np.where(swap, self.sent_b, self.sent_a), np.where(swap, self.sent_a, self.sent_b))
        res = Resampling(self.n_resamples, self.seed, stream=(_KEY["type1"], r))
        return every_test(self.metric, a, b, sents, res, self.n_bootstrap)


# ------------------------------------------------------------------------------------------------ inputs
def _rate_row(label: str, alpha: float, k: int, n: int, expected: float) -> list:
    lo, hi = binomial_interval(k, n)
    return [label, alpha, k, n, 100 * k / n, 100 * lo, 100 * hi, 100 * expected]


# ------------------------------------------------------------------------------------------------ type1
def _equivalents(name, m, stats, g: NullDesign, names: list[str]) -> StudyTable:
    """Part (a): the first system against each other one, every test (the seed's Table 2)."""
    first = names[0]
    sent_first, res = m.sentence_scores(stats[first]), Resampling(g.n_resamples or 10_000, g.seed)
    cols = {}
    for other in names[1:]:
        sents = (sent_first, m.sentence_scores(stats[other]))
        cols[other] = every_test(m, stats[first], stats[other], sents, res, g.n_bootstrap)
    head = ["", *(f"{first} : {o}" for o in cols)]
    rows = [[f"{name} difference", *(c["delta"] for c in cols.values())]]
    rows += [[f"p ({_LABEL[t]})", *(c[t] for c in cols.values())] for t in TYPE1_TESTS]
    dec = [None] + [4] * len(cols)
    return StudyTable(f"{name}: the first system against each other one (the seed's Table 2)", head, rows, dec)


def type1(table, metric: str | None = None, design: NullDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Riezler & Maxwell's type-I error experiments: see the module's description."""
    g, run = design or NullDesign(), run or Runner()
    name, m, stats = pooled_stats(table, metric)
    a, b = pair_of(table, g.pair, "two real systems to build exact nulls from")
    R = g.n_resamples or 10_000
    tables = [_equivalents(name, m, stats, g, table.system_names)]
    job = SwapJob(
        m, stats[a], stats[b], m.sentence_scores(stats[a]), m.sentence_scores(stats[b]), R, g.n_bootstrap, g.seed
    )
    reps = run.replicates("type1: null pairs", job, g.replicates)
    ps = {t: np.array([x[t] for x in reps]) for t in TYPE1_TESTS}
    rows = [_rate_row(_LABEL[t], al, int(np.sum(ps[t] <= al)), len(reps), al) for t in TYPE1_TESTS for al in g.alphas]
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
        "pvalues": {t: np.sort(ps[t]).tolist() for t in TYPE1_TESTS},
        "labels": _LABEL,
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
        "interval). The seed's Fig. 2 compares |Δ*| - mean|Δ*| with |Δ|, which is not centred at the null: it "
        "rejects about twice as often as it should; mtsig's bootstrap test centres Δ* itself.",
        "Part (a) calls the systems equivalent because you do: its small p-values are type-I errors only if they are.",
    ]
    return StudyResult("type1", settings, tables, data, notes)


# ------------------------------------------------------------------------------------------------ multiplicity
@dataclass(frozen=True)
class FamilyJob:
    """Replicate r: k pseudo-systems, each segment's output drawn from A or B with probability 1/2 each;
    all pairs tested by approximate randomization, max-T, and Tukey's HSD on sentence scores."""

    metric: object
    A: np.ndarray
    B: np.ndarray
    sent_a: np.ndarray
    sent_b: np.ndarray
    k: int
    n_resamples: int
    seed: int
    #: max-T: stop counting once the count exceeds this (no level studied can be reached any more)
    stop_above: int

    def replicate(self, r: int) -> dict:
        pick = stream_rng(self.seed, _KEY["multiplicity"], r).random((self.A.shape[0], self.k)) < 0.5
        X = {j: np.where(pick[:, j, None], self.B, self.A) for j in range(self.k)}
        pairs = list(combinations(range(self.k), 2))
        res = Resampling(self.n_resamples, self.seed, stream=(_KEY["multiplicity"], r))
        counts = ar_counts(X, self.metric, pairs, res)
        sents = np.where(pick, self.sent_b[:, None], self.sent_a[:, None])
        q = studentized_ranges(sents, pairs)[0]
        return {
            "p": [p_from_count(counts[p], self.n_resamples) for p in pairs],
            "maxt": top_pair_count(X, self.metric, pairs, res, self.stop_above),
            "q_max": float(q.max()),
        }


def top_pair_count(X: dict, metric, pairs: list, resampling: Resampling, stop_above: int) -> int:
    """Max-T's first step: how many joint randomizations (of ``resampling.n_resamples``) give a largest
    pairwise |Δ| at least the largest observed one, counted only up to just above ``stop_above``. Some pair is
    rejected at level α (single-step or step-down alike) exactly when ``(count + 1) / (R + 1) <= α``; a count
    that passes ``stop_above`` rejects at no level studied, so the rest need not be drawn. Equal to
    :func:`~mtsig.stats.multiple.maxt`'s smallest single-step count (tested)."""
    S = np.stack([X[j] for j in range(len(X))], axis=1)
    ia, ib = np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])
    full = np.asarray(metric.score(S.sum(axis=0)), dtype=np.float64)
    top = float(np.abs(full[ib] - full[ia]).max())
    cut = top - _tol(top)  # ties counted, as count_extreme
    plan = PermutationPlan(
        S.shape[0], resampling.count(1000), len(X), resampling.seed, (*resampling.stream, 2 ** len(X) - 1)
    )
    c = 0
    for tot in plan.totals(S):
        sc = np.asarray(metric.score(tot), dtype=np.float64)
        c += int(np.count_nonzero(np.abs(sc[:, ib] - sc[:, ia]).max(axis=1) >= cut))
        if c > stop_above:
            break
    return c


def _family_rejects(rep: dict, method: str, alpha: float, q_crit: float, R: int) -> bool:
    if method == "tukey-hsd":
        return rep["q_max"] >= q_crit
    if method == "maxt":
        return p_from_count(rep["maxt"], R) <= alpha
    return bool(adjust(rep["p"], method).min() <= alpha)


def _family_rows(reps: list[dict], g: NullDesign, K: int, df: int, R: int) -> list[list]:
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
        crit = float(studentized_range.isf(al, g.systems, df))
        for meth in MULTIPLICITY_METHODS:
            k = sum(_family_rejects(x, meth, al, crit, R) for x in reps)
            label = "maxt (single-step = step-down)" if meth == "maxt" else meth
            rows.append(_rate_row(f"any of the pairs, {label}", al, k, n, al))
    return rows


def multiplicity(table, metric: str | None = None, design: NullDesign | None = None, run: Runner | None = None):
    """Riezler & Maxwell section 4.4: the experimentwise error of k-fold pairwise comparisons under an exact
    null, uncorrected and with every correction."""
    g, run = design or NullDesign(), run or Runner()
    if not 3 <= g.systems <= 8:
        raise InputError(f"the multiplicity study needs 3 to 8 pseudo-systems, got {g.systems}", param="systems")
    name, m, stats = pooled_stats(table, metric)
    a, b = pair_of(table, g.pair, "two real systems to build exact nulls from")
    R = g.n_resamples or 1000
    stop = int(np.floor(max(g.alphas) * (R + 1))) - 1  # a count above this is above every level
    job = FamilyJob(
        m, stats[a], stats[b], m.sentence_scores(stats[a]), m.sentence_scores(stats[b]), g.systems, R, g.seed, stop
    )
    reps = run.replicates("multiplicity: null families", job, g.replicates)
    K = g.systems * (g.systems - 1) // 2
    rows = _family_rows(reps, g, K, (table.n_segments - 1) * (g.systems - 1), R)
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
        f"{name}: {g.replicates} families of {g.systems} exact-null systems ({K} pairs) from {a} and {b}",
        head,
        rows,
        [None, None, None, None, 1, 1, 1, 1],
    )
    data = {"rates": [[r[0], r[1], r[4], r[5], r[6], r[7]] for r in rows], "pairs": K}
    settings = {
        "metric": name,
        "null from": f"{a}, {b}",
        "systems": g.systems,
        "pairs": K,
        "families": g.replicates,
        "shuffles": R,
        "alphas": list(g.alphas),
        "seed": g.seed,
        "segments": table.n_segments,
    }
    notes = [
        f"1 - (1 - α)^{K} is the experimentwise error of {K} independent comparisons (checked on pair j of family j"
        f" of every {K} families); all pairs of {g.systems} systems share systems and are positively dependent,"
        " so their uncorrected error lies below it, but far above α.",
        "Corrected: at most α (within the interval) for holm, bonferroni, sidak, max-T and Tukey's HSD; bh controls "
        "the false discovery rate, which equals the experimentwise error when every null is true.",
    ]
    return StudyResult("multiplicity", settings, [t], data, notes)


# ------------------------------------------------------------------------------------------------ sensitivity
def sensitivity(table, test: str = "ar", alpha: float = 0.05, correction: str = "holm", resampling=None) -> StudyResult:
    """Riezler & Maxwell section 3: every pair under every metric of the table; which differences each metric
    finds significant, and the pairs where the metrics disagree."""
    from mtsig.engine import CompareOptions, compare_table

    if len(table.metrics) < 2:
        raise InputError("the sensitivity study compares metrics: give at least two with -m (e.g. -m nist bleu)")
    res = compare_table(table, CompareOptions((test,), None, correction, alpha), resampling or Resampling())
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
        rows2.append([f"{p[0]} -> {p[1]}", *cells, "yes" if len(set(marks)) == 1 else "no"])
        grid.append([by[(mn, p)].p_adjusted for mn in metrics])
    head2 = ["pair (B - A)", *(x for mn in metrics for x in (f"{mn} Δ", f"{mn} p ({correction})")), "metrics agree"]
    dec2 = [None, *(x for mn in metrics for x in (res.decimals.get(mn, 2), 4)), None]
    t2 = StudyTable("per pair: difference and adjusted p-value under each metric", head2, rows2, dec2)
    data = {"metrics": metrics, "pairs": [f"{a} -> {b}" for a, b in pairs], "p_adjusted": grid, "alpha": alpha}
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
    return StudyResult("sensitivity", settings, [t1, t2], data, notes)
