"""Metrics declare their options once: the API refuses misspelled keywords, the command line's flags are
generated from the declarations (plugins included), signatures are pure functions of the configuration."""

from __future__ import annotations

import pytest

import mtsig
from mtsig.cli import build_parser, main
from mtsig.metrics import REGISTRY, Option, all_options
from mtsig.metrics.base import Metric

REF = ["the cat sat on the mat", "a dog ran"]
HYP = ["the cat sat on a mat", "a dog ran away"]


def test_misspelled_option_in_the_api_is_an_error_naming_the_valid_ones():
    with pytest.raises(mtsig.InputError) as e:
        mtsig.compute([REF], {"x": HYP}, ["bleu"], bleu_ordr=2)
    msg = str(e.value)
    assert "unknown option 'bleu_ordr' (did you mean 'bleu_order'?)" in msg
    assert "bleu_order" in msg.split("valid options are:")[1] and "\n" not in msg
    with pytest.raises(mtsig.InputError, match="unknown option 'tests' \\(did you mean 'test'\\?\\)"):
        mtsig.compare([REF], {"x": HYP, "y": REF}, tests=["ttest"])
    with pytest.raises(mtsig.InputError, match="unknown option 'n_boostrap'"):
        mtsig.score([REF], {"x": HYP}, n_boostrap=10)
    # a valid option of another metric is accepted (one set of options serves several metrics)
    assert mtsig.compute([REF], {"x": HYP}, ["bleu"], nist_order=3).metrics["bleu"].config["bleu_order"] == 4
    assert mtsig.compute([REF], {"x": HYP}, ["bleu"], bleu_order=2).metrics["bleu"].config["bleu_order"] == 2


def test_misspelled_flag_on_the_command_line_is_one_line(tmp_path, capsys):
    (tmp_path / "r").write_text("\n".join(REF) + "\n")
    (tmp_path / "h").write_text("\n".join(HYP) + "\n")
    with pytest.raises(SystemExit) as e:
        main(["score", "-r", str(tmp_path / "r"), "-s", str(tmp_path / "h"), "--bleu-ordr", "2"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("mtsig: error: unrecognized arguments: --bleu-ordr 2 (did you mean --bleu-order?)")
    assert err.count("\n") == 1 and len(err) < 160  # one short line: not the list of every metric flag


def test_every_declared_option_has_a_flag_with_its_help():
    help_text = build_parser().commands["score"].format_help()
    for name, opt in all_options().items():
        assert opt.flag_for(name) in help_text, name
    assert "--depf-unlabeled" in help_text and "--seg-scores" in help_text and "--parses-ref" in help_text


class _Plugin(Metric):
    name = "plugmetric"
    description = "a test plugin: share of segments with a hypothesis longer than --plug-min-words"
    options = {"plug_min_words": Option(3, "plugmetric: minimum words")}

    @property
    def stat_names(self):
        return ["long", "count"]

    def _stats(self, hyp):
        import numpy as np

        k = int(self.config["plug_min_words"])
        return np.array([[float(len(h.split()) >= k), 1.0] for h in hyp.lines])

    def score(self, totals):
        return 100 * totals[..., 0] / totals[..., 1]


def test_plugin_options_become_flags_and_reach_the_metric(tmp_path, capsys):
    mtsig.metrics.register_metric(_Plugin)
    try:
        help_text = build_parser().commands["score"].format_help()
        assert "--plug-min-words" in help_text and "plugmetric: minimum words" in help_text
        (tmp_path / "r").write_text("\n".join(REF) + "\n")
        (tmp_path / "h").write_text("\n".join(HYP) + "\n")
        args = ["score", "-r", str(tmp_path / "r"), "-s", str(tmp_path / "h"), "-m", "plugmetric", "-f", "json"]
        assert main([*args, "--plug-min-words", "5"]) == 0
        out = capsys.readouterr().out
        assert '"score": 50.0' in out  # only "the cat sat on a mat" has 5 words or more
        assert main(args) == 0
        assert '"score": 100.0' in capsys.readouterr().out  # default 3: both
    finally:
        REGISTRY.pop("plugmetric", None)


def test_signature_is_a_pure_function_of_configuration_and_reference_count():
    m = mtsig.get_metric("bleu", bleu_order=2, lowercase=True)
    s1 = m.signature_for(2)
    assert s1 == mtsig.get_metric("bleu", bleu_order=2, lowercase=True).signature_for(2)
    assert "n:2|tok:13a|case:lc|smooth:exp|nrefs:2" in s1
    assert m.signature_for(None) == s1.replace("|nrefs:2", "")
    m.prepare([REF])
    assert m.signature == m.signature_for(1)
    assert "nrefs" not in mtsig.get_metric("seg", seg_name="comet").signature_for(3)


def test_display_hints_live_on_the_metric():
    assert REGISTRY["nist"].decimals == 4 and REGISTRY["bleu"].decimals == 2
    res = mtsig.score([REF], {"x": HYP}, ["bleu", "nist"])
    assert res.decimals == {"bleu": 2, "nist": 4}
