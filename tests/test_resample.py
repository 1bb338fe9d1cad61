"""Resampling plans directly: shapes and laws of each kind, chunk invariance, fresh chunks, pure blocks,
independent streams, validation, and float32 products equal to float64 ones."""

from __future__ import annotations

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.resample import Plan, Resampling, float32_is_exact, resampled_totals


def _all(plan: Plan) -> np.ndarray:
    return np.concatenate(list(plan.chunks()))


@pytest.mark.parametrize("kind", ["bootstrap", "randomization"])
def test_weights_follow_their_law(kind):
    W = _all(Plan(kind, 300, 2000, seed=1))
    assert W.shape == (2000, 300)
    if kind == "bootstrap":
        assert np.all(W.sum(axis=1) == 300)  # each resample draws N segments
        assert W.mean() == pytest.approx(1.0, abs=0.01) and W.var() == pytest.approx(1 - 1 / 300, abs=0.02)
    else:
        assert set(np.unique(W)) == {0.0, 1.0}
        assert W.mean() == pytest.approx(0.5, abs=0.01)


@pytest.mark.parametrize(("m", "k"), [(6, 3), (5, 2), (2, 1), (4, 1), (40, 20)])
def test_stratified_plans_are_true_permutations(m, k):
    W = _all(Plan("stratified", 50, 600, seed=3, groups=(m, k))).reshape(600, 50, m)
    assert np.all(W.sum(axis=2) == k)  # every segment: exactly k of its m outputs in the first group
    assert np.allclose(W.mean(axis=(0, 1)), k / m, atol=0.03)  # each output equally likely


@pytest.mark.parametrize("kind,groups", [("bootstrap", None), ("randomization", None), ("stratified", (6, 3))])
def test_chunk_size_does_not_change_the_weights(kind, groups):
    a = _all(Plan(kind, 40, 777, 5, chunk_bytes=4_000, groups=groups))
    b = _all(Plan(kind, 40, 777, 5, chunk_bytes=10**8, groups=groups))
    np.testing.assert_array_equal(a, b)
    # the pure block function gives the same rows as the chunks
    plan = Plan(kind, 40, 777, 5, groups=groups)
    blocks = np.concatenate([plan.block_weights(b) for b in range(plan.n_blocks)])
    np.testing.assert_array_equal(blocks, a)


def test_chunks_are_fresh_arrays():
    chunks = list(Plan("bootstrap", 1000, 3000, 2, chunk_bytes=200_000).chunks())
    assert len(chunks) > 2
    assert len({id(c) for c in chunks}) == len(chunks)
    assert not any(np.shares_memory(chunks[0], c) for c in chunks[1:])
    assert not np.array_equal(chunks[0][:10], chunks[1][:10])


