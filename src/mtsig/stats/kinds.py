"""Test kinds: what a paired test's p-value is computed from, and how that evidence is gathered.

A paired test (:data:`mtsig.stats.paired.PAIRED_TESTS`) names its kind; the kind knows

- its **evidence** (a typed tuple: counts of shuffles, bootstrap differences, sentence-level scores) and how to
  gather it for one pair of statistics arrays (:meth:`TestKind.one_pair` of a :class:`PairStats`, used by
  ``paired_test`` and the studies) and for every pair of a comparison (:meth:`TestKind.prepare` once per metric, or
  :meth:`TestKind.prepare_all` once for all metrics, then :meth:`TestKind.evidence` per pair);
- the **smallest p-value** R resamples can give, which distribution a test of the kind can **keep** (``null``
  or ``bootstrap``), whether its tests run on systems with several optimizer runs, and what it refuses.

A new test of an existing kind is one :class:`~mtsig.stats.paired.PairedTest` entry; a test of a new kind is one
subclass of :class:`TestKind` registered with :func:`register_kind` (the engine, the command line, the reports
and ``study type1`` read both registries).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mtsig.errors import InputError
from mtsig.registry import Registry
from mtsig.resample import Resampling, whole_numbers
from mtsig.stats.engines import ar_counts, bootstrap_many, runs_ar_many, stratified_ar_many
from mtsig.stats.intervals import Interval, interval
from mtsig.table import pooled_runs

#: what the runs test's p-value rests on (said with every such p-value: text, JSON and CSV)
RUNS_ASSUMPTION = ("roughly normal run effects: with a handful of runs no test holds its level whatever their shape "
                   "(runs bimodal in quality: 7-10% rejected at alpha 0.05 with 3-5 runs; docs/runs.md)")  # fmt: skip
#: fewer segments than this give no bootstrap interval or bootstrap test (the resamples are too few to mean
#: anything: with one segment every resample is the test set itself)
MIN_SEGMENTS_BOOTSTRAP = 10


def min_bootstrap(confidence: float) -> int:
    """The fewest bootstrap resamples a percentile interval at ``confidence`` can rest on: one beyond each
    end of the interval, 2 / (1 - confidence) (40 at 95%)."""
    return int(np.ceil(2 / (1 - confidence) - 1e-9))


def check_bootstrap(
    n_segments: int, n_bootstrap: int, confidence: float, what: str, name: str = "n_bootstrap", unit: str = "segment"
) -> None:
    """Refuse an interval (or bootstrap test) on too few segments (or documents, domains: the resampling ``unit``)
    or from too few resamples."""
    if n_segments < MIN_SEGMENTS_BOOTSTRAP:
        raise InputError(
            f"{what} needs at least {MIN_SEGMENTS_BOOTSTRAP} {unit}s; the test set has {n_segments} "
            "(approximate randomization, test 'ar', is exact at any size)"
        )
    if n_bootstrap < min_bootstrap(confidence):
        raise InputError(
            f"{name} must be at least {min_bootstrap(confidence)} for a {confidence:.0%} interval "
            f"(one resample beyond each end), got {n_bootstrap}",
            param=name,
        )


# ------------------------------------------------------------------------------------------------ evidence
class CountEvidence(NamedTuple):
    """Randomization tests: the observed difference and how many of ``n_resamples`` shuffles were at least as
    extreme; ``p_value`` when the engine computed it itself (the runs test)."""

    observed: float
    alternative: str
    #: how many shuffles were at least as extreme (not ``count``: a tuple's own method)
    extreme: float
    n_resamples: int
    p_value: float | None = None


class BootstrapEvidence(NamedTuple):
    """Bootstrap tests: the observed difference and the bootstrap differences ``b* - a*``."""

    observed: float
    alternative: str
    boot_delta: np.ndarray
    n_resamples: int


class SentenceEvidence(NamedTuple):
    """Tests on sentence-level scores: the observed mean difference and both systems' sentence scores."""

    observed: float
    alternative: str
    sent_a: np.ndarray
    sent_b: np.ndarray
    n_resamples: None = None


