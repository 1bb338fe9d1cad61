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

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from mtsig.engine import CompareOptions, ScoreOptions, compare_table, score_table
from mtsig.errors import InputError
from mtsig.executor import executor_for
from mtsig.io.load import System, load_references, load_systems
from mtsig.io.segments import RefSet, Segments
from mtsig.metrics import all_side_inputs, check_option_names
from mtsig.pipeline import attach_dev, build_metrics, compute_stats
from mtsig.resample import Resampling
from mtsig.results import CompareResult, ScoreResult
from mtsig.table import StatsTable
from mtsig.tokenize import DEFAULT_TOKENIZER, MTEVAL_TOKENIZERS

DEFAULT_METRICS = ("bleu",)
#: keywords of ``compute`` that are not metric options or side inputs
LOADING_OPTIONS = ("allow_empty_refs", "jobs", "dev_refs", "dev_systems")
#: resampling keywords (``n_resamples`` is compare's; ``score`` calls its count ``n_bootstrap``)
RESAMPLING_OPTIONS = ("seed", "chunk_bytes", "progress")


def _is_lines(x: Any) -> bool:
    return isinstance(x, Segments) or (
        isinstance(x, Sequence) and not isinstance(x, str) and all(isinstance(s, str) for s in x)
    )


def _refs(refs: Any, unescape: bool, allow_empty: bool) -> RefSet:
    if isinstance(refs, RefSet):
        return refs
    if isinstance(refs, str):
        refs = [refs]
    refs = list(refs)
    if refs and all(isinstance(r, str) for r in refs):
        return load_references(refs, allow_empty=allow_empty, unescape=unescape)
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

    files = [r for r in ([refs] if isinstance(refs, str) else refs) if isinstance(r, str)]
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
    rs = _refs(refs, unescape, allow_empty)
    ss = _systems(systems, rs, unescape)
    _attach_side_inputs(rs, ss, {k: v for k, v in options.items() if k in side})
    n_runs = sum(s.n_runs for s in ss)
    return compute_stats(rs, ss, ms, executor_for(jobs, n_runs, rs.n_segments * n_runs))


def compute(refs: Any, systems: Any, metrics: Sequence[str] = DEFAULT_METRICS, **options: Any) -> StatsTable:
    """Read the inputs once and return the per-segment statistics of every system and metric.

    ``jobs``: processes to score systems in (``fork``; 1 = in this process). ``dev_refs`` and
    ``dev_systems`` (one development-set output per optimizer run, same names and order) add s_dev.
    ``parses_ref`` / ``parses_hyp``: CoNLL-U files beside plain texts (one per reference; per system as
    ``NAME=FILE[,FILE...]`` or one file per system in order) for the dependency F-score.
    ``seg_scores``: segment-level scores for the ``seg`` metric (see :mod:`mtsig.io.segscores`).
    Other keywords are metric options (``tokenize``, ``lowercase``, ``bleu_order`` ...).
    """
    check_option_names(options, LOADING_OPTIONS)
    if isinstance(metrics, str):
        metrics = [metrics]
    jobs = int(options.get("jobs", 1))
    dev_refs, dev_systems = options.pop("dev_refs", None), options.pop("dev_systems", None)
    table = _stats_of(refs, systems, metrics, options, jobs)
    if (dev_refs is None) != (dev_systems is None):
        raise InputError(
            "s_dev needs both development references (dev_refs) and outputs (dev_systems)",
            param=("dev_refs", "dev_systems"),
        )
    if dev_refs is not None:
        with_side = [m for m in table.metrics.values() if m.side_inputs]
        if with_side:
            raise InputError(
                f"s_dev is available for text metrics only (not for {', '.join(type(m).name for m in with_side)})"
            )
        side = set(all_side_inputs())
        dev = _stats_of(dev_refs, dev_systems, metrics, {k: v for k, v in options.items() if k not in side}, jobs)
        attach_dev(table, dev)
    return table


def _table(refs, systems, metrics, stats, options: dict[str, Any]) -> StatsTable:
    if stats is not None:
        if options:
            raise InputError(f"options that need the texts ({', '.join(sorted(options))}) do not apply to statistics")
        table = stats if isinstance(stats, StatsTable) else StatsTable.load(stats)
        if refs is not None or systems is not None:
            raise InputError("give either statistics or references and systems, not both")
        wanted = None if metrics in (None, DEFAULT_METRICS) else list(metrics)
        return table.select(wanted)
    if refs is None or systems is None:
        raise InputError("give references and systems (or a statistics file)")
    return compute(refs, systems, metrics, **options)


def _take(options: dict[str, Any], names) -> dict[str, Any]:
    """Remove and return the options called ``names``."""
    return {k: options.pop(k) for k in list(options) if k in names}


def score(
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    stats: StatsTable | str | None = None,
    **options: Any,
) -> ScoreResult:
    """Corpus scores of every system under every metric (with bootstrap intervals when ``ci=True``).

    Either give ``refs`` and ``systems`` (and metric/tokenizer options), or ``stats``: a
    :class:`StatsTable` or the path of a statistics file written by ``mtsig stats``. Settings:
    ``ci``, ``ci_method`` (percentile, t, bca), ``confidence``, ``n_bootstrap`` (1000), ``seed``,
    ``keep_distributions`` (the bootstrap scores on the result, for plots).
    """
    own = {f.name for f in fields(ScoreOptions)}
    check_option_names(options, (*LOADING_OPTIONS, *own, "n_bootstrap", *RESAMPLING_OPTIONS))
    opts = ScoreOptions(**_take(options, own))
    n_boot = options.pop("n_bootstrap", None)
    resampling = Resampling.of(n_boot, count_name="n_bootstrap", **_take(options, RESAMPLING_OPTIONS))
    table = _table(refs, systems, metrics, stats, options)
    return score_table(table, opts, resampling)


def compare(
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    stats: StatsTable | str | None = None,
    **options: Any,
) -> CompareResult:
    """Paired significance tests between systems: all pairs, or each against ``baseline``.

    Settings: ``test`` (one or several of ``ar`` (default), ``bootstrap``, ``paired-bootstrap``, ``ttest``,
    ``wilcoxon``), ``n_resamples`` (each test's default when None), ``seed``, ``baseline``,
    ``correction`` (holm), ``alpha`` (0.05), ``alternative``, ``confidence`` (of the interval of each
    difference), ``n_bootstrap`` (resamples of that interval), ``keep_distributions``. Returns a
    :class:`~mtsig.results.CompareResult` whose ``to_dict()`` is the JSON of ``mtsig compare``.
    """
    own = {f.name for f in fields(CompareOptions)} - {"tests"}
    check_option_names(options, (*LOADING_OPTIONS, *own, "test", "n_resamples", *RESAMPLING_OPTIONS))
    test = options.pop("test", "ar")
    tests = (test,) if isinstance(test, str) else tuple(test)
    opts = CompareOptions(tests, **_take(options, own))
    resampling = Resampling.of(options.pop("n_resamples", None), **_take(options, RESAMPLING_OPTIONS))
    table = _table(refs, systems, metrics, stats, options)
    return compare_table(table, opts, resampling)


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
