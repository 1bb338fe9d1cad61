"""All randomness of mtsig: resampling settings, plans of weight matrices, and the chunked totals loop.

A plan describes ``n_resamples`` weight rows over ``width`` items; resampled totals of a statistics array
``S`` (``width``, d) are ``W @ S``. One plan serves every system and metric of a run: their statistics are
stacked column-wise and multiplied once per chunk, which also makes every comparison paired.

Kinds:
- ``bootstrap``: a row counts how often each of the N segments is drawn in a resample of N segments with
  replacement (width N).
- ``randomization``: a row is a 0/1 swap mask, each segment swapped with probability 1/2 (width N); the
  swapped totals of a pair are ``A + W @ (B - A)`` and ``B - W @ (B - A)``.
- ``stratified``: optimizer runs (Clark et al. 2011): for every segment, ``m`` outputs (the runs of two
  systems) are re-partitioned into a group of ``k`` and one of ``m - k``; a row is the 0/1 membership of
  the first group over the N x m items, segment-major (width N m). A true permutation: every subset of
  size k is equally likely.

Reproducibility: weights are drawn in fixed blocks of rows; block ``b`` comes from its own generator
``Generator(PCG64(SeedSequence(seed, spawn_key=key)))`` with ``key = (*stream, kind, [m k,] b)``. So
results do not depend on the chunk size (memory budget), a block can be computed anywhere (a worker,
another machine) by the pure :meth:`Plan.block`, and independent replicates (studies) draw from
independent streams by giving each its own ``stream`` key. The default stream ``()`` keeps the keys of
mtsig 0.1.0, whose numbers are therefore unchanged. The plans draw those streams' bytes and integers through
the compiled kernels from the generator's state (:mod:`mtsig.pcg`): the same numbers without importing
numpy.random, which costs a small comparison a sixth of its run time.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from mtsig._compiled import load
from mtsig.errors import InputError
from mtsig.pcg import entropy

# compiled kernels of the plans (same weights and totals; numpy below is the reference and the fallback)
_plan = load("_plan")

DEFAULT_SEED = 12345
#: Every first element of a random stream's key, in one table (``tests/test_resample.py`` checks that they are
#: distinct, so no two uses of one seed can draw the same numbers): the resampling plans' kinds, the tag of a
#: plan's non-default stream, and the studies' own draws. A new use of the seed takes a new entry here.
#: (:mod:`mtsig.studies.nulls` keys its calibration replicates by the replicate number alone: one-element keys,
#: which no key below has.)
STREAM_KEYS = {
    "bootstrap": 1,
    "randomization": 2,
    "stratified": 3,
    "permutation": 4,
    "coverage": 41,
    "testsize": 42,
    "random samples": 43,
    "type1": 51,
    "multiplicity": 52,
    "runs": 61,
    "power": 62,
    "units null": 71,
    "units coverage": 72,
    "stream tag": 0x5EED,
}
#: the plan kinds' keys
KINDS = {k: STREAM_KEYS[k] for k in ("bootstrap", "randomization", "stratified", "permutation")}
#: bytes of weights one chunk may hold (a small buffer stays cheap to touch and fits the caches better)
DEFAULT_CHUNK_BYTES = 16 * 2**20
#: the first spawn-key element of a non-default stream (keeps stream keys apart from the default keys)
_STREAM_TAG = STREAM_KEYS["stream tag"]
#: bytes of the pieces of weights that exact float32 products are made from, a chunk at a time (the same integers
#: for any pieces): each written and multiplied while still in the second-level cache (10,000 shuffles of 2,489
#: segments and 8 columns took 45 ms from weights of 16 MB at a time, 18 ms from pieces of one block, 2.5 MB)
_EXACT_CHUNK_BYTES = 2**20
#: subsets of m outputs tabulated up to this many (beyond: a random permutation per segment)
_MAX_SUBSETS = 50_000
#: bytes of the per-segment subset sums that stratified totals may use instead of weight matrices
_MAX_GROUP_BYTES = 64 * 2**20

#: ``factory(label, total)`` returns a callback ``advance(n)`` (a progress bar), or None for no progress
ProgressFactory = Callable[[str, int], Callable[[int], None]]


@dataclass(frozen=True)
class Resampling:
    """How to resample, validated once: count, seed, memory budget, progress and stream.

    ``n_resamples=None`` lets each test use its own default count (see ``mtsig.stats.paired.PAIRED_TESTS``).
    ``chunk_bytes`` bounds the weights held at once; results never depend on it. ``stream`` separates
    independent replicates that share a seed (one key per replicate).
    """

    n_resamples: int | None = None
    seed: int = DEFAULT_SEED
    chunk_bytes: int = DEFAULT_CHUNK_BYTES
    progress: ProgressFactory | None = field(default=None, compare=False, repr=False)
    stream: tuple[int, ...] = ()

    def __post_init__(self):
        if self.n_resamples is not None and (not _is_int(self.n_resamples) or self.n_resamples < 1):
            raise InputError(
                f"n_resamples must be a whole number of at least 1, got {self.n_resamples!r}", param="n_resamples"
            )
        _check_at_most(self.n_resamples, "n_resamples")
        if not _is_int(self.seed) or self.seed < 0:
            raise InputError(f"seed must be a whole number of at least 0, got {self.seed!r}", param="seed")
        if not _is_int(self.chunk_bytes) or self.chunk_bytes < 1:
            raise InputError(
                f"chunk_bytes must be a whole number of at least 1, got {self.chunk_bytes!r}", param="chunk_bytes"
            )
        if not all(_is_int(k) and k >= 0 for k in self.stream):
            raise InputError(f"stream keys must be whole numbers of at least 0, got {self.stream!r}")

    @classmethod
    def of(
        cls, n_resamples: int | None = None, seed: int | None = None, count_name: str = "n_resamples", **kw
    ) -> Resampling:
        """Build from user values: ``seed=None`` means the default seed; ``count_name`` is what the caller
        calls the number of resamples (errors say it in the caller's words)."""
        if n_resamples is not None and (not _is_int(n_resamples) or n_resamples < 1):
            raise InputError(
                f"{count_name} must be a whole number of at least 1, got {n_resamples!r}", param=count_name
            )
        _check_at_most(n_resamples, count_name)
        return cls(n_resamples, DEFAULT_SEED if seed is None else seed, **kw)

    def count(self, default: int) -> int:
        """The number of resamples, or ``default`` when none was given."""
        return default if self.n_resamples is None else self.n_resamples

    def with_count(self, n_resamples: int | None) -> Resampling:
        return replace(self, n_resamples=n_resamples)

    def with_stream(self, *key: int) -> Resampling:
        return replace(self, stream=(*self.stream, *key))

    def advance(self, label: str, total: int) -> Callable[[int], None] | None:
        """A progress callback for one stage, or None."""
        return self.progress(label, total) if self.progress is not None else None

    def plan(self, kind: str, n_segments: int, n_resamples: int, groups: tuple[int, int] | None = None) -> Plan:
        return Plan(kind, n_segments, n_resamples, self.seed, self.chunk_bytes, groups, self.stream)


#: the most resamples one test or interval may draw: its work and its kept scores grow with the count (10^7
#: resamples of 2,000 segments are 2 * 10^10 weights; 10^4 already resolve p-values of 10^-4)
MAX_RESAMPLES = 10_000_000


def _check_at_most(n: int | None, name: str) -> None:
    if n is not None and n > MAX_RESAMPLES:
        raise InputError(
            f"{name} must be at most {MAX_RESAMPLES:,} (the work and memory grow with it), got {n:,}", param=name
        )


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def block_size(width: int) -> int:
    """Rows per random block: a power of two, at most 256, about 2M weights per block."""
    b = 1
    while b < 256 and (2 * b) * width <= 2_000_000:
        b *= 2
    return b


@lru_cache(maxsize=32)
def subset_table(m: int, k: int) -> np.ndarray | None:
    """All subsets of size k of m items as 0/1 rows (lexicographic), when there are few enough of them."""
    if math.comb(m, k) > _MAX_SUBSETS:
        return None
    table = np.zeros((math.comb(m, k), m), dtype=np.uint8)
    for row, combo in enumerate(itertools.combinations(range(m), k)):
        table[row, list(combo)] = 1
    table.flags.writeable = False
    return table


@lru_cache(maxsize=32)
def _subset_rows(m: int, k: int, dtype: np.dtype) -> np.ndarray | None:
    """:func:`subset_table` in ``dtype``, each row viewed as one opaque item of ``m`` weights (a gather of
    such items fills a stratified plan's rows about a third faster than gathering rows of a 2-d table)."""
    table = subset_table(m, k)
    if table is None:
        return None
    rows = np.ascontiguousarray(table, dtype=dtype)
    return rows.view(np.dtype((np.void, rows.itemsize * m))).ravel()


@dataclass(frozen=True)
class Plan:
    """``n_resamples`` weight rows of one kind over ``n_segments`` segments, drawn block by block."""

    kind: str
    n_segments: int
    n_resamples: int
    seed: int = DEFAULT_SEED
    chunk_bytes: int = DEFAULT_CHUNK_BYTES
    #: stratified only: (m outputs per segment, k of them in the first group)
    groups: tuple[int, int] | None = None
    stream: tuple[int, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"unknown resampling kind {self.kind!r}")
        if self.n_resamples < 1:
            raise InputError(f"the number of resamples must be at least 1, got {self.n_resamples}")
        if self.n_segments < 1:
            raise InputError("cannot resample an empty test set")
        if (self.kind == "stratified") != (self.groups is not None):
            raise InputError("a stratified plan needs groups=(m, k); other kinds take none")
        if self.groups is not None and not 0 < self.groups[1] < self.groups[0]:
            raise InputError(f"stratified groups need 0 < k < m, got {self.groups}")

    @property
    def width(self) -> int:
        """Columns of W: segments, or segments x outputs per segment for stratified plans."""
        return self.n_segments * (self.groups[0] if self.groups else 1)

    @property
    def block(self) -> int:
        return block_size(self.width)

    @property
    def n_blocks(self) -> int:
        return -(-self.n_resamples // self.block)

    @property
    def strata(self) -> tuple[int, int]:
        """A stratified plan's ``(m, k)``: k of each segment's m outputs drawn for one side."""
        if self.groups is None:
            raise ValueError(f"a {self.kind} plan has no strata")
        return self.groups

    def spawn_key(self, b: int) -> tuple[int, ...]:
        key: tuple[int, ...] = (KINDS[self.kind], b)
        if self.groups is not None:
            m, k = self.groups
            key = (KINDS[self.kind], 1000 * m + k, b)
        return (_STREAM_TAG, *self.stream, *key) if self.stream else key

    def rng(self, b: int) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=self.spawn_key(b))))

    def block_rows(self, b: int) -> int:
        return min(self.block, self.n_resamples - b * self.block)

    def block_weights(self, b: int, dtype=np.float64) -> np.ndarray:
        """The weights of block ``b`` (a new array of ``block_rows(b)`` rows): a pure function of the plan."""
        out = np.empty((self.block_rows(b), self.width), dtype=dtype)
        self._fill(b, out)
        return out

    def _fill(self, b: int, out: np.ndarray) -> None:
        size, width = out.shape
        key = self.spawn_key(b)
        kernel = _plan if out.flags.c_contiguous and out.dtype in (np.float32, np.float64) else None
        if self.kind == "bootstrap":
            if kernel is not None and width < 2**32:  # the draws counted as they are made
                kernel.draw_counts(_seeded(kernel, self.seed, key), out)
                return
            idx = draw_integers(self.seed, key, width, (size, width))
            if kernel is not None:
                kernel.counts(idx, out)
            else:
                idx += (np.arange(size) * width)[:, None]
                out[...] = np.bincount(idx.ravel(), minlength=size * width).reshape(size, width)
        elif self.kind == "randomization":
            src = draw_bytes(self.seed, key, (size * width + 7) // 8)
            if kernel is not None:
                kernel.bits(src, out)  # the same weights in one pass
            else:
                out[...] = np.unpackbits(src)[: size * width].reshape(size, width)
        else:
            m, k = self.strata
            table = subset_table(m, k)
            if table is not None:
                pick = self._picks(b, size)
                rows = _subset_rows(m, k, out.dtype)
                if rows is not None and out.flags.c_contiguous:  # whole rows of m weights copied as one item
                    np.take(rows, pick, out=out.view(rows.dtype).reshape(size, self.n_segments))
                else:
                    out[...] = table[pick].reshape(size, width)
            else:
                ranks = np.argsort(self.rng(b).random((size, self.n_segments, m)), axis=-1)
                out[...] = (ranks < k).reshape(size, width)

    def _picks(self, b: int, size: int) -> np.ndarray:
        """Stratified plans with a subset table: the subset of each row and segment of block ``b``, ``(size, N)``."""
        return draw_integers(self.seed, self.spawn_key(b), math.comb(*self.strata), (size, self.n_segments))

    def group_totals(self, S: np.ndarray) -> Iterator[np.ndarray] | None:
        """Stratified plans: ``W @ S`` chunk by chunk without the weight matrices, from the subset drawn for
        each row and segment and the sums of each segment's outputs per subset. Only for float32 statistics
        that :func:`float32_is_exact` allows (the same integers in any order of summation); None where this
        does not apply (no compiled kernel, no subset table, too many subsets for the memory budget)."""
        if _plan is None or self.kind != "stratified" or S.dtype != np.float32:
            return None
        (m, k), c = self.strata, S.shape[1]
        table = subset_table(m, k)
        if table is None or self.n_segments * len(table) * c * 4 > _MAX_GROUP_BYTES:
            return None
        G = np.matmul(table.astype(np.float32), S.reshape(self.n_segments, m, c))  # (N, subsets, c)
        return self._group_chunks(G)

    def _group_chunks(self, G: np.ndarray) -> Iterator[np.ndarray]:
        assert _plan is not None  # group_totals returns these chunks only with the compiled kernel
        per_chunk = max(1, 2**20 // (self.block * 4 * G.shape[2])) * self.block
        for start in range(0, self.n_resamples, per_chunk):
            out = np.empty((min(per_chunk, self.n_resamples - start), G.shape[2]), dtype=np.float32)
            for b, got, size in self._block_spans(start, out.shape[0]):
                _plan.group_sums(self._picks(b, size), G, out[got : got + size])
            yield out

    def rows_per_chunk(self, itemsize: int = 8, chunk_bytes: int | None = None) -> int:
        """Rows of weights per chunk: whole blocks within ``chunk_bytes`` (default: the plan's), at least one."""
        B = self.block
        budget = self.chunk_bytes if chunk_bytes is None else chunk_bytes
        return max(1, budget // (itemsize * self.width * B)) * B

    def chunks(self, dtype=np.float64) -> Iterator[np.ndarray]:
        """Weight matrices, in order, ``n_resamples`` rows in all; each chunk is a new array."""
        per_chunk = self.rows_per_chunk(np.dtype(dtype).itemsize)
        for start in range(0, self.n_resamples, per_chunk):
            rows = min(per_chunk, self.n_resamples - start)
            yield self._chunk_into(start, np.empty((rows, self.width), dtype=dtype))

    def _block_spans(self, start: int, rows: int) -> Iterator[tuple[int, int, int]]:
        """``(block, first row within the chunk, rows)`` of each block making rows ``start .. start + rows``
        (``start`` on a block boundary)."""
        got, b = 0, start // self.block
        while got < rows:
            size = self.block_rows(b)
            yield b, got, size
            got += size
            b += 1

    def _chunk_into(self, start: int, out: np.ndarray) -> np.ndarray:
        """Fill ``out`` with rows ``start ...`` (``start`` on a block boundary) and return it."""
        for b, got, size in self._block_spans(start, out.shape[0]):
            self._fill(b, out[got : got + size])
        return out

    def _reused_chunks(self, dtype) -> Iterator[np.ndarray]:
        """As :meth:`chunks`, filling one buffer again and again (private: only the totals loop reads it)."""
        per_chunk = self.rows_per_chunk(np.dtype(dtype).itemsize)
        buf = np.empty((min(per_chunk, self.n_resamples), self.width), dtype=dtype)
        for start in range(0, self.n_resamples, per_chunk):
            rows = min(per_chunk, self.n_resamples - start)
            yield self._chunk_into(start, buf[:rows])


def stream_rng(seed: int, *key: int) -> np.random.Generator:
    """The generator of stream ``key`` of ``seed``: a study's replicate, sample or draw draws from its own."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


def _seeded(kernel, seed: int, key: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The PCG64 state of stream ``key`` of ``seed``, seeded by the compiled kernel (see :mod:`mtsig.pcg`)."""
    return kernel.seed_pcg64(entropy(seed, key))


def draw_integers(seed: int, key: tuple[int, ...], bound: int, shape: tuple[int, int]) -> np.ndarray:
    """``stream_rng(seed, *key).integers(0, bound, shape)`` (int64): by the compiled kernel from the stream's
    state (:mod:`mtsig.pcg`, without importing numpy.random) where it applies, else by numpy."""
    if _plan is not None and 1 <= bound <= 2**32:
        out = np.empty(shape, dtype=np.int64)
        _plan.draws(_seeded(_plan, seed, key), bound, out)
        return out
    return stream_rng(seed, *key).integers(0, bound, size=shape)


def draw_bytes(seed: int, key: tuple[int, ...], n: int) -> np.ndarray:
    """``stream_rng(seed, *key).bytes(n)`` as a uint8 array, the same way as :func:`draw_integers`."""
    if _plan is not None:
        out = np.empty(n, dtype=np.uint8)
        _plan.random_bytes(_seeded(_plan, seed, key), out)
        return out
    return np.frombuffer(stream_rng(seed, *key).bytes(n), dtype=np.uint8)


@lru_cache(maxsize=8)
def orders(k: int) -> np.ndarray:
    """All k! orders of k items, ``(k!, k)``: row p sends item q to place ``orders(k)[p, q]``."""
    return np.array(list(itertools.permutations(range(k))), dtype=np.int64)


@dataclass(frozen=True)
class PermutationPlan:
    """Joint randomization of k systems: per resample and segment, the segment's k outputs dealt to the k
    pseudo-systems in one of the k! orders, every order equally likely (the null that all k systems are
    exchangeable segment by segment; for k = 2 it is approximate randomization). Drawn block by block from
    streams of the seed like :class:`Plan`."""

    n_segments: int
    n_resamples: int
    k: int
    seed: int = DEFAULT_SEED
    stream: tuple[int, ...] = ()
    kind: str = "permutation"

    def __post_init__(self):
        if not 2 <= self.k <= 8:
            raise InputError(f"a joint randomization deals 2 to 8 systems at a time, got {self.k}")
        if self.n_resamples < 1 or self.n_segments < 1:
            raise InputError("a joint randomization needs at least one resample and one segment")

    @property
    def block(self) -> int:
        return block_size(self.n_segments * self.k)

    def blocks(self) -> Iterator[np.ndarray]:
        """``(rows, N)`` row indices into :func:`orders` (k), ``n_resamples`` rows in all."""
        for b in range(-(-self.n_resamples // self.block)):
            rows = min(self.block, self.n_resamples - b * self.block)
            own = (KINDS["permutation"], self.k, b)
            key = (_STREAM_TAG, *self.stream, *own) if self.stream else own
            yield draw_integers(self.seed, key, math.factorial(self.k), (rows, self.n_segments))

    def totals(self, S: np.ndarray) -> Iterator[np.ndarray]:
        """Per block, the pseudo-systems' totals ``(rows, k, d)`` from the systems' statistics ``S (N, k, d)``."""
        N, k, d = S.shape
        flat = S.reshape(N * k, d)
        dtype = np.float32 if float32_is_exact(self, flat) else np.float64
        flat = flat.astype(dtype)
        place = orders(k)
        # per pseudo-system j, the 0/1 weights of one segment's k outputs under each order, as one opaque item
        items = [np.ascontiguousarray((place == j).astype(dtype)).view(np.dtype((np.void, k * flat.itemsize)))
                 for j in range(k - 1)]  # fmt: skip
        total = flat.sum(axis=0, dtype=np.float64)
        for idx in self.blocks():
            out = np.empty((idx.shape[0], k, d))
            for j in range(k - 1):
                W = np.take(items[j].ravel(), idx).view(dtype).reshape(idx.shape[0], N * k)
                out[:, j] = W @ flat
            out[:, k - 1] = total - out[:, : k - 1].sum(axis=1)  # every output goes somewhere
            yield out


#: rows of a statistics array checked at a time (whole numbers, bounds): the checks need no copy of the array
_CHECK_ROWS = 65536


def _row_blocks(S: np.ndarray, cols: list[int] | None) -> Iterator[np.ndarray]:
    """``S`` (or its columns ``cols``) a block of :data:`_CHECK_ROWS` rows at a time."""
    for i in range(0, S.shape[0], _CHECK_ROWS):
        block = S[i : i + _CHECK_ROWS]
        yield block if cols is None else block[:, cols]


def whole_numbers(S: np.ndarray, cols: list[int] | None = None) -> bool:
    """Whether every entry of ``S`` (or of its columns ``cols``) is a whole number (NaN and infinities are not),
    checked a block of rows at a time."""
    return all(np.array_equal(block, np.round(block)) for block in _row_blocks(S, cols))


def _column_bounds(plan: Plan | PermutationPlan, S: np.ndarray, cols: list[int] | None = None) -> np.ndarray:
    """Per column of ``S`` (or of ``S[:, cols]``), the largest partial sum ``W @ S`` can reach for whole-number
    statistics (see :func:`float32_is_exact`), a block of rows at a time."""
    width = S.shape[1] if cols is None else len(cols)
    out = np.zeros(width)
    for block in _row_blocks(S, cols):
        if plan.kind == "bootstrap":  # weights are counts summing to N: N times the largest magnitude
            out = np.maximum(out, np.abs(block).max(axis=0, initial=0))
        else:  # 0/1 weights: at most a column's sum of magnitudes
            out += np.abs(block).sum(axis=0, dtype=np.float64)
    return out * plan.n_segments if plan.kind == "bootstrap" else out


def _float32_bound(plan: Plan | PermutationPlan, S: np.ndarray, cols: list[int] | None = None) -> float:
    """The largest partial sum ``W @ S`` (or ``W @ S[:, cols]``) can reach for whole-number statistics."""
    return float(_column_bounds(plan, S, cols).max(initial=0))


def float32_is_exact(plan: Plan | PermutationPlan, S: np.ndarray) -> bool:
    """True when float32 products ``W @ S`` are exact: integer statistics whose largest possible partial sum
    stays below 2**24 (BLEU and length counts on ordinary test sets; never NIST's fractional weights)."""
    return whole_numbers(S) and _float32_bound(plan, S) < 2**24


def _as_float64(column: np.ndarray) -> np.ndarray:
    return column if column.dtype == np.float64 else column.astype(np.float64)


def _distinct_columns(arrays: list[np.ndarray]) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The ``(array, column)`` of the first of each set of bit-identical columns of ``arrays`` (as float64), and
    for every column, in order, the position of its own among them. Columns are compared bit for bit among those
    with the same fingerprint (one product with a fixed vector); no copy of the arrays is made."""
    N = arrays[0].shape[0]
    probe = np.linspace(1.0, 2.0, N)
    keep: list[tuple[int, int]] = []
    col_of: list[int] = []
    seen: dict[int, list[int]] = {}
    for ai, a in enumerate(arrays):
        fingerprint = np.zeros(a.shape[1])
        with np.errstate(all="ignore"):  # NaN or infinite entries: their fingerprints are only compared bit for bit
            for i, block in enumerate(_row_blocks(a, None)):  # by blocks of rows: no copy of a strided array
                start = i * _CHECK_ROWS
                fingerprint += block.T @ probe[start : start + block.shape[0]]
        for j, f in enumerate(fingerprint.view(np.int64).tolist()):
            same = seen.setdefault(f, [])
            column = _as_float64(a[:, j]).view(np.int64) if same else np.empty(0, dtype=np.int64)
            for k in same:
                bi, bj = keep[k]
                if np.array_equal(_as_float64(arrays[bi][:, bj]).view(np.int64), column):
                    col_of.append(k)
                    break
            else:
                same.append(len(keep))
                col_of.append(len(keep))
                keep.append((ai, j))
    return keep, np.asarray(col_of, dtype=np.int64)


def _columns_of(keep: list[tuple[int, int]]) -> dict[int, list[int]]:
    """Per array (by index), its columns among ``keep``, in ``keep``'s order."""
    by_array: dict[int, list[int]] = {}
    for ai, j in keep:
        by_array.setdefault(ai, []).append(j)
    return by_array


def _gathered(arrays: list[np.ndarray], keep: list[tuple[int, int]], dtype) -> np.ndarray:
    """``(N, len(keep))`` in ``dtype``: the columns ``keep`` side by side, copied once."""
    S = np.empty((arrays[0].shape[0], len(keep)), dtype=dtype)
    at = 0
    while at < len(keep):  # runs of consecutive columns of one array are copied as one block
        ai, j = keep[at]
        end = at + 1
        while end < len(keep) and keep[end] == (ai, j + end - at):
            end += 1
        S[:, at:end] = arrays[ai][:, j : j + end - at]
        at = end
    return S


def _split_products(plan: Plan, arrays: list[np.ndarray], keep: list[tuple[int, int]], exact: np.ndarray):
    """``W @ S`` (float64) of the distinct columns ``keep``, the ``exact`` ones multiplied in float32."""
    at32, at64 = np.flatnonzero(exact), np.flatnonzero(~exact)
    S32 = _gathered(arrays, [keep[i] for i in at32], np.float32)
    S64 = _gathered(arrays, [keep[i] for i in at64], np.float64)
    for W in plan._reused_chunks(np.float64):
        P = np.empty((W.shape[0], len(keep)))
        P[:, at32] = W.astype(np.float32) @ S32
        P[:, at64] = W @ S64
        yield P


def _exact_products(plan: Plan, S: np.ndarray) -> Iterator[np.ndarray]:
    """``W @ S`` for exact float32 statistics, in the chunks of :meth:`Plan._reused_chunks`, each made from pieces
    of weights small enough to be multiplied while still in the cache (exact integers: the same numbers for any
    pieces; the callers' work per chunk stays as it was)."""
    per_chunk = plan.rows_per_chunk(4)
    piece = plan.rows_per_chunk(4, min(_EXACT_CHUNK_BYTES, plan.chunk_bytes))
    buf = np.empty((min(piece, plan.n_resamples), plan.width), dtype=np.float32)
    for start in range(0, plan.n_resamples, per_chunk):
        rows = min(per_chunk, plan.n_resamples - start)
        out = np.empty((rows, S.shape[1]), dtype=np.float32)
        for at in range(0, rows, piece):
            size = min(piece, rows - at)
            np.matmul(plan._chunk_into(start + at, buf[:size]), S, out=out[at : at + size])
        yield out


def resampled_columns(
    plan: Plan, arrays: list[np.ndarray], progress: Callable[[int], None] | None = None
) -> Iterator[tuple[np.ndarray, list[np.ndarray]]]:
    """For each chunk of the plan, the products ``W @ C`` of the plan's weights with the distinct columns ``C``
    of the arrays, and per array the indices of its columns among them: ``W @ arrays[i]`` is
    ``P[:, index[i]]``.

    Each array has ``plan.width`` rows. The product runs in float32 only when that is exact (see
    :func:`float32_is_exact`): the same numbers, about twice as fast; then every entry of ``P`` is a whole
    number, and so is every sum or difference of two of them (exact in float32 as well).
    """
    # whole-number columns that repeat (an array given twice, a count every metric and system shares, the
    # reference words of every system) are multiplied once: the products are exact integers, so no order of
    # summation can change a digit (and a repeated column changes neither the integers nor the float32 bound).
    # Repeats are found bit for bit, among the columns with the same fingerprint, and the checks then run on the
    # distinct columns alone (the same values, the same answers). The distinct columns are copied once, straight
    # into the layout and type of the product (no intermediate copy of every column: memory at a million segments)
    keep, col_of = _distinct_columns(arrays)
    parts = _columns_of(keep)
    integral = all(whole_numbers(arrays[ai], cols) for ai, cols in parts.items())
    if not integral:  # fractional statistics: every column multiplied where it stands
        keep = [(ai, j) for ai, a in enumerate(arrays) for j in range(a.shape[1])]
        col_of = np.arange(len(keep))
    index = np.split(col_of, np.cumsum([a.shape[1] for a in arrays])[:-1])
    if integral:  # per distinct column (in keep's order): exact in float32?
        bound = {(ai, j): b for ai, cols in parts.items() for j, b in zip(cols, _column_bounds(plan, arrays[ai], cols))}
        exact = np.array([bound[k] < 2**24 for k in keep], dtype=bool)
    else:
        exact = np.zeros(len(keep), dtype=bool)
    if integral and plan.groups is None and exact.any() and not exact.all():
        # some columns exact in float32, some not (counts of a million segments beside 0/1 shares): each kind
        # copied in its own type and multiplied apart (every product an exact integer either way, so the numbers
        # are those of one float64 product; the float32 copy takes half the memory)
        products = _split_products(plan, arrays, keep, exact)
    else:
        dtype = np.float32 if integral and exact.all() else np.float64
        S = _gathered(arrays, keep, dtype)
        grouped = plan.group_totals(S)
        if grouped is not None:
            products = grouped
        elif dtype == np.float32:
            products = _exact_products(plan, S)
        else:
            products = (W @ S for W in plan._reused_chunks(dtype))
    for P in products:
        if progress is not None:
            progress(P.shape[0])
        yield P, index


def resampled_totals(
    plan: Plan, arrays: list[np.ndarray], progress: Callable[[int], None] | None = None
) -> Iterator[list[np.ndarray]]:
    """For each chunk of the plan, ``[W @ A for A in arrays]`` (float64), from :func:`resampled_columns`."""
    cuts = np.cumsum([a.shape[1] for a in arrays])[:-1]
    for P, index in resampled_columns(plan, arrays, progress):
        full = np.concatenate(index)
        P = (P if np.array_equal(full, np.arange(P.shape[1])) else P[:, full]).astype(np.float64, copy=False)
        yield np.split(P, cuts, axis=1)
