"""Riezler & Maxwell's and Clark et al.'s experiments as studies, on the shared data: what must hold (calibrated
tests under exact nulls, the absolute-shift variant rejecting too often, the experimentwise error and its
corrections, runs narrowing p-values, power growing with size), the same bytes on every executor (serial,
forked, a real Dask LocalCluster), the command line with figures, and Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from mtsig.cli import main
from mtsig.report.render import render as render_study
from mtsig.studies import clark, riezler
from mtsig.studies.nulls import binomial_interval
from mtsig.studies.replicates import runner
from tests.data import (
    MULTEVAL,
    MULTEVAL_SYSTEMS,
    WMT,
    WMT_SYSTEMS,
    multeval_ref,
    multeval_runs,
    need,
    unavailable,
    wmt_hyp,
    wmt_ref,
)

PAIR = ("JDExploreAcademy", "Online-B")


@pytest.fixture(scope="module")
def wmt():
    from mtsig.api import compute

    d = need(WMT)
    return compute([wmt_ref(d, "A")], [f"{s}={wmt_hyp(d, s)}" for s in WMT_SYSTEMS], ["bleu", "nist"])


def _rates(res) -> dict:
    return {(r[0], r[1]): r for r in res.tables[1].rows}


def _holds(k: int, n: int, p: float, confidence: float = 0.99) -> bool:
    lo, hi = binomial_interval(k, n, confidence)
    return lo <= p <= hi


@pytest.mark.slow
def test_type1_rates_are_calibrated_and_the_printed_figure_2_is_not(wmt):
    n = 500
    res = riezler.type1(wmt, riezler.Type1Design(metric="bleu", replicates=n, pairs=(PAIR,)), runner(2))
    rates = _rates(res)
    for test in ("ar", "bootstrap", "paired-bootstrap", "ttest", "wilcoxon"):
        for alpha in (0.01, 0.05, 0.1):
            row = rates[(riezler.label(test), alpha)]
            assert _holds(row[2], n, alpha), (test, alpha, row)
    for alpha in (0.05, 0.1):  # the seed's Fig. 2 as printed: about twice alpha (or more), never alpha
        row = rates[(riezler.label("bootstrap-abs"), alpha)]
        assert 1.5 * alpha <= row[2] / n <= 3.5 * alpha and not _holds(row[2], n, alpha)
    ps = res.data["pvalues"]["ar"]
    assert len(ps) == n and ps == sorted(ps)
    # part (a): the first system against each other one, every test
    table = res.tables[0]
    assert table.header[1:] == [f"JDExploreAcademy : {s}" for s in ("LT22", "Online-B", "PROMT")]
    assert table.rows[0][1] == pytest.approx(-7.69, abs=0.01)


def test_identical_systems_get_p_one_from_every_test(wmt):
    m = wmt.metrics["bleu"]
    X = wmt.stats["bleu"]["PROMT"][0]
    tests = riezler.type1_tests()
    out = riezler.pair_p_values(
        tests, riezler.PairStats(m, X, X.copy()), riezler.Resampling(), riezler._counts(tests, 500, 200)
    )
    assert out["delta"] == 0
    assert set(tests) == {"ar", "bootstrap", "bootstrap-abs", "paired-bootstrap", "ttest", "wilcoxon"}
    assert all(out[t] == 1.0 for t in tests), out


def test_type1_p_values_equal_the_engine(wmt):
    """The study's p-value of each test is the registered test's (the same evidence, the same numbers)."""
    from mtsig.stats.paired import paired_test

    m = wmt.metrics["bleu"]
    a, b = wmt.stats["bleu"]["Online-B"][0], wmt.stats["bleu"]["PROMT"][0]
    r = riezler.Resampling(None, 9, stream=(51, 4))
    tests = riezler.type1_tests()
    out = riezler.pair_p_values(tests, riezler.PairStats(m, a, b), r, riezler._counts(tests, 3000, 300))
    for t in ("ar", "bootstrap", "paired-bootstrap", "ttest", "wilcoxon"):
        R = 3000 if t == "ar" else 300
        assert out[t] == paired_test(t, a, b, m, resampling=r.with_count(R)).p_value, t


@pytest.mark.slow
def test_multiplicity_uncorrected_error_grows_and_corrections_hold_alpha(wmt):
    n = 400
    res = riezler.multiplicity(wmt, riezler.MultiplicityDesign(replicates=n, pairs=(PAIR,), alphas=(0.05,)), runner(2))
    rows = {r[0]: r for r in res.tables[0].rows}
    each = rows["each comparison (uncorrected)"]
    assert _holds(each[2], each[3], 0.05)
    unc = rows["any of the pairs, uncorrected"]
    assert unc[2] / n > 3 * 0.05  # far above alpha ...
    assert binomial_interval(unc[2], n, 0.99)[0] <= 1 - 0.95**10  # ... and not above the independent case
    ind = rows["any of 10 independent comparisons, uncorrected"]  # the seed's formula, where it applies
    assert ind[3] == n // 10 and _holds(ind[2], ind[3], 1 - 0.95**10)
    for label, r in rows.items():
        if label.startswith("any of the pairs,") and "uncorrected" not in label:
            assert binomial_interval(r[2], n, 0.99)[0] <= 0.05, label


def test_sensitivity_counts_significant_pairs_per_metric(wmt):
    res = riezler.sensitivity(wmt, riezler.SensitivityDesign(n_resamples=2000))
    rows = {r[0]: r for r in res.tables[0].rows}
    assert set(rows) == {"bleu", "nist"} and all(r[2] == 6 for r in rows.values())
    assert rows["bleu"][1] >= 3  # LT22 is far behind the other three under both
    agree = [r[-1] for r in res.tables[1].rows]
    assert len(agree) == 6 and set(agree) <= {"yes", "no"}


@pytest.fixture(scope="module")
def multeval():
    from mtsig.api import compute

    d = need(MULTEVAL)
    return compute([multeval_ref(d)], [multeval_runs(d, s) for s in MULTEVAL_SYSTEMS], ["bleu"])


def test_runs_on_the_multeval_example(multeval):
    res = clark.runs(multeval, clark.RunsDesign(replicates=250, n_resamples=1000))
    rows = {(r[0], r[1]): r for r in res.tables[2].rows}
    # every choice of runs is tested when the pool is small: 3 x 3 single runs, one choice of all three
    assert rows[("baseline vs sys1", 1)][2] == "all 9" and rows[("baseline vs sys1", 3)][2] == "all 1"
    # more runs narrow the p-values (the upper end of the 95% interval falls)
    assert rows[("baseline vs sys1", 3)][4] < rows[("baseline vs sys1", 2)][4] < rows[("baseline vs sys1", 1)][4]
    # sys2 repeats the baseline run for run: all runs pooled give p = 1
    assert rows[("baseline vs sys2", 3)][5] == 1.0
    # the single-run scenarios: A's best against B's worst is the least significant
    single = [r for r in res.tables[1].rows if r[0] == "baseline vs sys1"]
    assert [r[2] for r in single] == ["high", "median", "low"] and single[0][5] > single[2][5]
    assert sorted(res.data["run_scores"]) == sorted(MULTEVAL_SYSTEMS)


def test_power_grows_with_the_test_set(wmt):
    design = clark.PowerDesign(
        sizes=(100, 1984, 3968), replicates=60, n_resamples=500, pairs=(("PROMT", "JDExploreAcademy"),)
    )
    res = clark.power(wmt, design)
    rows = res.tables[0].rows
    assert [r[0] for r in rows] == [100, 1984, 3968]
    ar = [r[5] for r in rows]
    assert ar[0] < ar[1] <= ar[2] and ar[2] >= 80
    detectable = [r[4] for r in rows]
    assert detectable[0] > detectable[1] > detectable[2]
    assert detectable[1] / detectable[2] == pytest.approx(np.sqrt(2), rel=0.25)  # sd shrinks as 1/sqrt(n)
    need_rows = {r[0]: r for r in res.tables[1].rows}
    # the pilot's difference (1.2 BLEU) is detectable with fewer segments: where the simulated AR curve crosses 80%
    n_ar = need_rows["ar"][2]
    crossing = next(i for i, p in enumerate(ar) if p >= 80)
    low = [100, 1984, 3968][crossing - 1] if crossing else 2
    assert low <= n_ar <= [100, 1984, 3968][crossing] < 3968 + 1, need_rows["ar"]
    assert "simulated curve" in need_rows["ar"][3] or "smallest size" in need_rows["ar"][3]


def test_power_sizes_come_from_the_simulated_curve():
    from mtsig.studies.clark import _needed

    curve = [[100, 20.0], [400, 60.0], [1600, 90.0]]
    size, how = _needed(curve, 80.0, 1.0, 1.0)
    # log-linear between 400 (60%) and 1600 (90%): 2/3 of the way in log size
    assert size == int(np.ceil(np.exp(np.log(400) + 2 / 3 * np.log(4)))) and "between 400 and 1600" in how
    half, how2 = _needed(curve, 80.0, 1.0, 0.5)
    assert half == int(np.ceil(4 * np.exp(np.log(400) + 2 / 3 * np.log(4)))) and "scaled" in how2
    assert _needed(curve, 95.0, 1.0, 1.0)[0] is None and "larger --sizes" in _needed(curve, 95.0, 1.0, 1.0)[1]


# ------------------------------------------------------------------------------------------------ executors
def _small_type1(wmt, run) -> str:
    g = riezler.Type1Design(replicates=60, n_resamples=500, n_bootstrap=200, pairs=(PAIR,))
    return render_study(riezler.type1(wmt, g, run), "json")


def test_the_same_bytes_serial_and_forked(wmt):
    assert _small_type1(wmt, runner(1)) == _small_type1(wmt, runner(2))


@pytest.mark.slow
def test_the_same_bytes_with_spawned_workers(wmt):
    """Spawned workers (how the pool starts on macOS and Windows): the replicate tasks cross by pickle."""
    from mtsig.executor import ProcessExecutor
    from mtsig.studies.replicates import Runner

    assert _small_type1(wmt, Runner(ProcessExecutor(2, "spawn"))) == _small_type1(wmt, runner(1))


@pytest.mark.slow
def test_the_same_bytes_on_a_dask_local_cluster(wmt):
    try:
        import distributed  # noqa: F401
    except ImportError:
        unavailable("Dask distributed is not installed (pip install 'mtsig[dask]')")
    run = runner(dask="local:2")
    try:
        assert len(run.executor.client.scheduler_info()["workers"]) == 2
        on_dask = _small_type1(wmt, run)
    finally:
        run.executor.close()
    assert on_dask == _small_type1(wmt, runner(1))


# ------------------------------------------------------------------------------------------------ command line
def _wmt_args(d) -> list[str]:
    return ["-r", wmt_ref(d, "A"), "-s", *(f"{s}={wmt_hyp(d, s)}" for s in WMT_SYSTEMS)]


@pytest.mark.parametrize(
    "study,extra",
    [
        ("type1", ["--replicates", "30", "--n-resamples", "500", "--n-bootstrap", "200"]),
        ("multiplicity", ["--replicates", "30", "--null-systems", "4"]),
        ("sensitivity", ["-m", "bleu", "nist", "--n-resamples", "1000"]),
        ("power", ["--replicates", "20", "--sizes", "200", "800", "--n-resamples", "300"]),
    ],
)
def test_cli_studies_write_figures_and_the_same_json_twice(tmp_path, capsys, study, extra):
    d = need(WMT)
    outs = []
    for i in range(2):
        png, js = tmp_path / f"{study}{i}.png", tmp_path / f"{study}{i}.json"
        args = ["study", study, *_wmt_args(d), *extra, "-f", "json", "-o", str(js), "--plot", str(png), "-q"]
        assert main(args) == 0
        assert png.stat().st_size > 10_000
        outs.append(js.read_text())
    assert outs[0] == outs[1]
    assert json.loads(outs[0])["study"] == study


def test_cli_runs_study_and_its_errors(tmp_path, capsys):
    d = need(MULTEVAL)
    png = tmp_path / "runs.png"
    args = ["study", "runs", "-r", multeval_ref(d), "-s", *(multeval_runs(d, s) for s in MULTEVAL_SYSTEMS)]
    assert main([*args, "--plot", str(png), "-q", "--n-resamples", "300"]) == 0
    assert png.stat().st_size > 10_000 and "all 9" in capsys.readouterr().out
    w = need(WMT)
    assert main(["study", "runs", *_wmt_args(w)]) == 2
    assert "at least two optimizer runs" in capsys.readouterr().err
    assert main(["study", "multiplicity", *_wmt_args(w), "--null-systems", "12"]) == 2
    assert "--null-systems must be at least 3 and at most 8, got 12" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["forked", pytest.param("dask", marks=pytest.mark.slow)])
def test_ctrl_c_stops_a_study_without_a_traceback(tmp_path, where):
    d = need(WMT)
    cmd = [sys.executable, "-m", "mtsig", "study", "type1", *_wmt_args(d), "--replicates", "100000", "-q"]
    if where == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            unavailable("Dask distributed is not installed (pip install 'mtsig[dask]')")
        cmd += ["--dask", "local:2"]
    # the command starts as from a terminal: with Ctrl-C's default action, even when these tests run in a
    # background job (whose commands inherit SIGINT ignored, and an ignored SIGINT stays ignored, as it should)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    time.sleep(6 if where == "forked" else 15)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole foreground group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err and "WARNING" not in err
