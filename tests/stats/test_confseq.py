"""The confidence sequences equal the paper's reference implementation (confseq 0.0.11's
``predmix_empbern_twosided_cs`` and ``betting_cs``; bounds saved by ``benchmarks/confseq_oracle.py``) within 1e-9,
and hold their level at every time at once."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mtsig.stats.confseq import betting, betting_excludes, predmix_eb

ORACLE = json.loads((Path(__file__).parent / "data" / "confseq_streams.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("method", ["predmix_eb", "betting"])
def test_equal_to_confseq_on_every_stream(method):
    fn = {"predmix_eb": predmix_eb, "betting": betting}[method]
    assert len(ORACLE[method]) == 3 * len(ORACLE["streams"]) >= 15
    for key, (lo_r, hi_r) in ORACLE[method].items():
        name, alpha, *N = key.split("@")
        lo, hi = fn(np.array(ORACLE["streams"][name]), alpha=float(alpha), N=int(N[0]) if N else None)
        np.testing.assert_allclose(lo, lo_r, rtol=0, atol=1e-9, err_msg=key)
        np.testing.assert_allclose(hi, hi_r, rtol=0, atol=1e-9, err_msg=key)


@pytest.mark.parametrize(("method", "reps"), [("predmix_eb", 1000), ("betting", 200)])
def test_time_uniform_coverage(method, reps):
    """The fraction of streams whose sequence ever misses the mean, over 200 times, stays below alpha (the
    sequences are conservative; an upper binomial bound of 3 standard errors)."""
    fn = {"predmix_eb": predmix_eb, "betting": betting}[method]
    rng = np.random.default_rng(7)
    mean = 2 / 7
    for alpha in (0.05, 0.2):
        missed = 0
        for _ in range(reps):
            lo, hi = fn(rng.beta(2, 5, 200), alpha=alpha)
            missed += bool(((lo > mean) | (hi < mean)).any())
        assert missed / reps <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps), (alpha, missed)


def test_narrows_and_rejects_bad_streams():
    rng = np.random.default_rng(1)
    x = rng.binomial(1, 0.7, 2000).astype(float)
    lo, hi = predmix_eb(x, running_intersection=True)
    assert (np.diff(lo) >= 0).all() and (np.diff(hi) <= 0).all() and hi[-1] - lo[-1] < 0.1 and lo[-1] < 0.7 < hi[-1]
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        predmix_eb(np.array([0.5, 1.5]))
    with pytest.raises(ValueError, match="one-dimensional"):
        betting(np.zeros((2, 2)))


def test_two_rows_tell_what_the_whole_grid_tells():
    """The replay study's shortcut: when the betting sequence lies wholly above or below 0.5, from two rows of the
    grid, equal to the whole grid's bounds on 300 streams at two levels."""
    rng = np.random.default_rng(0)
    for i in range(150):
        n, mu = int(rng.integers(5, 250)), rng.uniform(0.3, 0.7)
        x = np.clip(rng.normal(mu, rng.uniform(0.02, 0.3), n), 0, 1) if i % 2 else rng.beta(2, 2, n) * 0.6 + mu - 0.3
        for alpha in (0.05, 0.001):
            lo, hi = betting(x, alpha=alpha)
            up, down = betting_excludes(x, alpha)
            assert np.array_equal(lo > 0.5, up) and np.array_equal(hi < 0.5, down), (i, alpha)
