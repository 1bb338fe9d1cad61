"""Post-hoc procedures that use the dependence between comparisons: the joint randomization plan, max-T over
the joint bootstrap (single-step and step-down; the ensemble null) and Tukey's HSD on sentence-level scores;
compare --correction maxt."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.metrics.bleu import BLEU as Bleu
from mtsig.resample import PermutationPlan, Resampling, orders
from mtsig.stats.multiple import maxt, studentized_ranges, tukey_hsd


def _systems(k: int, N: int = 300, seed: int = 0, shift: float = 0.0) -> dict[str, np.ndarray]:
    """k systems of BLEU-like integer statistics (10 columns), the last one better by ``shift`` of matches."""
    rng = np.random.default_rng(seed)
    out = {}
    for j in range(k):
        hyp = rng.integers(5, 30, N)
        m1 = rng.binomial(hyp, 0.6 + (shift if j == k - 1 else 0.0))
        m = [m1, rng.binomial(m1, 0.5), rng.binomial(m1, 0.3), rng.binomial(m1, 0.15)]
        tot = [np.maximum(hyp - n, 0) for n in range(4)]
        ref = hyp + rng.integers(-3, 4, N)
        out[f"s{j}"] = np.column_stack([hyp, ref, *m, *tot]).astype(np.float64)
    return out


def test_every_order_is_a_permutation_and_the_plan_keeps_each_output_once():
    assert sorted(map(tuple, orders(3))) == sorted({(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)})
    S = np.stack(list(_systems(4, N=50).values()), axis=1)  # (N, k, d)
    plan = PermutationPlan(50, 300, 4, seed=3)
    tots = np.concatenate(list(plan.totals(S)))
    assert tots.shape == (300, 4, 10)
    assert np.allclose(tots.sum(axis=1), S.sum(axis=(0, 1)))  # every output dealt to exactly one pseudo-system
    # pseudo-system 0 of the first resample, recomputed from the drawn orders
    idx = next(PermutationPlan(50, 300, 4, seed=3).blocks())[0]
    place = orders(4)[idx]  # (N, k): where each system's output goes
    direct = sum(S[i, int(np.flatnonzero(place[i] == 0)[0])] for i in range(50))
    assert np.allclose(tots[0, 0], direct)
    with pytest.raises(InputError):
        PermutationPlan(50, 10, 9)


def _joint(S: dict, pairs, R: int, seed: int = 1):
    """Every pair's bootstrap difference from one joint bootstrap of all systems, and the observed ones."""
    from mtsig.stats.engines import bootstrap_many

    m = Bleu()
    boot = bootstrap_many({n: (m, x) for n, x in S.items()}, Resampling(R, seed))
    D = np.stack([boot[b] - boot[a] for a, b in pairs], axis=1)
    obs = np.array([m.corpus_score(S[b]) - m.corpus_score(S[a]) for a, b in pairs])
    return D, obs


def test_maxt_of_identical_systems_is_one_and_of_one_pair_is_the_bootstrap_test():
    from mtsig.stats.pvalues import shift_p

    X = _systems(1)["s0"]
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    same = maxt(*_joint({"a": X, "b": X.copy(), "c": X.copy()}, pairs, 500))
    assert (same["single-step"] == 1).all() and (same["step-down"] == 1).all()
    two = _systems(2, N=400, shift=0.03)
    D, obs = _joint(two, [("s0", "s1")], 4000, seed=5)
    m = maxt(D, obs)
    assert m["single-step"][0] == m["step-down"][0] == pytest.approx(shift_p(D[:, 0], obs[0], "two-sided"))


def test_step_down_is_at_most_single_step_and_at_least_each_pairs_own():
    from mtsig.stats.pvalues import shift_p

    S = _systems(5, N=400, shift=0.1, seed=2)
    pairs = list(combinations(S, 2))
    D, obs = _joint(S, pairs, 2000)
    m = maxt(D, obs)
    assert (m["step-down"] <= m["single-step"] + 1e-12).all()
    for k in range(len(pairs)):
        assert m["step-down"][k] >= shift_p(D[:, k], obs[k], "two-sided") - 1e-12
    assert min(m["step-down"]) < 0.01  # the better system is found


