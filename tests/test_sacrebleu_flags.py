"""Every flag of sacreBLEU's --help, tried in ``score`` and ``compare``: it works as sacreBLEU means it, or one
``mtsig: error:`` line names mtsig's spelling (issue 41). The flags are read from sacreBLEU's own parser, so a
flag sacreBLEU adds is tried too."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtsig.cli import main

EX = Path(__file__).resolve().parents[1] / "examples"
REF, SYSTEMS = str(EX / "ref.A.en"), [str(EX / "base.en"), str(EX / "new.en")]
#: a value for the flags that take one (sacreBLEU's metavar -> a valid value)
VALUES = {"--metrics": ["bleu", "chrf"], "--smooth-method": ["floor"], "--smooth-value": ["0.1"],
          "--tokenize": ["intl"], "--chrf-char-order": ["6"], "--chrf-word-order": ["2"], "--chrf-beta": ["2"],
          "--confidence-n": ["100"], "--paired-ar-n": ["100"], "--paired-bs-n": ["100"], "--paired-jobs": ["2"],
          "--width": ["3"], "--format": ["json"], "--num-refs": ["1"], "--encoding": ["utf-8"], "--origlang": ["de"],
          "--subset": ["news"], "--download": ["wmt22"], "--echo": ["src"], "--input": SYSTEMS[:1]}  # fmt: skip
#: flags whose use needs other inputs (a test set by name instead of -r): tried in their own test
SEPARATE = {"--test-set", "--language-pair", "--help", "--version"}


def _sacrebleu_flags() -> list[tuple[str, str]]:
    """(flag, its long name) for every option string of sacreBLEU's parser."""
    import sys

    from sacrebleu.sacrebleu import parse_args

    argv, sys.argv = sys.argv, ["sacrebleu", "-h"]
    try:
        import argparse

        captured = {}
        real = argparse.ArgumentParser.parse_args

        def grab(self, *a, **k):
            captured["parser"] = self
            raise SystemExit(0)

        argparse.ArgumentParser.parse_args = grab
        try:
            parse_args()
        except SystemExit:
            pass
        finally:
            argparse.ArgumentParser.parse_args = real
    finally:
        sys.argv = argv
    out = []
    for action in captured["parser"]._actions:
        long = next((s for s in action.option_strings if s.startswith("--")), None)
        for s in action.option_strings:
            out.append((s, long or s))
    return out


FLAGS = [f for f in _sacrebleu_flags() if f[1] not in SEPARATE]


@pytest.mark.parametrize("command", ["score", "compare"])
@pytest.mark.parametrize(("flag", "long"), FLAGS, ids=[f[0] for f in FLAGS])
def test_every_sacrebleu_flag_works_or_names_mtsigs_spelling(command, flag, long, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing a misread flag writes lands in the repository
    value = VALUES.get(long, [])
    if long == "--smooth-method" and flag == "-s":
        argv = [command, "-r", REF, flag, *value, "--systems", *SYSTEMS]
    elif long == "--input":
        argv = [command, "-r", REF, flag, *value]
    else:
        argv = [command, "-r", REF, "-s", *SYSTEMS, flag, *value]
        argv += ["--n-bootstrap", "50"] if command == "score" else ["--n-resamples", "50", "--n-bootstrap", "50"]
    code = main(argv)
    err = capsys.readouterr().err
    assert not list(tmp_path.iterdir()), "a flag was misread as an output file"
    if code == 0:
        return
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("mtsig: error:"), err
    assert "sacreBLEU's" in lines[0], lines[0]


def test_the_positional_form_and_piped_input_get_mtsigs_spelling(capsys):
    assert main([REF, "-i", SYSTEMS[0]]) == 2
    assert "mtsig score -r" in capsys.readouterr().err
    assert main(["score", "--confidence", "0.9", "-r", REF, "-s", SYSTEMS[0], "-f", "json", "--n-bootstrap", "50"]) == 0
    assert '"ci"' in capsys.readouterr().out  # a level asks for the intervals, as sacreBLEU's --confidence does
