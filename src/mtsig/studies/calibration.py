"""How often do the tests for systems with optimizer runs reject under nulls built from real systems?

:func:`runs_calibration` builds, from two real systems with runs, pseudo-system pairs under each null of
:data:`~mtsig.studies.nulls.RUN_NULLS` and counts the rejections of every runs test at each alpha:
``ar`` (mtsig's default for runs: randomization of the pooled statistics plus run-level variance),
``pooled-ar`` (the same without the run variance) and ``stratified-ar`` (Clark et al.'s, as in MultEval but
a true re-partition). Replicate r draws its null and its shuffles from stream r of the seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mtsig.resample import Resampling
from mtsig.stats.engines import runs_ar_many, stratified_ar_many
from mtsig.studies.nulls import RUN_NULLS, RejectionRate, rejection_rate

RUNS_TESTS = ("ar", "pooled-ar", "stratified-ar")


def runs_p_values(metric, A: np.ndarray, B: np.ndarray, resampling: Resampling, tests: Sequence[str]) -> dict:
    """p-values of the runs tests for one pair of systems with runs."""
    R = resampling.count(1000)
    r = resampling.with_count(R)
    out = {}
    if {"ar", "pooled-ar"} & set(tests):
        res = runs_ar_many({0: (metric, A, B)}, r)[0]
        out["ar"] = res["p"]
        out["pooled-ar"] = (res["plain_count"] + 1) / (R + 1)
    if "stratified-ar" in tests:
        out["stratified-ar"] = (stratified_ar_many({0: (metric, A, B)}, r)[0] + 1) / (R + 1)
    return {t: out[t] for t in tests}


ALPHAS = (0.05, 0.01)


def runs_calibration(
    metric,
    systems: tuple[np.ndarray, np.ndarray],
    null: str,
    reps: int = 1000,
    resampling: Resampling | None = None,
    tests: Sequence[str] = RUNS_TESTS,
) -> dict[tuple[str, float], RejectionRate]:
    """Rejection rates ``(test, alpha) -> RejectionRate`` at each of :data:`ALPHAS`, over ``reps`` pseudo-system
    pairs built under ``null`` from two real systems with runs ``systems = (A, B)``, each ``(runs, N, d)``."""
    resampling = resampling or Resampling(1000)
    A, B = systems
    ps: dict[str, list[float]] = {t: [] for t in tests}
    for i, (a, b) in enumerate(RUN_NULLS[null](A, B, reps, seed=resampling.seed)):
        for t, p in runs_p_values(metric, a, b, resampling.with_stream(i), tests).items():
            ps[t].append(p)
    return {(t, al): rejection_rate(ps[t], al) for t in tests for al in ALPHAS}
