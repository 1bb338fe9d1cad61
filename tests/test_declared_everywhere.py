"""Each command's settings are declared once (:mod:`mtsig.declare`): every declared setting is a flag of the
command, a keyword of its API function, and recorded in its result's settings when given. The test walks the
declarations, so a setting added to a declaration and missing anywhere else fails here.

A setting's non-default value comes from its declaration (a flag: True; a name: another of its choices; a number:
another within its range) or, where the declaration cannot say (a name without choices, a file), from ``VALUES``
below; a setting with neither fails the test with a request for one."""

from __future__ import annotations

import inspect
import json
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.analysis import AnalyzeOptions
from mtsig.api import _COMPARE, _SCORE
from mtsig.api_analyze import _ANALYZE
from mtsig.cli import build_parser
from mtsig.declare import choices_of, declared, default_of
from mtsig.engine import CompareOptions, ScoreOptions
from mtsig.errors import InputError
from mtsig.humaneval.protocols import HumanOptions
from mtsig.metaeval.core import MetaOptions

EX = Path(__file__).resolve().parents[1] / "examples"
CLASSES = {"score": ScoreOptions, "compare": CompareOptions, "analyze": AnalyzeOptions, "human": HumanOptions,
           "meta": MetaOptions}  # fmt: skip
#: API keywords spelled differently from their fields
KEYWORD = {("compare", "tests"): "test"}


def _files(tmp: Path) -> dict[str, str]:
    rng = np.random.default_rng(0)
    (tmp / "docids.txt").write_text("".join(f"d{i // 2}\n" for i in range(40)), encoding="utf-8")  # 20 documents
    (tmp / "source.txt").write_text("".join(f"source {i}\n" for i in range(40)), encoding="utf-8")
    (tmp / "corpus.txt").write_text("the cat sat on the mat\n" * 5, encoding="utf-8")
    (tmp / "labels.txt").write_text("".join(" ".join("N" for _ in ln.split()) + "\n" for ln in
                                            (EX / "new.en").read_text(encoding="utf-8").splitlines()),
                                    encoding="utf-8")  # fmt: skip
    (tmp / "human.tsv").write_text("system\tsegment\tscore\tannotator\tdoc\n" + "".join(
        f"{s}\t{i}\t{rng.normal() + k:.4f}\tr{i % 3}\td{i // 5}\n" for k, s in enumerate("ABCD") for i in range(30)),
        encoding="utf-8")  # fmt: skip
    for m in ("m1", "m2"):
        (tmp / f"{m}.txt").write_text("".join(f"{s}\t{rng.normal() + k:.4f}\n" for k, s in enumerate("ABCD")
                                              for i in range(30)), encoding="utf-8")  # fmt: skip
    return {k: str(tmp / f"{k}.{'tsv' if k == 'human' else 'txt'}") for k in ("source", "corpus", "labels", "human",
                                                                              "m1", "m2", "docids")}  # fmt: skip


#: non-default values the declarations cannot give (names without choices, files), per command
def VALUES(f: dict[str, str]) -> dict[str, dict[str, object]]:  # noqa: N802 - a table, read like a constant
    return {
        "score": {},
        "compare": {"baseline": "base", "tests": ("bootstrap",)},
        "analyze": {"baseline": "base", "by": ("length-diff",), "cutoffs": {"ref-length": (10, 20)},
                    "freq_corpus": f["corpus"], "out_labels": {"new": f["labels"]}, "source": f["source"]},
        "human": {"protocol": "wmt22", "score_range": (-10, 20)},
        "meta": {"statistic": "spearman"},
    }  # fmt: skip


#: what a setting needs beside it to take effect (score's bootstrap settings: intervals, or runs)
WITH = {
    ("score", "ci_method"): {"ci": True},
    ("score", "confidence"): {"ci": True},
    ("score", "n_bootstrap"): {"ci": True},
    ("score", "seed"): {"ci": True},
    ("score", "resample_unit"): {"ci": True},
    ("meta", "average_by"): {"level": "segment"},
    ("meta", "test"): {"level": "segment", "statistic": "acc23"},
    ("human", "anytime"): {"protocol": "mtsig", "score_range": (-10, 20)},  # the scale of the synthetic TSV
    ("human", "sequence"): {"anytime": True, "score_range": (-10, 20)},
}


def _others(command: str, f, o, values) -> list[object]:
    if f.name in values:
        return [values[f.name]]
    if o.kind == "bool":
        return [not default_of(f)]
    choices = choices_of(o)
    if choices:
        return [c for c in choices if c != default_of(f)]
    if o.kind in ("int", "float"):  # a number within the declared range
        return _numbers(f, o)
    pytest.fail(f"{command}: give tests/test_declared_everywhere.py a non-default value of {f.name!r}")


def _numbers(f, o) -> list[object]:
    d, low, high = default_of(f), o.low, o.high
    if o.kind == "int":
        cands = [d + 1, d - 1] if d is not None else [int(low or 0) + 150]
    else:
        cands = [d / 2, (d + (high if high is not None else 2 * d + 1)) / 2]
    return [c for c in cands if (low is None or c >= low) and (high is None or c <= high) and c != d][:1]


