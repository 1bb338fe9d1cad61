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

import dataclasses
import inspect
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mtsig.declare import Keywords
from mtsig.docfields import document, field_docs
from mtsig.engine import CompareOptions, ScoreOptions, compare_table, score_table
from mtsig.errors import InputError
from mtsig.executor import executor_for
from mtsig.inputs import LoadOptions, resolve
from mtsig.metrics import all_side_inputs, check_option_names
from mtsig.pipeline import attach_dev, compute_stats
from mtsig.resample import ProgressFactory, Resampling
from mtsig.results import CompareResult, ScoreResult
from mtsig.table import StatsTable

DEFAULT_METRICS = ("bleu",)
#: keywords of ``compute`` that are not metric options or side inputs
LOADING_OPTIONS = LoadOptions.names()


def _stats_of(refs, systems, metrics, load: LoadOptions, options: dict[str, Any]) -> StatsTable:
    """Read the inputs once (:func:`mtsig.inputs.resolve`) and compute the statistics of every metric."""
    if refs is None and options.get("seg_scores") and not (load.test_set or load.mtme or load.wmt25):
        return _scores_only(systems, metrics, load, options)
    inputs = resolve(refs, systems, metrics, load, options)
    return compute_stats(inputs.refs, list(inputs.systems), inputs.metrics,
                         executor_for(int(load.jobs), inputs.n_runs, inputs.work))  # fmt: skip


def _scores_only(systems, metrics, load: LoadOptions, options: dict[str, Any]) -> StatsTable:
    """Segment scores without texts (a leaderboard's COMET, MetricX ...): the ``seg`` metric alone; ``systems``
    (names) picks systems."""
    from mtsig.pipeline import scores_table

    other = sorted(k for k in options if k not in ("seg_scores", "seg_name", "seg_lower_is_better"))
    other += sorted(k for k in load.given() if k not in ("docids", "jobs"))
    if other:
        raise InputError(f"{', '.join(other)}: options of the texts do not apply to segment scores given without "
                         "texts", param=other[0])  # fmt: skip
    names = [metrics] if isinstance(metrics, str) else list(metrics or ())
    seg_name = options.get("seg_name")
    text_metrics = [m for m in names if m.lower() not in ("seg", str(seg_name or "seg").lower())]
    if text_metrics and list(names) != list(DEFAULT_METRICS):
        raise InputError(f"{', '.join(text_metrics)} need(s) the texts: give references and outputs (-r, -s), or "
                         "compare the segment scores alone (-m seg)", param="metrics")  # fmt: skip
    if isinstance(systems, Mapping) or any("=" in str(s) or os.path.sep in str(s) for s in systems or ()):
        raise InputError("with segment scores and no texts, systems are picked by name (the scores name them)",
                         param="systems")  # fmt: skip
    picked = [systems] if isinstance(systems, str) else list(systems or ())
    return scores_table(options["seg_scores"], systems=picked or None, seg_name=seg_name,
                        seg_lower_is_better=options.get("seg_lower_is_better"), docids=load.docids)  # fmt: skip


#: what the entry points' own keywords mean (the options objects' fields describe the rest)
_DOCS = {
    "refs": "The references: file paths, lists of segment strings or a :class:`~mtsig.io.segments.RefSet` (see "
            ":mod:`mtsig.inputs`).",
    "systems": 'The outputs: specs as on the command line (``"FILE"``, ``"NAME=FILE"``, ``"NAME=run1,run2"``, a '
               "glob) or a dict ``{name: spec | list of segments | list of runs}``.",
    "metrics": "Metric names from ``mtsig metrics`` (default: bleu).",
    "stats": "Instead of the texts: a :class:`StatsTable` or the path of a statistics file written by ``mtsig "
             "stats`` (then no loading settings and no metric options).",
    "seed": "Random seed (12345 when None; always reported); scipy's name ``rng`` is accepted as an integer seed.",
    "rng": "scipy.stats' name for ``seed`` (an integer here: mtsig reports the seed of every random result).",
    "confidence_level": "scipy.stats' name for ``confidence`` (give one of them).",
    "n_resamples": "Resamples of each resampling test (None: its default, or more when the corrected threshold "
                   "needs them).",
    "chunk_bytes": "The memory bound of the resampling weights held at once (no number depends on it).",
    "progress": "A progress factory ``(label, total) -> advance(n)`` (no number depends on it).",
    "metric_options": "Metric options (``tokenize``, ``lowercase``, ``bleu_order`` ...; ``mtsig metrics`` lists "
                      "them) and side inputs: ``parses_ref`` / ``parses_hyp`` (CoNLL-U files for the dependency "
                      "F-score), ``seg_scores`` (segment-level scores for the ``seg`` metric, see "
                      ":mod:`mtsig.io.segscores`). A misspelled name is an :class:`InputError` that names the valid "
                      "ones.",
    "n_bootstrap_score": "Bootstrap resamples behind the intervals and s_sel (1000).",
    "test": "One registered test or several (``ar`` default, ``stratified-ar``, ``bootstrap``, ``paired-bootstrap``, "
            "``ttest``, ``wilcoxon``, and any a plugin registers).",
    "test_analyze": "The test of every bucket (``ar`` default; any test of ``compare``).",
    "fork": "Run the shared comparison in a forked child process while the other analyses run here (Linux; nothing "
            "may draw progress or run on another thread); the numbers are the same either way.",
}  # fmt: skip