class ComparisonPlan(NamedTuple):
    """What a comparison will do: the pairs, the counts of resamples, and why."""

    pairs: list[tuple[str, str]]
    run_pairs: set[tuple[str, str]]
    #: resamples per resampling test
    counts: dict[str, int]
    #: bootstrap resamples behind s_sel and the intervals of differences (shared with bootstrap tests)
    n_bootstrap: int
    auto: bool
    warnings: tuple[str, ...]


class MetricContext(NamedTuple):
    """Everything the tests of one metric read in a comparison: the plan and options, each system's corpus
    score and bootstrap scores, the interval of each difference, and what each kind prepared (by kind name;
    the engine fills it once per metric, before any test reads it)."""

    table: Any
    plan: ComparisonPlan
    opts: Any
    resampling: Resampling
    metric: str
    score: dict[str, float]
    boot: dict[str, np.ndarray]
    delta_ci: dict[tuple[str, str], Interval | None]
    prepared: dict[str, Any]
    #: the alternative on the raw difference Δ = B − A (the user's, in the metric's direction: :func:`alternative_for`)
    alternative: str = "two-sided"

    def stats(self, name: str) -> np.ndarray:
        """A system's statistics under this metric with its runs pooled (summed per segment)."""
        return pooled_runs(self.table.stats[self.metric][name])


class Counted(NamedTuple):
    """A randomization test's outcome for one pair: the count of extreme shuffles, the kept null
    distribution (or None), extra fields for the report, and a p-value computed by the engine (or None)."""

    extreme: float
    null: np.ndarray | None
    extra: dict
    p_value: float | None = None


class PairStats:
    """One pair of statistics arrays ``(N, d)`` under a metric, and what the kinds derive from them, computed at
    most once (the corpus difference, the sentence-level scores; a caller that has the sentence scores already,
    e.g. a study that swaps segments, passes them)."""

    __slots__ = ("metric", "a", "b", "_sentences", "_delta")

    def __init__(self, metric, a: np.ndarray, b: np.ndarray, sentences: tuple[np.ndarray, np.ndarray] | None = None):
        self.metric, self.a, self.b = metric, a, b
        self._sentences: tuple[np.ndarray, np.ndarray] | None = sentences
        self._delta: float | None = None

    @property
    def delta(self) -> float:
        """score(b) - score(a) of the corpus."""
        if self._delta is None:
            self._delta = float(self.metric.score(self.b.sum(axis=0))) - float(self.metric.score(self.a.sum(axis=0)))
        return self._delta

    @property
    def sentences(self) -> tuple[np.ndarray, np.ndarray]:
        """Both systems' sentence-level scores."""
        if self._sentences is None:
            self._sentences = (self.metric.sentence_scores(self.a), self.metric.sentence_scores(self.b))
        return self._sentences


# ------------------------------------------------------------------------------------------------ kinds
class TestKind:
    """The base of every kind. Subclasses set the class attributes and implement the evidence methods."""

    __test__ = False  # not a pytest test class

    name: str = ""
    #: what a test of the kind can keep for plots and studies: "null", "bootstrap" or None
    keeps: str | None = None
    #: its tests draw resamples (a count, a seed)
    resamples: bool = True
    #: its tests apply to systems with several optimizer runs
    runs: bool = False
    #: its tests share one draw (the largest count any of them asks for)
    shared_draw: bool = False
    #: which of a study design's counts its tests use: "n_resamples" (shuffles) or "n_bootstrap"
    study_count: str = "n_resamples"
    #: its tests are calibrated on single outputs by the studies (stratified randomization of single outputs is
    #: approximate randomization itself)
    single_output: bool = True

    def smallest_p(self, n_resamples: int, alternative: str) -> float:
        """The smallest p-value ``n_resamples`` resamples can give (1/(R+1) for counts of extreme resamples)."""
        return 1.0 / (n_resamples + 1)

    def check(self, table, tests: list[str], counts: dict[str, int], confidence: float) -> None:
        """Refuse a comparison this kind cannot do (too few segments, too few resamples)."""

    def prepare_all(self, table, plan: ComparisonPlan, opts, resampling: Resampling, tests: list[str]) -> Any:
        """Work done once for every metric of a comparison (None: nothing)."""
        return None

    def prepare(self, ctx: MetricContext, tests: list[str], shared: Any) -> Any:
        """Work done once per metric for the kind's tests (``shared``: what :meth:`prepare_all` returned)."""
        return None

    def evidence(self, ctx: MetricContext, test: str, pair: tuple[str, str]) -> tuple[Any, np.ndarray | None, dict]:
        """One pair's evidence, the distribution it can keep (or None) and extra fields for the report."""
        raise NotImplementedError

    def summary(self, ctx: MetricContext, ev, pair: tuple[str, str], confidence: float):
        """``(score_a, score_b, delta, interval of delta)`` as the kind's tests report them."""
        a, b = pair
        return ctx.score[a], ctx.score[b], ctx.score[b] - ctx.score[a], ctx.delta_ci[pair]

    def one_pair(
        self, pair: PairStats, resampling: Resampling, alternative: str, confidence: float
    ) -> tuple[Any, Interval | None]:
        """Evidence for one pair of statistics arrays and the interval of the difference (or None); ``resampling``
        carries the count of resamples (None for a kind that does not resample)."""
        raise NotImplementedError


