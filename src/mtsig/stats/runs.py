"""Optimizer instability (Clark, Dyer, Lavie & Smith 2011): statistics over several optimizer runs.

- ``s_test``: sample standard deviation of the runs' corpus scores on the test set (MultEval's s_opt);
- ``s_sel``: per run, the standard deviation of the corpus score over bootstrap resamples of the test
  segments, averaged over runs (the variance due to test-set selection);
- ``s_dev``: sample standard deviation of the runs' corpus scores on a development set;
- the median run of each system (by score, respecting whether higher is better).

The stratified approximate randomization over runs is in :mod:`mtsig.stats.engines`, its re-partitions
in :mod:`mtsig.resample` (plan kind ``stratified``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def median_run(run_scores: np.ndarray, higher_is_better: bool) -> int:
    """Index of the median run: the middle of the runs ranked best first (the better middle one when
    the number of runs is even)."""
    order = np.argsort(-run_scores if higher_is_better else run_scores, kind="stable")
    return int(order[(len(order) - 1) // 2])


def s_sel(bootstrap_per_run: Sequence[np.ndarray]) -> float:
    """Mean over runs of the bootstrap standard deviation of each run's score."""
    return float(np.mean([b.std(ddof=1) for b in bootstrap_per_run]))


def sample_std(values: Sequence[float] | np.ndarray | None) -> float | None:
    """Sample standard deviation (n - 1), or None for fewer than two values."""
    if values is None or len(values) < 2:
        return None
    return float(np.std(values, ddof=1))
