"""Resampling plans: seeded weight matrices over segments, produced in bounded chunks.

A plan yields matrices ``W`` of shape ``(r, N)``; resampled totals of any statistics array ``S``
``(N, d)`` are ``W @ S``. One plan serves every system and every metric of a run: their statistics
are stacked column-wise and multiplied once per chunk, which also makes every comparison paired.

- ``bootstrap``: row = how often each segment is drawn in a resample of N segments with replacement.
- ``randomization``: row = a 0/1 swap mask, each segment swapped with probability 1/2 (approximate
  randomization); the swapped totals of a pair are ``A + W @ (B - A)`` and ``B - W @ (B - A)``.

Reproducibility: randomness is drawn in fixed blocks of resamples, block ``b`` from its own generator
``numpy.random.Generator(PCG64(SeedSequence(seed, spawn_key=(kind, b))))``. Chunks are whole blocks, so
the resamples are identical whatever the chunk size (memory budget) is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError

DEFAULT_SEED = 12345
KINDS = {"bootstrap": 1, "randomization": 2}
#: bytes of weights one chunk may hold (the matrix W, float64)
DEFAULT_CHUNK_BYTES = 16 * 2**20  # reused buffer: small enough to stay cheap on first touch


def block_size(n_segments: int) -> int:
    """Resamples per random block: a power of two, at most 256, about 2M weights per block."""
    b = 1
    while b < 256 and (2 * b) * n_segments <= 2_000_000:
        b *= 2
    return b


@dataclass(frozen=True)
class Plan:
    kind: str
    n_segments: int
    n_resamples: int
    seed: int = DEFAULT_SEED
    chunk_bytes: int = DEFAULT_CHUNK_BYTES

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"unknown resampling kind {self.kind!r}")
        if self.n_resamples < 1:
            raise InputError(f"the number of resamples must be at least 1, got {self.n_resamples}")
        if self.n_segments < 1:
            raise InputError("cannot resample an empty test set")

    @property
    def block(self) -> int:
        return block_size(self.n_segments)

    def _fill(self, b: int, out: np.ndarray) -> None:
        """Write block ``b``'s weights into ``out`` (shape ``(size, N)``, any float dtype)."""
        size, N = out.shape
        ss = np.random.SeedSequence(self.seed, spawn_key=(KINDS[self.kind], b))
        rng = np.random.Generator(np.random.PCG64(ss))
        if self.kind == "bootstrap":
            idx = rng.integers(0, N, size=(size, N))
            idx += (np.arange(size) * N)[:, None]
            out[...] = np.bincount(idx.ravel(), minlength=size * N).reshape(size, N)
        else:
            bits = np.unpackbits(np.frombuffer(rng.bytes((size * N + 7) // 8), dtype=np.uint8))
            out[...] = bits[: size * N].reshape(size, N)

    def rows_per_chunk(self, itemsize: int = 8) -> int:
        B = self.block
        return max(1, self.chunk_bytes // (itemsize * self.n_segments * B)) * B

    def chunks(self, dtype=np.float64) -> Iterator[np.ndarray]:
        """Weight matrices, in order, ``n_resamples`` rows in all (one buffer, reused chunk after chunk)."""
        B = self.block
        per_chunk = self.rows_per_chunk(np.dtype(dtype).itemsize)
        buf = np.empty((min(per_chunk, self.n_resamples), self.n_segments), dtype=dtype)
        done, b = 0, 0
        while done < self.n_resamples:
            rows = min(per_chunk, self.n_resamples - done)
            got = 0
            while got < rows:
                size = min(B, self.n_resamples - b * B)
                self._fill(b, buf[got : got + size])
                got += size
                b += 1
            done += rows
            yield buf[:rows]


def _float32_is_exact(plan: Plan, S: np.ndarray) -> bool:
    """True when float32 products W @ S are exact: integer statistics whose largest possible partial
    sum stays below 2**24 (BLEU and length counts on ordinary test sets; never NIST's fractional weights)."""
    if not np.array_equal(S, np.round(S)):
        return False
    a = np.abs(S)
    bound = a.sum(axis=0).max(initial=0) if plan.kind == "randomization" else plan.n_segments * a.max(initial=0)
    return bool(bound < 2**24)


def resampled_totals(
    plan: Plan, arrays: list[np.ndarray], progress: Callable[[int], None] | None = None
) -> Iterator[list[np.ndarray]]:
    """For each chunk, ``[W @ A for A in arrays]`` computed as one matrix product (float64 results).

    The product runs in float32 only when that is exact (see ``_float32_is_exact``); results are the
    same numbers either way, twice as fast in float32.
    """
    widths = [a.shape[1] for a in arrays]
    S = np.ascontiguousarray(np.hstack(arrays), dtype=np.float64)
    dtype = np.float32 if _float32_is_exact(plan, S) else np.float64
    S = S.astype(dtype)
    cuts = np.cumsum(widths)[:-1]
    for W in plan.chunks(dtype):
        P = (W @ S).astype(np.float64)
        if progress is not None:
            progress(W.shape[0])
        yield np.split(P, cuts, axis=1)
