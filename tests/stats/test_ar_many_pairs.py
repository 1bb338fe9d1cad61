"""Approximate randomization of many pairs: the array path (every pair of a chunk at once, counts only) and the
pair-by-pair path (which also keeps each null distribution) count the same shuffles, for fractional and integer
statistics, all pairs or any list of pairs, and every alternative."""

from __future__ import annotations

import numpy as np
import pytest

from mtsig.metrics import get_metric
from mtsig.resample import Resampling
from mtsig.stats.engines import ar_counts


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("kind", ["seg", "bleu"])
def test_the_array_path_counts_what_the_pair_by_pair_path_counts(kind, alternative):
    rng = np.random.default_rng(4)
    names = [f"s{i}" for i in range(7)]
    if kind == "seg":
        metric = get_metric("seg")
        stats = {n: np.column_stack([rng.normal(0.5 + 0.01 * i, 0.2, 300), np.ones(300)]) for i, n in enumerate(names)}
    else:
        metric = get_metric("bleu")
        width = len(metric.stat_names)
        stats = {n: rng.integers(0, 9, (300, width)).astype(np.float64) + 1 for n in names}  # whole numbers
    all_pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    scattered = [("s3", "s0"), ("s3", "s6"), ("s1", "s5"), ("s6", "s2"), ("s0", "s4"), ("s2", "s1"), ("s5", "s4"),
                 ("s4", "s3")]  # fmt: skip
    for pairs in (all_pairs, scattered):
        fast = ar_counts(stats, metric, pairs, Resampling(3000, 11), alternative)
        slow = ar_counts(stats, metric, pairs, Resampling(3000, 11), alternative, keep=True)
        assert fast == {p: c for p, (c, _) in slow.items()}
        assert 0 < sum(fast.values()) < 3000 * len(pairs)  # counts that can tell the paths apart
