"""The study registry on the command line: each study its own subcommand whose flags are its design's fields, an
option of another study refused in one line, values checked once (flag = field = JSON key)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from mtsig.cli import main
from mtsig.studies.design import flag_of
from mtsig.studies.registry import STUDIES, get_study

EX = Path(__file__).resolve().parents[2] / "examples"
INPUTS = ["-r", str(EX / "ref.A.en"), "-s", f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"]
ALL_FLAGS = {flag_of(f.name) for n in list(STUDIES) for f in fields(get_study(n).design)}


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", list(STUDIES))
def test_study_help_shows_only_its_own_options(capsys, name):
    text = _help(capsys, "study", name)
    own = {flag_of(f.name) for f in fields(get_study(name).design)}
    for flag in ALL_FLAGS:
        shown = f"{flag} " in text or f"{flag}\n" in text
        assert shown == (flag in own), (name, flag)
    assert ("--dask" in text) == STUDIES[name].replicated


def test_study_help_lists_every_study(capsys):
    text = _help(capsys, "study")
    assert all(name in text for name in STUDIES)


def test_an_option_of_another_study_is_a_one_line_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["study", "type1", *INPUTS, "--sizes", "100"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "mtsig: error: --sizes is not an option of study type1 (it is one of power, testsize, levels) "
        "(see `mtsig study type1 --help`)\n"
    )


@pytest.mark.parametrize(
    "argv,message",
    [
        (["type1", "--replicates", "0"], "--replicates must be at least 1 and at most 1,000,000, got 0"),
        (["type1", "--alphas", "0", "2"], "--alphas must lie strictly between 0 and 1, got 0.0"),
        (["type1", "--pairs", "base:new", "new:base"], "--pairs: this study takes 1 pair, got 2"),
        (["multiplicity", "--null-systems", "12"], "--null-systems must be at least 3 and at most 8, got 12"),
        (["sampling", "--samples", "0"], "--samples must be at least 2, got 0"),
        (["coverage", "--n-bootstrap", "1"], "--n-bootstrap must be at least 40 for a 95% interval"),
        (["testsize", "--alpha", "2"], "--alpha must lie strictly between 0 and 1, got 2.0"),
        (["power", "--power", "1.5"], "--power must lie strictly between 0 and 1, got 1.5"),
        (["power", "--target", "nan"], "--target must be finite, got nan"),
    ],
)
def test_bad_values_are_one_line_errors(capsys, argv, message):
    assert main(["study", argv[0], *INPUTS, *argv[1:]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_the_json_design_uses_the_flags_names(capsys):
    assert main(["study", "sampling", *INPUTS, "--samples", "4", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["design"] == {"metric": None, "samples": 4, "pairs": None}


def test_study_latex_escapes_names_as_compare_does(capsys):
    """One LaTeX escaper for every result: system names with TeX's special characters come out escaped."""
    argv = ["-r", str(EX / "ref.A.en"), "-s", f"A~x^2={EX / 'base.en'}", f"B{{1}}={EX / 'new.en'}", "-f", "latex"]
    assert main(["study", "sampling", *argv, "--samples", "4"]) == 0
    study = capsys.readouterr().out
    assert main(["compare", *argv]) == 0
    compare = capsys.readouterr().out
    for out in (study, compare):
        assert r"A\textasciitilde{}x\textasciicircum{}2" in out and r"B\{1\}" in out
        assert "A~x^2" not in out and "B{1}" not in out
    assert r"$\Delta$" in study and "Δ" not in study


def test_run_study_takes_the_studys_own_design_only():
    from mtsig.api import compute
    from mtsig.errors import InputError
    from mtsig.studies import koehn
    from mtsig.studies.registry import run_study

    table = compute([str(EX / "ref.A.en")], [f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"])
    with pytest.raises(InputError, match="study levels takes a LevelsDesign, got a TestsizeDesign"):
        run_study("levels", table, koehn.TestsizeDesign(alpha=0.01))
    with pytest.raises(InputError, match="unknown study 'nope'"):
        run_study("nope", table)
