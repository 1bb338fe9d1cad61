"""Metrics judged against humans: ``mtsig meta`` (:func:`meta`), and what a metric delta means to humans
(:mod:`mtsig.thresholds`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mtsig.declare import Keywords
from mtsig.docfields import document, field_docs
from mtsig.metaeval.core import STATISTICS, MetaData, MetaOptions, MetaResult, MetaStatistic, MetricScores
from mtsig.metaeval.inputs import align, human_input, negate, own_metrics, read_score_file
from mtsig.metaeval.run import run_meta

#: meta's keywords: MetaOptions' settings, generated from their declarations (test and seed: None for the default
#: the data choose, and for 12345)
_META = Keywords(MetaOptions, api={"test": (None, "str | None"), "seed": (None, "int | None")})

#: what meta's keywords mean (the settings' own descriptions are their declarations', where not said here)
_DOCS = {
    "human": "A file (or files) of human scores: any format :func:`mtsig.human` reads, or ``SYSTEM score`` lines "
             "(system level); or the :class:`~mtsig.io.human.HumanScores` read from them.",
    "metrics": "``{NAME: FILE}`` or ``[\"NAME=FILE\", ...]``: score files in mt-metrics-eval's layout "
               "(``SYSTEM score`` per line; once per system for system level, once per segment in test-set order for "
               "segment level).",
    "refs": "mtsig's own metrics (e.g. ``compute=[\"bleu\", \"chrf\"]``) computed from references and system outputs, "
            "as ``mtsig.compute`` takes them; system names match the human ones exactly or as WMT's ``NAME.3``.",
    "systems": "See ``refs``.",
    "compute": "See ``refs``.",
    "level": "``system`` (statistics of the system scores; metrics compared on ``pearson`` by default) or "
             "``segment`` (``acc23`` with tie calibration by default).",
    "statistic": "What metrics are compared on (``pearson`` at system level, ``acc23`` at segment level; also "
                 "``spearman``, ``kendall``, ``kendall_c``, ``tau23``, ``pairwise_accuracy``, ``spa``).",
    "average_by": "Segment-level averaging: ``none``, ``sys`` or ``item`` (default).",
    "test": "``perm-both`` (Deutsch et al. 2021; the default at both levels, as WMT's metrics task uses it), "
            "``bootstrap`` (system level: a paired bootstrap over the segments; conservative, see docs/meta.md) or "
            "``pairwise`` (the pairwise permutation test of acc23 at each metric's own epsilon; too liberal, offered "
            "on request with a note).",
    "n_resamples": "Permutations of the tests (None: enough that a pair's p-value can reach a tenth of the corrected "
                   "threshold, as ``compare`` chooses it).",
    "n_bootstrap": "Bootstrap resamples of the intervals (over segments; 1000).",
    "confidence": "The level of the intervals (0.95).",
    "alpha": "The significance level (0.05).",
    "correction": "The correction over all pairs of metrics (``holm``).",
    "seed": "Random seed (12345 when None; always reported).",
    "resample_unit": "What intervals and segment-level PERM-BOTH resample: ``segment``, ``document`` (whole "
                     "documents; PERM-BOTH swaps a system's scores of one document together), or None: documents "
                     "wherever the human scores have them (WMT DA's HITs, a doc column, ``docs``).",
    "lower_is_better": "Names of metric files whose lower scores are better (TER, MetricX as their tools print it): "
                       "negated first, so that every statistic reads higher as better (mtsig's own metrics are "
                       "oriented by themselves).",
    "docs": "The test set's documents (a ``.docs`` file or the WMT XML test set): WMT DA's segment ids are placed in "
            "the test set with them (segment level needs it).",
    "input_format": "How to read the human file (see :func:`mtsig.human`).",
    "lp": "The language pair to read from a human file that holds several (as :func:`mtsig.human` reads it), or of "
          "``mtme``.",
    "wmt25_scores": "WMT25's automatic scores (``data/automatic_scores``: the directory or ``<SYSTEM>.jsonl`` "
                    "files), each metric placed on the human judgments' items (WMT25's humeval "
                    "``LP_#_DOMAIN_#_DOCUMENT_#_PARAGRAPH``); stored higher-is-better (MetricX-24 negated).",
    "wmt25_metrics": "Only these metrics of ``wmt25_scores`` (default: every metric in the files).",
    "mtme": "Instead of ``human`` and ``metrics``: an mt-metrics-eval test-set folder "
            "(``.../mt-metrics-eval-v2/wmt23``) and ``lp``, as ``mtsig meta --mtme DIR --lp LP``. The whole "
            "metrics task (``--task``) is :func:`mtsig.metaeval.tasks.run_task_set`.",
    "gold": "With ``mtme``: its gold scores (default: the year's standard).",
    "ref": "With ``mtme``: the metrics scored against these references (default: the year's main reference(s)).",
    "all_metrics": "With ``mtme``: every metric, not only primary submissions and baselines.",
    "include_outliers": "With ``mtme``: keep the systems mt-metrics-eval leaves out as outliers.",
    "exclude": "With ``mtme``: leave these systems out.",
    "progress": "A progress factory ``(label, total) -> advance(n)`` (no number depends on it).",
    "metric_options": "Options of the metrics in ``compute`` (as :func:`mtsig.compute` takes them).",
}  # fmt: skip


#: meta's own keywords (the inputs)
_INPUTS = ("human", "metrics", "refs", "systems", "compute", "lower_is_better", "docs", "input_format", "lp",
           "wmt25_scores", "wmt25_metrics", "mtme", "gold", "ref", "all_metrics", "include_outliers", "exclude",
           "progress")  # fmt: skip


@_META.signature(after="compute")
def meta(  # noqa: PLR0913 - the inputs are keywords written here, the settings come from their declarations
    human: Any = None,
    metrics: Mapping[str, str] | Sequence[str] | None = None,
    *,
    refs: Any = None,
    systems: Any = None,
    compute: Sequence[str] = (),
    lower_is_better: Sequence[str] = (),
    docs: Any = None,
    input_format: str | None = None,
    lp: str | None = None,
    wmt25_scores: str | Sequence[str] | None = None,
    wmt25_metrics: Sequence[str] | None = None,
    mtme: str | None = None,
    gold: str | None = None,
    ref: Sequence[str] | None = None,
    all_metrics: bool = False,
    include_outliers: bool = False,
    exclude: Sequence[str] = (),
    progress: Any = None,
    **options: Any,
) -> MetaResult:
    """How well each metric agrees with humans, with intervals, and which metric agrees better.

    {parameters}
    """
    from mtsig.errors import InputError

    settings = _META.take(options, MetaOptions)  # what is left: the options of the metrics computed here
    if options and not compute:  # no metric computed here to take them: a misspelled keyword
        from mtsig.errors import unknown_name

        raise unknown_name("keyword of meta", next(iter(options)), _META.names() + _INPUTS)
    test = settings.pop("test", None)
    if settings.get("seed", 0) is None:
        del settings["seed"]  # the declared default
    select = {"gold": gold, "refs": set(ref) if ref else None, "primary": not all_metrics,
              "include_outliers": include_outliers, "exclude": tuple(exclude)}  # fmt: skip
    files = {"human": human, "metrics": metrics, "refs": refs, "systems": systems, "compute": compute,
             "wmt25_scores": wmt25_scores, "docs": docs}  # fmt: skip
    _one_source(mtme, files, {"gold": gold, "ref": ref, "all_metrics": all_metrics,
                              "include_outliers": include_outliers, "exclude": exclude})  # fmt: skip
    if mtme is not None:
        return _meta_mtme(mtme, lp, settings, test, progress, **select)
    if human is None:
        raise InputError("give human (a file of human scores) with metrics or compute, or mtme (an mt-metrics-eval "
                         "folder) with lp", param="human")  # fmt: skip
    level, statistic = settings.get("level", "system"), settings.get("statistic")
    reading = {"input_format": input_format, "lp": lp, "wmt25_metrics": wmt25_metrics,
               "lower_is_better": lower_is_better}  # fmt: skip
    data = _file_data(files, reading, options, level)
    opts = MetaOptions(**settings, test=test or _default_test(data, level, statistic))
    return run_meta(data, opts, progress)


def _file_data(files: dict[str, Any], reading: dict[str, Any], options: dict[str, Any], level: str) -> MetaData:
    """The human and metric scores of files (and of metrics computed here), placed on the same items."""
    human, refs = files["human"], files["refs"]
    if isinstance(human, (str, list, tuple)):
        h = human_input(human, input_format=reading["input_format"], docs=files["docs"] or _xml_refs(refs),
                        lp=reading["lp"])  # fmt: skip
    else:
        h = human
    scores = _score_files(files["metrics"], files["compute"])
    h, placed_notes = _wmt25(h, scores, files["wmt25_scores"], reading["wmt25_metrics"])
    _orient(scores, reading["lower_is_better"])
    boot = _own_metrics(scores, refs, files["systems"], files["compute"], options)
    data = align(h, scores, boot, level=level)
    if placed_notes:
        from dataclasses import replace

        data = replace(data, notes=tuple(placed_notes) + data.notes)
    return data


def _one_source(mtme: str | None, files: dict[str, Any], folder_only: dict[str, Any]) -> None:
    """Either an mt-metrics-eval folder (with its own selection keywords) or files of scores, never a mix."""
    from mtsig.errors import InputError

    if mtme is not None:
        given = [k for k, v in files.items() if v]
        if given:
            raise InputError(f"mtme brings the human and metric scores: leave out {', '.join(given)}", param="mtme")
        return
    for k, v in folder_only.items():
        if v:
            raise InputError(f"{k} belongs to mtme (an mt-metrics-eval folder)", param=k)


def _own_metrics(scores: dict, refs: Any, systems: Any, compute: Sequence[str], options: dict) -> dict:
    """mtsig's own metrics computed from the texts, added to ``scores``; returns their bootstrap samples."""
    from mtsig.errors import InputError

    boot: dict = {}
    if compute:
        own, boot = own_metrics(refs, systems, compute, **options)
        clash = set(own) & set(scores)
        if clash:
            raise InputError(f"metric name(s) given twice: {', '.join(sorted(clash))}")
        scores.update(own)
    if not scores:
        raise InputError("no metric given: metrics NAME=FILE (score files), or compute=[...] with refs and systems")
    return boot