class RandomizationKind(TestKind):
    """Approximate randomization: counts of shuffles at least as extreme as the observed difference; systems
    with runs get the pooled randomization plus run-level variance (:func:`runs_ar_many`)."""

    name = "randomization"
    keeps = "null"
    runs = True

    def prepare_all(self, table, plan, opts, resampling, tests):
        """Pairs of single outputs under metrics with whole-number statistics, for all such metrics from one
        drawing of the shuffles (the same counts as one drawing per metric, in less time); None otherwise."""
        return {t: _ar_integer_metrics(table, plan, opts, resampling.with_count(plan.counts[t])) for t in tests}

    def prepare(self, ctx: MetricContext, tests: list[str], shared: Any) -> dict[str, dict]:
        return {
            t: _ar(ctx, ctx.resampling.with_count(ctx.plan.counts[t]), ((shared or {}).get(t) or {}).get(ctx.metric))
            for t in tests
        }

    def evidence(self, ctx, test, pair):
        c = ctx.prepared[self.name][test][pair]
        delta = ctx.score[pair[1]] - ctx.score[pair[0]]
        ev = CountEvidence(delta, ctx.alternative, c.extreme, ctx.plan.counts[test], p_value=c.p_value)
        return ev, c.null, c.extra

    def one_pair(self, pair, resampling, alternative, confidence):
        counts = ar_counts({0: pair.a, 1: pair.b}, pair.metric, [(0, 1)], resampling, alternative)
        return CountEvidence(pair.delta, alternative, counts[(0, 1)], resampling.n_resamples), None


class StratifiedKind(TestKind):
    """Clark et al.'s stratified randomization over optimizer runs: counts of re-partitions, drawn once for all
    metrics of a comparison."""

    name = "stratified"
    keeps = "null"
    runs = True
    single_output = False

    def prepare_all(self, table, plan, opts, resampling, tests):
        return {t: _stratified(table, plan, opts, resampling.with_count(plan.counts[t])) for t in tests}

    def prepare(self, ctx, tests, shared):
        return {t: shared[t][ctx.metric] for t in tests}

    def evidence(self, ctx, test, pair):
        c = ctx.prepared[self.name][test][pair]
        delta = ctx.score[pair[1]] - ctx.score[pair[0]]
        return (
            CountEvidence(delta, ctx.alternative, c.extreme, ctx.plan.counts[test], p_value=c.p_value),
            c.null,
            c.extra,
        )

    def one_pair(self, pair, resampling, alternative, confidence):
        # one run each: a re-partition of 2 outputs, i.e. a swap
        counts = stratified_ar_many({0: (pair.metric, pair.a[None], pair.b[None])}, resampling, alternative)
        return CountEvidence(pair.delta, alternative, counts[0], resampling.n_resamples), None