def _docs(*classes: type, **own: str) -> dict[str, str]:
    """The descriptions of an entry point's parameters: its own, then the options objects' fields."""
    return {**_DOCS, **field_docs(*classes), **own}


#: the loading keywords of compute and study, from their declarations (a study reads no development set)
_LOAD = Keywords(LoadOptions)
_STUDY_LOAD = Keywords(LoadOptions, skip=("dev_refs", "dev_systems"))


@_LOAD.signature(after="metrics")
def compute(refs: Any, systems: Any, metrics: Sequence[str] = DEFAULT_METRICS, **settings: Any) -> StatsTable:
    """Read the inputs once and return the per-segment statistics of every system and metric.

    {parameters}
    """
    load = LoadOptions(**_LOAD.take(settings, LoadOptions))
    check_option_names(settings, _OWN["compute"])  # what is left: metric options
    return _compute(refs, systems, metrics, load, settings)


def read_inputs(refs: Any, systems: Any, metrics: Sequence[str] = DEFAULT_METRICS, **settings: Any) -> None:
    """:func:`compute`'s reading and checking of every input (files, line counts, documents, side inputs, the
    metrics' names and options), without computing any statistic: an error here is the error ``compute`` would
    raise first. The web app checks a run with it before queueing it."""
    load = LoadOptions(**_LOAD.take(settings, LoadOptions))
    check_option_names(settings, _OWN["compute"])
    if isinstance(metrics, str):
        metrics = [metrics]
    if refs is None and settings.get("seg_scores") and not (load.test_set or load.mtme or load.wmt25):
        _scores_only(systems, metrics, load, settings)
        return
    resolve(refs, systems, list(metrics), load, settings)
    if load.dev_refs is not None:
        side = set(all_side_inputs())
        dev_opts = {k: v for k, v in settings.items() if k not in side}
        resolve(load.dev_refs, load.dev_systems, list(metrics), load.for_dev(), dev_opts)


def _compute(refs, systems, metrics, load: LoadOptions, metric_options: dict[str, Any]) -> StatsTable:
    if isinstance(metrics, str):
        metrics = [metrics]
    table = _stats_of(refs, systems, metrics, load, metric_options)
    if load.dev_refs is not None:
        with_side = [m for m in table.metrics.values() if m.side_inputs]
        if with_side:
            raise InputError(
                f"s_dev is available for text metrics only (not for {', '.join(type(m).name for m in with_side)})"
            )
        side = set(all_side_inputs())
        dev_opts = {k: v for k, v in metric_options.items() if k not in side}
        attach_dev(table, _stats_of(load.dev_refs, load.dev_systems, metrics, load.for_dev(), dev_opts))
    return table


