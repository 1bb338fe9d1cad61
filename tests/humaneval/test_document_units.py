"""WMT DA judges whole documents: under nulls that keep that dependence (documents exchanged whole), tests and rank
sets that resample segments are far too confident, and documents as the unit (mtsig's default for such data)
hold their level. A quick version of ``benchmarks/human_calibration.py`` (its 1,000-replicate tables are in
docs/human.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tests.data import need

ROOT = Path(__file__).resolve().parents[2]
DA = ROOT.parent / "shared" / "data" / "wmt22-humaneval-toen"


@pytest.fixture(scope="module")
def deen():
    from mtsig.io.human import read_human

    return read_human(str(need(DA / "de-en" / "ad-deen-good-stnd.csv")))


def _calibration():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import human_calibration
    finally:
        sys.path.pop(0)
    return human_calibration


@pytest.mark.slow
def test_pairwise_size_under_a_document_level_null(deen):
    from mtsig.humaneval import engine
    from mtsig.resample import Resampling

    cal = _calibration()
    m = deen.system_means()
    top = np.argsort(-m)[:2]
    a, b = (deen.scores[k] for k in top)
    both = np.isfinite(a) & np.isfinite(b)
    a, b, docs = a[both], b[both], np.asarray(deen.documents, dtype=object)[both]
    assert cal.icc(a - b, docs) > 0.2  # Lan-Bridge.1 and Online-W.2 differ by documents, not by segments
    rng = np.random.default_rng(5)
    rejected = {"segment": 0, "document": 0}
    reps = 150
    for r in range(reps):
        x, y, d = cal._draw("document swap", a, b, b, docs, rng)
        h = cal._two(x, y, d)
        for unit in rejected:
            pd = engine.pair_differences(h, engine.unit_sums(h, unit), [(0, 1)])
            rejected[unit] += engine.paired_ar(pd, Resampling(None, r), 1000)[0] <= 0.05
    # 1,000 replicates (docs/human.md): segments 0.404 [0.373, 0.435], documents 0.038 [0.027, 0.052]
    assert rejected["document"] / reps <= 0.09 and rejected["segment"] / reps >= 0.25


@pytest.mark.slow
def test_rank_sets_hold_jointly_with_documents_as_the_unit(deen):
    from mtsig.humaneval import engine
    from mtsig.resample import Resampling

    cal = _calibration()
    rng = np.random.default_rng(6)
    K = len(deen.systems)
    held = {"segment": 0, "document": 0}
    reps = 60
    for r in range(reps):
        ph = cal._pseudo(deen, np.zeros(K), rng)  # all systems equal: every true rank is 1
        for unit in held:
            boot = engine.joint_bootstrap(engine.unit_sums(ph, unit), Resampling(None, r), 400)
            sets = engine.rank_sets(boot, ph.system_means(), 0.95)[0]
            held[unit] += all(lo == 1 for lo, _ in sets)
    # 1,000 replicates: documents 0.937 [0.920, 0.951], segments 0.142 [0.121, 0.165]
    assert held["document"] / reps >= 0.85 and held["segment"] / reps <= 0.4


def test_rank_sets_equal_step_down_max_t_over_every_ordered_pair():
    """The bounded-memory rank sets give maxt's numbers bit for bit (they replaced a (resamples x K(K-1)) matrix)."""
    from mtsig.humaneval.engine import rank_sets
    from mtsig.stats.multiple import maxt

    rng = np.random.default_rng(8)
    for K in (2, 5, 9):
        boot = rng.normal(size=(300, K)) * 0.02 + np.linspace(0, 0.4, K)
        boot[:, 0] = boot[:, 1] if K > 2 else boot[:, 0]  # identical columns: a pair that never varies
        scores = boot.mean(axis=0)
        ordered = [(j, k) for j in range(K) for k in range(K) if j != k]
        D = np.stack([boot[:, j] - boot[:, k] for j, k in ordered], axis=1)
        adj = maxt(D, np.array([scores[j] - scores[k] for j, k in ordered]), "greater")["step-down"]
        sets, P = rank_sets(boot, scores, 0.95)
        assert [P[j, k] for j, k in ordered] == adj.tolist()
        better = P <= 0.05
        assert sets == [(1 + int(better[:, k].sum()), K - int(better[k].sum())) for k in range(K)]
    assert sets[-1][1] < K and sets[0][0] > 1  # nine systems 0.05 apart (the last best): the ends are told apart
