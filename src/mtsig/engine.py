"""The engine: from a statistics table to typed results, in small steps.

``score_table``: one shared bootstrap (when intervals or optimizer runs need it), then each system's
score, interval and run statistics. ``compare_table``: plan the pairs, draw one bootstrap shared by
every system, run and metric (s_sel and the interval of each difference), count the randomization tests,
compute each registered test's p-value from the evidence its kind needs, adjust per metric and test, and
cluster. Every random number comes from :mod:`mtsig.resample` through one :class:`Resampling`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from mtsig.declare import (
    Checked,
    alternative_option,
    baseline_option,
    count_option,
    level_option,
    option,
    seed_option,
    unit_option,
)
from mtsig.errors import InputError
from mtsig.resample import Resampling
from mtsig.results import (
    CompareResult,
    CompareSettings,
    Comparison,
    RunStats,
    ScoreResult,
    ScoreSettings,
    SystemResult,
    SystemScore,
    TestResult,
)
from mtsig.stats.engines import bootstrap_many
from mtsig.stats.intervals import CI_METHODS, bootstrap_jackknife_se, interval, jackknife_scores, summarize
from mtsig.stats.kinds import (  # noqa: F401 - the bootstrap checks, importable from here as before
    KINDS,
    MIN_SEGMENTS_BOOTSTRAP,
    ComparisonPlan,
    MetricContext,
    check_bootstrap,
    min_bootstrap,
)
from mtsig.stats.multiple import CORRECTIONS, adjust, clusters, experimentwise_error, maxt
from mtsig.stats.paired import DEFAULT_BOOTSTRAP, PAIRED_TESTS, get_test, test_names
from mtsig.stats.pvalues import alternative_for, check_alternative
from mtsig.stats.runs import median_run, s_sel, sample_std
from mtsig.table import StatsTable, pooled_runs
from mtsig.units import by_unit

if TYPE_CHECKING:
    from mtsig.metrics.base import Metric


def _kept(what: str) -> Any:
    """Keep the distributions on the result, for figures (no flag: ``--plot`` asks for them; changes no number)."""
    return option(False, "", "bool", cli=False, record=False, doc=f"Keep {what} on the result (plots).")


# ================================================================================================ score
@dataclass(frozen=True, kw_only=True)
class ScoreOptions(Checked):
    """What ``score`` adds to the corpus scores: each setting declared once (its flag, check and description
    come from here; :mod:`mtsig.declare`)."""

    ci: bool = option(False, "add bootstrap confidence intervals", "bool", group="confidence intervals",
                      doc="Add a bootstrap confidence interval to every score.")  # fmt: skip
    ci_method: str = option(
        "percentile",
        "percentile, t, bca, studentized (the bootstrap-t: for few units, documents)",
        "str",
        choices=CI_METHODS,
        what="confidence-interval method",
        group="confidence intervals",
        doc="The interval's method: ``percentile`` (default), ``t``, ``bca`` or ``studentized`` (the bootstrap-t, "
        "for few resampling units: documents).",
    )
    n_bootstrap: int | None = count_option(None, "bootstrap resamples (1000)",
                                           "Bootstrap resamples behind the intervals and s_sel (1000).",
                                           group="confidence intervals")  # fmt: skip
    confidence: float = level_option(
        0.95,
        "confidence level; giving one asks for the intervals (sacreBLEU's --confidence alone is --ci)",
        "The intervals' level (0.95; scipy's name ``confidence_level`` is accepted).",
        group="confidence intervals",
    )
    seed: int | None = seed_option()
    keep_distributions: bool = _kept("the bootstrap (and null) distributions")
    resample_unit: str = unit_option(
        "What every resampling procedure draws or swaps: ``segment`` (default), ``document`` (whole documents: the "
        "cluster bootstrap; randomization swaps whole documents; the sentence-level tests use their means) or "
        "``domain``; see :mod:`mtsig.units`."
    )
    sentence_level: bool = option(
        False,
        "also every segment's own score under every metric (as sacreBLEU's -sl), in every format",
        "bool",
        short="-sl",
        group="what to print",
        doc="Also every segment's own score under every metric (``ScoreResult.segments``; sacreBLEU's ``-sl``).",
    )


def shared_bootstrap(table: StatsTable, resampling: Resampling, pooled: bool = False) -> dict:
    """Bootstrap scores of every run of every system under every metric from one plan, keyed
    ``(metric, system, run)``; with ``pooled``, also ``(metric, system, "pooled")`` for systems with runs."""
    items: dict[tuple[str, str, int | str], tuple[Metric, np.ndarray]] = {}
    for m, metric in table.metrics.items():
        for s in table.systems:
            for r in range(s.n_runs):
                items[(m, s.name, r)] = (metric, table.stats[m][s.name][r])
            if pooled and s.n_runs > 1:
                items[(m, s.name, "pooled")] = (metric, table.stats[m][s.name].sum(axis=0))
    return bootstrap_many(items, resampling.with_count(resampling.count(DEFAULT_BOOTSTRAP)))


def _run_stats(table: StatsTable, mname: str, name: str, run_scores: np.ndarray, boot: dict) -> RunStats:
    info = table.system(name)
    dev = table.dev_scores.get(mname, {}).get(name)
    return RunStats(
        mean=float(run_scores.mean()),
        s_sel=s_sel([boot[(mname, name, r)] for r in range(info.n_runs)]),
        s_test=sample_std(run_scores) if info.n_runs > 1 else None,
        s_dev=sample_std(dev),
        runs=tuple(float(x) for x in run_scores),
        median_run=median_run(run_scores, table.metrics[mname].higher_is_better),
        dev_runs=tuple(float(x) for x in dev) if dev is not None else None,
    )


def _system_score(  # noqa: PLR0913
    table: StatsTable,
    mname: str,
    name: str,
    opts: ScoreOptions,
    boot: dict,
    rtable: StatsTable,
    resampling: Resampling,
) -> SystemScore:
    """One system's score under one metric: the point estimate from the segments of ``table``, the jackknife of
    BCa over the units of ``rtable`` (the table of resampling units)."""
    metric = table.metrics[mname]
    info = table.system(name)
    st = table.stats[mname][name]
    run_scores = table.corpus_scores(mname, name)
    runs = _run_stats(table, mname, name, run_scores, boot) if table.has_runs else None
    ci = summary = samples = None
    if info.n_runs == 1 and opts.ci:
        samples = boot[(mname, name, 0)]
        units = rtable.stats[mname][name][0]
        jack = jackknife_scores(metric, units) if opts.ci_method in ("bca", "studentized") else None
        boot_se = None
        if opts.ci_method == "studentized":  # the same plan as the shared bootstrap: resample b is the same there
            plan = resampling.plan("bootstrap", rtable.n_segments, resampling.count(DEFAULT_BOOTSTRAP))
            boot_se = bootstrap_jackknife_se(metric, units, plan)
        ci = interval(samples, opts.ci_method, opts.confidence, observed=float(run_scores[0]), jackknife=jack,
                      n=rtable.n_segments, boot_se=boot_se)  # fmt: skip
        summary = summarize(samples)
    if opts.keep_distributions and boot:  # (empty: nothing was resampled)
        samples = np.stack([boot[(mname, name, r)] for r in range(info.n_runs)]) if info.n_runs > 1 else samples
        samples = boot[(mname, name, 0)] if samples is None else samples
    details = metric.describe(st[0].sum(axis=0)) if info.n_runs == 1 else None
    sig = table.signatures.get(mname, metric.signature)
    return SystemScore(float(run_scores.mean()), sig, runs, ci, summary, details or None, samples)


def score_table(
    table: StatsTable,
    options: ScoreOptions | None = None,
    resampling: Resampling | None = None,
    boot: dict | None = None,
) -> ScoreResult:
    """Corpus scores (and bootstrap intervals; per-run statistics for systems with several runs).

    ``boot`` may hold bootstrap samples already drawn, keyed ``(metric, system, run)``.
    """
    opts = options or ScoreOptions()
    resampling = resampling or Resampling()
    need_boot = opts.ci or table.has_runs
    rtable = by_unit(table, opts.resample_unit) if need_boot else table
    if opts.ci:
        check_bootstrap(
            rtable.n_segments, resampling.count(DEFAULT_BOOTSTRAP), opts.confidence, "a bootstrap interval",
            unit=rtable.unit,
        )  # fmt: skip
    if need_boot and boot is None:
        boot = shared_bootstrap(rtable, resampling)
    systems = tuple(
        SystemResult(
            s.name,
            tuple(s.files),
            {m: _system_score(table, m, s.name, opts, boot or {}, rtable, resampling) for m in table.metrics},
        )
        for s in table.systems
    )
    signatures = {m: table.signatures.get(m, table.metrics[m].signature) for m in table.metrics}
    settings = ScoreSettings(
        n_bootstrap=resampling.count(DEFAULT_BOOTSTRAP) if need_boot else None,
        seed=resampling.seed if need_boot else None,
        ci_method=opts.ci_method if opts.ci else None,
        confidence=opts.confidence if opts.ci else None,
        signatures=signatures,
        n_segments=table.n_segments,
        resample_unit=rtable.unit if need_boot else None,
        n_units=rtable.n_segments if need_boot else None,
        options=opts,
    )
    segments = sentence_scores(table) if opts.sentence_level else None
    return ScoreResult(systems, settings, table.directions(), table.decimals(), segments)


def sentence_scores(table: StatsTable) -> dict[str, dict[str, list[float]]]:
    """Per metric, the score of every segment on its own (the metric's sentence-level score: sacreBLEU's
    ``sentence_bleu`` for BLEU, the segment's own chrF/TER, the given score for ``seg``), per system, or per run
    (``NAME[run i]``) for systems with several optimizer runs."""
    if table.unit != "segment":
        raise InputError("segment scores need the table of segments, not of documents or domains")
    out: dict[str, dict[str, list[float]]] = {}
    for m, metric in table.metrics.items():
        out[m] = {}
        for s in table.systems:
            runs = table.stats[m][s.name]
            for r in range(runs.shape[0]):
                key = s.name if runs.shape[0] == 1 else f"{s.name}[run {r + 1}]"
                out[m][key] = [float(x) for x in np.asarray(metric.sentence_scores(runs[r]), dtype=np.float64)]
    return out


# ================================================================================================ compare
def _correction(name: str) -> Any:
    return CORRECTIONS.get(name)


@dataclass(frozen=True, kw_only=True)
class Decisions(Checked):
    """The settings of every paired comparison, declared once and shared by ``compare`` and ``analyze``: the
    pairs, the adjustment, the levels, the resampling."""

    baseline: str | None = baseline_option()
    correction: str = option(
        "holm",
        "p-value adjustment; maxt: step-down max-T over the joint bootstrap of all systems (Romano & Wolf: "
        "uses the dependence between pairs; valid whichever pairs are equal)",
        "str",
        choices=lambda: tuple(CORRECTIONS),
        lookup=_correction,
        group="tests",
        doc="The p-value adjustment over the pairs of each metric and test (``holm`` default, ``bonferroni``, "
        "``sidak``, ``bh``, ``maxt``, ``none``, and any a plugin registers).",
    )
    alpha: float = level_option(0.05, "significance level", "The level of the decisions (0.05).")
    alternative: str = alternative_option(
        "two-sided; greater: B better than A in the metric's direction (lower TER, higher BLEU); less: B worse",
        "``two-sided`` (default), ``greater`` (B is better than A in the metric's own direction: higher BLEU, lower "
        "TER, so for TER it tests delta = B - A < 0) or ``less`` (B is worse).",
    )
    confidence: float = level_option(
        0.95,
        "level of the interval of the difference",
        "The level of the interval of each difference (0.95; scipy's name ``confidence_level`` is accepted).",
    )
    n_resamples: int | None = count_option(
        None,
        "shuffles / bootstrap resamples of the tests (default: automatic: 10000 for ar, 1000 for bootstrap tests, "
        "more when the corrected threshold needs them)",
        "Resamples of each resampling test (None: its default, or more when the corrected threshold needs them).",
    )
    n_bootstrap: int | None = count_option(
        None,
        "bootstrap resamples for the interval of the difference and s_sel (1000)",
        "Bootstrap resamples behind the intervals of differences (1000).",
    )
    seed: int | None = seed_option()
    resample_unit: str = unit_option(
        "What every resampling procedure draws or swaps: ``segment`` (default), ``document`` or ``domain`` "
        "(randomization swaps whole documents, the bootstrap draws them, the sentence-level tests use their means; "
        "see :mod:`mtsig.units`)."
    )

    def decisions(self) -> dict[str, Any]:
        """The shared settings by name (what a comparison inside another command inherits)."""
        return {f.name: getattr(self, f.name) for f in fields(Decisions)}


@dataclass(frozen=True, kw_only=True)
class CompareOptions(Decisions):
    """The tests and decisions of ``compare``: each setting declared once (its flag, check and description come
    from here; :mod:`mtsig.declare`). The resampling counts and seed also make the :class:`Resampling`."""

    tests: tuple[str, ...] = option(("ar",), "one or more of the registered tests", "strs",
                                    flag="--test", metavar="TEST", choices=test_names, lookup=get_test, form="test",
                                    group="tests", doc="The registered tests to run (``ar`` default).")  # fmt: skip
    keep_distributions: bool = _kept("the null and bootstrap distributions")
    system_ci: bool = option(
        False,
        "also each system's percentile interval, from the --n-bootstrap resamples (on with --html)",
        "bool",
        flag="--ci",
        group="tests",
        doc="Also each system's percentile interval at ``confidence``, from the bootstrap behind the intervals.",
    )
    paired_runs: bool = option(
        False,
        "optimizer runs of different systems are paired by position (run j of A with run j of B, e.g. shared "
        "seeds): run effects they share cancel (default: runs are not paired)",
        "bool",
        group="tests",
        doc="Optimizer runs of different systems are paired by position (run j of A with run j of B, e.g. shared "
        "seeds): the runs test then analyses paired differences, so shared run effects cancel (default: unpaired, "
        "and the result does not depend on the order of the runs).",
    )

    def __post_init__(self):
        if isinstance(self.tests, str):
            object.__setattr__(self, "tests", (self.tests,))
        super().__post_init__()
        object.__setattr__(self, "tests", tuple(dict.fromkeys(self.tests)))


#: an automatic number of resamples makes the smallest attainable p-value at most this share of the
#: smallest corrected threshold
AUTO_MARGIN = 10


def threshold(alpha: float, k: int, correction: str) -> float:
    """The smallest p-value threshold of a correction over k comparisons (what the best pair must reach)."""
    return CORRECTIONS.get(correction).threshold(alpha, k)


def min_p(test: str, R: int, alternative: str) -> float:
    """The smallest p-value R resamples can give (1/(R+1); twice that for a two-sided paired bootstrap)."""
    return get_test(test).smallest_p(R, alternative)


def auto_resamples(test: str, thr: float, alternative: str) -> int:
    """The test's default, or more resamples so that the smallest p-value is a tenth of the threshold."""
    need = int(np.ceil(AUTO_MARGIN * min_p(test, 0, alternative) / thr)) - 1
    need = int(np.ceil(need / 100) * 100)
    return max(PAIRED_TESTS[test].default_resamples or 0, need)


def _by_kind(tests) -> dict[str, list[str]]:
    """The tests grouped by their kind's name, in the order given."""
    out: dict[str, list[str]] = {}
    for t in tests:
        out.setdefault(PAIRED_TESTS[t].kind, []).append(t)
    return out


def _counts(opts: CompareOptions, resampling: Resampling, k: int) -> tuple[dict[str, int], int, bool, tuple[str, ...]]:
    """Resamples per test (given, or automatic), the shared bootstrap count, and warnings."""
    thr = threshold(opts.alpha, k, opts.correction)
    given = resampling.n_resamples
    counts: dict[str, int] = {}
    for t in opts.tests:
        if not PAIRED_TESTS[t].resamples:
            continue
        counts[t] = given if given is not None else auto_resamples(t, thr, opts.alternative)
    for kind, tests in _by_kind(opts.tests).items():
        if KINDS[kind].shared_draw:  # e.g. the bootstrap tests share one bootstrap (the largest count asked for)
            counts.update({t: max(counts[t] for t in tests) for t in tests})
    # the intervals of differences and s_sel: their own count, drawn from the same plan (a prefix of its rows)
    n_boot = opts.n_bootstrap or DEFAULT_BOOTSTRAP
    warnings = []
    for t, R in counts.items():
        if min_p(t, R, opts.alternative) > thr:
            warnings.append(
                f"{t}: with {R} resamples the smallest p-value is {min_p(t, R, opts.alternative):.2g}, above the "
                f"corrected threshold {thr:.2g} ({opts.correction}, {k} comparisons): no pair can be significant; "
                f"use at least {auto_resamples(t, thr, opts.alternative)}"
            )
    auto = given is None
    return counts, n_boot, auto, tuple(warnings)


def comparison_pairs(table: StatsTable, baseline: str | None) -> list[tuple[str, str]]:
    """All pairs, or each system against the baseline."""
    names = table.system_names
    if baseline is None:
        return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    if baseline not in names:
        raise InputError(f"baseline {baseline!r} is not one of the systems: {', '.join(names)}")
    return [(baseline, n) for n in names if n != baseline]


def _check_runs(multi: set[str], tests) -> None:
    """Systems with several optimizer runs: only the tests of kinds that handle runs."""
    if multi and not all(KINDS[PAIRED_TESTS[t].kind].runs for t in tests):
        raise InputError(
            f"system(s) {', '.join(sorted(multi))} have several optimizer runs: the tests for them are "
            "'ar' (randomization of the pooled runs plus run-level variance), 'stratified-ar' (Clark et al. "
            "2011) and 'aso' (almost stochastic order over the runs)",
            param="test",
        )


def plan_comparison(table: StatsTable, opts: CompareOptions, resampling: Resampling) -> ComparisonPlan:
    if len(table.system_names) < 2:
        raise InputError("compare needs at least two systems")
    multi = {s.name for s in table.systems if s.n_runs > 1}
    _check_runs(multi, opts.tests)
    pairs = comparison_pairs(table, opts.baseline)
    counts, n_boot, auto, warnings = _counts(opts, resampling, len(pairs))
    by_kind = _by_kind(opts.tests)
    for kind in sorted(by_kind, key=lambda k: KINDS[k].resamples):  # the checks without resampling first
        KINDS[kind].check(table, by_kind[kind], counts, opts.confidence)
    if any(KINDS[k].keeps == "bootstrap" for k in by_kind) or table.n_segments >= MIN_SEGMENTS_BOOTSTRAP:
        # the interval of each difference
        check_bootstrap(table.n_segments, n_boot, opts.confidence, "an interval of a difference", unit=table.unit)
    if opts.baseline is None and opts.alternative != "two-sided":
        warnings += (
            "no significance clusters: they need two-sided tests (one-sided results depend on the order in "
            "which the systems are listed)",
        )
    run_pairs = {p for p in pairs if p[0] in multi or p[1] in multi}
    warnings += _few_runs(table, run_pairs, opts)
    if CORRECTIONS.get(opts.correction).joint_bootstrap:
        if multi:
            raise InputError("correction maxt needs one output per system (for optimizer runs use holm)")
        check_bootstrap(table.n_segments, n_boot, opts.confidence, "correction maxt (a joint bootstrap)",
                        unit=table.unit)  # fmt: skip
    return ComparisonPlan(pairs, run_pairs, counts, n_boot, auto, warnings)


def _few_runs(table: StatsTable, run_pairs: set, opts: CompareOptions) -> tuple[str, ...]:
    """The warning for pairs with optimizer runs where a side has fewer than 3 runs (``ar``'s p-value is then
    bounded by the exact permutation test over runs), and the check of ``paired_runs``."""
    from mtsig.stats.engines import MIN_RUNS_CALIBRATED

    if opts.paired_runs:
        unequal = sorted({f"{a} ({table.system(a).n_runs}) and {b} ({table.system(b).n_runs})" for a, b in run_pairs
                          if table.system(a).n_runs != table.system(b).n_runs})  # fmt: skip
        if unequal:
            raise InputError(f"paired runs need equal run counts: {unequal[0]} differ", param="paired_runs")
    duplicated = tuple(_duplicate_runs(table, sorted({s for p in run_pairs for s in p})))
    few = sorted({s for p in run_pairs for s in p if table.system(s).n_runs < MIN_RUNS_CALIBRATED})
    if not few or "ar" not in opts.tests:
        return duplicated
    counts = ", ".join(f"{s}: {table.system(s).n_runs}" for s in few)
    return duplicated + (
        f"ar: fewer than {MIN_RUNS_CALIBRATED} optimizer runs ({counts}): with so few runs, run-level variation "
        "cannot be told from a difference between the systems, and no t-based p-value is calibrated; ar's p-value "
        "is at least the exact permutation test's over whole runs (at least 1/3 with 2 runs each): give 3 or more "
        "runs per system",
    )


def _duplicate_runs(table: StatsTable, names: list[str]):
    """A warning for each system two of whose runs are identical under every metric (one output given twice?):
    identical runs make its run-level variance look smaller than it is, and its p-values too small."""
    for name in names:
        stats = [table.stats[m][name] for m in table.metrics]
        k = stats[0].shape[0]
        same = next(((i, j) for i in range(k) for j in range(i + 1, k)
                     if all(np.array_equal(a[i], a[j]) for a in stats)), None)  # fmt: skip
        if same is not None:
            yield (f"{name}: runs {same[0] + 1} and {same[1] + 1} have identical statistics (the same output "
                   "given twice?): identical runs shrink the run-level variance and with it the runs test's "
                   "p-value")  # fmt: skip


def _pooled(table: StatsTable, mname: str, name: str) -> np.ndarray:
    """A system's statistics with its runs pooled (summed per segment; Clark et al., section 4.2)."""
    return pooled_runs(table.stats[mname][name])


def _test_result(test: str, pair: tuple[str, str], ctx: MetricContext) -> TestResult:
    """One test of one pair, from the evidence its kind gathered."""
    opts, spec = ctx.opts, PAIRED_TESTS[test]
    kind = KINDS[spec.kind]
    ev, dist, extra = kind.evidence(ctx, test, pair)
    out = spec.outcome(ev)
    null = boot_dist = None
    if opts.keep_distributions and dist is not None:
        if kind.keeps == "bootstrap":
            boot_dist = dist
            null = dist - dist.mean() if spec.null_from_bootstrap else None
        else:
            null = dist
    sa, sb, delta, ci = kind.summary(ctx, ev, pair, opts.confidence)
    if opts.alternative != "two-sided":  # what the one-sided alternative meant for this metric's numbers
        extra = {**extra, "h1": "delta > 0" if ctx.alternative == "greater" else "delta < 0"}
    return TestResult(
        test=test,
        metric=ctx.metric,
        a=pair[0],
        b=pair[1],
        score_a=sa,
        score_b=sb,
        delta=delta,
        p_value=out.p_value,
        alternative=opts.alternative,
        n_resamples=ev.n_resamples,
        seed=ctx.resampling.seed if ev.n_resamples else None,
        delta_ci=ci,
        statistic=out.statistic,
        extra={**extra, **out.extra},
        null_distribution=null,
        bootstrap_distribution=boot_dist,
    )


class _Shared:
    """What a comparison resamples or prepares once for every metric, each under its own attribute (so no test
    kind's name can stand for the bootstrap or the segment table)."""

    __slots__ = ("boot", "segments", "kinds")

    def __init__(self, *, boot: dict, segments: Any, kinds: dict[str, Any]):
        #: bootstrap scores by (metric, system, run or "pooled")
        self.boot = boot
        #: the table of segments the scores come from (the comparison's table when the units are segments)
        self.segments = segments
        #: per test kind, what its ``prepare_all`` returned
        self.kinds = kinds


def _metric_context(
    table, mname, plan: ComparisonPlan, opts: CompareOptions, resampling, shared: _Shared
) -> MetricContext:
    """Everything the tests of one metric read: scores, bootstrap scores, intervals of differences, and what
    each kind prepared (``shared``: what is resampled or prepared for all metrics at once). ``table`` holds the
    resampling units; the scores come from the segments of ``shared.segments``."""
    seg_table = shared.segments
    boot_all = shared.boot
    names = table.system_names
    multi = {s.name for s in table.systems if s.n_runs > 1}
    boot = {n: boot_all[(mname, n, "pooled" if n in multi else 0)] for n in names}
    nb = plan.n_bootstrap
    ctx = MetricContext(
        table=table,
        plan=plan,
        opts=opts,
        resampling=resampling,
        metric=mname,
        score={n: float(seg_table.metrics[mname].score(_pooled(seg_table, mname, n).sum(axis=0))) for n in names},
        boot=boot,
        delta_ci={
            (a, b): _runs_interval(table, mname, (a, b), boot[b][:nb] - boot[a][:nb], opts)
            if (a, b) in plan.run_pairs
            else interval(boot[b][:nb] - boot[a][:nb], "percentile", opts.confidence)
            if table.n_segments >= MIN_SEGMENTS_BOOTSTRAP
            else None
            for a, b in plan.pairs
        },
        prepared={},
        alternative=alternative_for(seg_table.metrics[mname], opts.alternative),
    )
    for kind, tests in _by_kind(opts.tests).items():
        ctx.prepared[kind] = KINDS[kind].prepare(ctx, tests, shared.kinds.get(kind))
    return ctx


def _runs_interval(table, mname: str, pair: tuple[str, str], boot_delta: np.ndarray, opts: CompareOptions):
    """The interval of Δ for systems with optimizer runs, from the threshold the runs test uses: the bootstrap's
    segment-level variance of Δ and each system's run mean square, combined term by term
    (:func:`~mtsig.stats.engines.runs_half_width`). None with fewer than 3 runs on a side (no calibrated
    interval)."""
    from mtsig.stats.engines import MIN_RUNS_CALIBRATED, run_components, runs_half_width
    from mtsig.stats.intervals import Interval

    A, B = table.stats[mname][pair[0]], table.stats[mname][pair[1]]
    if min(A.shape[0], B.shape[0]) < MIN_RUNS_CALIBRATED:
        return None
    metric = table.metrics[mname]
    delta = float(metric.score(B.sum(axis=(0, 1))) - metric.score(A.sum(axis=(0, 1))))
    comps = run_components(metric, A, B, opts.paired_runs)
    half = runs_half_width(float(np.var(boot_delta)), comps, (1 - opts.confidence) / 2)
    return Interval(delta - half, delta + half, "runs (component-wise t)", opts.confidence)


def _adjusted(results: list[TestResult], opts: CompareOptions, ctx: MetricContext) -> list[Comparison]:
    from mtsig.fits import human_agreement

    fit = ctx.table.metrics[ctx.metric].name
    if results and results[0].p_value is None:  # ASO: ε_min (corrected inside its bound) and its permutation gate
        return [Comparison(r, None, bool(r.statistic is not None and r.statistic < r.extra["tau"]  # type: ignore[arg-type]
                                         and r.extra["gate_p_adjusted"] <= opts.alpha),
                           human_agreement(fit, r.delta)) for r in results]  # fmt: skip
    if CORRECTIONS.get(opts.correction).joint_bootstrap:
        # step-down max-T over the joint bootstrap of every system (the comparison's shared bootstrap), never
        # below the test's own p-value (so a pair's adjusted p-value is at least its unadjusted one)
        pairs = ctx.plan.pairs
        D = np.stack([ctx.boot[b] - ctx.boot[a] for a, b in pairs], axis=1)
        obs = np.array([ctx.score[b] - ctx.score[a] for a, b in pairs])
        padj = np.maximum(
            maxt(D, obs, ctx.alternative)["step-down"], np.array([r.p_value for r in results], dtype=float)
        )
    else:
        padj = adjust([r.p_value for r in results], opts.correction)
    return [Comparison(r, float(pa), bool(pa <= opts.alpha), human_agreement(fit, r.delta))
            for r, pa in zip(results, padj)]  # fmt: skip


def compare_table(
    table: StatsTable, options: CompareOptions | None = None, resampling: Resampling | None = None
) -> CompareResult:
    """Paired tests of every pair of systems (or each system against the baseline) for every metric."""
    opts = options or CompareOptions()
    resampling = resampling or Resampling()
    check_alternative(opts.alternative)
    seg_table, table = table, by_unit(table, opts.resample_unit)
    for metric in table.metrics.values():  # a one-sided test needs a direction: refused before any work
        alternative_for(metric, opts.alternative)
    plan = plan_comparison(table, opts, resampling)
    n_drawn = max(
        [plan.n_bootstrap, *(plan.counts[t] for t in opts.tests if KINDS[PAIRED_TESTS[t].kind].keeps == "bootstrap")]
    )
    boot_all = shared_bootstrap(table, resampling.with_count(n_drawn), pooled=True)
    system_ci = opts.system_ci and table.n_segments >= MIN_SEGMENTS_BOOTSTRAP
    keep = ScoreOptions(
        ci=system_ci,
        ci_method="percentile",
        confidence=opts.confidence,
        keep_distributions=opts.keep_distributions,
        resample_unit=opts.resample_unit,
    )
    for_intervals = {k: v[: plan.n_bootstrap] for k, v in boot_all.items()}
    scores = score_table(seg_table, keep, resampling.with_count(plan.n_bootstrap), boot=for_intervals)
    comparisons: list[Comparison] = []
    cl: dict[str, list[list[str]] | None] = {}
    cluster = opts.baseline is None and opts.alternative == "two-sided"
    kinds = {kind: KINDS[kind].prepare_all(table, plan, opts, resampling, tests)
             for kind, tests in _by_kind(opts.tests).items()}  # fmt: skip
    shared = _Shared(boot=boot_all, segments=seg_table, kinds=kinds)
    for mname, metric in table.metrics.items():
        ctx = _metric_context(table, mname, plan, opts, resampling, shared)
        rows = {t: [_test_result(t, p, ctx) for p in plan.pairs] for t in opts.tests}
        adjusted = {t: _adjusted(r, opts, ctx) for t, r in rows.items()}
        for t in opts.tests:
            comparisons.extend(adjusted[t])
        ctest = _cluster_test(opts)
        first = {frozenset(c.pair): c.significant for c in adjusted[ctest]} if ctest else {}  # the first p-value test
        # a metric best at a target value (length) gets none: its tests compare values, not distances to the target
        clusterable = cluster and metric.target is None and ctest is not None
        cl[mname] = clusters(ctx.score, first, metric.higher_is_better) if clusterable else None
    settings = _compare_settings(seg_table, opts, plan, resampling, table)
    return CompareResult(
        settings, scores.systems, tuple(comparisons), cl, scores.directions, scores.decimals, plan.warnings
    )


def _cluster_test(opts: CompareOptions) -> str | None:
    """The test whose decisions draw the clusters: the first one with p-values (ASO's ε_min decisions say "almost
    stochastically better", not "different", and draw none)."""
    return next((t for t in opts.tests if PAIRED_TESTS[t].kind != "aso"), None)


def _compare_settings(
    table: StatsTable, opts: CompareOptions, plan: ComparisonPlan, resampling: Resampling, rtable: StatsTable
) -> CompareSettings:
    k = len(plan.pairs)
    return CompareSettings(
        tests=opts.tests,
        n_resamples=dict(plan.counts),
        n_resamples_auto=plan.auto,
        n_bootstrap=plan.n_bootstrap,
        seed=resampling.seed,
        alternative=opts.alternative,
        correction=opts.correction,
        alpha=opts.alpha,
        confidence=opts.confidence,
        baseline=opts.baseline,
        n_comparisons=k,
        experimentwise_error_unadjusted=experimentwise_error(opts.alpha, k),
        cluster_test=_cluster_test(opts) if opts.baseline is None and opts.alternative == "two-sided" else None,
        signatures={m: table.signatures.get(m, table.metrics[m].signature) for m in table.metrics},
        n_segments=table.n_segments,
        resample_unit=rtable.unit,
        n_units=rtable.n_segments,
        options=opts,
    )
