"""Optimizer instability (Clark et al. 2011) on MultEval's own example: parity, stratified randomization,
calibration under the null, unequal runs, s_dev, median run and the ranking files."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mtsig
from mtsig.cli import main
from mtsig.engine import CompareOptions, compare_table
from mtsig.metrics import get_metric
from mtsig.report.ranking import rank_segments
from mtsig.resample import Resampling
from mtsig.stats.engines import stratified_ar_many
from mtsig.stats.runs import median_run
from mtsig.studies import permuted_runs, rejection_rate


def _strat_p(A, B, metric, n: int, seed: int) -> float:
    c = stratified_ar_many({0: (metric, A, B)}, Resampling(n, seed))[0]
    return (c + 1) / (n + 1)


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
    opts = CompareOptions(tests=("ar", "stratified-ar"), baseline="baseline", n_bootstrap=10_000)
    return compare_table(me_table.select(["bleu", "length"]), opts, Resampling(10_000, 1))


def test_s_sel_within_001_of_multeval(me_compare):
    by = {s.name: s.scores for s in me_compare.systems}
    for (m, sys), exp in S_SEL.items():
        got = by[sys][m].runs.s_sel
        assert abs(got - exp) <= 0.01, (m, sys, got, exp)
    assert by["sys1"]["bleu"].runs.runs[0] == pytest.approx(18.986909, abs=5e-7)


def test_identical_system_gets_p_one_for_every_metric(me_table):
    opts = CompareOptions(tests=("ar", "stratified-ar"), baseline="baseline")
    res = compare_table(me_table, opts, Resampling(2000, 2))
    rows = [c.result for c in res.comparisons if c.result.b == "sys2"]
    assert len(rows) == 8  # 4 metrics x 2 tests
    assert all(r.p_value == 1.0 and r.delta == 0.0 for r in rows)
    assert {r.test for r in rows if r.extra.get("stratified")} == {"stratified-ar"}
    assert all(r.extra["pooled_runs"] for r in rows if r.test == "ar")


def test_sys1_against_baseline_on_bleu(me_compare):
    by = {c.test: c.result for c in me_compare.comparisons if c.result.b == "sys1" and c.metric == "bleu"}
    # stratified AR calls the 0.29 BLEU gain highly significant (as MultEval does) ...
    assert by["stratified-ar"].p_value < 0.001
    assert by["ar"].delta_ci.low < 0 < by["ar"].delta_ci.high  # the interval of the runs test's variance
    # ... but sys1's three runs differ by up to 0.5 BLEU: with the run-level variance the gain is within the
    # optimizer noise of three runs
    assert by["ar"].p_value > 0.05
    assert by["ar"].extra["run_variance"] > 0 and 1 < by["ar"].extra["run_df"] < 10


@pytest.mark.slow
def test_calibration_of_stratified_randomization_under_the_null(me_table):
    """Per segment, the six outputs of baseline and sys1 runs are split at random into two pseudo-systems
    of three runs: stratified AR's own null, under which it is exact (0.05 lies in the 95% interval of its
    rejection rate over 500 null pairs)."""
    m = me_table.metrics["bleu"]
    A, B = me_table.stats["bleu"]["baseline"], me_table.stats["bleu"]["sys1"]
    reps = 500
    rate = rejection_rate([_strat_p(a, b, m, 500, i) for i, (a, b) in enumerate(permuted_runs(A, B, reps, seed=11))])
    assert rate.ci[0] <= 0.05 <= rate.ci[1], f"stratified AR under its own null: {rate}"


def test_unequal_run_counts(me_table):
    two = me_table.stats["bleu"]["sys1"][:2]
    three = me_table.stats["bleu"]["baseline"]
    m = me_table.metrics["bleu"]
    p1 = _strat_p(three, two, m, 1000, 4)
    p2 = _strat_p(two, three, m, 1000, 4)
    # swapping the roles mirrors the null distribution (groups of 3 and 2 out of 5): equal p within Monte-Carlo error
    se = np.sqrt(p1 * (1 - p1) / 1000 + p2 * (1 - p2) / 1000) + 1 / 1000
    assert abs(p1 - p2) <= 4 * se, (p1, p2)
    # a system whose 2 runs are 2 of the baseline's 3 runs, pooled, differs little: not significant
    assert _strat_p(three, three[:2], m, 1000, 4) > 0.05
    # all five outputs of every segment take part: sys1's two runs differ from the baseline's three
    assert _strat_p(three, two, m, 1000, 4) < _strat_p(three, three[:2], m, 1000, 4)


def test_s_dev_from_development_runs(multeval):
    # the test set doubles as "development set" here, so s_dev must equal s_test exactly
    refs = [str(multeval / "refs.test2010.lc.tok.en.0")]
    systems = [f"{s}={multeval}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1")]
    res = mtsig.score(refs, systems, ["bleu"], tokenize="none", dev_refs=refs, dev_systems=systems)
    for s in res.systems:
        r = s.scores["bleu"].runs
        assert r.s_dev == pytest.approx(r.s_test, abs=1e-12)
        assert r.dev_runs == r.runs
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
    sys_, base = np.array([10.0, 50.0, 30.0]), np.array([20.0, 20.0, 20.0])
    order, imp = rank_segments(sys_, base, get_metric("bleu"))
    assert list(order) == [1, 2, 0] and list(imp) == [-10.0, 30.0, 10.0]
    order, imp = rank_segments(sys_, base, get_metric("ter"))
    assert list(order) == [0, 2, 1] and list(imp) == [10.0, -30.0, -10.0]
    # length: best at 100; a segment improves when it comes closer to 100 (110 -> 98: +8; 90 -> 130: -20)
    order, imp = rank_segments(np.array([98.0, 130.0, 100.0]), np.array([110.0, 90.0, 100.0]), get_metric("length"))
    assert list(order) == [0, 2, 1] and list(imp) == [8.0, -20.0, 0.0]


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
        rows = [line.rstrip("\n").split("\t") for line in fh]  # plain TSV: no quoting
    assert {len(r) for r in rows} == {8}
    assert rows[0][:3] == ["rank", "segment", "improvement"] and "opt2" in rows[0][5]  # sys1's median run
    imps = [float(r[2]) for r in rows[1:]]
    assert len(imps) == 2489 and imps == sorted(imps, reverse=True)
    assert all(math.isclose(float(r[2]), float(r[3]) - float(r[4]), abs_tol=2e-4) for r in rows[1:50])


def test_runs_table_and_json_shape(me_compare, me_table):
    from mtsig.report.render import render_compare

    d = me_compare.to_dict()
    e = d["systems"][1]["scores"]["bleu"]
    assert set(e) >= {"mean", "s_sel", "s_test", "s_dev", "runs"}
    text = render_compare(me_compare, "text")
    p = next(c.result.p_value for c in me_compare.comparisons if c.test == "ar" and c.result.b == "sys1")
    assert "BLEU ↑ (s_sel/s_test/p)" in text and f"18.81 (0.26/0.29/{p:.2f})" in text
    assert "p: randomization of the pooled runs with their run-level variance against baseline" in text
    # the comparison rows show pooled scores, the runs table means over runs: the report says so (issue 10)
    assert "score A, score B and Δ are pooled scores" in " ".join(text.split())
    ar = next(c.result for c in me_compare.comparisons if c.test == "ar" and c.result.b == "sys1")
    pooled = float(me_table.metrics["bleu"].score(me_table.stats["bleu"]["sys1"].sum(axis=(0, 1))))
    assert ar.score_b == pooled and me_compare.systems[1].scores["bleu"].score == pytest.approx(
        np.mean(me_compare.systems[1].scores["bleu"].runs.runs)
    )
    tex = render_compare(me_compare, "latex")
    assert "\\toprule" in tex and "$\\uparrow$" in tex and "s\\_sel: standard deviation" in tex


def test_other_tests_with_runs_are_refused(me_table):
    with pytest.raises(mtsig.InputError, match="the tests for them are 'ar' .*, 'stratified-ar' .* and 'aso'"):
        compare_table(me_table, CompareOptions(tests=("ar", "ttest"), baseline="baseline"))


@pytest.mark.slow
@pytest.mark.parametrize("runs", [2, 3])
@pytest.mark.parametrize("null", ["repartition", "pair-swap", "block-swap", "run-level", "one-sided run-level"])
def test_default_runs_test_holds_its_level_under_every_null(me_table, null, runs):
    """The default test for runs with 2 and 3 runs per system, 300 replicates per null built from baseline and
    sys1 (the full table, 1,000 replicates per cell and three datasets, is benchmarks/calibrate_runs.py): its
    rejection rate is not above α at 0.05 and 0.01 (α is at or above the lower end of the 95% interval); plain AR
    on the pooled runs does not hold under run-level noise."""
    from mtsig.studies.calibration import runs_calibration

    m = me_table.metrics["bleu"]
    A, B = me_table.stats["bleu"]["baseline"][:runs], me_table.stats["bleu"]["sys1"][:runs]
    rates = runs_calibration(m, (A, B), null, 300, Resampling(500, 17), tests=("ar", "pooled-ar"))
    for alpha in (0.05, 0.01):
        assert rates[("ar", alpha)].ci[0] <= alpha, f"{null}, {runs} runs, α {alpha}: ar {rates[('ar', alpha)]}"
    if null == "run-level":
        assert rates[("pooled-ar", 0.05)].ci[0] > 0.1


def test_runs_test_does_not_depend_on_the_order_of_the_runs(me_table):
    """Runs of different systems are not paired unless the user says so: any order of either system's runs
    gives the same p-value and interval (issue 29: the six orders once gave 0.069-0.136)."""
    from itertools import permutations

    t = me_table.select(["bleu"], ["baseline", "sys1"])
    B = t.stats["bleu"]["sys1"]
    seen = set()
    for order in permutations(range(3)):
        t.stats["bleu"]["sys1"] = B[list(order)]
        c = mtsig.compare(stats=t, n_resamples=2000).comparisons[0].result
        seen.add((round(c.p_value, 12), round(c.delta_ci.low, 9), round(c.delta_ci.high, 9)))
    t.stats["bleu"]["sys1"] = B
    assert len(seen) == 1, seen
    paired = {mtsig.compare(stats=t, n_resamples=2000, paired_runs=True).comparisons[0].result.p_value}
    t.stats["bleu"]["sys1"] = B[[2, 0, 1]]
    paired.add(mtsig.compare(stats=t, n_resamples=2000, paired_runs=True).comparisons[0].result.p_value)
    t.stats["bleu"]["sys1"] = B
    assert len(paired) == 2  # pairing by position is what --paired-runs asks for: the order then matters


def test_two_runs_are_bounded_by_the_exact_permutation_test(me_table, capsys):
    """With 2 runs per system no t-based p-value is calibrated under run-level noise: the p-value is at least the
    exact permutation test's over whole runs (6 deals: at least 1/3), and compare says why."""
    t = me_table.select(["bleu"], ["baseline", "sys1"])
    t.stats["bleu"] = {s: t.stats["bleu"][s][:2] for s in ("baseline", "sys1")}
    t.systems = [mtsig.table.SystemInfo(s.name, s.files[:2], 2) for s in t.systems]
    res = mtsig.compare(stats=t, n_resamples=1000)
    r = res.comparisons[0].result
    assert r.p_value >= 1 / 3 and r.extra["run_deals"] == 6 and r.p_value >= r.extra["run_permutation_p"]
    assert r.delta_ci is None
    assert any("fewer than 3 optimizer runs (baseline: 2, sys1: 2)" in w for w in res.warnings)
    with pytest.raises(mtsig.InputError, match="paired runs need equal run counts"):
        t.stats["bleu"]["sys1"] = me_table.stats["bleu"]["sys1"]
        t.systems[1] = mtsig.table.SystemInfo("sys1", [], 3)
        mtsig.compare(stats=t, paired_runs=True)


