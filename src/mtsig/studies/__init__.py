"""Simulations over statistics (never text): pseudo-systems under exact nulls and rejection rates.

The seeds validate their methods by such experiments (Riezler & Maxwell's type-I error, Clark et al.'s
runs); the building blocks live here so that tests, benchmarks and the ``mtsig study`` commands share them.
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
