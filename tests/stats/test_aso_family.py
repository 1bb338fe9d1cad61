"""ASO's correction for many comparisons, measured as a family-wise error (not against deepsig, which shares the
old formula), and ``compare --test aso`` against deepsig 1.2.8 on real optimizer runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.report.render import compare_notes
from mtsig.stats.aso import aso, bonferroni_confidence
from tests.data import need

MULTEVAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "multeval-example"
#: A ~ N(MU, 2), B ~ N(0, 1): the violation ratio of "A is better than B" is exactly 0.2 (= τ) on ASO's grid
MU = 0.37928892134057257


def test_bonferroni_level_is_one_minus_alpha_over_k():
    assert bonferroni_confidence(0.95, 1) == 0.95
    assert bonferroni_confidence(0.95, 45) == pytest.approx(1 - 0.05 / 45)  # 0.99889, not deepsig's 0.95111
    assert bonferroni_confidence(0.95, 45, deepsig_level=True) == pytest.approx(0.95 + 0.05 / 45)
    assert bonferroni_confidence(0.95, 2) == bonferroni_confidence(0.95, 2, deepsig_level=True)  # equal at k = 2


def _family_error(k: int, reps: int, n: int, deepsig_level: bool) -> float:
    """Families of k independent comparisons, each on the boundary of its null (violation ratio exactly τ): the
    share of families in which some comparison declares A better (ε_min < τ)."""
    rng = np.random.default_rng(11)
    hits = 0
    for r in range(reps):
        hits += any(aso(rng.normal(MU, 2.0, n), rng.normal(0.0, 1.0, n), num_comparisons=k, n_bootstrap=100,
                        seed=r * 101 + j, deepsig_level=deepsig_level, rule="bound").eps_min < 0.2
                        for j in range(k))  # fmt: skip
    return hits / reps


@pytest.mark.slow
def test_the_family_wise_error_is_what_bonferroni_cuts():
    """deepsig's level c + (1 - c)/k lets each of 5 comparisons fail with probability 0.04: a family of 5 errs far
    more often. Bonferroni's 1 - (1 - c)/k cuts it (seed-fixed: 0.142 against 0.242 here, 120 families of 300
    scores; with 240 families of 500 scores, 0.129 and 0.142 against 0.279 and 0.317). It does not reach 0.05: ASO's own
    bound is liberal in finite samples (a single comparison at 0.95 errs 0.079 with 200 scores, 0.054 with 1,000;
    docs/guide/runs.md), which no correction for multiplicity can repair."""
    ours = _family_error(5, 120, 300, False)
    theirs = _family_error(5, 120, 300, True)
    assert ours < theirs - 0.08 and ours < 0.2


@pytest.mark.slow
def test_compare_aso_equals_deepsig_within_bootstrap_error():
    deepsig = pytest.importorskip("deepsig")
    me = need(MULTEVAL)
    ref = str(me / "refs.test2010.lc.tok.en.0")
    runs = {s: ",".join(str(me / f"hyps.lc.tok.en.{s}.opt{i}") for i in range(3)) for s in ("baseline", "sys1")}
    res = mtsig.compare([ref], [f"{s}={r}" for s, r in runs.items()], metrics=["bleu"], test=["aso"], tokenize="none")
    row = res.get("baseline", "sys1")
    assert row.result.p_value is None and row.p_adjusted is None
    runs_bleu = {s.name: s.scores["bleu"].runs.runs for s in res.systems}
    # one comparison: Bonferroni and deepsig's level agree (confidence 0.95)
    assert row.result.extra["aso_confidence"] == pytest.approx(0.95)
    favoured = row.result.extra["favoured"]
    a, b = ("sys1", "baseline") if favoured == "b" else ("baseline", "sys1")
    theirs = np.array(
        [
            deepsig.aso(
                list(runs_bleu[a]), list(runs_bleu[b]), seed=s, show_progress=False, num_bootstrap_iterations=200
            )
            for s in range(3)
        ]
    )  # fmt: skip (2 s per call)
    assert row.result.statistic == pytest.approx(theirs.mean(), abs=max(0.05, 3 * theirs.std()))
    gate = row.result.extra["gate_p_adjusted"]
    assert row.significant == (row.result.statistic < 0.2 and gate <= 0.05)
    # three runs against three: the gate's smallest two-sided p-value is 2/20, so no claim can be made
    assert gate >= 0.1 and not row.significant
    assert any("no system can be declared better" in line for line in compare_notes(res))


def _families(reps: int, k: int, n: int, draw, rule: str) -> int:
    """Families of k systems × n runs drawn by ``draw(rng, k, n)``: how many declare some system better."""
    rng = np.random.default_rng([k, n, reps])
    hits = 0
    for r in range(reps):
        runs = draw(rng, k, n)
        res = mtsig.multi_aso({f"s{i}": runs[i] for i in range(k)}, n_bootstrap=300, seed=r, rule=rule)
        hits += any(x.better for x in res.values())
    return hits


def _at_most(hits: int, reps: int, alpha: float) -> bool:
    """The share of erring families is consistent with a level of at most alpha (two binomial standard errors)."""
    return hits / reps <= alpha + 2 * np.sqrt(alpha * (1 - alpha) / reps)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "draw"),
    [
        ("identical normal runs", lambda rng, k, n: rng.normal(0, 1, (k, n))),
        ("identical skewed runs", lambda rng, k, n: rng.lognormal(0, 1, (k, n))),
        ("equally good, different spreads", lambda rng, k, n: rng.normal(0, 1, (k, n)) * [[1], [3], [1], [3], [1]][:k]),
    ],
)
def test_the_gated_rule_holds_the_family_level_where_the_bound_alone_does_not(name, draw):
    """5 systems × 6 seeds, 240 families: ε_min < τ alone errs in a large share of families (deepsig's rule; the
    issue measured 0.34 with 5 seeds); the gated rule (mtsig's default) stays at or below 0.05."""
    reps = 240
    bound = _families(reps, 5, 6, draw, "bound")
    gated = _families(reps, 5, 6, draw, "gated")
    assert bound / reps > 0.1, (name, bound)
    assert _at_most(gated, reps, 0.05), (name, gated)


def test_the_gate_is_exact_over_every_split_and_identical_systems_get_p_1():
    from itertools import combinations

    from scipy.stats import ttest_ind

    from mtsig.stats.aso import permutation_p, welch_t

    rng = np.random.default_rng(3)
    a, b = rng.normal(0.5, 1, 4), rng.normal(0, 1, 5)
    pooled = np.concatenate([a, b])
    obs = abs(welch_t(a, b))
    ds = []
    for c in combinations(range(9), 4):
        rest = [i for i in range(9) if i not in c]
        ds.append(abs(welch_t(pooled[list(c)], pooled[rest])))
    brute = np.mean(np.array(ds) >= obs - 1e-9 * max(1.0, obs))
    welch = ttest_ind(a, b, equal_var=False).pvalue
    p, splits, exact = permutation_p(a, b)
    assert exact and splits == 126 and p == pytest.approx(max(brute, welch), abs=1e-12)
    assert permutation_p(a, a)[0] == 1.0
    r = mtsig.aso(a, a)
    assert r.p_value == 1.0 and not r.better
    # beyond 20,000 splits: random ones, (1 + #) / (R + 1), reproducible from the seed
    x, y = rng.normal(1, 1, 12), rng.normal(0, 1, 12)
    p1, n1, ex1 = permutation_p(x, y, n_permutations=999, seed=5)
    assert not ex1 and n1 == 999 and p1 == permutation_p(x, y, n_permutations=999, seed=5)[0]
    assert p1 >= 1 / 1000


def test_far_apart_systems_with_enough_runs_are_declared_better_and_the_rule_can_be_deepsigs():
    rng = np.random.default_rng(8)
    a, b = rng.normal(3, 1, 10), rng.normal(0, 1, 10)
    r = mtsig.aso(a, b)
    assert r.eps_min < 0.2 and r.p_value < 1e-3 and r.better and r.rule == "gated"
    few = mtsig.aso(a[:3], b[:3])
    assert few.eps_min < 0.2 and not few.better and any("no claim" in n for n in few.notes)
    assert mtsig.aso(a[:3], b[:3], rule="bound").better
    with pytest.raises(mtsig.InputError, match="rule must be one of gated, bound"):
        mtsig.aso(a, b, rule="deepsig")
