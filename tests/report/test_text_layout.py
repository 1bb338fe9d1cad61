"""The plain-text layout of tables and lines equals Rich's, character for character, where it is used."""

from __future__ import annotations

import random
import re

import pytest

from mtsig.report import table as tb
from mtsig.report.table import Table, TextOut, console, one_cell_chars, plain_table, print_rich

rich_cells = pytest.importorskip("rich.cells")


def _ranges():
    """The ranges of the one-cell pattern, read from its character class."""
    body = tb._ONE_CELL.pattern[1:-2]
    chars = re.findall(r"(.)-(.)", body)
    assert len(chars) >= 8
    return [(ord(a), ord(b)) for a, b in chars]


def test_every_one_cell_character_is_one_cell_for_rich():
    n = 0
    for lo, hi in _ranges():
        for code in range(lo, hi + 1):
            c = chr(code)
            assert one_cell_chars(c)
            assert rich_cells.cell_len(c) == 1, f"U+{code:04X}"
            n += 1
    assert n > 1000
    for c in ("\t", "\n", "\r", "\x00", "\x7f", "\xad", "\u0301", "\u200b", "中", "가", "\uff21", "😀"):
        assert not one_cell_chars("ab" + c), repr(c)


def _rich_table(t: Table, width: int) -> str:
    con = console(width)
    print_rich(con, t)
    return con.file.getvalue()


ALPHABET = list("abcXYZ019 .-_[]{}*%:|/") + ["Δ", "−", "↑", "↓", "±", "é", "ß", "→", "\xa0"]
RARE = ["中", "\t", "\u0301", "😀"]  # wide, tab, combining, emoji: Rich lays these out


def _text(rng: random.Random, longest: int, clean: bool, header: bool = False) -> str:
    """Clean text, which the plain layout takes unless the table is too wide, or anything: now and then what
    Rich must lay out (wide characters, a tab, a space at an end, markup or an emoji code in a header)."""
    chars = ALPHABET + (RARE if not clean and rng.random() < 0.2 else [])
    text = "".join(rng.choice(chars) for _ in range(rng.randint(0, longest)))
    if clean:
        text = text.strip()
    if clean and header:
        text = text.replace("[", "(").replace(":", ";")
    return text


def _random_table(rng: random.Random) -> Table:
    n, clean = rng.randint(1, 7), rng.random() < 0.75
    header = [_text(rng, 12, clean, header=True) for _ in range(n)]
    rows = [[_text(rng, 20, clean) for _ in range(n)] for _ in range(rng.randint(0, 6))]
    align = [rng.choice(["left", "right"]) for _ in range(n)] if rng.random() < 0.7 else []
    title = rng.choice([None, "", _text(rng, 30, clean), _text(rng, 120, clean)])
    return Table(header, rows, align, title)


def test_plain_tables_equal_rich_tables():
    rng = random.Random(20261122)
    plain = fallback = 0
    for _ in range(1500):
        t = _random_table(rng)
        width = rng.choice([250, 250, 60, 30])
        got = plain_table(t, width)
        if got is None:
            fallback += 1
            continue
        plain += 1
        assert got == _rich_table(t, width), (t, width)
    assert plain > 500 and fallback > 200  # both paths exercised


@pytest.mark.parametrize(
    "line", ["", "plain words", "  spaced  ", "Δ CI: 95% [1.0, 2.0] ↑", "tab\there", "wide 中文", "é" * 300]
)
def test_lines_equal_rich_lines(line):
    """A line is Rich's line of the same text, its control characters shown escaped (a tab as \\t)."""
    from mtsig.report.table import printable

    out = TextOut()
    out.line(line)
    con = console()
    from rich.text import Text

    con.print(Text(printable(line)), soft_wrap=True)
    assert out.getvalue() == con.file.getvalue()


def test_control_and_bidi_characters_are_shown_escaped():
    """A name with a newline cannot split a row, nor an escape sequence or a right-to-left override reach the
    terminal or reorder the text after it (issue 28)."""
    out = TextOut()
    out.table(Table(["system", "bleu"], [["a\nb", "1.0"], ["\x1b[31mred\u202e", "2.0"]]))
    out.line("note \x07 \u2066x")
    text = out.getvalue()
    assert "a\\nb" in text and "\\x1b[31mred\\u202e" in text and "note \\x07 \\u2066x" in text
    assert not any(c in text for c in "\x1b\x07\u202e\u2066") and text.count("\n") == 5  # 4 table lines, 1 note


def test_text_out_keeps_order_across_both_paths():
    t_plain = Table(["a", "b"], [["1", "2"]], title="T")
    t_wide = Table(["名前", "b"], [["中", "2"]])
    out = TextOut()
    out.table(t_plain)
    out.line("x")
    out.table(t_wide)
    out.line("tab\tline")
    con = console()
    from rich.text import Text

    print_rich(con, t_plain)
    con.print(Text("x"), soft_wrap=True)
    print_rich(con, t_wide)
    con.print(Text("tab\\tline"), soft_wrap=True)  # a tab is shown as its escape
    assert out.getvalue() == con.file.getvalue()
