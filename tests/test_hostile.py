"""Hostile and careless inputs of issue 28, one row each: the exact outcome (exit status and the one line said),
never a traceback, a hang or a silent wrong number. The inputs are made here from the shipped example."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtsig.cli import main

EX = Path(__file__).resolve().parents[1] / "examples"
REF = str(EX / "ref.A.en")
TWO = [f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"]
IN = ["-r", REF, "-s", *TWO]


def _tiny(tmp: Path, n: int) -> list[str]:
    """The example cut to its first n segments: references and two systems."""
    out = []
    for name in ("ref.A.en", "base.en", "new.en"):
        p = tmp / f"{n}.{name}"
        p.write_text("".join((EX / name).read_text(encoding="utf-8").splitlines(keepends=True)[:n]), encoding="utf-8")
        out.append(str(p))
    return ["-r", out[0], "-s", f"base={out[1]}", f"new={out[2]}"]


#: (label, argv with TINY3 for a 3-segment test set, the line said on stderr)
ERRORS = [
    ("type1 --replicates 0", ["study", "type1", *IN, "--replicates", "0"], "--replicates must be at least 1"),
    ("multiplicity --replicates 0", ["study", "multiplicity", *IN, "--replicates", "0"], "--replicates must be"),
    ("power --replicates 0", ["study", "power", *IN, "--replicates", "0"], "--replicates must be at least 2"),
    ("runs --replicates 0", ["study", "runs", *IN, "--replicates", "0"], "--replicates must be at least 1"),
    ("sampling --samples 0", ["study", "sampling", *IN, "--samples", "0"], "--samples must be at least 2, got 0"),
    ("type1 --n-resamples 0", ["study", "type1", *IN, "--n-resamples", "0"], "--n-resamples must be at least 1"),
    ("type1 --alphas 0 2", ["study", "type1", *IN, "--alphas", "0", "2"], "--alphas must lie strictly between 0 and 1"),
    ("testsize --alpha 2", ["study", "testsize", *IN, "--alpha", "2"], "--alpha must lie strictly between 0 and 1"),
    ("coverage --n-bootstrap 1", ["study", "coverage", *IN, "--n-bootstrap", "1"], "--n-bootstrap must be at least 40"),
    ("testsize, 1 system", ["study", "testsize", "-r", REF, "-s", TWO[0]], "give at least two (got 1)"),
    ("levels, 1 system", ["study", "levels", "-r", REF, "-s", TWO[0]], "give at least two (got 1)"),
    ("type1, 3 segments", ["study", "type1", "TINY3"], "the bootstrap tests need at least 10 segments"),
    ("power, 3 segments", ["study", "power", "TINY3"], "the bootstrap tests need at least 10 segments"),
    ("testsize, 3 segments", ["study", "testsize", "TINY3"], "the bootstrap tests need at least 10 segments"),
    ("levels, samples of 5", ["study", "levels", *IN, "--sizes", "5"], "this test set has 5"),
    ("power --power 0", ["study", "power", *IN, "--power", "0"], "--power must lie strictly between 0 and 1, got 0.0"),
    ("power --power 1.5", ["study", "power", *IN, "--power", "1.5"], "--power must lie strictly between 0 and 1"),
    ("power --power nan", ["study", "power", *IN, "--power", "nan"], "--power must be finite, got nan"),
    ("power --target nan", ["study", "power", *IN, "--target", "nan"], "--target must be finite, got nan"),
    ("power --replicates 1", ["study", "power", *IN, "--replicates", "1"], "--replicates must be at least 2"),
    ("compare --n-resamples 10**12", ["compare", *IN, "--n-resamples", str(10**12)], "at most 10,000,000, got"),
    ("score --n-bootstrap 10**10", ["score", *IN, "--ci", "--n-bootstrap", str(10**10)], "at most 10,000,000, got"),
    ("study --replicates 10**7", ["study", "type1", *IN, "--replicates", str(10**7)], "at most 1,000,000"),
    ("--chrf-beta nan", ["score", *IN, "-m", "chrf", "--chrf-beta", "nan"], "--chrf-beta must be a finite number"),
    ("--meteor-modules twice", ["score", *IN, "-m", "meteor", "--meteor-modules", "stem stem stem stem exact"],
     "METEOR: module(s) stem given more than once"),
    ("--meteor-beam 3e9", ["score", *IN, "-m", "meteor", "--meteor-beam", "3000000000"],
     "the beam size must lie in 1..1,000,000"),
    ("--dask not an address", ["study", "type1", *IN, "--dask", "not an address"], "is not a scheduler address"),
    ("--html and -o one file", ["score", *IN, "--html", "OUT/r.html", "-o", "OUT/r.html"],
     "--output and --html name the same file"),
]  # fmt: skip


@pytest.mark.parametrize("label,argv,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_refused_in_one_line(tmp_path, capsys, label, argv, message):
    argv = [x.replace("OUT/", f"{tmp_path}/") for x in argv]
    if "TINY3" in argv:
        i = argv.index("TINY3")
        argv = [*argv[:i], *_tiny(tmp_path, 3), *argv[i + 1 :]]
    assert main(argv) == 2, label
    err = capsys.readouterr().err
    assert err.startswith("mtsig: error: ") and err.count("\n") == 1 and message in err, (label, err)


def test_stdout_that_cannot_be_written_is_one_line(tmp_path):
    """stdout to /dev/full: a line on stderr and status 2, buffered or not."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    for unbuffered in ("1", ""):
        env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
        with open("/dev/full", "w") as full:
            p = subprocess.run([sys.executable, "-m", "mtsig", "score", *IN], stdout=full, stderr=subprocess.PIPE,
                               text=True, env=env)  # fmt: skip
        assert (
            p.returncode == 2
            and p.stderr == "mtsig: error: cannot write to standard output (No space left on device)\n"
        )