def _table(refs, systems, metrics, stats, load: LoadOptions, metric_options: dict[str, Any]) -> StatsTable:
    if stats is not None:
        given = {**metric_options, **load.given()}
        if given:
            raise InputError(f"options that need the texts ({', '.join(sorted(given))}) do not apply to statistics")
        table = stats if isinstance(stats, StatsTable) else StatsTable.load(stats)
        if refs is not None or systems is not None:
            raise InputError("give either statistics or references and systems, not both")
        wanted = None if metrics in (None, DEFAULT_METRICS) else list(metrics)
        return table.select(wanted)
    if load.mtme or load.wmt25:
        return _compute(refs, systems, metrics, load, metric_options)
    if refs is None and metric_options.get("seg_scores") and not load.test_set:
        return _compute(refs, systems, metrics, load, metric_options)  # segment scores alone
    if (refs is None and not load.test_set) or systems is None:
        raise InputError("give references and systems (or a statistics file)")
    return _compute(refs, systems, metrics, load, metric_options)


def _resampling(count, seed, progress, chunk_bytes, what: str | None = None) -> Resampling:
    """The resampling settings of an entry point (``what``: the keyword that names the count, for its errors)."""
    extra = {"chunk_bytes": chunk_bytes} if chunk_bytes is not None else {}
    return Resampling.of(count, seed, *((what,) if what else ()), progress=progress, **extra)


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


_SCORE = Keywords(ScoreOptions, LoadOptions)


@_SCORE.signature(after="stats")
def score(  # noqa: PLR0913 - the settings are keywords from the declarations, the rest written here
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    stats: StatsTable | str | None = None,
    confidence_level: float | None = None,
    rng: int | None = None,
    chunk_bytes: int | None = None,
    progress: ProgressFactory | None = None,
    **settings: Any,
) -> ScoreResult:
    """Corpus scores of every system under every metric, with bootstrap intervals when ``ci=True``.

    {parameters}

    Returns
    -------
    ScoreResult
        ``score(system, metric)`` one number; ``to_dict()`` is the JSON of ``mtsig score``.

    Examples
    --------
    >>> import mtsig
    >>> refs = [["the cat sat on the mat today", "a dog ran in the park at noon"]]
    >>> res = mtsig.score(refs, {"A": ["the cat sat on a mat today", "a dog ran in a park at noon"]}, ["bleu", "chrf"])
    >>> round(res.score("A", "bleu"), 2), round(res.score("A", "chrf"), 2)
    (49.62, 72.27)
    """
    given = _SCORE.take(settings, ScoreOptions)
    load = LoadOptions(**_SCORE.take(settings, LoadOptions))
    check_option_names(settings, _OWN["score"])  # what is left: metric options
    if "confidence" in given or confidence_level is not None:
        given["confidence"] = _alias("confidence", given.get("confidence", 0.95), "confidence_level",
                                     confidence_level, 0.95)  # fmt: skip
    given["seed"] = _seed(given.get("seed"), rng)
    opts = ScoreOptions(**given)
    resampling = _resampling(opts.n_bootstrap, opts.seed, progress, chunk_bytes, "n_bootstrap")
    return score_table(_table(refs, systems, metrics, stats, load, settings), opts, resampling)


_COMPARE = Keywords(CompareOptions, LoadOptions, rename={"tests": "test"}, api={"test": ("ar", "str | Sequence[str]")})


@_COMPARE.signature(after="stats")
def compare(  # noqa: PLR0913 - the settings are keywords from the declarations, the rest written here
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    stats: StatsTable | str | None = None,
    confidence_level: float | None = None,
    rng: int | None = None,
    chunk_bytes: int | None = None,
    progress: ProgressFactory | None = None,
    **settings: Any,
) -> CompareResult:
    """Paired significance tests between systems: all pairs, or each against ``baseline``.

    {parameters}

    Returns
    -------
    CompareResult
        ``to_dict()`` is the JSON of ``mtsig compare``; ``get(a, b, metric=..., test=...)`` one comparison.

    Examples
    --------
    >>> import mtsig
    >>> ref = [f"sentence {i} about the cat on the mat" for i in range(50)]
    >>> a = [f"sentence {i} about a cat on the mat" for i in range(50)]
    >>> b = [f"sentence {i} about the cat on the mat" if i % 4 else f"sentence {i} on a mat" for i in range(50)]
    >>> c = mtsig.compare([ref], {"A": a, "B": b}, ["bleu"], seed=1).get("A", "B", metric="bleu")
    >>> round(c.result.delta, 2), c.significant, c.result.p_value < 0.001
    (29.93, True, True)
    """
    given = _COMPARE.take(settings, CompareOptions)
    load = LoadOptions(**_COMPARE.take(settings, LoadOptions))
    check_option_names(settings, _OWN["compare"])  # what is left: metric options
    if isinstance(given.get("tests"), str):
        given["tests"] = (given["tests"],)
    elif "tests" in given:
        given["tests"] = tuple(given["tests"])
    if "confidence" in given or confidence_level is not None:
        given["confidence"] = _alias("confidence", given.get("confidence", 0.95), "confidence_level",
                                     confidence_level, 0.95)  # fmt: skip
    given["seed"] = _seed(given.get("seed"), rng)
    opts = CompareOptions(**given)
    resampling = _resampling(opts.n_resamples, opts.seed, progress, chunk_bytes)
    return compare_table(_table(refs, systems, metrics, stats, load, settings), opts, resampling)


