"""The one pass from text to statistics: every system run read once per metric into statistics arrays."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from mtsig.errors import InputError
from mtsig.executor import Executor, SerialExecutor
from mtsig.io.load import System
from mtsig.io.segments import RefSet
from mtsig.metrics import Metric, get_metric
from mtsig.table import StatsTable, SystemInfo

#: segments per chunk: a larger test set is tokenized and scored this many segments at a time, so that memory
#: grows with the chunk (tokens, n-gram tables) and only the statistics arrays grow with the corpus
CHUNK_SEGMENTS = 10_000


def compute_stats(
    refs: RefSet,
    systems: list[System],
    metrics: list[Metric] | dict[str, Metric],
    executor: Executor | None = None,
    chunk: int | None = None,
) -> StatsTable:
    """Statistics of every run of every system under every metric.

    Reference-side work is done first, in this process, so that an executor's workers share it; the
    arrays do not depend on the executor, nor on ``chunk`` (segments per chunk, :data:`CHUNK_SEGMENTS` by
    default): a test set larger than a chunk is scored chunk by chunk when every metric allows it
    (``Metric.chunkable``), with NIST's information weights still counted over the whole reference side.
    """
    if isinstance(metrics, list):
        metrics = {m.name: m for m in metrics}
    for m in metrics.values():
        m.prepare(refs)
    chunk = CHUNK_SEGMENTS if chunk is None else int(chunk)
    executor = executor or SerialExecutor()
    if refs.n_segments > chunk and all(m.chunkable for m in metrics.values()):
        counts = _corpus_counts(refs, list(metrics.values()), chunk)
        stats = {name: {s.name: np.empty((s.n_runs, refs.n_segments, len(m.stat_names))) for s in systems}
                 for name, m in metrics.items()}  # fmt: skip
        for i in range(0, refs.n_segments, chunk):
            sub = RefSet([r.slice(i, i + chunk) for r in refs])
            for key, c in counts.items():
                sub.store(key, c)
            runs = [[run.slice(i, i + chunk) for run in s.runs] for s in systems]
            part = _stats_of_chunk(sub, runs, metrics, executor, [s.name for s in systems])
            for name, by in part.items():
                for sname, arr in by.items():
                    stats[name][sname][:, i : i + arr.shape[1]] = arr
            del sub, runs, part
        for m in metrics.values():
            m.prepare(refs)
    else:
        stats = _stats_of_chunk(refs, [s.runs for s in systems], metrics, executor, [s.name for s in systems])
    sigs = {name: m.signature_for(len(refs)) for name, m in metrics.items()}
    infos = [SystemInfo(s.name, s.files, s.n_runs) for s in systems]
    units = dict(refs.units)
    if "document" not in units and refs[0].keys is not None:  # NIST SGML: the document of each segment
        units["document"] = [d for d, _ in refs[0].keys]
    return StatsTable(metrics, infos, stats, refs.n_segments, refs[0].keys, sigs, texts=(refs, systems), units=units)


def _stats_of_chunk(refs: RefSet, runs: list[list], metrics: dict[str, Metric], executor: Executor, names: list[str]):
    """``{metric: {system name: (runs, segments, d)}}`` for references ``refs`` and each system's ``runs``."""
    ms = list(metrics.values())
    for m in ms:
        m.prepare(refs)
    for m in sorted(ms, key=lambda m: -m.ngram_order):
        m.warm()  # reference-side work once, largest n-gram order first
    tasks = [(si, ri) for si, r in enumerate(runs) for ri in range(len(r))]
    unique, same_as = _distinct(tasks, runs)
    for m in ms:  # work shared across outputs, in this process, on threads (forked workers inherit it)
        m.warm_runs([runs[si][ri] for si, ri in unique], getattr(executor, "jobs", 1))

    def work(task):
        si, ri = task
        return [m.stats(runs[si][ri]) for m in ms]

    by_task = dict(zip(unique, executor.map(work, unique)))
    by_task.update({t: by_task[u] for t, u in same_as.items()})
    return {
        name: {names[si]: np.stack([by_task[(si, ri)][k] for ri in range(len(r))]) for si, r in enumerate(runs)}
        for k, name in enumerate(metrics)
    }


def _distinct(tasks: list[tuple[int, int]], runs: list[list]) -> tuple[list, dict]:
    """The tasks whose text is scored, and for each run whose lines equal an earlier run's (and that brings no
    parses or segment scores of its own) the task it takes its statistics from: statistics are a function of
    the text, so an output listed twice (a system given again as a run, a copied baseline) is scored once."""
    first: dict[tuple[str, ...], tuple[int, int]] = {}
    unique, same_as = [], {}
    for si, ri in tasks:
        run = runs[si][ri]
        plain = run.parses is None and run.seg_scores is None
        key = tuple(run.lines) if plain else None
        if key is not None and key in first:
            same_as[(si, ri)] = first[key]
            continue
        if key is not None:
            first[key] = (si, ri)
        unique.append((si, ri))
    return unique, same_as


