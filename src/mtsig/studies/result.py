"""What a study returns: its settings, its tables (values, not text) and the arrays behind its figure; rendered in
every output format by :mod:`mtsig.report.render`, from the same table layout as the other commands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mtsig.serialize import as_dict, jfield


@dataclass(frozen=True)
class StudyTable:
    title: str
    header: list[str]
    rows: list[list[Any]]  # numbers stay numbers until rendered
    #: decimals per column (None: not a number)
    decimals: list[int | None] = jfield(default_factory=list, skip=True)


@dataclass(frozen=True)
class StudyResult:
    """What a study found: its name, what it derived from its design and the data (``settings``, shown above
    its tables), its tables, the numbers behind its figure (``data``), notes, and its design (field name ->
    value: the flags it was run with, under their own names)."""

    study: str
    settings: dict[str, Any]
    tables: tuple[StudyTable, ...]
    #: the numbers behind the figure, by name (lists or nested lists of numbers and names)
    data: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    design: dict[str, Any] = field(default_factory=dict)

    def table(self, title_start: str) -> StudyTable:
        for t in self.tables:
            if t.title.startswith(title_start):
                return t
        raise KeyError(title_start)

    def to_pandas(self, table: str | None = None):
        """The study's tables as one DataFrame, a row per table row under a first column ``table`` (its title),
        the columns of every table in order; ``table``: one table's rows, by title, in its own columns (needs
        pandas)."""
        from mtsig.frames import frame

        if table is not None:
            t = next((t for t in self.tables if t.title == table), None)
            if t is None:
                from mtsig.errors import unknown_name

                raise unknown_name(f"table of study {self.study}", table, tuple(t.title for t in self.tables))
            return frame([dict(zip(t.header, r)) for r in t.rows], list(t.header))
        columns = ["table", *dict.fromkeys(str(c) for t in self.tables for c in t.header)]
        rows = [{"table": t.title, **dict(zip(map(str, t.header), r))} for t in self.tables for r in t.rows]
        return frame(rows, columns)

    def _repr_html_(self) -> str:
        from mtsig.report.notebook import study_html

        return study_html(self)

    to_dict = as_dict