@_STUDY_LOAD.signature(after="progress")
def study(  # noqa: PLR0913 - the loading settings are keywords, each documented
    name: str,
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    stats: StatsTable | str | None = None,
    design: Mapping[str, Any] | None = None,
    resample_unit: str = "segment",
    dask: str | None = None,
    progress: ProgressFactory | None = None,
    **settings: Any,
):
    """Run one of the literature's validation experiments (Koehn 2004, Riezler & Maxwell 2005, Clark et al. 2011;
    ``mtsig study NAME``) on these outputs.

    {parameters}

    Returns
    -------
    StudyResult
        ``to_dict()`` is the JSON of ``mtsig study NAME``; ``mtsig.plot(result)`` draws its figure.
    """
    from mtsig.studies.registry import get_study, run_study
    from mtsig.studies.replicates import runner

    load = LoadOptions(**_STUDY_LOAD.take(settings, LoadOptions))
    check_option_names(settings, _OWN["study"])  # what is left: metric options
    entry = get_study(name)
    known = [f.name for f in dataclasses.fields(entry.design_type)]
    unknown = sorted(set(design or {}) - set(known))
    if unknown:
        raise InputError(f"study {name} has no setting {', '.join(map(repr, unknown))}; its settings: "
                         f"{', '.join(known)}", param="design")  # fmt: skip
    made = entry.design_type(**dict(design or {}))
    table = _table(refs, systems, metrics, stats, load, settings)
    run = runner(int(load.jobs) if entry.replicated else 1, dask if entry.replicated else None, progress)
    try:
        return run_study(name, table, made, run, resample_unit)
    finally:
        close = getattr(run.executor, "close", None)
        if close is not None:
            close()


#: each entry point's own keywords, offered with the metric options when a keyword is misspelled
_OWN = {
    "compute": LoadOptions.names(),
    "score": (),
    "compare": (),
    "study": (),
}


def plot(result: ScoreResult | CompareResult | Any, path: str | None = None):
    """The figure of a result (matplotlib ``Figure``; needs ``pip install 'mtsig[plot]'``): scores with their
    intervals or runs, or the comparisons (forest plot against a baseline, p-value matrix of all pairs, the
    null distribution of one pair when ``keep_distributions=True``), or a study's figure. ``path`` (.png, .svg,
    .pdf) also saves it."""
    from mtsig.report import plots
    from mtsig.studies.result import StudyResult

    if isinstance(result, StudyResult):
        from mtsig.report.study_plots import plot_study

        fig = plot_study(result)
    else:
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
_OWN["study"] = _keywords(study)


def _document_entry_points() -> None:
    document(compute, _docs(LoadOptions))
    document(score, _docs(ScoreOptions, LoadOptions, n_bootstrap=_DOCS["n_bootstrap_score"]))
    document(compare, _docs(CompareOptions, LoadOptions))
    document(
        study,
        _docs(
            LoadOptions,
            name="The study: ``mtsig study --help`` lists them (type1, multiplicity, "
            "sensitivity, power, sampling, coverage, testsize, levels, runs, documents).",
            design='The study\'s own settings by name, as its flags (``{"replicates": 200}``); the '
            "defaults otherwise. A setting the study does not read is refused.",
            resample_unit="What the study's samples, swaps and resamples draw: ``segment`` (default), "
            "``document`` or ``domain``.",
            dask="Run the replicates on Dask distributed (a scheduler "
            "address or ``local:N``); ``jobs`` worker processes otherwise.",
        ),
    )


_document_entry_points()
