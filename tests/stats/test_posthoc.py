"""Post-hoc procedures that use the dependence between comparisons: the joint randomization plan, max-T
(single-step and step-down) and Tukey's HSD on sentence-level scores; compare --correction maxt."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.metrics.bleu import BLEU as Bleu
from mtsig.resample import PermutationPlan, Resampling, orders
from mtsig.stats.engines import ar_counts
from mtsig.stats.multiple import maxt, studentized_ranges, tukey_hsd
from mtsig.stats.paired import p_from_count


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


def test_maxt_of_identical_systems_is_one_and_of_two_systems_is_approximate_randomization():
    X = _systems(1)["s0"]
    same = maxt({"a": X, "b": X.copy(), "c": X.copy()}, Bleu(), [("a", "b"), ("a", "c"), ("b", "c")], Resampling(500))
    assert (same["single-step"] == 1).all() and (same["step-down"] == 1).all()
    two = _systems(2, N=400, shift=0.03)
    R = 4000
    m = maxt(two, Bleu(), [("s0", "s1")], Resampling(R, seed=5))
    ar = p_from_count(ar_counts(two, Bleu(), [("s0", "s1")], Resampling(R, seed=5))[("s0", "s1")], R)
    assert m["single-step"][0] == m["step-down"][0]
    assert abs(m["single-step"][0] - ar) < 4 * np.sqrt(ar * (1 - ar) / R) + 2 / R  # the same test, other shuffles


def test_step_down_is_at_most_single_step_and_at_least_the_raw_p_value():
    S = _systems(5, N=400, shift=0.1, seed=2)
    pairs = list(combinations(S, 2))
    m = maxt(S, Bleu(), pairs, Resampling(2000, seed=1))
    assert (m["step-down"] <= m["single-step"] + 1e-12).all()
    raw = ar_counts(S, Bleu(), pairs, Resampling(2000, seed=1))
    for p, adj in zip(pairs, m["step-down"]):
        assert adj >= p_from_count(raw[p], 2000) - 0.03  # adjusting never makes a pair much more significant
    assert min(m["step-down"]) < 0.01  # the better system is found


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


def test_compare_correction_maxt(tmp_path):
    from mtsig.engine import CompareOptions

    with pytest.raises(InputError, match="maxt"):
        CompareOptions(("bootstrap",), correction="maxt")
    CompareOptions(("ar",), correction="maxt")


def test_fork_map_reports_every_finished_item():
    from mtsig.executor import fork_map

    ticks = []
    out = fork_map(lambda x: x * x, list(range(23)), 2, ticks.append)
    assert out == [x * x for x in range(23)]
    assert sum(ticks) == 23