def _meta_mtme(folder: str, lp: str | None, settings: dict, test: str | None, progress: Any, **select: Any):
    """One language pair of an mt-metrics-eval folder (``mtsig meta --mtme DIR --lp LP``)."""
    from mtsig.errors import InputError
    from mtsig.metaeval.mtme import language_pairs, meta_data, read_evalset

    if not lp:
        raise InputError(f"mtme {folder}: give lp (one of {', '.join(language_pairs(folder)) or 'none'})", param="lp")
    data = meta_data(read_evalset(folder, lp), **select)
    return run_meta(data, MetaOptions(**settings, test=test or "perm-both"), progress)


def _score_files(metrics: Mapping[str, str] | Sequence[str] | None,
                 compute: Sequence[str]) -> dict[str, tuple[dict[str, list[float]], str]]:  # fmt: skip
    """``{NAME: ({system: scores}, source)}`` of the metric score files, each name once."""
    from mtsig.errors import InputError
    from mtsig.io.human import check_distinct_names

    specs = list(metrics.items()) if isinstance(metrics, Mapping) else [_spec(x) for x in (metrics or ())]
    dup = next((n for i, (n, _) in enumerate(specs) if n in dict(specs[:i])), None)
    if dup is not None:
        raise InputError(f"metric name {dup!r} is given twice ({dict(specs)[dup]} and a later file): name each metric "
                         "once", param="metric")  # fmt: skip
    check_distinct_names([n for n, _ in specs] + list(compute), "metric", "the metrics")
    return {name: (read_score_file(path)[0], path) for name, path in specs}