@pytest.mark.slow
def test_maxt_holds_the_family_wise_error_when_one_system_is_an_ensemble_of_two(wmt):
    """Three equally good systems where C is the average of A and B (issue 29): every pairwise null holds, but
    the systems are not exchangeable (C always lies between A and B); max-T over a joint randomization rejected
    0.100 of such families at 0.05. Over the joint bootstrap it holds: 300 families, A and B swapped segment by
    segment from two real systems."""
    import mtsig
    from mtsig.resample import stream_rng
    from mtsig.studies.nulls import binomial_interval
    from tests.data import wmt_hyp, wmt_ref

    t = mtsig.compute([wmt_ref(wmt, "A")], {s: wmt_hyp(wmt, s) for s in ("JDExploreAcademy", "PROMT")}, ["bleu"])
    X, Y = t.stats["bleu"]["JDExploreAcademy"][0], t.stats["bleu"]["PROMT"][0]
    pairs = [("A", "B"), ("A", "C"), ("B", "C")]
    rejected = {0.05: 0, 0.01: 0}
    n = 300
    for r in range(n):
        swap = stream_rng(2026, 99, r).random(X.shape[0]) < 0.5
        A, B = np.where(swap[:, None], Y, X), np.where(swap[:, None], X, Y)
        D, obs = _joint({"A": A, "B": B, "C": (A + B) / 2}, pairs, 1000, seed=r)
        p = maxt(D, obs)["step-down"].min()
        for al in rejected:
            rejected[al] += p <= al
    for al, k in rejected.items():
        lo, hi = binomial_interval(k, n)
        assert lo <= al, (al, k, n)


def test_tukey_mean_square_is_the_residual_of_the_two_way_model():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(60, 4)) + rng.normal(size=(60, 1)) + np.array([0, 0.1, 0.2, 0.8])
    pairs = list(combinations(range(4), 2))
    q, df = studentized_ranges(x, pairs)
    # residual mean square by least squares on segment and system indicators
    N, k = x.shape
    D = np.zeros((N * k, N + k - 1))
    for i in range(N):
        for j in range(k):
            D[i * k + j, i] = 1
            if j:
                D[i * k + j, N + j - 1] = 1
    y = x.ravel()
    resid = y - D @ np.linalg.lstsq(D, y, rcond=None)[0]
    mse = float(resid @ resid / df)
    assert df == (N - 1) * (k - 1)
    means = x.mean(axis=0)
    assert q == pytest.approx([abs(means[b] - means[a]) / np.sqrt(mse / N) for a, b in pairs])
    p = tukey_hsd(x, pairs)
    assert p[pairs.index((0, 3))] < 0.01 and p[pairs.index((0, 1))] > 0.3


def test_compare_correction_maxt_never_below_the_tests_own_p(wmt_bleu_stats):
    import mtsig

    t = wmt_bleu_stats.select(["bleu"])
    for test in ("ar", "paired-bootstrap", "ttest"):
        res = mtsig.compare(stats=t, test=test, correction="maxt")
        holm = mtsig.compare(stats=t, test=test)
        for c, h in zip(res.comparisons, holm.comparisons):
            assert c.p_adjusted >= c.result.p_value
            assert c.significant == h.significant  # clear differences (LT22) found by both, close ones by neither
    with pytest.raises(InputError, match="correction maxt needs one output per system"):
        from mtsig.engine import CompareOptions, compare_table
        from mtsig.table import StatsTable

        doubled = {"bleu": {n: np.stack([a[0], a[0]]) for n, a in t.stats["bleu"].items()}}
        runs = StatsTable(t.metrics, [type(s)(s.name, s.files, 2) for s in t.systems], doubled, t.n_segments)
        compare_table(runs, CompareOptions(tests=("ar",), correction="maxt"))


def test_process_pool_reports_every_finished_item():
    from mtsig.executor import ProcessExecutor

    ticks = []
    out = ProcessExecutor(2).map(lambda x: x * x, list(range(23)), ticks.append)
    assert out == [x * x for x in range(23)]
    assert sum(ticks) == 23
