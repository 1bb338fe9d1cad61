"""The command line as a loop over commands (mtsig.cli + one module per command in mtsig.commands): every
command's module keeps the protocol, every command that prints a result has the one output block and the hooks
its flags promise, and what the loop gives every command (-w, --html) works for studies too."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from mtsig.cli import COMMANDS, build_parser, command_module, main

EX = Path(__file__).resolve().parents[1] / "examples"
INPUTS = ["-r", str(EX / "ref.A.en"), "-s", f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"]


def _flags(parser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings}


def _parsers():
    ap = build_parser()
    for name, p in ap.commands.items():
        if name == "study":
            for study, q in p.studies.items():
                yield name, f"study {study}", q
        else:
            yield name, name, p


def test_every_command_is_a_module_of_the_protocol():
    for name in COMMANDS:
        module = command_module(name)
        assert callable(module.run), name
        assert module.add_args is None or callable(module.add_args), name


@pytest.mark.parametrize(("name", "label", "parser"), list(_parsers()), ids=lambda x: x if isinstance(x, str) else "")
def test_the_flags_a_command_has_are_served_by_its_module(name, label, parser):
    flags, module = _flags(parser), command_module(name)
    if "--format" in flags:  # prints a result: the whole output block
        assert {"-f", "-o", "-q", "-w"} <= flags, label
    if "--plot" in flags:
        assert {"--plot-width", "--caption"} <= flags and callable(module.figure), label
    if "--html" in flags:
        assert callable(module.report), label
    if COMMANDS[name].progress:
        assert "-q" in flags, label  # a progress bar can be turned off
    if COMMANDS[name].table:
        assert {"-r", "-s", "-j", "--stats"} & flags, label


def test_result_commands_have_plots_and_reports():
    """score, compare, analyze, human, meta and every study print a result with a figure and an HTML report."""
    for name, label, parser in _parsers():
        if name in ("score", "compare", "analyze", "human", "meta", "study"):
            assert {"--plot", "--html", "-w", "--seed"} <= _flags(parser) or (
                name == "study" and {"--plot", "--html", "-w"} <= _flags(parser)
            ), label


def test_study_html_report_has_its_tables_and_json(tmp_path, capsys):
    page = tmp_path / "sampling.html"
    argv = ["study", "sampling", *INPUTS, "--samples", "4"]
    assert main([*argv, "-f", "json", "--html", str(page)]) == 0
    printed = json.loads(capsys.readouterr().out)
    text = page.read_text(encoding="utf-8")
    embedded = re.search(r'<script type="application/json" id="mtsig-result">(.*?)</script>', text, re.S)
    assert embedded is not None and json.loads(embedded.group(1)) == printed
    assert "<h1>mtsig study sampling</h1>" in text
    for t in printed["tables"]:
        assert f"<h2>{html.escape(t['title'])}</h2>" in text
    assert text.count('class="sortable"') == len(printed["tables"]) >= 1
    assert html.escape("mtsig study sampling") in text and "--samples 4" in text  # the command


def test_study_width_sets_the_decimals_of_its_numbers(capsys):
    """-w N: every fractional number of a study's tables shown with N decimals (text, Markdown, LaTeX); CSV and JSON
    keep the numbers."""
    argv = ["study", "sampling", *INPUTS, "--samples", "4", "-f", "csv"]
    assert main(argv) == 0
    plain = capsys.readouterr().out
    assert main([*argv, "-w", "1"]) == 0
    assert capsys.readouterr().out == plain
    assert main(["study", "sampling", *INPUTS, "--samples", "4", "-f", "markdown"]) == 0
    assert re.search(r"\|\s*-?\d+\.\d\d+\s*\|", capsys.readouterr().out)  # more than one decimal without -w
    assert main(["study", "sampling", *INPUTS, "--samples", "4", "-f", "markdown", "-w", "1"]) == 0
    md = capsys.readouterr().out
    numbers = re.findall(r"\|\s*(-?\d+\.\d+)\s*(?=\|)", md)
    assert numbers and all(len(x.split(".")[1]) == 1 for x in numbers)


def test_a_command_imports_only_its_own_module():
    import subprocess
    import sys

    code = ("import sys; from mtsig.cli import main; main(['compare', '--version']); "
            "print(sorted(m for m in sys.modules if m.startswith('mtsig.commands.')))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "['mtsig.commands.common']"  # --version: before any command's module
    code = ("import sys; from mtsig.cli import main; main(['thresholds', '-m', 'bleu']); "
            "print(sorted(m for m in sys.modules if m.startswith('mtsig.commands.')))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "['mtsig.commands.common', 'mtsig.commands.thresholds']"


def test_thresholds_is_a_function_of_mtsig_and_a_result_like_the_others(tmp_path, capsys):
    import mtsig
    from mtsig.thresholds import FITS, ThresholdsResult  # the module stays importable

    res = mtsig.thresholds(["bleu", "comet"], [70, 90])
    assert isinstance(res, ThresholdsResult) and res.names == {"bleu": "bleu", "comet": "comet22"}
    assert res.fits["bleu"] == list(FITS["bleu"])
    assert res.delta("bleu", 90) is None and res.delta("comet", 70) == pytest.approx(0.3462, abs=1e-3)
    page, fig = tmp_path / "t.html", tmp_path / "t.png"
    argv = ["thresholds", "-m", "bleu", "comet", "--accuracy", "70", "90", "-f", "json"]
    assert main([*argv, "--html", str(page), "--plot", str(fig)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(res.to_dict()))
    text = page.read_text(encoding="utf-8")
    embedded = re.search(r'<script type="application/json" id="mtsig-result">(.*?)</script>', text, re.S)
    assert embedded is not None and json.loads(embedded.group(1)) == printed
    assert 'id="mtsig-thresholds"' in text and "<svg" in text
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