def _orient(scores: dict, lower_is_better: Sequence[str]) -> None:
    """Negate the metrics whose lower scores are better, so that higher is better, as every statistic here assumes."""
    from mtsig.errors import InputError

    for name in lower_is_better:
        if name not in scores:
            raise InputError(
                f"lower_is_better names {name!r}, which is not a metric file given", param="lower_is_better"
            )
        scores[name] = (negate(scores[name][0]), scores[name][1] + " (negated: lower is better)")


def _wmt25(h: Any, scores: dict, paths: str | Sequence[str] | None, names: Sequence[str] | None):
    """WMT25's automatic scores placed on the human segments' items (added to ``scores``); the human scores then
    placed in their own order, the order the metric rows follow."""
    from dataclasses import replace

    from mtsig.errors import InputError
    from mtsig.io.human import HumanScores

    if paths is None:
        if names:
            raise InputError("wmt25_metrics picks metrics of wmt25_scores: give the WMT25 score files too",
                             param="wmt25_metrics")  # fmt: skip
        return h, []
    if not isinstance(h, HumanScores):
        raise InputError("WMT25 scores are placed on the judged items: give segment-level human judgments (WMT25's "
                         "humeval jsonl), not system scores", param="wmt25_scores")  # fmt: skip
    from mtsig.io.wmt25scores import read_wmt25_scores, segment_scores

    items = list(h.items) if h.items is not None else list(h.segments)
    placed, notes = segment_scores(read_wmt25_scores(paths, items=items), items, names)
    where = paths if isinstance(paths, str) else (paths[0] if len(paths) == 1 else f"{paths[0]} ...")
    for m, by_system in placed.items():
        if m in scores:
            raise InputError(f"metric name {m!r} is given twice (a score file and the WMT25 scores): name each "
                             "metric once", param="metric")  # fmt: skip
        scores[m] = (by_system, f"WMT25 scores {where}")
    return replace(h, lines=tuple(range(len(h.segments)))), notes