class BootstrapKind(TestKind):
    """Bootstrap tests: the differences of the bootstrap scores from the comparison's shared bootstrap."""

    name = "bootstrap"
    keeps = "bootstrap"
    shared_draw = True
    study_count = "n_bootstrap"

    def check(self, table, tests, counts, confidence):
        check_bootstrap(
            table.n_segments,
            counts[tests[0]],
            confidence,
            f"the {' and '.join(tests)} test",
            "n_resamples",
            unit=getattr(table, "unit", "segment"),
        )

    def evidence(self, ctx, test, pair):
        a, b = pair
        R = ctx.plan.counts[test]
        bd = ctx.boot[b][:R] - ctx.boot[a][:R]
        return BootstrapEvidence(ctx.score[b] - ctx.score[a], ctx.alternative, bd, R), bd, {}

    def one_pair(self, pair, resampling, alternative, confidence):
        if pair.a.shape[0] < MIN_SEGMENTS_BOOTSTRAP:  # as compare: every resample would be nearly the test set
            raise InputError(
                f"the bootstrap tests need at least {MIN_SEGMENTS_BOOTSTRAP} segments; this test set has "
                f"{pair.a.shape[0]} (approximate randomization, test 'ar', is exact at any size)"
            )
        boot = bootstrap_many({0: (pair.metric, pair.a), 1: (pair.metric, pair.b)}, resampling)
        ev = BootstrapEvidence(pair.delta, alternative, boot[1] - boot[0], resampling.n_resamples)
        return ev, interval(ev.boot_delta, "percentile", confidence)


class SentenceKind(TestKind):
    """Tests on sentence-level scores: the difference of the mean sentence scores, a t-interval around it."""

    name = "sentence"
    resamples = False

    def check(self, table, tests, counts, confidence):
        if table.n_segments < 2:
            unit = getattr(table, "unit", "segment")
            raise InputError(f"the sentence-level tests need at least 2 {unit}s; the test set has {table.n_segments}")

    def prepare(self, ctx, tests, shared):
        m = ctx.table.metrics[ctx.metric]
        return {n: m.sentence_scores(ctx.stats(n)) for n in ctx.table.system_names}

    def evidence(self, ctx, test, pair):
        sent = ctx.prepared[self.name]
        a, b = pair
        ev = SentenceEvidence(float((sent[b] - sent[a]).mean()), ctx.alternative, sent[a], sent[b])
        label = ctx.table.metrics[ctx.metric].sentence_score_label
        return ev, None, {"quantity": "mean sentence-level score", "sentence_score": label}

    def summary(self, ctx, ev, pair, confidence):
        return float(ev.sent_a.mean()), float(ev.sent_b.mean()), ev.observed, mean_difference_ci(ev, confidence)

    def one_pair(self, pair, resampling, alternative, confidence):
        if pair.a.shape[0] < 2:
            raise InputError(f"the sentence-level tests need at least 2 segments; this test set has {pair.a.shape[0]}")
        return SentenceEvidence(pair.delta, alternative, *pair.sentences), None


