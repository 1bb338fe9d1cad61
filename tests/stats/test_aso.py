"""ASO (issue 40): deepsig 1.2.8 as the oracle. The violation ratio is deterministic and equal; eps_min agrees
within its bootstrap error (deepsig's and mtsig's random draws differ), on synthetic scores, deepsig's README
example and real run scores (BLEU of MultEval's three optimizer runs per system)."""

from __future__ import annotations

import warnings

import deepsig  # noqa: E402 - the oracle (the test extra installs it)
import numpy as np
import pytest

import mtsig
from mtsig.stats.aso import violation_ratio
from tests.data import MULTEVAL, need


def _theirs(a, b, seeds=range(3)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array([deepsig.aso(a, b, seed=100_003 * s, show_progress=False, num_bootstrap_iterations=400)
                         for s in seeds])  # fmt: skip


def test_violation_ratio_equals_deepsigs():
    from deepsig.aso import compute_violation_ratio

    rng = np.random.default_rng(0)
    for _ in range(50):
        a, b = rng.normal(rng.normal(), 1, rng.integers(2, 30)), rng.normal(0, 1, rng.integers(2, 30))
        assert float(violation_ratio(a, b)) == pytest.approx(compute_violation_ratio(a, b, dt=0.005), abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "m", "shift"), [(5, 5, 0.5), (3, 3, 1.0), (20, 15, 0.2)])
def test_eps_min_within_bootstrap_error_of_deepsig(n, m, shift):
    rng = np.random.default_rng(n * 100 + m)
    a, b = rng.normal(shift, 1, n), rng.normal(0, 1, m)
    theirs = _theirs(a, b)
    ours = np.array([mtsig.aso(a, b, seed=s, n_bootstrap=400).eps_min for s in range(3)])
    spread = np.sqrt(theirs.var() / len(theirs) + ours.var() / len(ours)) + 1e-9
    assert abs(theirs.mean() - ours.mean()) <= 4 * spread + 0.01


@pytest.mark.slow
def test_deepsigs_readme_example():
    np.random.seed(1234)
    a = np.random.normal(loc=0.9, scale=0.8, size=5)
    b = np.random.normal(loc=0, scale=1, size=5)
    theirs = _theirs(a, b).mean()
    ours = np.mean([mtsig.aso(a, b, seed=s, n_bootstrap=400).eps_min for s in range(3)])
    assert ours == pytest.approx(theirs, abs=0.03) and ours < 0.5


@pytest.mark.slow
def test_real_run_scores_and_the_few_seeds_note():
    me = need(MULTEVAL)
    ref = [str(me / "refs.test2010.lc.tok.en.0")]
    runs = {s: [str(me / f"hyps.lc.tok.en.{s}.opt{i}") for i in range(3)] for s in ("baseline", "sys1")}
    table = mtsig.compute(ref, {s: ",".join(r) for s, r in runs.items()}, ["bleu"], tokenize="none")
    m = table.metrics["bleu"]
    bleu = {s: [float(m.score(run.sum(axis=0))) for run in table.stats["bleu"][s]] for s in runs}
    res = mtsig.aso(bleu["sys1"], bleu["baseline"], seed=3, n_bootstrap=400)
    theirs = _theirs(bleu["sys1"], bleu["baseline"]).mean()
    assert res.eps_min == pytest.approx(theirs, abs=0.06)
    assert res.n_a == res.n_b == 3 and "mostly the bootstrap term" in res.notes[0]


def test_multi_aso_bonferroni_and_symmetry():
    rng = np.random.default_rng(4)
    scores = {"a": rng.normal(1, 1, 8), "b": rng.normal(0, 1, 8), "c": rng.normal(0, 1, 8)}
    res = mtsig.multi_aso(scores, n_bootstrap=500)
    assert set(res) == {(x, y) for x in scores for y in scores if x != y}
    assert res[("a", "b")].confidence == pytest.approx(1 - 0.05 / 3)  # Bonferroni: each bound at 1 - (1 - c)/k
    assert mtsig.multi_aso(scores, n_bootstrap=50, deepsig_level=True)[("a", "b")].confidence == pytest.approx(
        0.95 + 0.05 / 3
    )  # deepsig 1.2.8's level, on request
    # violation ratios of a pair and its reverse add up to 1 (both cover the same squared distance)
    assert res[("a", "b")].violation_ratio + res[("b", "a")].violation_ratio == pytest.approx(1.0, abs=0.02)


def test_identical_scores_and_bad_input():
    r = mtsig.aso([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert r.violation_ratio == 0.5 and not r.better
    with pytest.raises(mtsig.InputError):
        mtsig.aso([], [1.0])
    with pytest.raises(mtsig.InputError):
        mtsig.aso([1.0, float("nan")], [1.0])
