"""Resampling units: segments (the default), documents, or domains.

Segments of one document are not independent: a bootstrap or randomization over segments then treats a test set
as larger than it is whenever the systems' differences cluster by document. With ``resample_unit="document"``
every resampling procedure works on whole documents instead:

- the bootstrap draws documents with replacement (the cluster bootstrap), so an interval's width reflects how
  much scores vary between documents;
- approximate randomization swaps the two systems' outputs of a whole document at a time;
- the sentence-level tests (t-test, Wilcoxon) work on each document's mean sentence-level score.

All of it follows from one step: the statistics of a unit are the sums of its segments' statistics (what a
corpus metric sums anyway, so the corpus score of any set of units is the metric on exactly those segments),
plus two columns, the sum of the segments' sentence-level scores and their count, which give the unit's mean
sentence-level score. Everything downstream then runs unchanged on a table whose rows are units.

Where the labels come from: the documents of NIST SGML and WMT XML input, the domains of WMT XML, ``docids``
(a file of one document id per line, for plain-text input), or a statistics file that recorded them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from mtsig.errors import InputError, unknown_name

#: the resampling units, the default first
UNITS = ("segment", "document", "domain")


class UnitMetric:
    """A metric on units: its statistics are the summed statistics of the unit's segments followed by the sum
    of their sentence-level scores and their count. Everything else is the segment metric's."""

    def __init__(self, inner: Any, unit: str):
        self.inner, self.unit = inner, unit

    def __getattr__(self, name: str) -> Any:  # name, direction, signature, decimals ... are the metric's
        return getattr(self.inner, name)

    @property
    def stat_names(self) -> list[str]:
        return [*self.inner.stat_names, "sentence_score_sum", "n_segments"]

    @property
    def sentence_score_label(self) -> str:
        return f"the mean over the {self.unit}'s segments of {self.inner.sentence_score_label}"

    def score(self, totals: np.ndarray) -> np.ndarray:
        return self.inner.score(np.asarray(totals, dtype=np.float64)[..., :-2])

    def corpus_score(self, stats: np.ndarray) -> float:
        return float(self.score(np.asarray(stats, dtype=np.float64).sum(axis=0)))

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """Each unit's mean sentence-level score."""
        s = np.asarray(stats, dtype=np.float64)
        return s[..., -2] / s[..., -1]

    def describe(self, totals: np.ndarray) -> dict[str, Any]:
        return self.inner.describe(np.asarray(totals, dtype=np.float64)[..., :-2])

    def __repr__(self) -> str:
        return f"UnitMetric({self.inner!r}, {self.unit!r})"


def check_unit(unit: str) -> str:
    if unit not in UNITS:
        raise unknown_name("resampling unit", unit, UNITS)
    return unit


def unit_labels(table, unit: str) -> list[str]:
    """The label of every segment for ``unit`` (its document or domain), or a clear error saying where the labels
    come from."""
    check_unit(unit)
    labels = (table.units or {}).get(unit)
    if labels is None:
        where = {
            "document": "documents come from NIST SGML or WMT XML input, or from --docids FILE (one document id "
            "per line) for plain text",
            "domain": "domains come from WMT XML input (the domain attribute of each document)",
        }[unit]
        raise InputError(f"resampling by {unit} needs the {unit} of every segment, and the input has none: {where}")
    if len(labels) != table.n_segments:
        raise InputError(f"{len(labels)} {unit} labels for {table.n_segments} segments")
    if unit == "domain":
        from mtsig.io.wmtxml import NO_DOMAIN

        if NO_DOMAIN in labels:
            n = sum(1 for x in labels if x == NO_DOMAIN)
            raise InputError(f"resampling by domain needs the domain of every segment: {n} segment(s) are in "
                             "documents without a domain attribute (resample by document instead)")  # fmt: skip
    return list(labels)


def group_index(labels: list[str]) -> tuple[np.ndarray, list[str]]:
    """Each segment's unit number (units numbered in the order they first appear) and the units' names."""
    number: dict[str, int] = {}
    idx = np.fromiter((number.setdefault(x, len(number)) for x in labels), dtype=np.int64, count=len(labels))
    return idx, list(number)


def _sum_by(idx: np.ndarray, n_units: int, a: np.ndarray) -> np.ndarray:
    """Rows of ``a`` (axis 0) summed per unit."""
    order = np.argsort(idx, kind="stable")
    starts = np.searchsorted(idx[order], np.arange(n_units))
    return np.add.reduceat(a[order], starts, axis=0)


def by_unit(table, unit: str):
    """The table with one row per unit (``unit="segment"``: the table itself)."""
    check_unit(unit)
    if unit == "segment" or getattr(table, "unit", "segment") == unit:
        return table
    idx, names = group_index(unit_labels(table, unit))
    U = len(names)
    metrics = {m: UnitMetric(metric, unit) for m, metric in table.metrics.items()}
    stats: dict[str, dict[str, np.ndarray]] = {}
    for m, metric in table.metrics.items():
        stats[m] = {}
        for s, arr in table.stats[m].items():
            runs = []
            for r in range(arr.shape[0]):
                sent = np.asarray(metric.sentence_scores(arr[r]), dtype=np.float64)
                rows = np.column_stack([arr[r], sent, np.ones(arr.shape[1])])
                runs.append(_sum_by(idx, U, rows))
            stats[m][s] = np.stack(runs)
    return replace(table, metrics=metrics, stats=stats, n_segments=U, keys=None, unit=unit,
                   unit_names=names, n_segments_total=table.n_segments)  # fmt: skip