def _corpus_counts(refs: RefSet, metrics: list[Metric], chunk: int) -> dict:
    """The reference n-gram counts over the whole corpus that chunked metrics need (NIST's weights), per
    tokenizer, gathered one chunk of references at a time."""
    from mtsig.metrics.ngrams import CorpusNgramCounts, corpus_counts_key

    need = {}
    for m in metrics:
        if m.needs_corpus_ngram_counts:
            tok = cast(Any, m).tokenizer  # a metric that needs corpus counts tokenizes (NIST)
            same = [x for x in metrics if getattr(getattr(x, "tokenizer", None), "key", None) == tok.key]
            orders = [x.ngram_order for x in same]
            need[corpus_counts_key(tok)] = (tok, max(4, *orders))
    counts = {}
    for key, (tokenizer, order) in need.items():
        c = CorpusNgramCounts(order)
        for i in range(0, refs.n_segments, chunk):
            c.add([tokenizer.tokenize_all(r.slice(i, i + chunk)) for r in refs])
        c.info()
        counts[key] = c
    return counts


def attach_dev(table: StatsTable, dev: StatsTable) -> None:
    """Record the development-set corpus score of every run (for s_dev); systems and runs must match."""
    for s in table.systems:
        try:
            d = dev.system(s.name)
        except InputError:
            raise InputError(f"no development-set output for system {s.name!r} (-d {s.name}=dev.run1,...)") from None
        if d.n_runs != s.n_runs:
            raise InputError(
                f"system {s.name!r} has {s.n_runs} test run(s) but {d.n_runs} development run(s); give one "
                "development output per optimizer run, in the same order"
            )
    for m in table.metrics:
        table.dev_scores[m] = {s.name: [float(x) for x in dev.corpus_scores(m, s.name)] for s in table.systems}


def build_metrics(names: list[str] | tuple[str, ...], **options: Any) -> dict[str, Metric]:
    """The metrics called ``names``, each with the options it takes (one set of options serves all)."""
    if not names:
        raise InputError("no metric given")
    out: dict[str, Metric] = {}
    for n in names:
        # the user's segment scores may be asked for by the name given to them (-m comet --seg-name comet)
        m = get_metric("seg" if n == options.get("seg_name") else n, **options)
        if m.name in out:
            raise InputError(f"metric {n!r} given twice")
        out[m.name] = m
    return out


def scores_table(specs: Any, *, systems: Any = None, seg_name: str | None = None,
                 seg_lower_is_better: bool | None = None, docids: str | None = None) -> StatsTable:  # fmt: skip
    """The statistics of segment scores alone, without texts (:func:`mtsig.io.segscores.read_scores_alone`): one
    ``seg`` metric; ``docids`` (one id per line) gives the documents to resample by. A file that names its metric
    (COMET, MetricX) names and orients the metric unless ``seg_name`` / ``seg_lower_is_better`` are given."""
    from mtsig.io.segscores import MIXED, read_scores_alone
    from mtsig.io.text import read_text, split_lines

    alone = read_scores_alone(specs, systems)
    given = {k: v for k, v in (("seg_name", seg_name), ("seg_lower_is_better", seg_lower_is_better)) if v is not None}
    if alone.metric == MIXED and not given:
        raise InputError("segment scores mix COMET's or MetricX's output with files of plain numbers: give every "
                         "system the same kind of file, or say what they are with --seg-name and "
                         "--seg-lower-is-better", param="seg_scores")  # fmt: skip
    if not given and alone.metric is not None:
        given = {"seg_name": alone.metric[0], "seg_lower_is_better": bool(alone.metric[1])}
    m = get_metric("seg", **given)
    n = alone.n
    from mtsig.metrics.segscore import judged_stats

    stats: dict[str, np.ndarray] = {}
    for s, runs in alone.named.items():  # human judgments may leave the last segments unjudged: missing
        stats[s] = np.stack([judged_stats(np.concatenate([r, np.full(n - len(r), np.nan)])) for r in runs])
    units: dict[str, list[str]] = {}
    if docids is not None:
        ids = split_lines(read_text(docids))
        if len(ids) != n:
            raise InputError(f"{docids}: {len(ids)} document ids for {n} scored segments", param="docids")
        units["document"] = ids
    infos = [SystemInfo(s, list(alone.sources[s]), len(runs)) for s, runs in alone.named.items()]
    return StatsTable({m.name: m}, infos, {m.name: stats}, n, units=units, signatures={m.name: m.signature_for(None)})
