"""One table model, rendered as a Rich text table, Markdown, LaTeX (booktabs) or CSV.

Renderers build :class:`Table` objects from result objects; this module only lays them out. Cell text is
already formatted (and, for LaTeX, already escaped) by the caller.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    #: "left" / "right" per column
    align: list[str] = field(default_factory=list)
    title: str | None = None


def format_p(p: float | None) -> str:
    """A p-value as every output shows it: four decimals, or two significant digits below 10^-4 (``1.0e-04``);
    "–" for none."""
    if p is None:
        return "–"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def p_cells(result, p_adjusted) -> tuple[str, str]:
    """A test row's p and adjusted-p cells; an ASO row (no p-value) shows its ε_min and its permutation gate's
    adjusted p-value, labelled."""
    if result.p_value is None and "eps_min" in result.extra:
        return f"ε_min {result.extra['eps_min']:.3f}", f"gate {format_p(result.extra['gate_p_adjusted'])}"
    return format_p(result.p_value), format_p(p_adjusted)


def console(width: int | None = None):
    """A Rich console that records plain text (no colour, no terminal codes)."""
    from rich.console import Console

    return Console(file=io.StringIO(), width=width or DEFAULT_WIDTH, force_terminal=False, color_system=None)


def print_rich(con, t: Table) -> None:
    """Print ``t`` as a Rich table on ``con``."""
    from rich.table import Table as RichTable
    from rich.text import Text

    rt = RichTable(
        show_edge=False, header_style="bold", title=Text(t.title) if t.title is not None else None, title_justify="left"
    )
    for i, h in enumerate(t.header):
        rt.add_column(h, justify=_align(t, i))
    for r in t.rows:
        rt.add_row(*(Text(x) for x in r))
    con.print(rt)


#: the width of text output (``console``'s width when none is given)
DEFAULT_WIDTH = 250

#: characters a terminal cell holds one of (printable ASCII and Latin-1, Latin Extended, Greek, Cyrillic,
#: general punctuation, arrows, mathematical operators; no combining, zero-width or wide characters): text
#: made of them is laid out by counting characters. tests/report/test_text_layout.py checks each against
#: Rich's cell widths.
_ONE_CELL = re.compile(
    "[\x20-\x7e\xa0-\xac\xae-\u02ff\u0370-\u0482\u048a-\u04ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2200-\u22ff]*"
)


def one_cell_chars(text: str) -> bool:
    """True when every character of ``text`` takes one terminal cell (and none is a control character)."""
    return _ONE_CELL.fullmatch(text) is not None


def _plain_cell(text: str) -> bool:
    """A cell laid out by counting: one-cell characters, no whitespace at either end (Rich trims it as it
    justifies)."""
    return one_cell_chars(text) and text == text.strip()


_JUSTIFY: dict[str, Literal["left", "right", "center"]] = {"left": "left", "right": "right", "center": "center"}


def _align(t: Table, i: int) -> Literal["left", "right", "center"]:
    return _JUSTIFY[t.align[i] if t.align else ("left" if i == 0 else "right")]


def plain_table(t: Table, width: int = DEFAULT_WIDTH) -> str | None:
    """``t`` as :func:`print_rich` prints it on a console ``width`` cells wide, without Rich; None when the
    layout needs Rich (wider than ``width``, a title longer than the table, characters of other widths)."""
    rows = [t.header, *t.rows]
    n = len(t.header)
    if n == 0 or any(len(r) != n for r in rows) or not all(_plain_cell(x) for r in rows for x in r):
        return None
    if any(c in h for h in t.header for c in "[:\\"):  # Rich reads markup and emoji codes in a header
        return None
    widths = [max(len(r[i]) for r in rows) for i in range(n)]
    total = sum(widths) + 3 * n - 1  # one space each side of a cell, one rule between columns
    title = t.title or ""
    if total > width or len(title) > total or not _plain_cell(title):
        return None
    left = [_align(t, i) == "left" for i in range(n)]

    def line(r: list[str], rule: str) -> str:
        return rule.join(f" {x.ljust(w) if lj else x.rjust(w)} " for x, w, lj in zip(r, widths, left))

    out = [title.ljust(total)] if title else []
    out += [line(t.header, "┃"), "╇".join("━" * (w + 2) for w in widths), *(line(r, "│") for r in t.rows)]
    return "\n".join(out) + "\n"


def _cells(text: str) -> int:
    """Terminal cells ``text`` takes."""
    if one_cell_chars(text):
        return len(text)
    from rich.cells import cell_len

    return cell_len(text)


def wrapped(text: str, width: int) -> str:
    """``text`` broken at spaces into lines of at most ``width`` cells where it can be (a word longer than
    that stays whole)."""
    if _cells(text) <= width:
        return text
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)) or text


def natural_width(t: Table) -> int:
    """The width of ``t`` laid out with no cell wrapped or cut."""
    rows = [t.header, *t.rows]
    if not t.header:
        return 0
    widths = [max(_cells(r[i]) for r in rows if i < len(r)) for i in range(len(t.header))]
    return sum(widths) + 3 * len(widths) - 1


def records(t: Table, width: int) -> str:
    """``t`` for a terminal too narrow for its columns: each row as ``header: value`` items, wrapped between
    items at ``width`` (an item is never cut or broken, so no number is lost), a row's first line marked
    with ``•``, its continuation lines indented."""
    out = [wrapped(t.title, width)] if t.title else []
    for r in t.rows:
        items = [f"{h}: {c}" if h.strip() else c for h, c in zip(t.header, r) if c.strip()]
        line = "• " + (items[0] if items else "")
        for item in items[1:]:
            if _cells(line) + 3 + _cells(item) <= width:
                line += " · " + item
            else:
                out.append(line)
                line = "  " + item
        out.append(line)
    return "\n".join(out) + "\n"


#: characters that would act on the terminal or the page instead of being shown: C0 and C1 controls (escape
#: sequences, newlines, carriage returns), DEL, and the bidirectional controls (U+202E reverses what follows)
_UNSHOWABLE = {
    **{c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))},
    **{c: f"\\u{c:04x}" for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))},
    0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r",
}  # fmt: skip


def printable(text: str) -> str:
    """``text`` with every control or bidirectional-control character written as its escape (``\\n``,
    ``\\x1b``, ``\\u202e``), so a name can neither split a table row nor reach the terminal or reorder text."""
    return text if text.isprintable() else text.translate(_UNSHOWABLE)


def shown(t: Table) -> Table:
    """The table with every header and cell :func:`printable`."""
    title = printable(t.title) if t.title is not None else None
    return Table([printable(h) for h in t.header], [[printable(c) for c in r] for r in t.rows], t.align, title)


def compacted(t: Table) -> tuple[Table, list[str]]:
    """``t`` narrower for a terminal too narrow for it, every number kept: a column with one value in every row
    is said once above the table (returned as a note) instead of on every row, and an interval after a value
    (``33.70 [32.81, 34.65]``) goes to a second line of its row."""
    keep, notes = list(range(len(t.header))), []
    if len(t.rows) > 1:
        for i in range(1, len(t.header)):
            values = {r[i] for r in t.rows}
            if len(values) == 1 and next(iter(values)).strip():
                keep.remove(i)
                notes.append(f"{t.header[i]}: {t.rows[0][i]} (every row)")
    header = [t.header[i] for i in keep]
    align = [t.align[i] for i in keep] if t.align else []
    rows: list[list[str]] = []
    for r in t.rows:
        first, second = [], []
        for i in keep:
            value, sep, interval = r[i].partition(" [")
            if sep and interval.endswith("]") and value.strip():
                first.append(value)
                second.append("[" + interval)
            else:
                first.append(r[i])
                second.append("")
        rows += [first, second] if any(second) else [first]
    return Table(header, rows, align, t.title), notes


class TextOut:
    """Text written as the console of :func:`console` prints it (tables by :func:`print_rich`, lines as
    ``print(Text(line), soft_wrap=True)``), without importing Rich (a tenth of a second at start-up) when no
    table or line needs its layout; the rest goes through Rich, in order."""

    def __init__(self, width: int | None = None):
        self.width = width or DEFAULT_WIDTH
        self.parts: list[str] = []

    def table(self, t: Table) -> None:
        t = shown(t)
        if self.width < DEFAULT_WIDTH and natural_width(t) > self.width:
            compact, notes = compacted(t)
            if natural_width(compact) > self.width:
                self.parts.append(records(t, self.width))
                return
            for note in notes:
                self.line(note)
            t = compact
        text = plain_table(t, self.width)
        self.parts.append(text if text is not None else self._rich(lambda con: print_rich(con, t)))

    def line(self, text: str = "") -> None:
        text = "\n".join(printable(x) for x in text.split("\n"))  # a line's own line breaks stay
        if self.width < DEFAULT_WIDTH:
            text = "\n".join(wrapped(x, self.width) for x in text.split("\n"))
        if one_cell_chars(text):
            self.parts.append(text + "\n")
            return

        def show(con):
            from rich.text import Text

            con.print(Text(text), soft_wrap=True)

        self.parts.append(self._rich(show))

    def _rich(self, draw) -> str:
        con = console(self.width)
        draw(con)
        return con.file.getvalue()

    def getvalue(self) -> str:
        return "".join(self.parts)


def markdown(t: Table) -> list[str]:
    """The lines of a Markdown (GitHub) table."""
    return ["| " + " | ".join(t.header) + " |", "|" + "---|" * len(t.header)] + [
        "| " + " | ".join(r) + " |" for r in t.rows
    ]


#: a cell of numbers only (values, intervals, rank ranges, p-values, percentages; already escaped)
_NUMERIC_CELL = re.compile(r"[\s\d.,\[\]()+*%\\e-]*\d[\s\d.,\[\]()+*%\\e-]*")
_MINUS = re.compile(r"(?:(?<=^)|(?<=[\s\[(,]))-(?=\d)")
_RANGE = re.compile(r"(\d+)-(\d+)")


def tex_numbers(cell: str) -> str:
    """A numeric cell as typeset text: a negative sign as a math minus (``$-$``, not a hyphen), a rank range with
    an en dash (``1--5``). Names and other text are left as they are."""
    if not _NUMERIC_CELL.fullmatch(cell):
        return cell
    if _RANGE.fullmatch(cell):
        return _RANGE.sub(r"\1--\2", cell)
    return _MINUS.sub("$-$", cell)


def latex(t: Table, colspec: str, caption: str) -> str:
    """A booktabs table environment with ``colspec`` columns and ``caption`` (cells already escaped; numbers typeset
    by :func:`tex_numbers`)."""
    body = "\n".join(" & ".join(tex_numbers(c) for c in r) + r" \\" for r in t.rows)
    return (
        f"\\begin{{table}}\n\\centering\n\\begin{{tabular}}{{{colspec}}}\n\\toprule\n"
        + " & ".join(t.header)
        + " \\\\\n\\midrule\n"
        + body
        + f"\n\\bottomrule\n\\end{{tabular}}\n\\caption{{{caption}}}\n\\end{{table}}\n"
    )


#: the fields ``-w`` rounds in JSON and CSV, as sacreBLEU's ``-w`` rounds its JSON: scores, differences and their
#: intervals and spreads, correlations; never p-values, counts or settings
ROUNDED = frozenset({
    "score", "ci", "ci_low", "ci_high", "s_sel", "s_test", "runs", "mean", "median_run", "score_a", "score_b",
    "delta", "delta_ci", "delta_ci_low", "delta_ci_high", "dev_runs", "s_dev", "value", "delta_common",
    "pearson", "spearman", "kendall", "kendall_c", "tau23", "acc23", "pairwise_accuracy", "spa",
})  # fmt: skip

#: the decimals of the output being written (``render(..., decimals=N)``): read by :func:`csv_text` and by
#: :func:`rounded`, which the JSON writers apply; None (the default) leaves every number as computed
_DECIMALS: ContextVar[int | None] = ContextVar("mtsig_decimals", default=None)


@contextmanager
def decimals_of_output(decimals: int | None) -> Iterator[None]:
    """While writing one output: its numbers in :data:`ROUNDED` fields to ``decimals`` decimals."""
    token = _DECIMALS.set(decimals)
    try:
        yield
    finally:
        _DECIMALS.reset(token)


def _round(x: Any, d: int) -> Any:
    if isinstance(x, float):
        return round(x, d)
    if isinstance(x, list):
        return [_round(v, d) for v in x]
    return x


def rounded(obj: Any) -> Any:
    """A JSON-ready object with its :data:`ROUNDED` fields rounded to the output's decimals (unchanged when no
    decimals are set)."""
    d = _DECIMALS.get()
    if d is None:
        return obj

    def walk(o: Any) -> Any:
        if isinstance(o, dict):
            return {k: _round(v, d) if k in ROUNDED and not isinstance(v, dict) else walk(v) for k, v in o.items()}
        if isinstance(o, list):
            return [walk(v) for v in o]
        return o

    return walk(obj)


def _number(x: Any) -> float | None:
    """A CSV cell's number (None for text, NaN and infinities: those are written as they are)."""
    if isinstance(x, bool):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and (not isinstance(x, str) or x) else None


def csv_text(header: list[str], rows: list[list]) -> str:
    d = _DECIMALS.get()
    if d is not None:
        cols = [h in ROUNDED for h in header]
        rows = [
            [f"{v:.{d}f}" if c and (v := _number(x)) is not None else x for c, x in zip(cols, row)]
            if len(row) == len(header) else row
            for row in rows
        ]  # fmt: skip
    import csv  # here: only CSV output needs it

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()
