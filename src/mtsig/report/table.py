"""One table model, rendered as a Rich text table, Markdown, LaTeX (booktabs) or CSV.

Renderers build :class:`Table` objects from result objects; this module only lays them out. Cell text is
already formatted (and, for LaTeX, already escaped) by the caller.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    #: "left" / "right" per column
    align: list[str] = field(default_factory=list)
    title: str | None = None


def console(width: int | None = None):
    """A Rich console that records plain text (no colour, no terminal codes)."""
    from rich.console import Console

    return Console(file=io.StringIO(), width=width or 250, force_terminal=False, color_system=None)


def print_rich(con, t: Table) -> None:
    """Print ``t`` as a Rich table on ``con``."""
    from rich.table import Table as RichTable
    from rich.text import Text

    kw = {"title": Text(t.title), "title_justify": "left"} if t.title is not None else {}
    rt = RichTable(show_edge=False, header_style="bold", **kw)
    for i, h in enumerate(t.header):
        rt.add_column(h, justify=t.align[i] if t.align else ("left" if i == 0 else "right"))
    for r in t.rows:
        rt.add_row(*(Text(x) for x in r))
    con.print(rt)


def markdown(t: Table) -> list[str]:
    """The lines of a Markdown (GitHub) table."""
    return ["| " + " | ".join(t.header) + " |", "|" + "---|" * len(t.header)] + [
        "| " + " | ".join(r) + " |" for r in t.rows
    ]


def latex(t: Table, colspec: str, caption: str) -> str:
    """A booktabs table environment with ``colspec`` columns and ``caption`` (cells already escaped)."""
    body = "\n".join(" & ".join(r) + r" \\" for r in t.rows)
    return (
        f"\\begin{{table}}\n\\centering\n\\begin{{tabular}}{{{colspec}}}\n\\toprule\n"
        + " & ".join(t.header)
        + " \\\\\n\\midrule\n"
        + body
        + f"\n\\bottomrule\n\\end{{tabular}}\n\\caption{{{caption}}}\n\\end{{table}}\n"
    )


def csv_text(header: list[str], rows: list[list]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()
