"""Each setting declared once (mtsig.declare): the flags, the API's checks and signatures and the recorded
settings agree with the declaration, for every command whose settings are a declared class."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import mtsig
from mtsig.analysis.options import AnalyzeOptions
from mtsig.cli import build_parser
from mtsig.declare import declared, default_of, flag_of, given
from mtsig.engine import CompareOptions, Decisions, ScoreOptions
from mtsig.errors import InputError
from mtsig.humaneval.protocols import HumanOptions
from mtsig.metaeval.core import MetaOptions

#: command -> (its settings class, its API function, API keyword of a field where the names differ)
COMMANDS = {
    "score": (ScoreOptions, "score", {}),
    "compare": (CompareOptions, "compare", {"tests": "test"}),
    "analyze": (AnalyzeOptions, "analyze", {}),
    "human": (HumanOptions, "human", {}),
    "meta": (MetaOptions, "meta", {}),
}
#: API keywords whose None means "the command chooses" (the seed: 12345, reported; meta's test: the level's)
CHOSEN = {"seed", "test"}


def _actions(command: str) -> dict[str, object]:
    sub = build_parser(command)._subparsers._group_actions[0].choices[command]
    return {a.dest: a for a in sub._actions}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_declared_setting_is_a_flag_and_a_keyword_with_the_declared_default(command):
    cls, fn, renamed = COMMANDS[command]
    actions = _actions(command)
    params = inspect.signature(getattr(mtsig, fn)).parameters
    for f, o in declared(cls):
        keyword = renamed.get(f.name, f.name)
        assert keyword in params, (command, f.name)
        if keyword == f.name:  # the API's default is the declared one (None for an empty mapping)
            empty = o.kind == "any" and default_of(f) == {} and params[keyword].default is None
            seed = f.name in CHOSEN and params[keyword].default is None
            assert empty or seed or params[keyword].default == default_of(f), (command, f.name)
        if o.cli and o.kind != "any":
            a = actions[f.name]
            assert flag_of(f.name, o) in a.option_strings, (command, f.name)
            assert a.help.startswith(o.help)


def test_human_flags_give_the_api_the_same_settings():
    a = build_parser("human").parse_args(["human", "f.tsv", "--test", "paired-bootstrap", "--n-bootstrap", "500",
                                          "--seed", "3", "--min-common", "4", "--segments"])  # fmt: skip
    opts = HumanOptions(**given(HumanOptions, a))
    assert (opts.test, opts.n_bootstrap, opts.seed, opts.min_common, opts.segments) == ("paired-bootstrap", 500, 3, 4,
                                                                                         True)  # fmt: skip
    assert HumanOptions(**given(HumanOptions, build_parser("human").parse_args(["human"]))) == HumanOptions()
    with pytest.raises(InputError) as e:
        HumanOptions(correction="maxt")
    assert e.value.param == "correction"
    with pytest.raises(InputError) as e:
        HumanOptions(min_common=0.5)
    assert e.value.param == "min_common"


@pytest.mark.parametrize("command", ["score", "compare", "analyze"])
def test_the_command_line_gives_the_api_the_same_settings(command):
    """Every flag parsed and handed on by name: the options built from the flags equal the ones the API builds."""
    cls, _, _ = COMMANDS[command]
    argv = [command, "-r", "r", "-s", "s", "--seed", "7", "--alpha", "0.01", "--resample-unit", "document"]
    argv += {"score": ["--ci", "--ci-method", "bca", "--n-bootstrap", "500"],
             "compare": ["--test", "ar", "bootstrap", "--paired-runs", "--n-resamples", "300", "-b", "A"],
             "analyze": ["--by", "ref-length", "--top", "3", "--ngram-order", "2", "--test", "ttest"],
             }[command]  # fmt: skip
    argv = [x for x in argv if not (command == "score" and x in ("--alpha", "0.01"))]
    a = build_parser(command).parse_args(argv)
    opts = cls(**given(cls, a))
    assert opts.seed == 7 and opts.resample_unit == "document"
    if command == "score":
        assert (opts.ci, opts.ci_method, opts.n_bootstrap) == (True, "bca", 500)
    if command == "compare":
        assert opts.tests == ("ar", "bootstrap") and opts.paired_runs and opts.n_resamples == 300
        assert opts.baseline == "A" and opts.alpha == 0.01
    if command == "analyze":
        assert [s.kind for s in opts.by] == ["ref-length"] and (opts.top, opts.ngram_order, opts.test) == (
            3,
            2,
            "ttest",
        )
    # a flag not given leaves the declared default
    assert cls(**given(cls, build_parser(command).parse_args([command]))) == cls()


@pytest.mark.parametrize(
    "call, param",
    [
        (lambda: CompareOptions(alpha="0.05"), "alpha"),
        (lambda: CompareOptions(n_bootstrap="100"), "n_bootstrap"),
        (lambda: CompareOptions(n_bootstrap=1000.5), "n_bootstrap"),
        (lambda: CompareOptions(confidence=1.0), "confidence"),
        (lambda: CompareOptions(paired_runs="yes"), "paired_runs"),
        (lambda: CompareOptions(seed=-3), "seed"),
        (lambda: CompareOptions(alpha=None), "alpha"),
        (lambda: ScoreOptions(ci=1), "ci"),
        (lambda: ScoreOptions(n_bootstrap=0), "n_bootstrap"),
        (lambda: AnalyzeOptions(top=2.5), "top"),
        (lambda: AnalyzeOptions(ngram_alpha=float("inf")), "ngram_alpha"),
        (lambda: AnalyzeOptions(ngram_order=10), "ngram_order"),
    ],
)
def test_a_bad_value_is_one_input_error_naming_its_parameter(call, param):
    with pytest.raises(InputError) as e:
        call()
    assert e.value.param == param and param in str(e.value)


def test_bad_values_through_the_api_entry_points():
    refs = [["a b c d"] * 3]
    systems = {"A": ["a b c d"] * 3, "B": ["a b c"] * 3}
    for kw, param in (({"alpha": "0.05"}, "alpha"), ({"n_bootstrap": 1000.5}, "n_bootstrap")):
        with pytest.raises(InputError) as e:
            mtsig.compare(refs, systems, **kw)
        assert e.value.param == param
    with pytest.raises(InputError) as e:
        mtsig.analyze(refs, systems, top=2.5)
    assert e.value.param == "top"


def test_analyze_inherits_compare_settings_and_passes_them_on_by_name():
    shared = {f.name for f in dataclasses.fields(Decisions)}
    assert shared <= {f.name for f in dataclasses.fields(AnalyzeOptions)}
    assert shared <= {f.name for f in dataclasses.fields(CompareOptions)}
    from mtsig.analysis.context import bucket_compare_options

    class Ctx:
        opts = AnalyzeOptions(alpha=0.01, confidence=0.9, n_bootstrap=300, alternative="greater", baseline="A")

    c = bucket_compare_options(Ctx())
    assert (c.alpha, c.confidence, c.n_bootstrap, c.alternative, c.baseline) == (0.01, 0.9, 300, "greater", "A")
    assert c.correction == "none"  # the analysis corrects over its buckets itself


@pytest.mark.parametrize("command", ["score", "compare", "analyze", "human", "meta"])
def test_the_seed_flag_is_one_declaration(command):
    """--seed's help is the one declared in mtsig.declare.seed_option, in every command."""
    from mtsig.declare import seed_option

    assert _actions(command)["seed"].help == seed_option().metadata["opt"].help


