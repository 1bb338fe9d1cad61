"""One-sided alternatives in the metric's own direction (issue 29, item 3): ``greater`` is "B is better than A",
which for TER (lower is better) is a lower TER. Checked for every test kind, for both directions, with optimizer
runs, through compare and paired_test; a metric best at a target value (length) has no one-sided test."""

from __future__ import annotations

import pytest

import mtsig
from mtsig.errors import InputError
from tests.data import multeval_ref, multeval_runs, wmt_hyp, wmt_ref

TESTS = ["ar", "bootstrap", "paired-bootstrap", "ttest", "wilcoxon"]


@pytest.fixture(scope="module")
def stats(wmt):
    # LT22 is worse than PROMT under both metrics: lower BLEU, higher TER
    return mtsig.compute([wmt_ref(wmt, "A")], {"PROMT": wmt_hyp(wmt, "PROMT"), "LT22": wmt_hyp(wmt, "LT22")},
                         ["bleu", "ter"])  # fmt: skip


def _p(res, metric, test):
    return res.get("PROMT", "LT22", metric=metric, test=test).result.p_value


@pytest.mark.parametrize("metric", ["bleu", "ter"])
def test_greater_means_b_better_in_the_metrics_direction(stats, metric):
    worse = mtsig.compare(stats=stats, baseline="PROMT", test=TESTS, alternative="greater", n_resamples=2000)
    better = mtsig.compare(stats=stats, baseline="PROMT", test=TESTS, alternative="less", n_resamples=2000)
    for t in TESTS:
        assert _p(worse, metric, t) > 0.5, t  # "LT22 is better than PROMT": no evidence for it
        assert _p(better, metric, t) < 0.01, t  # "LT22 is worse than PROMT": strong evidence
        c = worse.get("PROMT", "LT22", metric=metric, test=t)
        assert c.result.alternative == "greater"
        assert c.result.extra["h1"] == ("delta > 0" if metric == "bleu" else "delta < 0")
    d = better.get("PROMT", "LT22", metric=metric).result.delta
    assert (d < 0) == (metric == "bleu")  # the raw delta keeps its sign: LT22 - PROMT


def test_paired_test_in_the_metrics_direction(stats):
    from mtsig.stats.paired import paired_test

    ter = stats.metrics["ter"]
    a, b = stats.stats["ter"]["PROMT"][0], stats.stats["ter"]["LT22"][0]
    assert paired_test("ar", a, b, ter, alternative="greater").p_value > 0.5
    assert paired_test("ar", a, b, ter, alternative="less").p_value < 0.01


def test_runs_tests_in_the_metrics_direction(multeval):
    sys = [multeval_runs(multeval, "baseline"), multeval_runs(multeval, "sys1")]
    t = mtsig.compute([multeval_ref(multeval)], sys, ["bleu", "ter"], tokenize="none")
    for test in ("ar", "stratified-ar"):
        two = mtsig.compare(stats=t, test=test, n_resamples=2000)
        for metric in ("bleu", "ter"):
            c = two.get("baseline", "sys1", metric=metric)
            better = (c.result.delta > 0) == (metric == "bleu")  # is sys1 better than the baseline?
            one = mtsig.compare(stats=t, test=test, n_resamples=2000, alternative="greater" if better else "less")
            other = mtsig.compare(stats=t, test=test, n_resamples=2000, alternative="less" if better else "greater")
            p_right = one.get("baseline", "sys1", metric=metric).result.p_value
            p_wrong = other.get("baseline", "sys1", metric=metric).result.p_value
            assert p_right <= c.result.p_value
            assert p_wrong > 0.5, (test, metric)


def test_length_has_no_one_sided_test(stats, wmt):
    t = mtsig.compute([wmt_ref(wmt, "A")], {"PROMT": wmt_hyp(wmt, "PROMT"), "LT22": wmt_hyp(wmt, "LT22")},
                      ["length"])  # fmt: skip
    with pytest.raises(InputError, match="length is best at 100: 'B better than A' is not a direction"):
        mtsig.compare(stats=t, alternative="greater")
    assert mtsig.compare(stats=t).comparisons[0].result.p_value <= 1
