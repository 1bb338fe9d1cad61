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
DEFAULT_CHUNK_BYTES = 64 * 2**20


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

    def _block(self, b: int, size: int) -> np.ndarray:
        ss = np.random.SeedSequence(self.seed, spawn_key=(KINDS[self.kind], b))
        rng = np.random.Generator(np.random.PCG64(ss))
        N = self.n_segments
        if self.kind == "bootstrap":
            idx = rng.integers(0, N, size=(size, N))
            idx += (np.arange(size) * N)[:, None]
            return np.bincount(idx.ravel(), minlength=size * N).reshape(size, N).astype(np.float64)
        bits = np.unpackbits(np.frombuffer(rng.bytes((size * N + 7) // 8), dtype=np.uint8))
        return bits[: size * N].reshape(size, N).astype(np.float64)

    def chunks(self) -> Iterator[np.ndarray]:
        """Weight matrices, in order, ``n_resamples`` rows in all."""
        B = self.block
        per_chunk = max(1, self.chunk_bytes // (8 * self.n_segments * B)) * B
        done, b = 0, 0
        while done < self.n_resamples:
            rows = min(per_chunk, self.n_resamples - done)
            parts = []
            got = 0
            while got < rows:
                size = min(B, self.n_resamples - b * B)
                parts.append(self._block(b, size))
                got += size
                b += 1
            W = parts[0] if len(parts) == 1 else np.vstack(parts)
            done += W.shape[0]
            yield W

    def n_chunks(self) -> int:
        B = self.block
        per_chunk = max(1, self.chunk_bytes // (8 * self.n_segments * B)) * B
        return -(-self.n_resamples // per_chunk)


def resampled_totals(
    plan: Plan, arrays: list[np.ndarray], progress: Callable[[int], None] | None = None
) -> Iterator[list[np.ndarray]]:
    """For each chunk, ``[W @ A for A in arrays]`` computed as one matrix product."""
    widths = [a.shape[1] for a in arrays]
    S = np.ascontiguousarray(np.hstack(arrays), dtype=np.float64)
    cuts = np.cumsum(widths)[:-1]
    for W in plan.chunks():
        P = W @ S
        if progress is not None:
            progress(W.shape[0])
        yield np.split(P, cuts, axis=1)