def test_names_with_control_and_bidi_characters_are_shown_escaped(capsys):
    names = ["a\nb", "\x1b[31mred\u202e"]
    assert main(["score", "-r", REF, "-s", f"{names[0]}={EX / 'base.en'}", f"{names[1]}={EX / 'new.en'}"]) == 0
    out = capsys.readouterr().out
    assert " a\\nb " in out and " \\x1b[31mred\\u202e " in out and "\x1b" not in out and "\u202e" not in out
    assert main(["score", "-r", REF, "-s", f"{names[0]}={EX / 'base.en'}", "-f", "json"]) == 0
    assert '"name": "a\\nb"' in capsys.readouterr().out  # the data keeps the name as it is


def test_segment_scores_beyond_any_metric_are_refused(tmp_path, capsys):
    """1e308 per segment made sums overflow: an interval [0.42, NaN] and Infinity in the JSON (issue 28)."""
    scores = tmp_path / "s.tsv"
    scores.write_text("base\tnew\n" + "".join(f"{1e308 if i == 3 else 0.5}\t0.6\n" for i in range(40)))
    argv = ["score", "-r", REF, "-s", *TWO, "-m", "seg", "--seg-scores", str(scores), "--ci"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "'1e+308' is beyond ±1e+12" in err and "line" in err and err.count("\n") == 1


def test_paired_bootstrap_floor_is_stated(capsys):
    assert main(["compare", *IN, "--test", "ar", "paired-bootstrap"]) == 0
    assert "at least 1/(R+1) (paired-bootstrap: 2/(R+1))" in capsys.readouterr().out


def test_sgml_with_a_long_prolog_is_read_as_sgml(tmp_path, capsys):
    """A refset after a comment longer than 4,096 characters is still SGML (it was read as plain text)."""
    segs = (EX / "ref.A.en").read_text(encoding="utf-8").splitlines()
    body = "".join(f'<seg id="{i + 1}">{s}</seg>\n' for i, s in enumerate(segs))
    prolog = "<!-- " + "generated " * 600 + "-->\n"
    ref = tmp_path / "ref.sgm"
    ref.write_text(
        f'{prolog}<refset setid="t" srclang="de" trglang="en">\n<doc docid="d" sysid="r">\n{body}</doc>\n</refset>\n'
    )
    tst = tmp_path / "tst.sgm"
    tst.write_text(
        f'{prolog}<tstset setid="t" srclang="de" trglang="en">\n<doc docid="d" sysid="s">\n{body}</doc>\n</tstset>\n'
    )
    assert main(["score", "-r", str(ref), "-s", str(tst), "-f", "json"]) == 0
    out = capsys.readouterr().out
    assert '"score": 100.0' in out and '"n_segments": 40' in out
