"""The API's keywords are documented once, on the options they set, and cannot drift from them."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import mtsig
from mtsig.analysis import AnalyzeOptions
from mtsig.docfields import document, field_defaults, setting
from mtsig.engine import CompareOptions, ScoreOptions
from mtsig.errors import InputError
from mtsig.inputs import LoadOptions

#: each entry point, the options objects its keywords set, and keywords spelled differently there
ENTRY_POINTS = {
    "compute": ((LoadOptions,), {}),
    "score": ((ScoreOptions, LoadOptions), {}),
    "compare": ((CompareOptions, LoadOptions), {"test": "tests"}),
    "analyze": ((AnalyzeOptions, LoadOptions), {}),
}
#: None in a signature where the options object holds an empty mapping
EMPTY = {"cutoffs": {}, "out_labels": {}}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_every_keyword_is_documented_in_help(name):
    fn = getattr(mtsig, name)
    doc = fn.__doc__
    assert "{parameters}" not in doc
    section = doc.split("Parameters\n----------\n", 1)[1]
    section = section.split("\n\n")[0]  # up to the first blank line: the parameters
    listed = {n.strip().lstrip("*") for line in section.splitlines() if line and not line.startswith(" ")
              for n in line.split(",")}  # fmt: skip
    assert set(inspect.signature(fn).parameters) == listed


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_signature_defaults_are_the_options_defaults(name):
    classes, renamed = ENTRY_POINTS[name]
    defaults = field_defaults(*classes)
    checked = 0
    for p in inspect.signature(getattr(mtsig, name)).parameters.values():
        key = renamed.get(p.name, p.name)
        if key not in defaults:
            continue
        default = EMPTY.get(p.name, p.default) if p.default is None else p.default
        if key == "tests":
            default = (default,)
        assert default == defaults[key], (name, p.name)
        checked += 1
    assert checked >= len(dataclasses.fields(classes[0])) - 1


@pytest.mark.parametrize("cls", [ScoreOptions, CompareOptions, AnalyzeOptions, LoadOptions])
def test_options_are_keyword_only_and_described(cls):
    with pytest.raises(TypeError):
        cls("x")
    assert all(f.metadata.get("doc") for f in dataclasses.fields(cls)), cls


def test_a_keyword_without_a_description_fails_at_definition():
    def f(*, a: int = 1, b: int = 2):
        """Doc.

        {parameters}
        """

    with pytest.raises(TypeError, match="parameter b has no description"):
        document(f, {"a": "The a."})
    document(f, {"a": "The a.", "b": "The b."})
    assert "a\n    The a.\nb\n    The b." in f.__doc__
    assert dataclasses.field  # the helper builds ordinary fields
    assert setting(3, "x").default == 3


def test_load_options_check_themselves():
    with pytest.raises(InputError, match="dev_refs"):
        LoadOptions(dev_refs=["r"])
    with pytest.raises(InputError, match="langpair goes with a test set"):
        LoadOptions(langpair="de-en")
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InputError, match="jobs"):
            LoadOptions(jobs=bad)
    assert LoadOptions(jobs=2).given() == {"jobs": 2}
    assert LoadOptions(jobs=2, docids="d.txt", allow_empty_refs=True).for_dev() == LoadOptions(
        jobs=2, allow_empty_refs=True
    )
