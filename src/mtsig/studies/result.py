"""What a study returns: its settings, its tables (values, not text) and the arrays behind its figure, rendered
in every output format from the same :class:`~mtsig.report.table.Table` layout as the other commands."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtsig.errors import unknown_name
from mtsig.report.table import Table, console, csv_text, latex, markdown, print_rich

FORMATS = ("text", "json", "csv", "markdown", "latex")


@dataclass
class StudyTable:
    title: str
    header: list[str]
    rows: list[list[Any]]  # numbers stay numbers until rendered
    #: decimals per column (None: not a number)
    decimals: list[int | None] = field(default_factory=list)


@dataclass
class StudyResult:
    study: str
    settings: dict[str, Any]
    tables: list[StudyTable]
    #: the numbers behind the figure, by name (lists or nested lists of numbers and names)
    data: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def table(self, title_start: str) -> StudyTable:
        for t in self.tables:
            if t.title.startswith(title_start):
                return t
        raise KeyError(title_start)

    def to_dict(self) -> dict[str, Any]:
        return {
            "study": self.study,
            "settings": self.settings,
            "tables": [{"title": t.title, "header": t.header, "rows": t.rows} for t in self.tables],
            "data": self.data,
            "notes": self.notes,
        }


def _cell(x: Any, decimals: int | None) -> str:
    if x is None:
        return "-"
    if isinstance(x, (float, np.floating)) and decimals is not None:
        return f"{x:.{decimals}f}"
    return str(x)


def _layout(t: StudyTable, escape=lambda s: s) -> Table:
    dec = t.decimals or [None] * len(t.header)
    rows = [[escape(_cell(x, d)) for x, d in zip(r, dec)] for r in t.rows]
    align = ["left" if d is None and not any(isinstance(r[i], (int, float)) for r in t.rows) else "right"
             for i, d in enumerate(dec)]  # fmt: skip
    return Table([escape(h) for h in t.header], rows, align, t.title)


def _tex(s: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"), ("$", r"\$")):
        s = s.replace(a, b)
    return s


def render_study(res: StudyResult, fmt: str = "text") -> str:
    if fmt not in FORMATS:
        raise unknown_name("format", fmt, FORMATS)
    settings = ", ".join(f"{k}: {v}" for k, v in res.settings.items())
    if fmt == "json":
        return json.dumps(res.to_dict(), indent=1, default=float) + "\n"
    if fmt == "csv":
        return "".join(f"# {t.title}\n" + csv_text(t.header, t.rows) for t in res.tables)
    if fmt == "markdown":
        out = [f"**mtsig study {res.study}** ({settings})", ""]
        for t in res.tables:
            out += [f"*{t.title}*", "", *markdown(_layout(t, lambda x: x.replace("|", "\\|"))), ""]
        return "\n".join(out + [f"- {n}" for n in res.notes]) + "\n"
    if fmt == "latex":
        return "".join(
            latex(_layout(t, _tex), "l" + "r" * (len(t.header) - 1), _tex(f"{t.title} ({settings})"))
            for t in res.tables
        )
    con = console()
    con.print(f"mtsig study {res.study}  ({settings})")
    for t in res.tables:
        con.print()
        print_rich(con, _layout(t))
    for n in res.notes:
        con.print(n)
    return con.file.getvalue()
