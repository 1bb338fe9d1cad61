"""One schema for every surface (:mod:`mtsig.surface`): each command's web form is made from the flags its module
declares. The tests walk every flag of every command the web app serves and find it in the form (or among the
flags no other surface offers, with the reason); they check that what names files is taken as a file, that the
choices are the registries', that a form's values make a command line the command line parses back to the same
values, that a value can never become a flag, and that a setting added to a command's declarations reaches its
form, its check and its command line with no other code."""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

import pytest

from mtsig.cli import parse
from mtsig.declare import Checked, option
from mtsig.errors import InputError
from mtsig.surface import PATH_KINDS, SERVED, argv_of, parser_of, schema

#: metavars that name files or folders: a flag with one of them must be a path field (or not offered)
PATHY = re.compile(r"^(FILE|DIR|REF|SYS|PATH|CONLLU|SPEC|NAME=FILE|FILE\.npz|KIND=FILE)")


@pytest.mark.parametrize("command", SERVED)
def test_every_flag_is_in_the_form_or_said_why_not(command):
    from mtsig.serve.forms import Picks, form_html

    sch = schema(command)
    page = form_html(sch, "t", Picks(("a.txt",), ("d",), False, "/data"))
    seen = set()
    for action in parser_of(command)._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        seen.add(action.dest)
        if action.dest in sch.off:
            assert len(sch.off[action.dest]) > 20, (action.dest, sch.off[action.dest])  # a reason, not a flag
            continue
        f = sch.by_dest(action.dest)
        assert f is not None, action.dest
        assert f'name="{f.name}"' in page or f'name="data_{f.name}"' in page or f"name={f.name}" in page, f.name
        if f.is_path and f.kind != "dir":
            assert f'name="data_{f.name}"' in page, f.name  # every file: an upload or a pick under --data
    assert seen == {f.dest for f in sch.fields} | set(sch.off)
    assert {"format", "output", "html", "plot"} <= set(sch.off)  # what writes files is never a form's


@pytest.mark.parametrize("command", SERVED)
def test_what_names_a_file_is_taken_as_a_file(command):
    sch = schema(command)
    for action in parser_of(command)._actions:
        meta = action.metavar if isinstance(action.metavar, str) else ""
        names = ("lower_is_better", "exclude", "ref")  # names of metrics, systems and references, not files
        if PATHY.match(meta or "") and action.dest not in sch.off and action.dest not in names:
            f = sch.by_dest(action.dest)
            assert f is not None and f.kind in PATH_KINDS, (action.dest, meta, f and f.kind)


def test_the_choices_are_the_registries():
    from mtsig.humaneval.protocols import PROTOCOLS
    from mtsig.metaeval.core import STATISTICS
    from mtsig.metrics import REGISTRY
    from mtsig.stats.multiple import CORRECTIONS
    from mtsig.stats.paired import PAIRED_TESTS

    compare = schema("compare")
    assert set(compare.field("test").choices) == set(PAIRED_TESTS)  # every registered test
    assert set(compare.field("correction").choices) == set(CORRECTIONS)
    assert set(compare.field("metrics").choices) == set(REGISTRY)
    assert set(schema("human").field("protocol").choices) == set(PROTOCOLS)
    assert "wmt24-signed" in schema("human").field("protocol").choices
    assert set(schema("meta").field("statistic").choices) == set(STATISTICS)
    for name in ("alpha", "n_resamples", "n_bootstrap", "seed", "confidence", "alternative", "resample_unit"):
        compare.field(name)  # the settings the old page left out


def _values_for(f) -> list[str] | None:
    """A non-default value of each kind of field, as a form sends it."""
    if f.kind == "bool":
        return ["1"]
    if f.kind == "choice":
        other = [c for c in f.choices if c != str(f.default)]
        return [other[0]] if other else None
    if f.kind == "choices":
        return [c for c in f.choices if c not in (f.default or ())][:2]
    if f.kind == "int":
        low = 1 if f.low is None else int(f.low) + (1 if f.open else 0)
        return [str(max(low, 3))]
    if f.kind == "float":
        if f.high is not None and f.high <= 1:
            return ["0.1"]
        return ["0.5"]
    if f.kind == "texts":
        return ["0 100"] if f.numbers else ["x y"]
    return ["value"]