def _xml_refs(refs: Any) -> str | None:
    """A WMT XML test set given as the references brings the test set's documents."""
    if isinstance(refs, str):
        refs = [refs]
    for r in refs or ():
        try:
            with open(r, encoding="utf-8", errors="replace") as f:
                head = f.read(4096)
        except OSError:
            continue
        from mtsig.io.wmtxml import looks_like_wmt_xml

        if looks_like_wmt_xml(head):
            return r
    return None


def _default_test(data: MetaData, level: str, statistic: str | None) -> str:
    """PERM-BOTH at both levels (Deutsch et al. 2021; what WMT's metrics task uses; it needs only system scores at
    system level). Measured under a null of two equally good metrics (docs/meta.md): system level 0.074 at 0.05 with
    10 systems (a little liberal), segment level 0.036-0.064 for Pearson and tau-b and 0.082 for tie-calibrated acc23
    (liberal: each hybrid's threshold is re-optimized). The paired bootstrap at system level
    (``test="bootstrap"``) rejected 0.012 resampling segments (conservative) and 0.040 resampling documents, with
    power comparable to PERM-BOTH's: offered on request. The pairwise permutation test of acc23 rejected 16% at 0.05
    under that null and is offered only on request."""
    return "perm-both"


def _spec(text: str) -> tuple[str, str]:
    name, eq, path = text.partition("=")
    if not eq or not name or not path:
        from mtsig.errors import InputError

        raise InputError(f"metric {text!r}: give NAME=FILE", param="metric")
    return name, path


__all__ = ["STATISTICS", "MetaData", "MetaOptions", "MetaResult", "MetaStatistic", "MetricScores", "align", "meta",
           "run_meta"]  # fmt: skip


document(meta, {**field_docs(MetaOptions), **_DOCS})
