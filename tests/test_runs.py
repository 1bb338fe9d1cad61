"""Optimizer instability (Clark et al. 2011) on MultEval's own example: parity, stratified randomization,
calibration under the null, unequal runs, s_dev, median run and the ranking files."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

import mtsig
from mtsig.cli import main
from mtsig.report.ranking import rank_segments
from mtsig.results import compare_table
from mtsig.stats.runs import median_run, partitions, stratified_ar_counts

S_SEL = {
    ("bleu", "baseline"): 0.2636,
    ("bleu", "sys1"): 0.2630,
    ("length", "baseline"): 0.3598,
    ("length", "sys1"): 0.3477,
}  # EXPECTED-multeval.txt (bootstrap figures, +-0.01)


@pytest.fixture(scope="module")
def me_table(multeval):
    refs = [str(multeval / "refs.test2010.lc.tok.en.0")]
    systems = [f"{s}={multeval}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1", "sys2")]
    return mtsig.compute(refs, systems, ["bleu", "length", "nist", "mbleu"], tokenize="none")


@pytest.fixture(scope="module")
def me_compare(me_table):
    return compare_table(
        me_table.select(["bleu", "length"]), ["ar"], baseline="baseline", n_resamples=10_000, n_bootstrap=10_000, seed=1
    )


def test_s_sel_within_001_of_multeval(me_compare):
    by = {s["name"]: s["scores"] for s in me_compare.systems}
    for (m, sys), exp in S_SEL.items():
        got = by[sys][m]["s_sel"]
        assert abs(got - exp) <= 0.01, (m, sys, got, exp)
    assert by["sys1"]["bleu"]["runs"][0] == pytest.approx(18.986909, abs=5e-7)


def test_identical_system_gets_p_one_for_every_metric(me_table):
    res = compare_table(me_table, ["ar"], baseline="baseline", n_resamples=2000, seed=2)
    rows = [c for c in res.comparisons if c["b"] == "sys2"]
    assert len(rows) == 4
    assert all(c["p_value"] == 1.0 and c["delta"] == 0.0 and c["stratified"] for c in rows)


def test_sys1_better_than_baseline_on_bleu(me_compare):
    c = next(c for c in me_compare.comparisons if c["b"] == "sys1" and c["metric"] == "bleu")
    assert c["p_value"] < 0.01
    assert c["delta_ci"][0] > 0


@pytest.mark.slow
def test_calibration_of_stratified_randomization_under_the_null(me_table, capsys):
    """Per segment, the six outputs of baseline and sys1 runs are split at random into two pseudo-systems
    of three runs: the null holds by construction."""
    m = me_table.metrics["bleu"]
    X = np.concatenate([me_table.stats["bleu"]["baseline"], me_table.stats["bleu"]["sys1"]], axis=0)  # (6, N, d)
    rng = np.random.default_rng(11)
    reps, rejected = 250, 0
    N = X.shape[1]
    for i in range(reps):
        perm = np.argsort(rng.random((N, 6)), axis=1)
        P = X[perm.T, np.arange(N)[None, :]]  # (6, N, d), runs permuted within each segment
        c = stratified_ar_counts({"a": P[:3], "b": P[3:]}, m, [("a", "b")], 500, seed=i)[("a", "b")]
        rejected += (c + 1) / 501 <= 0.05
    rate = rejected / reps
    with capsys.disabled():
        print(f"\nstratified AR null rejection rate at 0.05 over {reps} pseudo-system pairs: {rate:.3f}")
    assert 0.02 <= rate <= 0.08


def test_partitions_are_true_permutations():
    for m, k in ((6, 3), (5, 2), (2, 1), (4, 1)):
        W = np.concatenate(list(partitions(50, m, k, 600, seed=3, key=m * 1000 + k, chunk_bytes=10_000)))
        M = W.reshape(600, 50, m)
        assert np.all(M.sum(axis=2) == k)  # every segment: exactly k of its m items in group one
        assert np.allclose(M.mean(axis=(0, 1)), k / m, atol=0.03)  # each item equally likely
    a = np.concatenate(list(partitions(40, 6, 3, 300, 5, 6003, chunk_bytes=4_000)))
    b = np.concatenate(list(partitions(40, 6, 3, 300, 5, 6003, chunk_bytes=10**8)))
    np.testing.assert_array_equal(a, b)  # chunk size does not change the draws


def test_unequal_run_counts(me_table):
    two = me_table.stats["bleu"]["sys1"][:2]
    three = me_table.stats["bleu"]["baseline"]
    m = me_table.metrics["bleu"]
    c1 = stratified_ar_counts({"a": three, "b": two}, m, [("a", "b")], 1000, seed=4)[("a", "b")]
    c2 = stratified_ar_counts({"a": two, "b": three}, m, [("a", "b")], 1000, seed=4)[("a", "b")]
    assert 0 <= c1 <= 1000 and 0 <= c2 <= 1000
    # a system whose 2 runs are 2 of the baseline's 3 runs, pooled, differs little: not significant
    same = stratified_ar_counts({"a": three, "b": three[:2]}, m, [("a", "b")], 1000, seed=4)[("a", "b")]
    assert (same + 1) / 1001 > 0.05


def test_s_dev_from_development_runs(multeval):
    # the test set doubles as "development set" here, so s_dev must equal s_test exactly
    refs = [str(multeval / "refs.test2010.lc.tok.en.0")]
    systems = [f"{s}={multeval}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1")]
    res = mtsig.score(refs, systems, ["bleu"], tokenize="none", dev_refs=refs, dev_systems=systems)
    for s in res.systems:
        e = s["scores"]["bleu"]
        assert e["s_dev"] == pytest.approx(e["s_test"], abs=1e-12)
        assert e["dev_runs"] == e["runs"]
    with pytest.raises(mtsig.InputError, match="3 test run\\(s\\) but 2 development run"):
        mtsig.score(
            refs,
            systems,
            ["bleu"],
            tokenize="none",
            dev_refs=refs,
            dev_systems=[
                f"baseline={multeval}/hyps.lc.tok.en.baseline.opt0,{multeval}/hyps.lc.tok.en.baseline.opt1",
                systems[1],
            ],
        )


def test_median_run_respects_direction():
    scores = np.array([18.5, 18.4, 18.6])
    assert median_run(scores, True) == 0
    assert median_run(np.array([65.5, 65.9, 65.6]), False) == 2  # TER-like: 65.5 < 65.6 < 65.9
    assert median_run(np.array([1.0, 4.0, 3.0, 2.0]), True) == 2  # even: the better middle run
    order, imp = rank_segments(np.array([10.0, 50.0, 30.0]), np.array([20.0, 20.0, 20.0]), True)
    assert list(order) == [1, 2, 0] and list(imp) == [-10.0, 30.0, 10.0]
    order, imp = rank_segments(np.array([10.0, 50.0, 30.0]), np.array([20.0, 20.0, 20.0]), False)
    assert list(order) == [0, 2, 1] and list(imp) == [10.0, -30.0, -10.0]


def test_rank_dir_files(multeval, tmp_path, capsys):
    refs = [str(multeval / "refs.test2010.lc.tok.en.0")]
    systems = [f"{s}={multeval}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1")]
    rc = main(
        [
            "compare",
            "-r",
            *refs,
            "-s",
            *systems,
            "-m",
            "bleu",
            "--tokenize",
            "none",
            "-b",
            "baseline",
            "--n-resamples",
            "200",
            "--rank-dir",
            str(tmp_path),
            "-f",
            "json",
        ]
    )
    assert rc == 0
    with open(tmp_path / "bleu.sys1.tsv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    assert rows[0][:3] == ["rank", "segment", "improvement"] and "opt2" in rows[0][5]  # sys1's median run
    imps = [float(r[2]) for r in rows[1:]]
    assert len(imps) == 2489 and imps == sorted(imps, reverse=True)
    assert all(math.isclose(float(r[2]), float(r[3]) - float(r[4]), abs_tol=2e-4) for r in rows[1:50])


def test_runs_table_and_json_shape(me_compare):
    from mtsig.report.render import render_compare

    d = me_compare.to_dict()
    e = d["systems"][1]["scores"]["bleu"]
    assert set(e) >= {"mean", "s_sel", "s_test", "s_dev", "runs"}
    text = render_compare(me_compare, "text")
    assert "BLEU ↑ (s_sel/s_test/p)" in text and "18.81 (0.26/0.29/0.00)" in text
    tex = render_compare(me_compare, "latex")
    assert "\\toprule" in tex and "$\\uparrow$" in tex and "s\\_sel: standard deviation" in tex


def test_other_tests_with_runs_are_refused(me_table):
    with pytest.raises(mtsig.InputError, match="only the stratified approximate randomization"):
        compare_table(me_table, ["ar", "ttest"], baseline="baseline")
