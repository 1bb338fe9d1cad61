"""Text output laid out for the terminal it goes to (issue 27): ``COLUMNS`` (or the tty) when it goes to standard
output; files, pipes without ``COLUMNS`` and other formats keep the default wide layout. A table too wide for
the terminal is printed as records that wrap between items, so no number is cut."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mtsig.cli import main
from mtsig.report.table import DEFAULT_WIDTH, Table, TextOut, natural_width, records

EX = Path(__file__).resolve().parents[2] / "examples"
COMPARE = ["compare", "-r", str(EX / "ref.A.en"), str(EX / "ref.B.en"), "-s", f"base={EX / 'base.en'}",
           f"new={EX / 'new.en'}", "-m", "bleu", "ter", "--test", "ar", "paired-bootstrap"]  # fmt: skip


def _run(capsys, args: list[str]) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


def _numbers(text: str) -> list[str]:
    return re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)


@pytest.mark.parametrize("cols", [80, 60])
def test_compare_fits_the_terminal_and_keeps_every_number(capsys, monkeypatch, cols):
    wide = _run(capsys, COMPARE)
    assert max(len(x) for x in wide.splitlines()) > 100  # the default layout is wider than the terminal
    monkeypatch.setenv("COLUMNS", str(cols))
    narrow = _run(capsys, COMPARE)
    # only an unbreakable word (a metric's signature, 79 characters for TER) may be longer than the terminal
    assert all(len(x) <= cols or " " not in x.strip() for x in narrow.splitlines())
    assert max(len(x) for x in narrow.splitlines()) <= max(cols, 79)
    assert set(_numbers(narrow)) == set(_numbers(wide))  # every number (each score once), none cut
    assert "…" not in narrow


@pytest.mark.parametrize("cols", [80, 120])
def test_narrow_compare_says_which_test_each_p_value_belongs_to(capsys, monkeypatch, cols):
    """Issue 47: with two tests, the narrow layout printed the pair twice with no test named on either row; a user
    could copy one test's p-value as the other's. Each test is now a block titled with the metric and the test, and
    the p-values under each title are that test's (as in the wide layout's labelled rows)."""
    wide = _run(capsys, COMPARE)
    labelled = {}  # (metric, test label) -> p cell, from the wide layout's rows
    metric = None
    for line in wide.splitlines():
        if line[:4] in ("BLEU", "TER "):
            metric = line.split()[0]
        for label in ("approx. randomization", "paired bootstrap"):
            if f"│ {label}" in line:
                labelled[(metric, label)] = line.split("│")[7].strip()
    assert len(labelled) == 4
    monkeypatch.setenv("COLUMNS", str(cols))
    narrow = _run(capsys, COMPARE)
    assert max(len(x) for x in narrow.splitlines() if " " in x.strip()) <= cols
    lines = narrow.splitlines()
    blocks = 0
    for (m, label), p in labelled.items():
        head = [i for i, x in enumerate(lines) if x.rstrip() == f"{m}, {label}"]
        if head:
            blocks += 1
            row = next(x for x in lines[head[0] + 1 :] if x.startswith(" base"))
            assert row.split("│")[3].strip() == p, (m, label, row)
        else:  # this metric's table fits the terminal: the wide layout, whose test column names the test
            assert any(f"│ {label}" in x and p in x for x in lines), (m, label)
    assert blocks == 4 if cols == 80 else blocks >= 2


@pytest.mark.parametrize("command", [["score", "-m", "bleu", "chrf", "ter"], ["analyze", "--by", "ref-length"]])
def test_score_and_analyze_fit_80_columns(capsys, monkeypatch, command):
    args = [command[0], "-r", str(EX / "ref.A.en"), "-s", f"base={EX / 'base.en'}", f"new={EX / 'new.en'}",
            *command[1:]]  # fmt: skip
    wide = _run(capsys, args)
    monkeypatch.setenv("COLUMNS", "80")
    narrow = _run(capsys, args)
    assert max(len(x.rstrip()) for x in narrow.splitlines()) <= 80
    assert sorted(_numbers(narrow)) == sorted(_numbers(wide))


def test_files_and_other_formats_keep_the_default_layout(capsys, monkeypatch, tmp_path):
    wide = _run(capsys, COMPARE)
    monkeypatch.setenv("COLUMNS", "80")
    out = tmp_path / "out.txt"
    _run(capsys, [*COMPARE, "-o", str(out)])
    assert out.read_text(encoding="utf-8") == wide
    md = _run(capsys, [*COMPARE, "-f", "markdown"])
    monkeypatch.delenv("COLUMNS")
    assert md == _run(capsys, [*COMPARE, "-f", "markdown"])


def test_records_wrap_between_items_only():
    t = Table(["A", "B", "interval"], [["sys-one", "sys-two", "[13.78, 32.45]"]], title="BLEU")
    assert natural_width(t) == 7 + 7 + 14 + 8
    text = records(t, 24)
    assert text.splitlines() == ["BLEU", "• A: sys-one", "  B: sys-two", "  interval: [13.78, 32.45]"]
    out = TextOut(DEFAULT_WIDTH)
    out.table(t)
    assert "┃" in out.getvalue()  # the default width lays it out as a table


def test_analyze_width_flag_sets_decimals_not_the_layout(capsys):
    """``analyze -w N`` is decimals, as in score and compare (it once laid the text out N columns wide)."""
    args = ["analyze", "-r", str(EX / "ref.A.en"), "-s", f"base={EX / 'base.en'}", f"new={EX / 'new.en'}", "--by",
            "ref-length"]  # fmt: skip
    text = _run(capsys, [*args, "-w", "3"])
    assert "┃" in text and max(len(x) for x in text.splitlines()) > 40
    scores = [n for n in _numbers(text) if not n.startswith("0.")]
    assert scores and all(len(n.split(".")[1]) == 3 for n in scores)
    assert main([*args, "-w", "13"]) != 0
    assert "between 0 and 12 decimals" in capsys.readouterr().err


def test_human_tests_stay_a_table_at_80_columns(capsys, monkeypatch, tmp_path):
    """Issue 47: at 80 columns human's tests became two-line bullets (one per pair); they are a table with each
    pair on two lines, every number kept."""
    rows = ["system\tsegment\tscore"] + [f"{s}\t{i}\t{(i * 7 + k * 3) % 11 + (k // 2)}" for k, s in
                                         enumerate(["CUNI-DocTransformer.6", "JDExploreAcademy.8", "Online-W.2",
                                                    "ALMAnaCH-Inria.3"]) for i in range(60)]  # fmt: skip
    path = tmp_path / "scores.tsv"
    path.write_text("\n".join(rows) + "\n")
    args = ["human", str(path), "--n-bootstrap", "200"]
    wide = _run(capsys, args)
    monkeypatch.setenv("COLUMNS", "80")
    narrow = _run(capsys, args)
    tests = narrow[narrow.index("tests (") :]
    assert "• A:" not in tests and "┃ Δ (B − A)" in tests and "→ JDExploreAcademy.8" in tests
    assert max(len(x.rstrip()) for x in narrow.splitlines()) <= 80
    assert sorted(_numbers(narrow)) == sorted(_numbers(wide))
