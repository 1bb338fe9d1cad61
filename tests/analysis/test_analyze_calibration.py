"""A reduced calibration of `mtsig analyze` in CI (the full one: benchmarks/calibrate_analyze.py, figures in the
README): exact null pairs made by swapping each segment's outputs between two real systems at random; the share
of null pairs with some bucket significant after holm must stay near alpha. 100 replicates of 500 segments: a
level of 0.05 rejects 13 or more with probability 0.002, so the bound below fails only for a test that is
clearly liberal."""

from __future__ import annotations

import numpy as np
import pytest

import mtsig
from tests.data import wmt_hyp, wmt_ref

pytestmark = pytest.mark.slow


def test_null_pairs_hold_the_level(wmt):
    n = 500
    ref = open(wmt_ref(wmt, "A"), encoding="utf-8").read().splitlines()[:n]
    a = open(wmt_hyp(wmt, "JDExploreAcademy"), encoding="utf-8").read().splitlines()[:n]
    b = open(wmt_hyp(wmt, "LT22"), encoding="utf-8").read().splitlines()[:n]
    rejected = {k: 0 for k in ("corpus", "ref-length", "length-diff", "word-frequency")}
    reps = 100
    for i in range(reps):
        swap = np.random.default_rng(1000 + i).random(n) < 0.5
        x = [q if s else p for p, q, s in zip(a, b, swap)]
        y = [p if s else q for p, q, s in zip(a, b, swap)]
        res = mtsig.analyze([ref], {"X": x, "Y": y}, by=list(rejected)[1:], n_resamples=400, n_bootstrap=50, seed=i)
        for an in res.analyses:
            rejected[an.kind] += any(c.significant for bk in an.buckets for c in bk.comparisons)
    assert all(k <= 12 for k in rejected.values()), rejected
    # and the real pair differs somewhere (the test has power)
    res = mtsig.analyze([ref], {"A": a, "B": b}, by=["ref-length"], n_resamples=400, n_bootstrap=50)
    assert any(c.significant for bk in res.get("ref-length").buckets for c in bk.comparisons)
