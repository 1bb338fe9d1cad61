"""Settings given with the wrong type get one clear InputError naming the setting, not a TypeError from deep inside
(issue 46's list), and a setting that changes a number is recorded with the result."""

from __future__ import annotations

import pytest

import mtsig
from mtsig.errors import InputError
from tests.data import MULTEVAL, multeval_ref, need


def _two():
    d = need(MULTEVAL)
    runs = {s: sorted(str(p) for p in d.glob(f"hyps.lc.tok.en.{s}.opt*")) for s in ("baseline", "sys1")}
    return multeval_ref(d), runs


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"alpha": "0.05"}, "alpha must be a number"),
        ({"alpha": 1.5}, "alpha must lie strictly between"),
        ({"n_bootstrap": "100"}, "n_bootstrap must be a whole number"),
        ({"n_bootstrap": 1000.5}, "n_bootstrap must be a whole number"),
        ({"confidence": "0.9"}, "confidence must be a number"),
    ],
)
def test_compare_settings_of_the_wrong_type(kw, message):
    ref, runs = _two()
    with pytest.raises(InputError, match=message):
        mtsig.compare(ref, {s: r[0] for s, r in runs.items()}, **kw)


def test_analyze_top_must_be_whole():
    ref, runs = _two()
    with pytest.raises(InputError, match="top must be a whole number"):
        mtsig.analyze(ref, {s: r[0] for s, r in runs.items()}, top=2.5)


def test_paired_runs_is_recorded():
    ref, runs = _two()
    spec = [f"{s}={','.join(r)}" for s, r in runs.items()]
    paired = mtsig.compare(ref, spec, paired_runs=True, n_resamples=200, n_bootstrap=100).to_dict()["settings"]
    unpaired = mtsig.compare(ref, spec, n_resamples=200, n_bootstrap=100).to_dict()["settings"]
    assert paired["paired_runs"] is True and "paired_runs" not in unpaired


def test_a_plugins_extra_cannot_overwrite_a_field():
    from mtsig.results import TestResult

    r = TestResult(test="mine", metric="bleu", a="A", b="B", score_a=1.0, score_b=2.0, delta=1.0, p_value=0.03,
                   extra={"p_value": 0.9, "eps_min": 0.2})  # fmt: skip
    d = r.to_dict()
    assert d["p_value"] == 0.03 and d["eps_min"] == 0.2 and d["extra"] == {"p_value": 0.9}
    assert "extra" not in TestResult(test="ar", metric="bleu", a="A", b="B", score_a=1.0, score_b=2.0, delta=1.0,
                                     p_value=0.5).to_dict()  # fmt: skip


def test_settings_and_study_designs_are_keyword_only():
    """Issue 46: settings built by position silently shift when a field is added; every settings class and study
    design takes keywords only."""
    from mtsig.results import CompareSettings, ScoreSettings
    from mtsig.studies import clark, documents, koehn, riezler

    classes = [ScoreSettings, CompareSettings, clark.RunsDesign, clark.PowerDesign, documents.UnitsDesign,
               koehn.SamplingDesign, koehn.CoverageDesign, koehn.LevelsDesign, koehn.TestsizeDesign,
               riezler.Type1Design, riezler.MultiplicityDesign, riezler.SensitivityDesign]  # fmt: skip
    for cls in classes:
        with pytest.raises(TypeError, match="positional"):
            cls(1)
    assert ScoreSettings(n_bootstrap=5).n_bootstrap == 5


def test_meta_refuses_a_segment_level_averaging_at_system_level():
    """It would be ignored (system-level statistics have one value over the systems): said, not silently dropped."""
    from mtsig.metaeval.core import MetaOptions

    with pytest.raises(InputError, match="average_by none applies at segment level"):
        MetaOptions(level="system", average_by="none")
    assert MetaOptions(level="segment", average_by="none").average_by == "none"