def test_runs_interval_carries_the_tests_variance(me_compare):
    """The interval of Δ for systems with runs is the runs test's threshold around Δ: it contains 0 when the test
    is not significant (MultEval's sys1 - baseline: once [0.06, 0.51] beside p adj. 0.322)."""
    c = next(c for c in me_compare.comparisons if c.test == "ar" and c.metric == "bleu" and c.result.b == "sys1")
    assert c.result.delta_ci.method == "runs (component-wise t)"
    assert c.p_adjusted > 0.05 and c.result.delta_ci.low < 0 < c.result.delta_ci.high


def test_rank_dir_tsv_escapes_tabs_newlines_and_backslashes(tmp_path, capsys):
    """A segment with a tab, a backslash or a quote stays one field of one line (issue 28)."""
    from pathlib import Path

    from mtsig.report.ranking import _TSV_ESCAPES

    lines = ['a\tb said "hi"', 'back\\slash "', "plain words here", "x y"]
    ref = tmp_path / "ref.txt"
    ref.write_text("plain words here\nx y z\nsome words\nx y\n", encoding="utf-8")
    base, new = tmp_path / "base.txt", tmp_path / "new.txt"
    base.write_text("plain\nx\nsome\nx\n", encoding="utf-8")
    new.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "rank"
    argv = ["compare", "-r", str(ref), "-s", f"base={base}", f"new={new}", "-b", "base", "--rank-dir", str(out)]
    assert main([*argv, "--test", "ar", "--n-resamples", "100"]) == 0
    text = Path(out / "bleu.new.tsv").read_text(encoding="utf-8").splitlines()
    assert len(text) == 5 and all(len(line.split("\t")) == 8 for line in text)
    shown = {line.split("\t")[5] for line in text[1:]}
    assert shown == {x.translate(_TSV_ESCAPES) for x in lines} and 'a\\tb said "hi"' in shown


