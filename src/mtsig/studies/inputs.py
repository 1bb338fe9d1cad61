"""What every study reads from a statistics table: the metric studied and the real systems it starts from."""

from __future__ import annotations

import numpy as np

from mtsig.errors import InputError


def metric_of(table, metric: str | None):
    """``(name, metric)``: the one asked for, or the table's first."""
    name = metric or next(iter(table.metrics))
    if name not in table.metrics:
        raise InputError(f"metric {name!r} was not computed; computed: {', '.join(table.metrics)}", param="metric")
    return name, table.metrics[name]


def pooled_stats(table, metric: str | None):
    """``(name, metric, {system: statistics (N, d)})``: each system's optimizer runs pooled segment by segment
    (a single output is its own pool)."""
    name, m = metric_of(table, metric)
    return name, m, {s: np.asarray(table.stats[name][s].sum(axis=0), dtype=np.float64) for s in table.system_names}


def pair_of(table, pair: tuple[str, str] | None, role: str) -> tuple[str, str]:
    """The two real systems a study starts from (default: the first two), checked against the table."""
    names = table.system_names
    if len(names) < 2:
        raise InputError(f"the study needs {role}: give at least two systems")
    a, b = pair or (names[0], names[1])
    for s in (a, b):
        if s not in names:
            raise InputError(f"no system {s!r}; systems: {', '.join(names)}", param="pairs")
    return a, b
