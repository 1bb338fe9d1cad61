"""The meta-evaluation statistics hold to mt-metrics-eval's definitions: the expected values of its own unit tests
(google-research/mt-metrics-eval, ``stats_test.py`` and ``tau_optimization_test.py``: inputs and expected outputs,
re-stated here), SciPy's correlations where mt-metrics-eval calls SciPy, and our vectorized forms against plain
per-group loops on random data. mt-metrics-eval itself is not installable in CI (no package); the closing note of
issue 39 and ``benchmarks/meta_oracle.py`` compare with it directly."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as sps

from mtsig.metaeval import stats as st
from mtsig.metaeval.core import permutation_pvalues, segment_level, spa, system_level

N = np.nan
G = np.arange(1, 7, dtype=float).reshape(2, 3)  # Correlation(2, [1..6], [2, 1, 4, 3, 3, 7])
M = np.array([2, 1, 4, 3, 3, 7], dtype=float).reshape(2, 3)


@pytest.mark.parametrize(("avg", "pearson", "kendall", "kendall_c"), [
    ("none", 0.776, 0.552, 0.556), ("sys", 0.760, 0.575, 0.611), ("item", 1.0, 1.0, 1.0)])  # fmt: skip
def test_mt_metrics_eval_correlation_examples(avg, pearson, kendall, kendall_c):
    assert segment_level(G, M, "pearson", avg)[0] == pytest.approx(pearson, abs=5e-4)
    assert segment_level(G, M, "kendall", avg)[0] == pytest.approx(kendall, abs=5e-4)
    assert segment_level(G, M, "kendall_c", avg)[0] == pytest.approx(kendall_c, abs=5e-4)


def _groups(x, avg):
    return [x.ravel()] if avg == "none" else (list(x) if avg == "sys" else list(x.T))


@pytest.mark.parametrize("avg", ["none", "sys", "item"])
def test_equal_to_scipy_per_group_on_random_matrices_with_gaps(avg):
    rng = np.random.default_rng(0)
    for _ in range(30):
        shape = (rng.integers(3, 9), rng.integers(3, 30))
        x = np.round(rng.normal(size=shape), 1)
        y = np.round(x + rng.normal(size=shape), rng.integers(0, 2))
        x[rng.random(shape) < 0.15] = np.nan
        for name, fn in (("pearson", sps.pearsonr), ("spearman", sps.spearmanr),
                         ("kendall", lambda a, b: sps.kendalltau(a, b, variant="b")),
                         ("kendall_c", lambda a, b: sps.kendalltau(a, b, variant="c"))):  # fmt: skip
            vals = []
            for gx, gy in zip(_groups(x, avg), _groups(y, avg)):
                ok = np.isfinite(gx)
                if ok.sum() < 2 or np.ptp(gx[ok]) == 0 or np.ptp(gy[ok]) == 0:
                    continue  # NaN: left out of the average, as mt-metrics-eval does
                vals.append(fn(gx[ok], gy[ok])[0])
            expected = np.mean(vals) if vals else 0.0
            assert segment_level(x, y, name, avg)[0] == pytest.approx(expected, rel=1e-12, abs=1e-12), name


def test_mt_metrics_eval_kendall_variants_example():
    x, y = np.array([[1, 2, 2, 3, 4]], float), np.array([[2, 1, 1.5, 5, 3]], float)
    assert segment_level(x, y, "kendall", "none")[0] == pytest.approx(0.316227766, rel=1e-9)
    assert segment_level(x, y, "kendall_c", "none")[0] == pytest.approx(0.32, abs=1e-15)
    assert segment_level(x, y, "tau23", "none")[0] == pytest.approx(0.2, abs=1e-15)
    assert segment_level(x, y, "acc23", "none", 0.0)[0] == pytest.approx(0.6, abs=1e-15)
    assert segment_level(x, y, "acc23", "none", 2.0)[0] == pytest.approx(0.4, abs=1e-15)
    assert segment_level(x, y, "acc23", "none")[0] == pytest.approx(0.7, abs=1e-15)  # tie-calibrated


def test_mt_metrics_eval_23_counts_example():
    x, y = np.array([[1, 1, 1, 2, 2, 3, 4]], float), np.array([[1, 1, 2, 2, 4, 3, 3]], float)
    c = st.pair_counts(x, y[None], np.ones(x.shape, bool))
    assert {k: int(v[0, 0]) for k, v in c.items()} == {"con": 13, "dis": 2, "ties_h": 3, "ties_m": 2, "ties_hm": 1,
                                                        "n": 21}  # fmt: skip
    assert segment_level(x, y, "tau23", "none")[0] == pytest.approx((13 + 1 - 2 - 3 - 2) / 21, abs=1e-15)


@pytest.mark.parametrize(("metric", "human", "thresholds", "taus", "best"), [
    ([0, 2, 6, 8], [1, 2, 3, 4], [0, 2, 4, 6, 8], [1, 4 / 6, 3 / 6, 1 / 6, 0], (1.0, 0)),
    ([0, 2, 6, 8], [1, 1, 1, 4], [0, 2, 4, 6, 8], [3 / 6, 3 / 6, 4 / 6, 4 / 6, 3 / 6], (4 / 6, 4)),
])  # fmt: skip
def test_mt_metrics_eval_tau_optimization_examples(metric, human, thresholds, taus, best):
    h, m = np.array([human], float), np.array([metric], float)
    b, e, t, v = st.tie_calibration(h, m, np.ones(h.shape, bool), curve=True)
    assert list(t) == thresholds and np.allclose(v, taus, rtol=0, atol=1e-15) and (b, e) == pytest.approx(best)


def test_mt_metrics_eval_tau_optimization_regression_example():
    metric = np.array([[0, 5, 2, 3, 2], [N, 2, 1, 5, 3], [9, 1, 5, 3, 8], [9, 3, 4, 4, 1], [N] * 5])
    human = np.array([[1, 5, 2, 1, 1], [4, 2, 2, 1, 4], [5, 9, 2, 8, 7], [7, 6, N, 3, 2], [N] * 5])
    b, e, t, v = st.tie_calibration(human, metric, np.isfinite(human), curve=True)
    expected = [0.4666666666666667, 0.4916666666666668, 0.38333333333333347, 0.29166666666666674, 0.2666666666666667,
                0.2, 0.15833333333333335, 0.15833333333333335, 0.1166666666666667]  # fmt: skip
    assert list(t) == list(range(9)) and e == 1.0
    assert np.allclose(v, expected, rtol=1e-12, atol=0) and b == pytest.approx(0.4916666666666668, rel=1e-12)


def test_tie_calibration_equals_trying_every_threshold():
    rng = np.random.default_rng(1)
    for _ in range(20):
        x = rng.integers(0, 5, (6, 12)).astype(float)
        y = np.round(rng.normal(size=(6, 12)), 1)
        best, eps = st.tie_calibration(x, y, np.ones(x.shape, bool))
        cands = np.unique(np.abs(y[:, :, None] - y[:, None, :]))
        vals = [np.nanmean(st.kendall(x, y[None], np.ones(x.shape, bool), "acc23", c)[0]) for c in cands]
        k = int(np.argmax(vals))
        assert best == pytest.approx(vals[k], rel=1e-12) and eps == cands[k]


def test_mt_metrics_eval_agreement_and_spa_examples():
    assert st.pairwise_accuracy(np.array([1, 2, 3, 3, 4.0]), np.array([1, 1, 2, 1, 2.0])) == (5, 10)
    # SPA of Correlation(2, [1, 2, 3, 2, 3, 4], [2, 2, 4, 1, 3, 5]): 0.872 in mt-metrics-eval's test (3 places), and
    # exactly 0.872 from its code (1,000 permutations, seed 4)
    H, Mx = np.array([[1, 2, 3], [2, 3, 4]], float), np.array([[2, 2, 4], [1, 3, 5]], float)
    assert spa(H, Mx) == pytest.approx(0.872, abs=1e-12)


def test_permutation_pvalues_of_identical_and_dominated_systems():
    seg = np.array([[1.0, 2, 3, 4, 5, 6], [1.0, 2, 3, 4, 5, 6], [0.0, 1, 2, 3, 4, 5]])
    p = permutation_pvalues(seg, 500)
    assert p[0, 1] == 1.0  # identical: every permutation reaches the observed 0
    assert p[0, 2] <= 2 / 64 + 0.02  # better on every segment: only the identity-like sign patterns reach it


def test_system_level_statistics_equal_scipy():
    rng = np.random.default_rng(2)
    h, m = rng.normal(size=12), rng.normal(size=12)
    assert system_level(h, m[None], "pearson")[0] == pytest.approx(sps.pearsonr(h, m)[0], rel=1e-12)
    assert system_level(h, m[None], "spearman")[0] == pytest.approx(sps.spearmanr(h, m)[0], rel=1e-12)
    assert system_level(h, m[None], "kendall")[0] == pytest.approx(sps.kendalltau(h, m)[0], rel=1e-12)
    agree, n = st.pairwise_accuracy(h, m)
    assert system_level(h, m[None], "pairwise_accuracy")[0] == agree / n and n == 66


@pytest.mark.parametrize("stat", ["kendall", "tau23"])
def test_perm_both_item_level_shortcut_equals_recomputing_every_hybrid(stat, monkeypatch):
    """The packed per-pair outcomes (two small products per resample) give the same null distribution as building
    both hybrids and recomputing the statistic, resample by resample."""
    from mtsig.metaeval import run
    from mtsig.metaeval.core import MetaData, MetaOptions, MetricScores
    from mtsig.resample import Resampling

    rng = np.random.default_rng(3)
    H = np.round(rng.normal(size=(7, 50)), 1)
    H[rng.random(H.shape) < 0.1] = np.nan
    ms = [MetricScores(name=f"m{k}", segments=np.round(np.nan_to_num(H) + rng.normal(size=H.shape), 1),
                       systems=np.zeros(7)) for k in range(2)]  # fmt: skip
    data = MetaData(systems=tuple("abcdefg"), human=H, human_systems=np.nanmean(H, 1), metrics=tuple(ms))
    W = np.vstack([c.astype(bool) for c in Resampling(400, 1).plan("randomization", H.size, 400).chunks()])
    opts = MetaOptions(level="segment", statistic=stat, test="perm-both")
    fast = run._perm_both_segment(data, ms[0], ms[1], opts, W)
    monkeypatch.setattr(run, "_PAIR_CODED", ())
    slow = run._perm_both_segment(data, ms[0], ms[1], opts, W)
    assert fast[0] == pytest.approx(slow[0], abs=1e-12) and np.allclose(fast[1], slow[1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("avg", ["item", "sys", "none"])
def test_perm_both_pearson_by_products_equals_recomputing_every_hybrid(avg, monkeypatch):
    from mtsig.metaeval import run
    from mtsig.metaeval.core import MetaData, MetaOptions, MetricScores
    from mtsig.resample import Resampling

    rng = np.random.default_rng(4)
    H = rng.normal(size=(6, 40))
    H[rng.random(H.shape) < 0.1] = np.nan
    ms = [MetricScores(name=f"m{k}", segments=np.nan_to_num(H) + rng.normal(size=H.shape), systems=np.zeros(6))
          for k in range(2)]  # fmt: skip
    data = MetaData(systems=tuple("abcdef"), human=H, human_systems=np.nanmean(H, 1), metrics=tuple(ms))
    W = np.vstack([c.astype(bool) for c in Resampling(300, 2).plan("randomization", H.size, 300).chunks()])
    opts = MetaOptions(level="segment", statistic="pearson", average_by=avg, test="perm-both")
    fast = run._perm_both_segment(data, ms[0], ms[1], opts, W)
    monkeypatch.setattr(run, "_LINEAR", False)
    slow = run._perm_both_segment(data, ms[0], ms[1], opts, W)
    assert fast[0] == pytest.approx(slow[0], abs=1e-10) and np.allclose(fast[1], slow[1], rtol=0, atol=1e-10)


@pytest.mark.parametrize(("avg", "shape"), [("item", (7, 50)), ("sys", (4, 80)), ("sys", (5, 30)), ("none", (4, 25))])
def test_perm_both_acc23_from_one_table_equals_calibrating_every_hybrid(avg, shape, monkeypatch):
    """Tie-calibrated acc23's PERM-BOTH from one sorted table of every pair's four candidate differences: the same
    null values bit for bit as calibrating the threshold anew on each hybrid (short and long groups)."""
    from mtsig.metaeval import run
    from mtsig.metaeval.core import MetaData, MetaOptions, MetricScores
    from mtsig.resample import Resampling

    rng = np.random.default_rng(5)
    H = np.round(rng.normal(size=shape), 1)
    H[rng.random(H.shape) < 0.1] = np.nan
    ms = [MetricScores(name=f"m{k}", segments=np.round(np.nan_to_num(H) + rng.normal(size=H.shape), 1),
                       systems=np.zeros(shape[0])) for k in range(2)]  # fmt: skip
    data = MetaData(systems=tuple("abcdefg"[: shape[0]]), human=H, human_systems=np.nanmean(H, 1), metrics=tuple(ms))
    W = np.vstack([c.astype(bool) for c in Resampling(60, 3).plan("randomization", H.size, 60).chunks()])
    opts = MetaOptions(level="segment", statistic="acc23", average_by=avg, test="perm-both")
    fast = run._perm_both_segment(data, ms[0], ms[1], opts, W)
    monkeypatch.setattr(run, "_TABLED", False)
    slow = run._perm_both_segment(data, ms[0], ms[1], opts, W)
    assert fast[0] == slow[0] and np.array_equal(fast[1], slow[1])
