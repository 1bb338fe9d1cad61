"""The Python entry points: ``mtsig.score``, ``mtsig.compute`` (statistics) and ``mtsig.compare``.

Inputs are accepted in several forms:
- ``refs``: a list of file paths, a list of lists of segment strings, or a :class:`RefSet`;
- ``systems``: a list of system specifications as on the command line (``"FILE"``, ``"NAME=FILE"``,
  ``"NAME=run1,run2"``, a glob) or a dict ``{name: spec | list of segments | list of runs}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mtsig.errors import InputError
from mtsig.evaluation import StatsTable, attach_dev, build_metrics, compute_stats
from mtsig.io.load import System, load_references, load_systems
from mtsig.io.segments import RefSet, Segments
from mtsig.metrics.depf import DepF
from mtsig.metrics.segscore import SegmentScores
from mtsig.results import ScoreResult, score_table
from mtsig.tokenize import DEFAULT_TOKENIZER, MTEVAL_TOKENIZERS

DEFAULT_METRICS = ("bleu",)


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


def _systems(systems: Any, refs: RefSet, unescape: bool) -> list[System]:
    if isinstance(systems, str):
        systems = [systems]
    if isinstance(systems, Mapping):
        out: list[System] = []
        for name, val in systems.items():
            if isinstance(val, str):
                (s,) = load_systems([f"{name}={val}"], refs, unescape=unescape)
                out.append(s)
            elif _is_lines(val):
                out.append(System(str(name), [Segments.of(val, name=str(name))], ["<memory>"]))
            elif isinstance(val, Sequence) and all(_is_lines(r) for r in val):
                runs = [Segments.of(r, name=f"{name}.run{i}") for i, r in enumerate(val)]
                out.append(System(str(name), runs, ["<memory>"] * len(runs)))
            else:
                raise InputError(f"system {name!r}: give a file spec, a list of segments or a list of runs")
        for s in out:
            for r in s.runs:
                if len(r) != refs.n_segments:
                    raise InputError(
                        f"system {s.name!r} has {len(r)} segments but the references have {refs.n_segments}"
                    )
        return out
    return load_systems(list(systems), refs, unescape=unescape)


def compute(
    refs: Any,
    systems: Any,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    allow_empty_refs: bool = False,
    jobs: int = 1,
    dev_refs: Any = None,
    dev_systems: Any = None,
    parses_ref: Sequence[str] | None = None,
    parses_hyp: Sequence[str] | None = None,
    seg_scores: Any = None,
    **options: Any,
) -> StatsTable:
    """Read the inputs once and return the per-segment statistics of every system and metric.

    ``jobs``: processes to score systems in (``fork``; 1 = in this process). ``dev_refs`` and
    ``dev_systems`` (one development-set output per optimizer run, same names and order) add s_dev.
    ``parses_ref`` / ``parses_hyp``: CoNLL-U files beside plain texts (one per reference; per system as
    ``NAME=FILE[,FILE...]`` or one file per system in order) for the dependency F-score.
    ``seg_scores``: segment-level scores for the ``seg`` metric (see :mod:`mtsig.io.segscores`).
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    ms = build_metrics(list(metrics), tokenize=tokenize, lowercase=lowercase, **options)
    unescape = tokenize not in MTEVAL_TOKENIZERS
    rs = _refs(refs, unescape, allow_empty_refs)
    ss = _systems(systems, rs, unescape)
    _attach_extras(rs, ss, parses_ref, parses_hyp, seg_scores)
    table = compute_stats(rs, ss, ms, jobs=jobs)
    if (dev_refs is None) != (dev_systems is None):
        raise InputError("s_dev needs both development references (--dev-refs) and outputs (-d/--dev-systems)")
    if dev_refs is not None:
        dms = build_metrics(list(metrics), tokenize=tokenize, lowercase=lowercase, **options)
        drs = _refs(dev_refs, unescape, allow_empty_refs)
        dss = _systems(dev_systems, drs, unescape)
        if any(isinstance(m, SegmentScores) or isinstance(m, DepF) for m in dms.values()):
            raise InputError("s_dev is available for text metrics only (not for seg or depf)")
        dev = compute_stats(drs, dss, dms, jobs=jobs)
        attach_dev(table, dev)
    return table


def _attach_extras(rs: RefSet, ss: list[System], parses_ref, parses_hyp, seg_scores) -> None:
    from mtsig.io.load import attach_parses, parse_system_spec
    from mtsig.io.segscores import attach_seg_scores

    if parses_ref:
        attach_parses(list(rs), list(parses_ref), "reference")
    if parses_hyp:
        specs = list(parses_hyp)
        if all("=" in x and not __import__("os").path.exists(x) for x in specs):
            by = {s.name: s for s in ss}
            for spec in specs:
                name, files = parse_system_spec(spec)
                if name not in by:
                    raise InputError(f"parses for {name!r}, which is not one of the systems")
                attach_parses(by[name].runs, files, f"system {name!r}")
        else:
            attach_parses([s.runs[0] for s in ss], specs, "system")
    attach_seg_scores(ss, seg_scores)


def score(
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    stats: StatsTable | str | None = None,
    ci: bool = False,
    ci_method: str = "percentile",
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int | None = None,
    **options: Any,
) -> ScoreResult:
    """Corpus scores of every system under every metric (with bootstrap intervals when ``ci``).

    Either give ``refs`` and ``systems`` (and metric/tokenizer options), or ``stats``: a
    :class:`StatsTable` or the path of a statistics file written by ``mtsig stats``.
    """
    table = _table(refs, systems, metrics, stats, options)
    return score_table(table, ci=ci, ci_method=ci_method, n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)


def _table(refs, systems, metrics, stats, options) -> StatsTable:
    if stats is not None:
        table = stats if isinstance(stats, StatsTable) else StatsTable.load(stats)
        if refs is not None or systems is not None:
            raise InputError("give either statistics or references and systems, not both")
        wanted = None if metrics in (None, DEFAULT_METRICS) else list(metrics)
        return table.select(wanted)
    if refs is None or systems is None:
        raise InputError("give references and systems (or a statistics file)")
    return compute(refs, systems, metrics, **options)


def compare(
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    test: str | Sequence[str] = "ar",
    n_resamples: int | None = None,
    seed: int | None = None,
    baseline: str | None = None,
    correction: str = "holm",
    alpha: float = 0.05,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    n_bootstrap: int | None = None,
    stats: StatsTable | str | None = None,
    **options: Any,
):
    """Paired significance tests between systems: all pairs, or each against ``baseline``.

    ``test`` is one or several of ``ar`` (approximate randomization, default), ``bootstrap`` (shift
    method), ``paired-bootstrap`` (Koehn), ``ttest``, ``wilcoxon``. Returns a
    :class:`~mtsig.results.CompareResult` whose ``to_dict()`` is the JSON of ``mtsig compare``.
    """
    from mtsig.results import compare_table

    table = _table(refs, systems, metrics, stats, options)
    tests = [test] if isinstance(test, str) else list(test)
    return compare_table(
        table,
        tests,
        n_resamples=n_resamples,
        seed=seed,
        baseline=baseline,
        correction=correction,
        alpha=alpha,
        alternative=alternative,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
    )
