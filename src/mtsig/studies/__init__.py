"""The seeds' validation experiments as simulations over statistics (never text): ``mtsig study NAME``.

- :mod:`~mtsig.studies.riezler`: ``type1``, ``multiplicity``, ``sensitivity`` (Riezler & Maxwell 2005);
- :mod:`~mtsig.studies.koehn`: ``sampling``, ``coverage``, ``testsize``, ``levels`` (Koehn 2004);
- :mod:`~mtsig.studies.clark`: ``runs`` (Clark et al. 2011) and ``power``;
- :mod:`~mtsig.studies.replicates`: replicates as seeded streams through an executor (serial, forked, Dask);
- :mod:`~mtsig.studies.nulls`, :mod:`~mtsig.studies.calibration`: exact nulls built from real systems and
  rejection rates (shared with the calibration tests); :mod:`~mtsig.studies.result`: results and rendering.
"""

from mtsig.studies.nulls import (
    RUN_NULLS,
    RejectionRate,
    binomial_interval,
    block_swapped_runs,
    pair_swapped_runs,
    permuted_runs,
    rejection_rate,
    run_level_runs,
    shift_abs_p,
    swapped_pairs,
)

__all__ = [
    "RUN_NULLS",
    "block_swapped_runs",
    "pair_swapped_runs",
    "run_level_runs",
    "RejectionRate",
    "binomial_interval",
    "permuted_runs",
    "rejection_rate",
    "shift_abs_p",
    "swapped_pairs",
]