def test_runs_that_agree_give_plain_randomization(me_table):
    """When every run of a system is the same output the run-level term vanishes: the default runs test is then
    approximate randomization of the pooled runs, p-value for p-value (its power where runs agree)."""
    from mtsig.stats.engines import runs_ar_many
    from mtsig.stats.pvalues import p_from_count

    m = me_table.metrics["bleu"]
    A = np.repeat(me_table.stats["bleu"]["baseline"][:1], 3, axis=0)
    B = np.repeat(me_table.stats["bleu"]["sys1"][:1], 3, axis=0)
    res = runs_ar_many({0: (m, A, B)}, Resampling(2000, 5))[0]
    assert res["p"] == p_from_count(res["plain_count"], 2000)
    assert abs(res["run_variance"]) < 1e-20


def test_one_sided_run_level_null_puts_all_run_variance_on_one_side(me_table):
    """The fifth runs null (run-level noise on one side only): A's pseudo-runs differ in quality across the test
    set, B's do not; both sides have the same expected pooled statistics, so it is a null in which all the
    run-level variance is estimated from one system's runs. Checked with the test's own estimate of run-level
    variance (runs mean square minus the segment-by-run one), averaged over 200 replicates."""
    from mtsig.stats.engines import run_components
    from mtsig.studies.nulls import RUN_NULLS

    m = me_table.metrics["bleu"]
    A, B = me_table.stats["bleu"]["baseline"], me_table.stats["bleu"]["sys1"]
    run_var: dict[str, list[float]] = {"a": [], "b": []}
    deltas = []
    for a, b in RUN_NULLS["one-sided run-level"](A, B, 200, seed=3):
        assert a.shape == A.shape and b.shape == B.shape
        (ra, ea, _), (rb, eb, _) = run_components(m, a, b)
        run_var["a"].append(ra - ea)
        run_var["b"].append(rb - eb)
        deltas.append(m.score(b.sum(axis=(0, 1))) - m.score(a.sum(axis=(0, 1))))

    def mean_and_se(x):
        x = np.asarray(x)
        return x.mean(), x.std(ddof=1) / math.sqrt(len(x))

    ma, sa = mean_and_se(run_var["a"])
    mb, sb = mean_and_se(run_var["b"])
    assert ma > 5 * sa, (ma, sa)  # A's runs carry run-level variance
    assert abs(mb) < 3 * sb, (mb, sb)  # B's do not
    md, sd = mean_and_se(deltas)
    assert abs(md) < 3 * sd, (md, sd)  # equally good on average


