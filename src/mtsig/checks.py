"""Checks of the values a user gives (by keyword or flag): each failure is one :class:`~mtsig.errors.InputError`
naming the parameter, never a ``TypeError`` from deep inside."""

from __future__ import annotations

import numpy as np

from mtsig.errors import InputError


def whole_number(value, name: str, low: int = 0, high: int | None = None) -> int:
    """``value`` as an int: a whole number (not a bool, not 2.5, not "100") in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(f"{name} must be a whole number, got {value!r}", param=name)
    if value < low:
        raise InputError(f"{name} must be at least {low}, got {value}", param=name)
    if high is not None and value > high:
        raise InputError(f"{name} must be at most {high:,} (the work and memory grow with it), got {value:,}",
                         param=name)  # fmt: skip
    return int(value)


def resample_count(value, name: str) -> int:
    """A number of resamples: a whole number from 1 to :data:`mtsig.resample.MAX_RESAMPLES`."""
    from mtsig.resample import MAX_RESAMPLES

    return whole_number(value, name, 1, MAX_RESAMPLES)


def probability(value, name: str) -> float:
    """A level or probability strictly between 0 and 1 (alpha, confidence)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise InputError(f"{name} must be a number strictly between 0 and 1, got {value!r}", param=name)
    if not 0 < value < 1:
        raise InputError(f"{name} must lie strictly between 0 and 1, got {value}", param=name)
    return float(value)


def decimals(value, name: str = "width") -> int:
    """The decimals shown (``-w``): 0 to 12."""
    return whole_number(value, name, 0, 12)
