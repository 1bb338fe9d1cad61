"""The Python entry points: ``mtsig.score``, ``mtsig.compute`` (statistics) and ``mtsig.compare``.

Inputs are accepted in several forms:
- ``refs``: a list of file paths, a list of lists of segment strings, or a :class:`RefSet`;
- ``systems``: a list of system specifications as on the command line (``"FILE"``, ``"NAME=FILE"``,
  ``"NAME=run1,run2"``, a glob) or a dict ``{name: spec | list of segments | list of runs}``.

Every keyword is checked: metric options (``tokenize``, ``bleu_order`` ...; see ``mtsig metrics``), side
inputs (``parses_ref``, ``seg_scores`` ...), loading options (``allow_empty_refs``, ``jobs``, ``dev_refs``,
``dev_systems``) and each function's own settings. A misspelled keyword is an :class:`InputError` that
names the valid ones, never silently ignored.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mtsig.engine import CompareOptions, ScoreOptions, compare_table, score_table
from mtsig.errors import InputError
from mtsig.executor import executor_for
from mtsig.io.load import System, attach_docids, load_references, load_systems
from mtsig.io.segments import RefSet, Segments
from mtsig.metrics import all_side_inputs, check_option_names
from mtsig.pipeline import attach_dev, build_metrics, compute_stats
from mtsig.resample import ProgressFactory, Resampling
from mtsig.results import CompareResult, ScoreResult
from mtsig.table import StatsTable
from mtsig.tokenize import DEFAULT_TOKENIZER, MTEVAL_TOKENIZERS

DEFAULT_METRICS = ("bleu",)
#: keywords of ``compute`` that are not metric options or side inputs
LOADING_OPTIONS = (
    "allow_empty_refs", "jobs", "dev_refs", "dev_systems", "docids", "ref_translator", "test_set", "langpair"
)  # fmt: skip


def _is_lines(x: Any) -> bool:
    return isinstance(x, Segments) or (
        isinstance(x, Sequence) and not isinstance(x, str) and all(isinstance(s, str) for s in x)
    )


def _refs(refs: Any, unescape: bool, allow_empty: bool, translators: Sequence[str] | None = None) -> RefSet:
    if isinstance(refs, RefSet):
        return refs
    if isinstance(refs, str):
        refs = [refs]
    refs = list(refs)
    if refs and all(isinstance(r, str) for r in refs):
        return load_references(refs, allow_empty=allow_empty, unescape=unescape, translators=translators)
    if translators:
        raise InputError("ref_translator selects references of WMT XML files: give the references as files")
    if refs and all(_is_lines(r) for r in refs):
        n = {len(r) for r in refs}
        if len(n) != 1:
            raise InputError("references differ in length: " + ", ".join(str(len(r)) for r in refs))
        return RefSet([Segments.of(r, name=f"ref{i + 1}") for i, r in enumerate(refs)])
    raise InputError("refs must be file paths or lists of segment strings")


def _system_from_value(name: str, val: Any, refs: RefSet, unescape: bool) -> System:
    if isinstance(val, str):
        (s,) = load_systems([f"{name}={val}"], refs, unescape=unescape)
        return s
    if _is_lines(val):
        return System(str(name), [Segments.of(val, name=str(name))], ["<memory>"])
    if isinstance(val, Sequence) and all(_is_lines(r) for r in val):
        runs = [Segments.of(r, name=f"{name}.run{i}") for i, r in enumerate(val)]
        return System(str(name), runs, ["<memory>"] * len(runs))
    raise InputError(f"system {name!r}: give a file spec, a list of segments or a list of runs")


def _systems(systems: Any, refs: RefSet, unescape: bool) -> list[System]:
    if isinstance(systems, str):
        systems = [systems]
    if not isinstance(systems, Mapping):
        return load_systems(list(systems), refs, unescape=unescape)
    out = [_system_from_value(name, val, refs, unescape) for name, val in systems.items()]
    for s in out:
        for r in s.runs:
            if len(r) != refs.n_segments:
                raise InputError(f"system {s.name!r} has {len(r)} segments but the references have {refs.n_segments}")
    return out


def _attach_side_inputs(rs: RefSet, ss: list[System], given: dict[str, Any]) -> None:
    """Attach every side input given (parses, segment scores ...) as the metric that declares it says."""
    for name, side in all_side_inputs().items():
        if given.get(name):
            side.attach(rs, ss, given[name])


def _check_stdin_once(refs: Any, systems: Any) -> None:
    """Standard input can be read once: refuse ``-`` given for two inputs (the second would be empty)."""
    from mtsig.io.load import parse_system_spec

    files = [r for r in ([refs] if isinstance(refs, str) else refs or []) if isinstance(r, str)]
    specs = [systems] if isinstance(systems, str) else systems.values() if isinstance(systems, Mapping) else systems
    for s in specs:
        if isinstance(s, str):
            files += parse_system_spec(s)[1] if s != "-" else ["-"]
    if files.count("-") > 1:
        raise InputError("standard input (-) can be read only once: give the other inputs as files")


def _stats_of(refs, systems, metrics, options: dict[str, Any], jobs: int) -> StatsTable:
    """Read references and systems once and compute the statistics of every metric."""
    _check_stdin_once(refs, systems)
    side = set(all_side_inputs())
    metric_opts = {k: v for k, v in options.items() if k not in side and k not in LOADING_OPTIONS}
    ms = build_metrics(list(metrics), **metric_opts)
    unescape = metric_opts.get("tokenize", DEFAULT_TOKENIZER) not in MTEVAL_TOKENIZERS
    allow_empty = bool(options.get("allow_empty_refs", False))
    if options.get("test_set"):
        from mtsig.io.testsets import load_test_set

        if refs is not None:
            raise InputError("give references or a test set by name, not both", param=("refs", "test_set"))
        rs = load_test_set(options["test_set"], options.get("langpair"), options.get("ref_translator"))
    else:
        if options.get("langpair"):
            raise InputError("langpair goes with a test set by name (test_set, -t)", param="langpair")
        rs = _refs(refs, unescape, allow_empty, options.get("ref_translator"))
    if options.get("docids") is not None:
        attach_docids(rs, options["docids"])
    ss = _systems(systems, rs, unescape)
    _attach_side_inputs(rs, ss, {k: v for k, v in options.items() if k in side})
    if options.get("seg_scores"):
        from mtsig.io.segscores import adopt_file_metric

        ms = adopt_file_metric(ms, ss, metric_opts)
    n_runs = sum(s.n_runs for s in ss)
    work = rs.n_segments * n_runs * sum(m.work for m in ms.values())
    return compute_stats(rs, ss, ms, executor_for(jobs, n_runs, work))


def compute(  # noqa: PLR0913 - the loading settings are keywords, each documented
    refs: Any,
    systems: Any,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    allow_empty_refs: bool = False,
    jobs: int = 1,
    dev_refs: Any = None,
    dev_systems: Any = None,
    docids: Any = None,
    ref_translator: Sequence[str] | None = None,
    test_set: str | None = None,
    langpair: str | None = None,
    **metric_options: Any,
) -> StatsTable:
    """Read the inputs once and return the per-segment statistics of every system and metric.

    Parameters
    ----------
    refs, systems, metrics:
        See the module's description; ``metrics`` are names from ``mtsig metrics`` (default: bleu).
    allow_empty_refs:
        Accept empty reference segments (refused by default).
    jobs:
        Processes to score systems in (1: in this process).
    dev_refs, dev_systems:
        Development-set references and outputs (one per optimizer run, same names and order): add s_dev.
    docids:
        The document of each segment (a file of one id per line, or a list), for plain-text input: what
        ``resample_unit="document"`` resamples. SGML and WMT XML input bring their documents along.
    ref_translator:
        With WMT XML references, the translators whose references to use (default: all of them).
    test_set, langpair:
        A test set sacreBLEU knows (``"wmt22"``, ``"de-en"``) instead of ``refs``: its references (sacreBLEU's
        default ones, or ``ref_translator``'s), documents and domains, from sacreBLEU's cache or downloaded.
    **metric_options:
        Metric options (``tokenize``, ``lowercase``, ``bleu_order`` ...; ``mtsig metrics`` lists them) and side
        inputs: ``parses_ref`` / ``parses_hyp`` (CoNLL-U files for the dependency F-score), ``seg_scores``
        (segment-level scores for the ``seg`` metric, see :mod:`mtsig.io.segscores`). A misspelled name is an
        :class:`InputError` that names the valid ones.
    """
    check_option_names(metric_options, _OWN["compute"])
    if isinstance(metrics, str):
        metrics = [metrics]
    options = {**metric_options, "allow_empty_refs": allow_empty_refs, "jobs": jobs, "docids": docids,
               "ref_translator": ref_translator, "test_set": test_set, "langpair": langpair}  # fmt: skip
    table = _stats_of(refs, systems, metrics, options, int(jobs))
    if (dev_refs is None) != (dev_systems is None):
        raise InputError(
            "s_dev needs both development references (dev_refs) and outputs (dev_systems)",
            param=("dev_refs", "dev_systems"),
        )
    if dev_refs is not None:
        _attach_dev_stats(table, dev_refs, dev_systems, metrics, options, int(jobs))
    return table


def _attach_dev_stats(table: StatsTable, dev_refs, dev_systems, metrics, options: dict[str, Any], jobs: int) -> None:
    """The development runs' statistics (for s_dev), computed with the test set's metric options."""
    with_side = [m for m in table.metrics.values() if m.side_inputs]
    if with_side:
        raise InputError(
            f"s_dev is available for text metrics only (not for {', '.join(type(m).name for m in with_side)})"
        )
    side = set(all_side_inputs())
    own = ("docids", "ref_translator", "test_set", "langpair")
    dev_opts = {k: v for k, v in options.items() if k not in side and k not in own}
    attach_dev(table, _stats_of(dev_refs, dev_systems, metrics, dev_opts, jobs))


def _table(refs, systems, metrics, stats, options: dict[str, Any]) -> StatsTable:
    if stats is not None:
        if options:
            raise InputError(f"options that need the texts ({', '.join(sorted(options))}) do not apply to statistics")
        table = stats if isinstance(stats, StatsTable) else StatsTable.load(stats)
        if refs is not None or systems is not None:
            raise InputError("give either statistics or references and systems, not both")
        wanted = None if metrics in (None, DEFAULT_METRICS) else list(metrics)
        return table.select(wanted)
    if (refs is None and not options.get("test_set")) or systems is None:
        raise InputError("give references and systems (or a statistics file)")
    return compute(refs, systems, metrics, **options)


def _alias(name: str, value: Any, alias: str, alias_value: Any, default: Any) -> Any:
    """A setting given under its name or under scipy.stats' name for it (not both)."""
    if alias_value is None:
        return value
    if value is not None and value != default:
        raise InputError(f"give {name} or {alias}, not both", param=(name, alias))
    return alias_value


def _seed(seed: int | None, rng: Any) -> int | None:
    """``rng`` (scipy.stats' name) as an integer seed: mtsig reports the seed behind every random number."""
    if rng is None:
        return seed
    if seed is not None:
        raise InputError("give seed or rng, not both", param=("seed", "rng"))
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
        raise InputError(
            "rng must be an integer seed here (mtsig reports the seed of every random result), got "
            + type(rng).__name__,
            param="rng",
        )
    return int(rng)


def _loading(*values: Any) -> dict[str, Any]:
    """The loading settings (in the order of :data:`LOADING_OPTIONS`) by name."""
    return dict(zip(LOADING_OPTIONS, values))


def score(  # noqa: PLR0913 - every setting is a keyword, typed and documented
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    stats: StatsTable | str | None = None,
    ci: bool = False,
    ci_method: str = "percentile",
    confidence: float = 0.95,
    n_bootstrap: int | None = None,
    seed: int | None = None,
    keep_distributions: bool = False,
    resample_unit: str = "segment",
    sentence_level: bool = False,
    confidence_level: float | None = None,
    rng: int | None = None,
    chunk_bytes: int | None = None,
    progress: ProgressFactory | None = None,
    allow_empty_refs: bool = False,
    jobs: int = 1,
    dev_refs: Any = None,
    dev_systems: Any = None,
    docids: Any = None,
    ref_translator: Sequence[str] | None = None,
    test_set: str | None = None,
    langpair: str | None = None,
    **metric_options: Any,
) -> ScoreResult:
    """Corpus scores of every system under every metric, with bootstrap intervals when ``ci=True``.

    Parameters
    ----------
    refs, systems, metrics:
        The texts (see the module's description), or ``stats``: a :class:`StatsTable` or the path of a
        statistics file written by ``mtsig stats`` (then no texts and no metric options).
    ci, ci_method, confidence:
        Add a bootstrap confidence interval: ``percentile`` (default), ``t`` or ``bca``, at ``confidence``
        (0.95; scipy's name ``confidence_level`` is accepted).
    n_bootstrap:
        Bootstrap resamples behind the intervals and s_sel (1000).
    seed:
        Random seed (12345 when None; always reported); scipy's name ``rng`` is accepted as an integer seed.
    keep_distributions:
        Keep the bootstrap scores on the result (for plots).
    resample_unit:
        What the bootstrap draws: ``segment`` (default), ``document`` (whole documents: the cluster bootstrap) or
        ``domain``; see :mod:`mtsig.units`.
    sentence_level:
        Also every segment's own score under every metric (``ScoreResult.segments``; sacreBLEU's ``-sl``).
    chunk_bytes, progress:
        The memory bound of the resampling weights held at once, and a progress factory ``(label, total) ->
        advance(n)``; neither changes any number.
    allow_empty_refs, jobs, dev_refs, dev_systems, docids, ref_translator, test_set, langpair, **metric_options:
        As :func:`compute`.
    """
    check_option_names(metric_options, _OWN["score"])
    confidence = _alias("confidence", confidence, "confidence_level", confidence_level, 0.95)
    opts = ScoreOptions(
        ci=ci,
        ci_method=ci_method,
        confidence=confidence,
        keep_distributions=keep_distributions,
        resample_unit=resample_unit,
        sentence_level=sentence_level,
    )
    extra = {"chunk_bytes": chunk_bytes} if chunk_bytes is not None else {}
    resampling = Resampling.of(n_bootstrap, _seed(seed, rng), "n_bootstrap", progress=progress, **extra)
    loading = _loading(allow_empty_refs, jobs, dev_refs, dev_systems, docids, ref_translator, test_set, langpair)
    table = _table(refs, systems, metrics, stats, {**metric_options, **_given(loading)})
    return score_table(table, opts, resampling)


def compare(  # noqa: PLR0913 - every setting is a keyword, typed and documented
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    stats: StatsTable | str | None = None,
    test: str | Sequence[str] = "ar",
    n_resamples: int | None = None,
    seed: int | None = None,
    baseline: str | None = None,
    correction: str = "holm",
    alpha: float = 0.05,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    n_bootstrap: int | None = None,
    keep_distributions: bool = False,
    system_ci: bool = False,
    resample_unit: str = "segment",
    paired_runs: bool = False,
    confidence_level: float | None = None,
    rng: int | None = None,
    chunk_bytes: int | None = None,
    progress: ProgressFactory | None = None,
    allow_empty_refs: bool = False,
    jobs: int = 1,
    dev_refs: Any = None,
    dev_systems: Any = None,
    docids: Any = None,
    ref_translator: Sequence[str] | None = None,
    test_set: str | None = None,
    langpair: str | None = None,
    **metric_options: Any,
) -> CompareResult:
    """Paired significance tests between systems: all pairs, or each against ``baseline``.

    Parameters
    ----------
    test:
        One registered test or several (``ar`` default, ``stratified-ar``, ``bootstrap``, ``paired-bootstrap``,
        ``ttest``, ``wilcoxon``, and any a plugin registers).
    n_resamples, seed:
        Resamples of each resampling test (None: its default, or more when the corrected threshold needs them);
        random seed (12345 when None; always reported; scipy's ``rng`` accepted as an integer seed).
    baseline, correction, alpha, alternative:
        Each system against ``baseline`` (default: all pairs); the p-value adjustment over the pairs of each metric
        and test (``holm`` default, ``bonferroni``, ``sidak``, ``bh``, ``maxt``, ``none``) at ``alpha`` (0.05);
        ``two-sided`` (default), ``greater`` (B is better than A in the metric's own direction: higher BLEU, lower
        TER, so for TER it tests delta = B - A < 0) or ``less`` (B is worse).
    confidence, n_bootstrap, keep_distributions, system_ci:
        Level (scipy's ``confidence_level`` accepted) and resamples (1000) of the interval of each difference;
        keep the null and bootstrap distributions on the results (plots); add each system's interval.
    resample_unit:
        What every resampling procedure draws or swaps: ``segment`` (default), ``document`` or ``domain``
        (randomization swaps whole documents, the bootstrap draws them, the sentence-level tests use their means).
    paired_runs:
        Optimizer runs of different systems are paired by position (run j of A with run j of B, e.g. shared
        seeds): the runs test then analyses paired differences, so shared run effects cancel (default: unpaired,
        and the result does not depend on the order of the runs).
    refs, systems, metrics, stats, chunk_bytes, progress, allow_empty_refs, jobs, dev_refs, dev_systems, docids,
    ref_translator, test_set, langpair:
        As :func:`score`, and ``**metric_options`` as :func:`compute`.

    Returns a :class:`~mtsig.results.CompareResult`: ``to_dict()`` is the JSON of ``mtsig compare``, and
    ``get(a, b, metric=..., test=...)`` one comparison.
    """
    check_option_names(metric_options, _OWN["compare"])
    confidence = _alias("confidence", confidence, "confidence_level", confidence_level, 0.95)
    tests = (test,) if isinstance(test, str) else tuple(test)
    opts = CompareOptions(tests=tests, baseline=baseline, correction=correction, alpha=alpha, alternative=alternative,
                          confidence=confidence, n_bootstrap=n_bootstrap, keep_distributions=keep_distributions,
                          system_ci=system_ci, resample_unit=resample_unit, paired_runs=paired_runs)  # fmt: skip
    extra = {"chunk_bytes": chunk_bytes} if chunk_bytes is not None else {}
    resampling = Resampling.of(n_resamples, _seed(seed, rng), progress=progress, **extra)
    loading = _loading(allow_empty_refs, jobs, dev_refs, dev_systems, docids, ref_translator, test_set, langpair)
    table = _table(refs, systems, metrics, stats, {**metric_options, **_given(loading)})
    return compare_table(table, opts, resampling)


def analyze(  # noqa: PLR0913 - every setting is a keyword, typed and documented
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    by: str | Sequence[str] = (),
    stats: StatsTable | str | None = None,
    test: str = "ar",
    n_resamples: int | None = None,
    seed: int | None = None,
    baseline: str | None = None,
    correction: str = "holm",
    alpha: float = 0.05,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    n_bootstrap: int | None = None,
    cutoffs: Mapping[str, Sequence[float]] | None = None,
    top: int = 10,
    ngram_alpha: float = 1.0,
    ngram_order: int = 4,
    freq_corpus: str | None = None,
    out_labels: Mapping[str, str] | None = None,
    source: str | None = None,
    resample_unit: str = "segment",
    rng: int | None = None,
    progress: ProgressFactory | None = None,
    allow_empty_refs: bool = False,
    jobs: int = 1,
    docids: Any = None,
    ref_translator: Sequence[str] | None = None,
    test_set: str | None = None,
    langpair: str | None = None,
    fork: bool = False,
    **metric_options: Any,
):
    """Where systems differ: scores, differences and corrected p-values per bucket (compare-mt's analyses, with
    significance).

    Parameters
    ----------
    by:
        Analyses (``mtsig analyze --help`` lists them): ``ref-length``, ``length-diff``, ``sentence-score``,
        ``labels=FILE``, ``documents``, ``word-frequency``, ``word-labels=FILE``, ``ngrams``, ``examples``
        (default: the ones that need no extra file).
    test, n_resamples, seed, baseline, correction, alpha, alternative, confidence, n_bootstrap, resample_unit:
        As :func:`compare`; p-values are adjusted over every bucket and pair of an analysis.
    cutoffs:
        Bucket boundaries per analysis (``{"ref-length": [10, 20, 30]}``; compare-mt's defaults otherwise).
    top, ngram_alpha, ngram_order:
        N-grams and example segments per pair and direction (10); the smoothing of the n-gram ratio (1) and the
        highest n-gram order (4).
    freq_corpus:
        A file whose word frequencies bucket the words (default: the reference's).
    out_labels:
        With ``word-labels``: each system's file of output word labels ``{name: path}``.
    source:
        A file of source segments shown with the examples (WMT XML input brings its own).
    refs, systems, metrics, stats, rng, progress, allow_empty_refs, jobs, docids, ref_translator, test_set,
    langpair, **metric_options:
        As :func:`compare`.
    fork:
        Run the shared comparison in a forked child process while the other analyses run here (Linux; nothing
        may draw progress or run on another thread); the numbers are the same either way.

    Returns an :class:`~mtsig.analysis.AnalyzeResult`: ``to_dict()`` is the JSON of ``mtsig analyze``,
    ``get(kind)`` one analysis.
    """
    from mtsig.analysis import AnalyzeOptions, analyze_table

    check_option_names(metric_options, _OWN["analyze"])
    by = (by,) if isinstance(by, str) else tuple(by)
    opts = AnalyzeOptions(by=by, test=test, baseline=baseline, correction=correction, alpha=alpha,
                          alternative=alternative, confidence=confidence, n_bootstrap=n_bootstrap,
                          cutoffs={k: tuple(v) for k, v in (cutoffs or {}).items()}, top=top, ngram_alpha=ngram_alpha,
                          ngram_order=ngram_order, freq_corpus=freq_corpus, out_labels=dict(out_labels or {}),
                          source=source, resample_unit=resample_unit)  # fmt: skip
    resampling = Resampling.of(n_resamples, _seed(seed, rng), progress=progress)
    loading = _loading(allow_empty_refs, jobs, None, None, docids, ref_translator, test_set, langpair)
    table = _table(refs, systems, metrics, stats, {**metric_options, **_given(loading)})
    return analyze_table(table, opts, resampling, fork=fork)


def _given(loading: dict[str, Any]) -> dict[str, Any]:
    """The loading settings that differ from their defaults (statistics files take none of them)."""
    defaults = {"allow_empty_refs": False, "jobs": 1, **{k: None for k in LOADING_OPTIONS[2:]}}
    return {k: v for k, v in loading.items() if v != defaults[k]}


#: each entry point's own keywords, offered with the metric options when a keyword is misspelled
_OWN = {
    "compute": LOADING_OPTIONS,
    "score": (),
    "compare": (),
    "analyze": (),
}


def plot(result: ScoreResult | CompareResult, path: str | None = None):
    """The figure of a result (matplotlib ``Figure``; needs ``pip install 'mtsig[plot]'``): scores with their
    intervals or runs, or the comparisons (forest plot against a baseline, p-value matrix of all pairs, the
    null distribution of one pair when ``keep_distributions=True``). ``path`` (.png, .svg, .pdf) also saves it."""
    from mtsig.report import plots

    fig = plots.plot_compare(result) if isinstance(result, CompareResult) else plots.plot_score(result)
    if path is not None:
        plots.save(fig, path)
    return fig


def report_html(result: ScoreResult | CompareResult, command: str = "") -> str:
    """The self-contained HTML report of a result (``command``: what reproduces it, shown in the report)."""
    from mtsig.report.html import render_html

    return render_html(result, command)


def _keywords(fn) -> tuple[str, ...]:
    return tuple(p.name for p in inspect.signature(fn).parameters.values() if p.kind is p.KEYWORD_ONLY)


_OWN["score"] = _keywords(score)
_OWN["compare"] = _keywords(compare)
_OWN["analyze"] = _keywords(analyze)