def mean_difference_ci(ev: SentenceEvidence, confidence: float) -> Interval:
    """t-interval of the mean sentence-level difference."""
    from scipy import stats as sps

    d = ev.sent_b - ev.sent_a
    n = d.size
    half = float(sps.t.ppf(0.5 + confidence / 2, max(n - 1, 1)) * d.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    return Interval(ev.observed - half, ev.observed + half, "t", confidence)


def _ar_integer_metrics(table, plan: ComparisonPlan, opts, r: Resampling) -> dict[str, dict] | None:
    """:func:`ar_counts_many` over the metrics whose statistics are whole numbers, for the pairs of single
    outputs, when there are two such metrics or more (one drawing then serves them all)."""
    from mtsig.stats.engines import ar_counts_many
    from mtsig.stats.pvalues import alternative_for

    single = [p for p in plan.pairs if p not in plan.run_pairs]
    if not single:
        return None
    names = sorted({x for p in single for x in p}, key=table.system_names.index)
    items = {}
    for mname, metric in table.metrics.items():
        stats = {n: pooled_runs(table.stats[mname][n]) for n in names}
        if all(whole_numbers(a) for a in stats.values()):
            items[mname] = (metric, stats, alternative_for(metric, opts.alternative))
    if len(items) < 2:
        return None
    return ar_counts_many(items, single, r)


def _ar(ctx: MetricContext, r: Resampling, batched: dict | None = None) -> dict[tuple[str, str], Counted]:
    """Approximate randomization per pair. Pairs with optimizer runs: the randomization of the pooled runs with
    their run-level variance (:func:`runs_ar_many`). ``batched``: the counts of the single-output pairs, drawn
    for several metrics at once (:func:`_ar_integer_metrics`)."""
    table, mname, plan, opts = ctx.table, ctx.metric, ctx.plan, ctx.opts
    metric = table.metrics[mname]
    out = {}
    run_pairs = [p for p in plan.pairs if p in plan.run_pairs]
    if run_pairs:
        items = {(a, b): (metric, table.stats[mname][a], table.stats[mname][b]) for a, b in run_pairs}
        for p, res in runs_ar_many(items, r, ctx.alternative, getattr(opts, "paired_runs", False)).items():
            df = res["df"] if np.isfinite(res["df"]) else None  # infinite: no run-level term (JSON has no Infinity)
            extra = {"runs_a": table.system(p[0]).n_runs, "runs_b": table.system(p[1]).n_runs, "pooled_runs": True,
                     "run_variance": res["run_variance"], "run_df": df, "assumption": RUNS_ASSUMPTION}  # fmt: skip
            if "run_permutation_p" in res:
                extra.update(run_permutation_p=res["run_permutation_p"], run_deals=res["run_deals"])
            out[p] = Counted(res["plain_count"], res["null"] if opts.keep_distributions else None, extra, res["p"])
    single = [p for p in plan.pairs if p not in plan.run_pairs]
    if single and batched is not None:
        out.update({p: Counted(c, null if opts.keep_distributions else None, {}) for p, (c, null) in batched.items()})
    elif single:
        stats = {n: ctx.stats(n) for n in {x for p in single for x in p}}
        if opts.keep_distributions:
            counted = ar_counts(stats, metric, single, r, ctx.alternative, keep=True)
            out.update({p: Counted(c, null, {}) for p, (c, null) in counted.items()})
        else:  # the counts alone: no null distribution of every pair held in memory
            counts = ar_counts(stats, metric, single, r, ctx.alternative)
            out.update({p: Counted(c, None, {}) for p, c in counts.items()})
    return out


def _stratified(table, plan: ComparisonPlan, opts, r: Resampling) -> dict[str, dict]:
    """Stratified approximate randomization over runs (Clark et al.) per pair, for every metric at once:
    ``{metric: {pair: counted}}``. The metrics share the plan's weight matrices (one product per chunk for
    all of them); each pair's result is the same as tested alone."""
    from mtsig.stats.pvalues import alternative_for

    res = {}
    by_alternative: dict[str, list[str]] = {}
    for m, metric in table.metrics.items():  # each metric in its own direction (a pair's result is as alone)
        by_alternative.setdefault(alternative_for(metric, opts.alternative), []).append(m)
    for alternative, ms in by_alternative.items():
        items = {(m, a, b): (table.metrics[m], table.stats[m][a], table.stats[m][b]) for m in ms for a, b in plan.pairs}
        res.update(stratified_ar_many(items, r, alternative, keep=True))
    out: dict[str, dict] = {m: {} for m in table.metrics}
    for (m, a, b), (c, null) in res.items():
        extra = {"stratified": True, "runs_a": table.system(a).n_runs, "runs_b": table.system(b).n_runs}
        out[m][(a, b)] = Counted(c, null if opts.keep_distributions else None, extra)
    return out


class ASOEvidence(NamedTuple):
    """ASO (Dror et al. 2019; deepsig's ε_min) over the run-level scores of two systems: ε_min of "B is better than
    A" and of "A is better than B" (in the metric's direction), at a Bonferroni-corrected confidence."""

    observed: float
    alternative: str
    eps_b_better: float
    eps_a_better: float
    violation_ratio: float
    confidence: float
    tau: float
    n_resamples: int
    #: the permutation gate's two-sided p-value of exchangeable runs, and adjusted over the family
    gate_p: float
    gate_p_adjusted: float
    gate_splits: int
    gate_exact: bool
    gate_correction: str


class ASOKind(TestKind):
    """Almost Stochastic Order over optimizer runs (seeds): not a p-value but ε_min, an upper confidence bound of
    the share of the two score distributions' Wasserstein distance where the favoured system is worse; "better"
    when ε_min < τ (0.2). The family of comparisons is corrected inside the bound (Bonferroni: each at confidence
    1 - α/k), so ASO rows have no p-value and no further correction, and they draw no clusters."""

    name = "aso"
    runs = True
    single_output = False
    study_count = "n_bootstrap"

    def smallest_p(self, n_resamples, alternative):
        return 0.0  # no p-value: its count of bootstrap samples is its own default, whatever the threshold

    def check(self, table, tests, counts, confidence):
        single = [s.name for s in table.systems if s.n_runs < 2]
        if single:
            who = f"{single[0]} has" if len(single) == 1 else f"{', '.join(single[:-1])} and {single[-1]} have"
            raise InputError(f"test aso compares the scores of several optimizer runs (seeds) per system; {who} "
                             "one: give NAME=run1,run2,... (or use another test)", param="test")  # fmt: skip

    def prepare(self, ctx, tests, shared):
        from mtsig.stats.aso import TAU, aso, permutation_p
        from mtsig.stats.multiple import CORRECTIONS, adjust

        metric = ctx.table.metrics[ctx.metric]
        k = len(ctx.plan.pairs)
        level = 1 - ctx.opts.alpha if ctx.opts.correction == "none" else 1 - ctx.opts.alpha / k
        # the gate's family correction: the one asked for, or Holm where it is a joint-bootstrap correction
        method = ctx.opts.correction if CORRECTIONS.get(ctx.opts.correction).adjust is not None else "holm"
        sign = 1.0 if metric.higher_is_better else -1.0  # scores oriented so that higher is better
        runs = {n: sign * ctx.table.corpus_scores(ctx.metric, n) for n in ctx.table.system_names}
        names = ctx.table.system_names
        out = {}
        for t in tests:
            R = ctx.plan.counts[t]
            gates = {}
            for a, b in ctx.plan.pairs:
                i, j = names.index(a), names.index(b)
                seed = ctx.resampling.seed + 1009 * min(i, j) + max(i, j)
                gates[(a, b)] = permutation_p(runs[a], runs[b], seed=seed)
            padj = dict(zip(gates, adjust([g[0] for g in gates.values()], method)))
            for a, b in ctx.plan.pairs:
                i, j = names.index(a), names.index(b)
                seed = ctx.resampling.seed + 1009 * min(i, j) + max(i, j)
                ba = aso(runs[b], runs[a], confidence=level, n_bootstrap=R, seed=seed, tau=TAU, rule="bound")
                ab = aso(runs[a], runs[b], confidence=level, n_bootstrap=R, seed=seed + 7, tau=TAU, rule="bound")
                out[(t, a, b)] = (ba, ab, level, gates[(a, b)], float(padj[(a, b)]), method)
        return out

    def evidence(self, ctx, test, pair):
        ba, ab, level, (gp, splits, exact), gadj, method = ctx.prepared[self.name][(test, *pair)]
        delta = ctx.score[pair[1]] - ctx.score[pair[0]]
        ev = ASOEvidence(delta, ctx.alternative, ba.eps_min, ab.eps_min, ba.violation_ratio, level, ba.tau,
                         ctx.plan.counts[test], gp, gadj, splits, exact, method)  # fmt: skip
        return ev, None, {}

    def one_pair(self, pair, resampling, alternative, confidence):
        raise InputError("test aso needs several optimizer runs per system: use compare with NAME=run1,run2,...")


def _check_kind(kind: Any) -> None:
    if not isinstance(kind, TestKind) or not kind.name:
        raise InputError("a test kind is a named TestKind instance")


#: the registered kinds by name (plugins: the ``mtsig.tests`` entry-point group, shared with the tests)
KINDS: Registry[TestKind] = Registry("test kind", "mtsig.tests", check=_check_kind)


def register_kind(kind: TestKind) -> TestKind:
    """Register a kind (an instance of a :class:`TestKind` subclass) under its name."""
    return KINDS.register(kind)


def get_kind(name: str) -> TestKind:
    return KINDS.get(name)


for _k in (RandomizationKind(), StratifiedKind(), BootstrapKind(), SentenceKind(), ASOKind()):
    register_kind(_k)