def _run(command: str, files: dict[str, str], **settings):
    """The command's API on small inputs (the shipped example; synthetic judgments and metric scores)."""
    refs, systems = [str(EX / "ref.A.en")], {"base": str(EX / "base.en"), "new": str(EX / "new.en")}
    loading = {"docids": files["docids"]}
    if command == "score":
        return mtsig.score(refs, systems, **loading, **settings)
    if command == "compare":
        if "tests" in settings:
            settings["test"] = settings.pop("tests")
        runs = {s: ",".join(str(EX / "runs" / f"{s}.run{r}.en") for r in (1, 2, 3)) for s in ("base", "new")}
        return mtsig.compare(refs, runs if settings.get("paired_runs") else systems, **loading, **settings)
    if command == "analyze":
        settings.setdefault("by", ("ref-length",))
        settings.setdefault("n_resamples", 100)
        return mtsig.analyze(refs, systems, **loading, **settings)
    if command == "human":
        settings.setdefault("n_bootstrap", 100)
        return mtsig.human(files["human"], **settings)
    settings.setdefault("n_bootstrap", 100)
    settings.setdefault("n_resamples", 100)
    return mtsig.meta(human=files["human"], metrics={"m1": files["m1"], "m2": files["m2"]}, **settings)


@pytest.mark.parametrize("command", sorted(CLASSES))
def test_every_declared_setting_is_a_flag_of_the_command(command):
    parser = build_parser(command).commands[command]
    dests = {a.dest for a in parser._actions}
    missing = [f.name for f, o in declared(CLASSES[command]) if o.cli and o.kind != "any" and f.name not in dests]
    assert not missing, f"mtsig {command} has no flag for {missing}"


@pytest.mark.parametrize("command", sorted(CLASSES))
def test_every_declared_setting_is_a_keyword_of_the_api(command):
    keywords = set(inspect.signature(getattr(mtsig, command)).parameters)
    missing = [f.name for f in fields(CLASSES[command]) if KEYWORD.get((command, f.name), f.name) not in keywords]
    assert not missing, f"mtsig.{command}() has no keyword for {missing}"


def test_every_command_s_keywords_come_from_its_declaration():
    """The API functions' settings are generated from the declarations (nothing to write in the function for a new
    setting); the defaults the API shows differently: one test where the field holds a tuple, None for an empty
    mapping, None for the seed and test the data or 12345 decide."""
    from mtsig.humaneval import _HUMAN
    from mtsig.metaeval import _META

    api_default = {("compare", "tests"): "ar", ("analyze", "cutoffs"): None, ("analyze", "out_labels"): None,
                   ("human", "seed"): None, ("meta", "seed"): None, ("meta", "test"): None}  # fmt: skip
    for command, kw in (("score", _SCORE), ("compare", _COMPARE), ("analyze", _ANALYZE), ("human", _HUMAN),
                        ("meta", _META)):  # fmt: skip
        fn, cls = getattr(mtsig, command), CLASSES[command]
        params = inspect.signature(fn).parameters
        for f in fields(cls):
            p = params[kw.keyword(f.name)]
            assert p.kind is p.KEYWORD_ONLY
            assert p.default == api_default.get((command, f.name), default_of(f)), (command, f.name)
            assert f"\n{p.name}\n" in fn.__doc__, f.name  # described in help() (test_api_keywords: every one)


def test_the_analyze_settings_import_without_the_analyses():
    """The API's signature reads AnalyzeOptions at import: that must not import every analysis (start-up)."""
    import subprocess
    import sys

    code = "import sys, mtsig.api; print('mtsig.analysis.builtin' in sys.modules, 'mtsig.analysis.core' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(CLASSES))
def test_every_declared_setting_given_is_recorded(command, tmp_path):
    files = _files(tmp_path)
    values = VALUES(files)[command]
    base_settings = {}
    checked = 0
    for f, o in declared(CLASSES[command]):
        extra = WITH.get((command, f.name), {})
        key = json.dumps(extra, sort_keys=True)
        if key not in base_settings:
            base_settings[key] = _run(command, files, **extra).to_dict()["settings"]
        seen = []  # the settings recorded with each non-default value that these inputs allow
        for value in _others(command, f, o, values):
            try:
                seen.append(_run(command, files, **{**extra, f.name: value}).to_dict()["settings"])
            except InputError:  # a choice these inputs do not allow (resampling by domain without domains)
                continue
        assert seen, f"{command}: no non-default value of {f.name} ran"
        if o.record:  # (a value may be what the default chooses by itself here: one of them must show)
            assert any(got != base_settings[key] for got in seen), f"{command}: {f.name} is not recorded"
        else:  # changes no number: not recorded
            assert all(got == base_settings[key] for got in seen), f"{command}: {f.name} changes the settings"
        checked += 1
    assert checked == len(declared(CLASSES[command]))


@pytest.mark.parametrize("command", ["score", "stats", "compare", "analyze"])
def test_every_loading_setting_is_a_flag_and_a_keyword(command):
    """How texts are read (:class:`~mtsig.inputs.LoadOptions`) is declared once too: a flag of every command that
    reads texts, a keyword of every API function that does (analyze takes no development set)."""
    from mtsig.inputs import LoadOptions

    dests = {a.dest for a in build_parser(command).commands[command]._actions}
    assert not [f.name for f, o in declared(LoadOptions) if o.cli and f.name not in dests]
    if command != "stats":
        keywords = set(inspect.signature(getattr(mtsig, command)).parameters)
        skip = ("dev_refs", "dev_systems") if command == "analyze" else ()
        assert not [f.name for f in fields(LoadOptions) if f.name not in keywords and f.name not in skip]
