"""Bucket boundaries: compare-mt's defaults and labels, and the assignment of values to buckets.

A list of cutoffs ``c_1 < ... < c_k`` makes ``k + 1`` buckets: ``value < c_1``, ``c_1 <= value < c_2``, ...,
``value >= c_k`` (compare-mt's rule). Labels follow compare-mt: ``<c_1``, ``[c_i,c_{i+1})``, ``>=c_k``, and, for
whole numbers, a bucket holding a single value is labelled by that value (``[3,4)`` is ``3``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError

#: compare-mt's default cutoffs per analysis (sentence-score: tenths of a 0-100 score)
DEFAULT_CUTOFFS: dict[str, tuple[float, ...]] = {
    "ref-length": (10, 20, 30, 40, 50, 60),
    "length-diff": (-20, -10, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 21),
    "word-frequency": (1, 2, 3, 4, 5, 10, 100, 1000),
    "sentence-score": (10, 20, 30, 40, 50, 60, 70, 80, 90),
}


def _num(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class Cutoffs:
    values: tuple[float, ...]
    integer: bool = True

    def __post_init__(self):
        v = self.values
        if not v:
            raise InputError("bucket cutoffs: give at least one value")
        if any(not np.isfinite(x) for x in v):
            raise InputError(f"bucket cutoffs must be finite numbers, got {':'.join(map(_num, v))}")
        if any(b <= a for a, b in zip(v, v[1:])):
            raise InputError(f"bucket cutoffs must increase strictly, got {':'.join(map(_num, v))}")

    @property
    def n(self) -> int:
        return len(self.values) + 1

    def labels(self) -> list[str]:
        v = self.values
        out = [f"<{_num(v[0])}"]
        for a, b in zip(v, v[1:]):
            out.append(_num(a) if self.integer and b - 1 == a else f"[{_num(a)},{_num(b)})")
        out.append(f">={_num(v[-1])}")
        return out

    def bounds(self, i: int) -> tuple[float | None, float | None]:
        """The bucket's lower bound (inclusive) and upper bound (exclusive); None where it is open."""
        v = self.values
        return (v[i - 1] if i > 0 else None, v[i] if i < len(v) else None)

    def assign(self, values) -> np.ndarray:
        """The bucket of each value (value == cutoff goes to the upper bucket)."""
        return np.searchsorted(np.asarray(self.values, dtype=np.float64), np.asarray(values, dtype=np.float64),
                               side="right")  # fmt: skip


def parse_cutoffs(text: str, what: str) -> tuple[float, ...]:
    """``10:20:30`` (compare-mt's syntax; commas also accepted) as numbers."""
    parts = text.replace(",", ":").split(":")
    try:
        if any(not p.strip() for p in parts):  # 10::20 or a trailing colon: a number left out
            raise ValueError
        vals = tuple(float(p) for p in parts)
        if not all(math.isfinite(v) for v in vals):
            raise ValueError
    except ValueError:
        raise InputError(f"bucket cutoffs of {what}: {text!r} is not a list of finite numbers like 10:20:30") from None
    Cutoffs(vals)
    return vals