def test_study_is_an_api_function_with_the_command_s_json(tmp_path, capsys):
    """``mtsig.study(name, ...)`` gives the JSON of ``mtsig study NAME`` with the same settings; an unknown
    setting is one InputError naming the study's."""
    import json

    from mtsig.cli import main

    ref = [f"sentence {i} about the cat on the mat" for i in range(60)]
    outs = {
        "A": [f"sentence {i} about a cat on the mat" for i in range(60)],
        "B": [f"sentence {i} about the cat on the mat" if i % 4 else f"sentence {i} on a mat" for i in range(60)],
        "C": [f"sentence {i} about the cat on a mat" for i in range(60)],
    }
    files = {}
    for name, lines in {"ref": ref, **outs}.items():
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    design = {"replicates": 20, "n_resamples": 200, "n_bootstrap": 100, "seed": 5}
    res = mtsig.study("type1", [str(files["ref"])], [f"{n}={files[n]}" for n in outs], design=design)
    argv = ["study", "type1", "-r", str(files["ref"]), "-s", *[f"{n}={files[n]}" for n in outs], "-f", "json",
            "--replicates", "20", "--n-resamples", "200", "--n-bootstrap", "100", "--seed", "5", "-j", "1"]  # fmt: skip
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(res.to_dict()))
    with pytest.raises(InputError) as e:
        mtsig.study("type1", [ref], outs, design={"replicate": 3})
    assert e.value.param == "design" and "replicates" in str(e.value)