@pytest.mark.parametrize("command", SERVED)
def test_a_form_s_values_are_the_command_line_s(command, tmp_path, monkeypatch):
    """Each field alone: the command line it makes parses back to the value the form gave."""
    monkeypatch.chdir(tmp_path)
    for name in ("a.txt", "b.txt"):  # files as the run's folder holds them (a file of scores is read to be named)
        (tmp_path / name).write_text("0.5\n0.25\n")
    sch = schema(command)
    bare = parse([command])
    for f in sch.fields:
        if f.is_path:
            paths = {f.name: ["a.txt", "b.txt"] if f.many else ["a.txt"]}
            argv = argv_of(sch, {}, paths)
            a = parse(argv)
            got = getattr(a, f.dest)
            want = paths[f.name]
            if f.kind == "named":
                assert [x.split("=", 1)[-1] for x in got] == want and all("=" in x for x in got), (f.name, got)
            else:
                assert (got if isinstance(got, list) else [got]) == want, (f.name, got)
            continue
        given = _values_for(f)
        if given is None:
            continue
        argv = argv_of(sch, {f.name: given}, {})
        a = parse(argv)
        got = getattr(a, f.dest)
        if f.kind == "bool":
            assert got != getattr(bare, f.dest), (f.name, got)  # the flag given: the value it stands for
        elif f.kind == "choices":
            assert list(got) == given, (f.name, got)
        elif f.kind == "texts":
            assert [str(x) for x in got] == ["x", "y"] or [float(x) for x in got] == [0, 100], (f.name, got)
        else:
            assert str(got) == given[0] or float(got) == float(given[0]), (f.name, got)


def test_a_value_never_becomes_a_flag():
    sch = schema("compare")
    for bad in ("--output=/etc/passwd", "-o x", "--html x"):
        with pytest.raises(InputError, match="starts with '-'"):
            argv_of(sch, {"baseline": [bad]}, {})
        with pytest.raises(InputError, match="starts with '-'"):
            argv_of(sch, {"ref_translator": ["refA " + bad]}, {})
    for bad in ("a\x00b", "a\nb", "x" * 5000):
        with pytest.raises(InputError):
            argv_of(sch, {"baseline": [bad]}, {})
    assert argv_of(sch, {"alpha": ["-0.5"]}, {})[-2:] == ["--alpha", "-0.5"]  # a number may be negative (the check
    # of the declaration refuses it, not the command line)
    with pytest.raises(InputError, match="no input"):
        argv_of(sch, {}, {"output": ["x"]})
    argv = argv_of(sch, {"baseline": ["two words"]}, {"ref": ["r f.txt"]})
    assert argv == ["compare", "-r", "r f.txt", "--baseline", "two words"]  # one value, however it is spelled


def test_a_setting_at_its_default_is_left_out_of_the_command_line():
    sch = schema("compare")
    assert argv_of(sch, {"metrics": ["bleu"], "test": ["ar"], "correction": ["holm"], "alpha": [""]}, {}) == ["compare"]
    assert argv_of(schema("human"), {"protocol": ["mtsig"]}, {"judgments": ["j.tsv"]}) == ["human", "j.tsv"]


def test_a_setting_added_to_compare_reaches_its_form_its_check_and_its_command_line(monkeypatch):
    """A declared setting added to compare (as a plugin or a later version would add one): no web code changes."""
    import mtsig.commands.compare as compare
    from mtsig.declare import add_flags, check_given
    from mtsig.serve.forms import Picks, form_html

    @dataclass(frozen=True, kw_only=True)
    class Extra(Checked):
        shrink: float = option(0.0, "shrink every difference towards zero by this share", "float", low=0, high=1,
                               group="tests", metavar="S")  # fmt: skip

    original = compare.add_args

    def add_args(p):
        original(p)
        add_flags(p, Extra)

    monkeypatch.setattr(compare, "add_args", add_args)
    sch = schema("compare")
    f = sch.field("shrink")
    assert (f.kind, f.group, f.low, f.high, f.default) == ("float", "tests", 0, 1, 0.0)
    page = form_html(sch, "t", Picks())
    assert 'name="shrink"' in page and "shrink every difference towards zero" in page
    argv = argv_of(sch, {"shrink": ["0.25"]}, {"ref": ["r.txt"]})
    assert argv[-2:] == ["--shrink", "0.25"]
    a = parse(argv)
    assert a.shrink == 0.25
    check_given(parser_of("compare"), a)
    with pytest.raises(InputError, match="shrink must be at least 0 and at most 1, got 2"):
        check_given(parser_of("compare"), parse(argv_of(sch, {"shrink": ["2"]}, {})))