def test_streams_are_independent_and_the_default_stream_is_unchanged():
    base = Plan("randomization", 100, 64, 9)
    s1 = Plan("randomization", 100, 64, 9, stream=(1,))
    s2 = Plan("randomization", 100, 64, 9, stream=(2,))
    w0, w1, w2 = _all(base), _all(s1), _all(s2)
    assert not np.array_equal(w0, w1) and not np.array_equal(w1, w2)
    np.testing.assert_array_equal(w1, _all(Plan("randomization", 100, 64, 9, stream=(1,))))
    # the default stream draws block b from SeedSequence(seed, spawn_key=(kind, b)), as mtsig 0.1.0 did
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(9, spawn_key=(2, 0))))
    bits = np.unpackbits(np.frombuffer(rng.bytes((64 * 100 + 7) // 8), dtype=np.uint8))[: 64 * 100]
    np.testing.assert_array_equal(w0, bits.reshape(64, 100))
    assert Resampling(10, 9).with_stream(3).plan("bootstrap", 5, 10).stream == (3,)


def test_float32_products_equal_float64_products(monkeypatch):
    """Exact float32 totals equal float64 ones, in chunks of any size (the exact path's small chunks included)."""
    import mtsig.resample as r

    rng = np.random.default_rng(0)
    S = rng.integers(0, 60, size=(2000, 6)).astype(np.float64)  # BLEU-like counts
    for kind in ("bootstrap", "randomization"):
        plan = Plan(kind, 2000, 1300, 4)
        assert float32_is_exact(plan, S)
        want = np.concatenate([W @ S for W in plan.chunks(np.float64)])
        for exact_chunk in (1, 2**20, 2**40):
            monkeypatch.setattr(r, "_EXACT_CHUNK_BYTES", exact_chunk)
            got = np.concatenate([p[0] for p in resampled_totals(plan, [S])])
            np.testing.assert_array_equal(got, want)
    assert not float32_is_exact(Plan("bootstrap", 2000, 10), S + 0.5)  # fractional: float64
    assert not float32_is_exact(Plan("randomization", 2000, 10), S * 2**20)  # sums past 2**24: float64


def test_validation():
    with pytest.raises(InputError, match="n_resamples must be a whole number of at least 1"):
        Resampling(0)
    with pytest.raises(InputError, match="seed must be a whole number of at least 0"):
        Resampling(10, -1)
    with pytest.raises(InputError, match="n_bootstrap must be a whole number"):
        Resampling.of(0, count_name="n_bootstrap")
    with pytest.raises(InputError, match="groups"):
        Plan("stratified", 10, 10)
    with pytest.raises(InputError, match="unknown resampling kind"):
        Plan("jackknife", 10, 10)
    assert Resampling().count(123) == 123 and Resampling(7).count(123) == 7


def test_stratified_rows_gathered_as_items_equal_the_table_gather(monkeypatch):
    """The fast fill (whole subset rows copied as opaque items) gives the same weights as indexing the table."""
    import mtsig.resample as r

    for groups in ((2, 1), (4, 2), (6, 3), (8, 4)):
        plan = r.Plan("stratified", 301, 300, groups=groups, chunk_bytes=1 << 16)
        for dtype in (np.float32, np.float64):
            fast = np.vstack(list(plan.chunks(dtype)))
            with monkeypatch.context() as m:
                m.setattr(r, "_subset_rows", lambda *a: None)
                slow = np.vstack(list(plan.chunks(dtype)))
            assert fast.dtype == slow.dtype == dtype
            assert np.array_equal(fast, slow), (groups, dtype)
            assert set(np.unique(fast)) <= {0.0, 1.0}


def _weights_with_and_without_the_kernel(monkeypatch, kind: str):
    """Each plan's weights (float32 and float64) with mtsig._plan and with numpy's reference steps: asserted
    equal; yields ``(segments, weights)``."""
    import mtsig.resample as r

    for n, rows in ((1, 5), (7, 300), (2489, 600)):
        plan = r.Plan(kind, n, rows, seed=3, chunk_bytes=1 << 18)
        for dtype in (np.float32, np.float64):
            fast = np.vstack(list(plan.chunks(dtype)))
            with monkeypatch.context() as m:
                m.setattr(r, "_plan", None)
                slow = np.vstack(list(plan.chunks(dtype)))
            assert fast.dtype == dtype and np.array_equal(fast, slow), (kind, n, dtype)
            yield n, fast


def test_compiled_bootstrap_counts_equal_bincount(monkeypatch):
    """mtsig._plan.counts writes the same bootstrap weights as numpy's bincount of the offset draws."""
    import mtsig.resample as r

    assert r._plan is not None, "mtsig._plan was not built: install with a C compiler available"
    for n, fast in _weights_with_and_without_the_kernel(monkeypatch, "bootstrap"):
        assert np.all(fast.sum(axis=1) == n)
    with pytest.raises(ValueError, match="outside"):
        r._plan.counts(np.array([[0, 3]]), np.zeros((1, 2)))
    with pytest.raises(TypeError, match="int64"):
        r._plan.counts(np.zeros((1, 2)), np.zeros((1, 2)))


def test_compiled_randomization_bits_equal_unpackbits(monkeypatch):
    """mtsig._plan.bits writes the same 0/1 weights as numpy's unpackbits of the drawn bytes: fuzzed over shapes
    whose rows do not start on a byte, through the plans' chunks, and with bad sizes and types refused."""
    import mtsig.resample as r

    assert r._plan is not None, "mtsig._plan was not built: install with a C compiler available"
    rng = np.random.default_rng(11)
    for _ in range(300):
        R, N = int(rng.integers(1, 40)), int(rng.integers(1, 70))
        src = rng.integers(0, 256, size=(R * N + 7) // 8 + int(rng.integers(0, 3)), dtype=np.uint8)
        for dtype in (np.float32, np.float64):
            out = np.full((R, N), 7.0, dtype=dtype)
            r._plan.bits(src, out)
            assert np.array_equal(out, np.unpackbits(src)[: R * N].reshape(R, N)), (R, N, dtype)
    for _, fast in _weights_with_and_without_the_kernel(monkeypatch, "randomization"):
        assert set(np.unique(fast)) <= {0.0, 1.0}
    with pytest.raises(ValueError, match="holds 8 bits, out needs 9"):
        r._plan.bits(np.zeros(1, np.uint8), np.empty((3, 3), np.float32))
    with pytest.raises(TypeError, match="uint8"):
        r._plan.bits(np.zeros(2, np.int64), np.empty((1, 3), np.float32))
    with pytest.raises((TypeError, ValueError), match="contiguous"):
        r._plan.bits(np.zeros(9, np.uint8), np.empty((6, 6), np.float32)[:, ::2])
    with pytest.raises(TypeError, match="float32 or float64"):
        r._plan.bits(np.zeros(9, np.uint8), np.empty((2, 2), np.int64))


@pytest.mark.parametrize("groups", [(2, 1), (4, 2), (5, 2), (6, 3), (8, 4)])
def test_stratified_group_totals_equal_the_weight_products(monkeypatch, groups):
    """Stratified totals from per-segment subset sums (no weight matrix) equal W @ S for integer statistics,
    for every chunking; fractional or too large statistics keep the weight matrices."""
    import mtsig.resample as r

    rng = np.random.default_rng(groups[0])
    N = 257
    S = rng.integers(0, 40, size=(N * groups[0], 5)).astype(np.float64)
    for chunk_bytes in (1 << 14, 1 << 24):
        plan = r.Plan("stratified", N, 700, seed=8, groups=groups, chunk_bytes=chunk_bytes)
        assert plan.group_totals(S.astype(np.float32)) is not None
        got = np.concatenate([p[0] for p in resampled_totals(plan, [S])])
        want = np.concatenate([W @ S for W in plan.chunks(np.float64)])
        np.testing.assert_array_equal(got, want)
    assert plan.group_totals(S) is None  # float64 statistics: the weight matrices
    with monkeypatch.context() as m:
        m.setattr(r, "_MAX_GROUP_BYTES", 1000)
        assert plan.group_totals(S.astype(np.float32)) is None
    with monkeypatch.context() as m:  # without the compiled kernel: the weight matrices, the same totals
        m.setattr(r, "_plan", None)
        assert plan.group_totals(S.astype(np.float32)) is None
        np.testing.assert_array_equal(np.concatenate([p[0] for p in resampled_totals(plan, [S])]), want)
    with pytest.raises(ValueError, match="outside"):
        r._plan.group_sums(np.array([[0, 9]]), np.zeros((2, 3, 1), np.float32), np.zeros((1, 1), np.float32))
    with pytest.raises(ValueError, match="do not agree"):
        r._plan.group_sums(np.array([[0, 1]]), np.zeros((3, 3, 1), np.float32), np.zeros((1, 1), np.float32))


def test_stream_keys_are_distinct_and_every_use_is_in_the_table():
    """One table of the first elements of random-stream keys: distinct values, and no key spelled as a bare number
    where a stream is drawn (a collision would silently correlate replicates)."""
    import re
    from pathlib import Path

    from mtsig.resample import KINDS, STREAM_KEYS

    values = list(STREAM_KEYS.values())
    assert len(set(values)) == len(values)
    assert all(STREAM_KEYS[k] == v for k, v in KINDS.items())
    src = Path(__file__).resolve().parents[1] / "src" / "mtsig"
    bare = re.compile(r"stream_rng\([^,()]+,\s*\d|stream=\(\s*\d|_KEY\s*=\s*\{")
    offenders = [f"{p.name}:{m.group(0)}" for p in src.rglob("*.py") for m in bare.finditer(p.read_text())]
    assert offenders == []


def test_repeated_columns_are_multiplied_once_with_the_same_products(monkeypatch):
    """Columns repeated within and across arrays (float64, int and float32 arrays), fractional and NaN columns:
    every array's products equal its own W @ A, with the checks done a few rows at a time."""
    import mtsig.resample as rs

    monkeypatch.setattr(rs, "_CHECK_ROWS", 7)
    rng = np.random.default_rng(3)
    N = 300
    base = rng.integers(0, 40, size=(N, 4)).astype(np.float64)
    cases = [
        [base, base[:, [2, 0]].copy(), base.astype(np.int64), np.hstack([base, base[:, :1]])],  # whole numbers
        [base, base + 0.25, base.astype(np.float32)],  # a fractional array: every column where it stands
        [base, np.where(base > 30, np.nan, base)],  # NaN: not whole
        [base * 2**16, base],  # past float32's exact range under randomization
    ]
    for arrays in cases:
        for kind in ("bootstrap", "randomization"):
            plan = Plan(kind, N, 40, 5)
            got = [np.concatenate(parts) for parts in zip(*resampled_totals(plan, arrays))]
            for a, g in zip(arrays, got):
                want = np.concatenate([W @ a.astype(np.float64) for W in plan.chunks(np.float64)])
                np.testing.assert_array_equal(g, want)
