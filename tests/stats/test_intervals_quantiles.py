"""mtsig's quantiles and median give numpy's numbers bit for bit (they exist to avoid numpy.ma's import)."""

from __future__ import annotations

import numpy as np
import pytest

from mtsig.stats.intervals import median, quantiles


def _arrays(rng: np.random.Generator):
    for n in (1, 2, 3, 10, 999, 1000, 1001, 10_000):
        yield rng.normal(30, 2, n)
        yield np.round(rng.normal(0, 1, n), 1)  # ties and zeros
        yield rng.integers(0, 5, n).astype(np.float64)
        yield np.full(n, 7.25)
        yield rng.normal(0, 1, n) * 1e-300
    yield np.array([1.0, np.nan, 2.0])
    yield np.array([-np.inf, 1.0, np.inf])
    yield np.array([0.0, -0.0, 0.0, -0.0, 1.0])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on infinities
def test_quantiles_and_median_equal_numpy_bit_for_bit():
    rng = np.random.default_rng(5)
    levels = [[0.025, 0.975], [0.005, 0.995], [0.05, 0.95], [0.0, 1.0], [0.5], [0.3333333333333333], [0.9999999]]
    n = 0
    for s in _arrays(rng):
        for q in levels:
            got, want = quantiles(s, q), np.quantile(s, q)
            assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))
            n += 1
        m, want = median(s), float(np.median(s))
        assert (m == want and np.signbit(m) == np.signbit(want)) or (np.isnan(m) and np.isnan(want))
    assert n > 200
    for q in rng.random((300, 2)):  # many levels on one array
        s = rng.normal(10, 3, 1000)
        assert np.array_equal(quantiles(s, list(q)), np.quantile(s, list(q)))
