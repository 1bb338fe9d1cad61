"""The one pass from text to statistics: every system run read once per metric into statistics arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.executor import Executor, SerialExecutor
from mtsig.io.load import System
from mtsig.io.segments import RefSet
from mtsig.metrics import Metric, get_metric
from mtsig.table import StatsTable, SystemInfo


def compute_stats(
    refs: RefSet,
    systems: list[System],
    metrics: list[Metric] | dict[str, Metric],
    executor: Executor | None = None,
) -> StatsTable:
    """Statistics of every run of every system under every metric.

    Reference-side work is done first, in this process, so that an executor's workers share it; the
    arrays do not depend on the executor.
    """
    if isinstance(metrics, list):
        metrics = {m.name: m for m in metrics}
    for m in metrics.values():
        m.prepare(refs)
    for m in sorted(metrics.values(), key=lambda m: -m.ngram_order):
        m.warm()  # reference-side work once, largest n-gram order first
    tasks = [(si, ri) for si, s in enumerate(systems) for ri in range(s.n_runs)]
    ms = list(metrics.values())

    def work(task):
        si, ri = task
        return [m.stats(systems[si].runs[ri]) for m in ms]

    by_task = dict(zip(tasks, (executor or SerialExecutor()).map(work, tasks)))
    stats = {
        name: {s.name: np.stack([by_task[(si, ri)][k] for ri in range(s.n_runs)]) for si, s in enumerate(systems)}
        for k, name in enumerate(metrics)
    }
    sigs = {name: m.signature_for(len(refs)) for name, m in metrics.items()}
    infos = [SystemInfo(s.name, s.files, s.n_runs) for s in systems]
    return StatsTable(metrics, infos, stats, refs.n_segments, refs[0].keys, sigs, texts=(refs, systems))


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
