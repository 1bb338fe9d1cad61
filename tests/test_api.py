"""The Python API states its settings: keyword-only parameters with types (what editors and inspect show),
scipy.stats' names accepted beside mtsig's, misspellings named, and one comparison looked up by its pair."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import mtsig

EX = Path(__file__).resolve().parents[1] / "examples"
REFS = [str(EX / "ref.A.en"), str(EX / "ref.B.en")]
SYSTEMS = [f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"]


@pytest.fixture(scope="module")
def table():
    return mtsig.compute(REFS, SYSTEMS, ["bleu", "chrf"])


def test_the_signatures_list_every_setting():
    want = {
        mtsig.compare: {"test", "n_resamples", "seed", "baseline", "correction", "alpha", "alternative", "confidence",
                        "n_bootstrap", "keep_distributions", "confidence_level", "rng", "jobs", "stats"},
        mtsig.score: {"ci", "ci_method", "confidence", "n_bootstrap", "seed", "confidence_level", "rng", "stats"},
        mtsig.compute: {"allow_empty_refs", "jobs", "dev_refs", "dev_systems"},
    }  # fmt: skip
    for fn, names in want.items():
        params = inspect.signature(fn).parameters
        assert names <= set(params), (fn.__name__, names - set(params))
        for n in names:
            assert params[n].kind is inspect.Parameter.KEYWORD_ONLY and params[n].annotation != inspect._empty
            assert n in fn.__doc__, (fn.__name__, n)


def test_scipy_names_are_aliases(table):
    a = mtsig.compare(stats=table, test="paired-bootstrap", confidence=0.9, seed=3).to_dict()
    b = mtsig.compare(stats=table, test="paired-bootstrap", confidence_level=0.9, rng=3).to_dict()
    assert a == b and a["settings"]["seed"] == 3 and a["settings"]["confidence"] == 0.9
    s1 = mtsig.score(stats=table, ci=True, confidence_level=0.8, rng=np.int64(5)).to_dict()
    s2 = mtsig.score(stats=table, ci=True, confidence=0.8, seed=5).to_dict()
    assert s1 == s2


def test_alias_conflicts_and_generators_are_refused(table):
    with pytest.raises(mtsig.InputError, match="give seed or rng, not both"):
        mtsig.compare(stats=table, seed=1, rng=2)
    with pytest.raises(mtsig.InputError, match="give confidence or confidence_level, not both"):
        mtsig.score(stats=table, ci=True, confidence=0.9, confidence_level=0.8)
    with pytest.raises(mtsig.InputError, match="rng must be an integer seed here"):
        mtsig.compare(stats=table, rng=np.random.default_rng(1))


def test_misspelled_settings_are_named(table):
    with pytest.raises(mtsig.InputError, match="unknown option 'n_resample' \\(did you mean 'n_resamples'\\?\\)"):
        mtsig.compare(REFS, SYSTEMS, n_resample=100)
    with pytest.raises(mtsig.InputError, match="did you mean 'confidence_level'"):
        mtsig.score(REFS, SYSTEMS, confidence_levl=0.9)
    with pytest.raises(TypeError):  # positional settings are not taken
        mtsig.compare(REFS, SYSTEMS, ["bleu"], None, "ar")


def test_compare_result_get(table):
    res = mtsig.compare(stats=table, test=["ar", "ttest"], n_resamples=500)
    c = res.get("base", "new", metric="chrf", test="ttest")
    assert (c.metric, c.test, c.pair) == ("chrf", "ttest", ("base", "new"))
    assert c.result.pvalue == c.result.p_value
    assert res.get("base", "new", metric="bleu").test == "ar"  # the first test by default
    with pytest.raises(mtsig.InputError, match="give metric="):
        res.get("base", "new")
    with pytest.raises(mtsig.InputError, match=r"use get\('base', 'new'"):
        res.get("new", "base", metric="bleu")
    with pytest.raises(mtsig.InputError, match="unknown system 'nobody'"):
        res.get("base", "nobody", metric="bleu")


def test_test_result_is_built_by_keyword():
    from mtsig.results import TestResult

    with pytest.raises(TypeError):
        TestResult("ar", "bleu", "a", "b", 1.0, 2.0, 1.0, 0.5)
    r = TestResult(test="ar", metric="bleu", a="a", b="b", score_a=1.0, score_b=2.0, delta=1.0, p_value=0.5)
    assert r.to_dict()["p_value"] == 0.5 and r.pvalue == 0.5


def test_results_show_briefly_in_a_notebook():
    """Issue 27: repr of a result was a 719-character dataclass dump; notebooks had no table."""
    refs = [["a b c d", "e f g h", "x y z w"]]
    res = mtsig.compare(refs, {"x": refs[0], "<y>": ["a b c x", "e f g y", "x y z q"]}, test=["ttest"])
    assert (
        repr(res).startswith("<CompareResult 2 systems, metrics bleu, tests ttest: 1 comparisons")
        and len(repr(res)) < 200
    )
    html = res._repr_html_()
    assert html.startswith("<table>") and "&lt;y&gt;" in html and "<y>" not in html
    sc = mtsig.score(refs, {"x": refs[0]})
    assert repr(sc) == "<ScoreResult x: bleu 100.00>" and "<td>bleu</td>" in sc._repr_html_()