def test_runs_threshold_is_a_t_test_for_one_run_term_and_its_p_value_inverts_it():
    """The component-wise threshold: with one run term and no segment-level part it is the t test on that term's
    degrees of freedom; with no run term, the normal one; the p-value is the level at which the threshold equals
    |Δ| (two-sided: twice the tail; one-sided: the tail toward Δ, else one minus it)."""
    from scipy import stats as sps

    from mtsig.stats.engines import _runs_p, runs_half_width

    comps = [(0.04, 0.0, 2)]  # r = 0.04 (sd 0.2), no interaction term
    assert runs_half_width(0.0, comps, 0.025) == pytest.approx(sps.t.isf(0.025, 2) * 0.2, rel=1e-12)
    assert runs_half_width(0.09, [], 0.005) == pytest.approx(sps.norm.isf(0.005) * 0.3, rel=1e-12)
    p, _, df = _runs_p(0.5, 0.0, comps, "two-sided")
    assert p == pytest.approx(2 * sps.t.sf(0.5 / 0.2, 2), rel=1e-8) and df == 2
    mixed = [(0.03, 0.01, 2), (0.05, 0.02, 4)]
    for delta in (0.2, -0.7, 1.5):
        p2, _, _ = _runs_p(delta, 0.1, mixed, "two-sided")
        assert runs_half_width(0.1, mixed, p2 / 2) == pytest.approx(abs(delta), rel=1e-7)
        pg, _, _ = _runs_p(delta, 0.1, mixed, "greater")
        pl, _, _ = _runs_p(delta, 0.1, mixed, "less")
        assert pg + pl == pytest.approx(1.0) and (pg < pl) == (delta > 0)
        assert min(pg, pl) == pytest.approx(p2 / 2)
    assert _runs_p(0.0, 0.1, mixed, "two-sided")[0] == 1.0
