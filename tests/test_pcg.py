"""numpy's seeded streams drawn without numpy.random (mtsig.pcg and the kernels seed_pcg64, random_bytes and
draws of mtsig._plan): the same state as SeedSequence + PCG64, the same bytes as Generator.bytes and the same
integers as Generator.integers, over many seeds, keys, sizes and bounds; hostile arguments are errors; every plan
gives the same weights with and without the kernels; and a comparison no longer imports numpy.random."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mtsig.resample as r
from mtsig import pcg
from tests.test_compiled_missing import require_compiled

ROOT = Path(__file__).resolve().parents[1]
require_compiled("mtsig._plan")


def _numpy_generator(seed: int, key: tuple[int, ...]) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


def _cases(n: int, rng: np.random.Generator):
    """Seeds and keys of every size: zero, one word, several words (beyond 64 bits), keys empty to long."""
    fixed = [(0, ()), (0, (0,)), (12345, ()), (12345, (2, 0)), (2**32, (1,)), (2**64 + 5, (7, 2**40)), (1, (0,) * 9)]
    yield from fixed
    for _ in range(n - len(fixed)):
        bits = int(rng.integers(1, 200))
        seed = int.from_bytes(rng.bytes(32), "little") >> (256 - bits)
        key = tuple(int.from_bytes(rng.bytes(12), "little") >> int(rng.integers(0, 96)) for _ in
                    range(int(rng.integers(0, 8))))  # fmt: skip
        yield seed, key


def test_seeded_state_equals_numpy_seedsequence_and_pcg64():
    rng = np.random.default_rng(2026)
    for seed, key in _cases(1500, rng):
        want = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)).state["state"]
        hi, lo, inc_hi, inc_lo = pcg.pcg64_state(seed, key)
        assert (hi << 64 | lo, inc_hi << 64 | inc_lo) == (want["state"], want["inc"]), (seed, key)
        words = np.random.SeedSequence(seed, spawn_key=key).generate_state(4, np.uint64)
        assert pcg.generate_state(pcg.pool(pcg.entropy(seed, key)), 4) == [int(w) for w in words]
    with pytest.raises(ValueError, match="at least 0"):
        pcg.pcg64_state(-1)


def test_compiled_seeding_fuzz_equals_the_python_reference_and_numpy():
    """seed_pcg64 (the plans' seeding) against mtsig.pcg.pcg64_state and numpy, entropy of every length (the pool's
    four words and beyond), and against the Python reference on raw words (empty, 32-bit extremes)."""
    rng = np.random.default_rng(8)
    for seed, key in _cases(1500, rng):
        words = pcg.entropy(seed, key)
        got = r._plan.seed_pcg64(words)
        assert got == pcg.pcg64_state(seed, key), (seed, key)
        assert r._plan.seed_pcg64(tuple(words)) == got
    for words in ([], [0], [2**32 - 1] * 3, [2**32 - 1] * 11, [int(x) for x in rng.integers(0, 2**32, 40)]):
        v = pcg.generate_state(pcg.pool(words), 4)
        hi, lo, inc_hi, inc_lo = r._plan.seed_pcg64(words)
        inc = ((v[2] << 64 | v[3]) << 1 | 1) % 2**128
        assert inc == inc_hi << 64 | inc_lo
        assert ((inc + (v[0] << 64 | v[1])) * pcg.PCG_MULT + inc) % 2**128 == hi << 64 | lo
    for bad, error in [(5, TypeError), ([1.0], TypeError), (["1"], TypeError), ([2**32], ValueError),
                       ([0, 2**40], ValueError), ([-1], OverflowError)]:  # fmt: skip
        with pytest.raises(error):
            r._plan.seed_pcg64(bad)


def test_compiled_streams_fuzz_equal_numpy_bytes_and_integers():
    """random_bytes and draws against numpy's Generator: every length (whole and partial 64-bit words), every kind
    of bound (1, powers of two, just below 2**32, 2**32, bounds whose rejection zone is large), many shapes."""
    rng = np.random.default_rng(7)
    bounds = [1, 2, 3, 7, 40, 2489, 2**16, 2**31, 2**31 + 1, 3 * 2**30, 2**32 - 1, 2**32]
    for i, (seed, key) in enumerate(_cases(600, rng)):
        state = pcg.pcg64_state(seed, key)
        n = int(rng.integers(0, 300))
        out = np.full(n, 7, dtype=np.uint8)
        r._plan.random_bytes(state, out)
        assert out.tobytes() == _numpy_generator(seed, key).bytes(n), (seed, key, n)
        bound = bounds[i % len(bounds)] if i % 2 else int(rng.integers(1, 2**32 + 1))
        shape = (int(rng.integers(0, 12)), int(rng.integers(1, 60)))
        got = np.full(shape, -1, dtype=np.int64)
        r._plan.draws(state, bound, got)
        assert np.array_equal(got, _numpy_generator(seed, key).integers(0, bound, size=shape)), (seed, key, bound)


def test_compiled_bootstrap_counts_fuzz_equal_the_counted_draws():
    """draw_counts (bootstrap weights straight from the stream) equals draws then counts, and numpy's integers
    counted row by row, in both float types and for every width (one column included)."""
    rng = np.random.default_rng(9)
    for i, (seed, key) in enumerate(_cases(300, rng)):
        state = pcg.pcg64_state(seed, key)
        R, N = int(rng.integers(0, 20)), int(rng.integers(1, 400)) if i % 7 else 1
        idx = _numpy_generator(seed, key).integers(0, N, size=(R, N))
        want = np.zeros((R, N))
        for row in range(R):
            want[row] = np.bincount(idx[row], minlength=N)
        for dtype in (np.float32, np.float64):
            got = np.full((R, N), 9.0, dtype=dtype)
            r._plan.draw_counts(state, got)
            assert np.array_equal(got, want), (seed, key, R, N, dtype)
    with pytest.raises(TypeError, match="float32 or float64"):
        r._plan.draw_counts(state, np.zeros((2, 3), np.int64))
    with pytest.raises((TypeError, ValueError), match="contiguous"):
        r._plan.draw_counts(state, np.zeros((4, 6))[:, ::2])
    with pytest.raises(TypeError):
        r._plan.draw_counts((1, 2), np.zeros((2, 3)))


def test_compiled_streams_refuse_hostile_arguments():
    state = pcg.pcg64_state(1, (2,))
    out8, out64 = np.zeros(16, np.uint8), np.zeros((2, 3), np.int64)
    for bad in [(1, 2, 3), (1, 2, 3, 4, 5), "abcd", None]:
        with pytest.raises(TypeError):
            r._plan.random_bytes(bad, out8)
    with pytest.raises(TypeError, match="whole numbers"):
        r._plan.draws((1, 2, 3, 4.0), 5, out64)
    for word in (-1, 2**64):
        with pytest.raises(OverflowError):
            r._plan.random_bytes((word, 0, 0, 1), out8)
    for bound in (0, -3, 2**32 + 1):
        with pytest.raises(ValueError, match="bound must be in"):
            r._plan.draws(state, bound, out64)
    with pytest.raises(OverflowError):
        r._plan.draws(state, 2**70, out64)
    with pytest.raises(TypeError, match="uint8"):
        r._plan.random_bytes(state, np.zeros(4, np.int64))
    with pytest.raises(TypeError, match="int64"):
        r._plan.draws(state, 5, np.zeros((2, 3), np.int32))
    with pytest.raises(TypeError, match="2-d"):
        r._plan.draws(state, 5, np.zeros(6, np.int64))
    with pytest.raises((TypeError, ValueError), match="contiguous"):
        r._plan.draws(state, 5, np.zeros((4, 6), np.int64)[:, ::2])
    readonly = np.zeros(8, np.uint8)
    readonly.flags.writeable = False
    with pytest.raises((TypeError, ValueError, BufferError)):
        r._plan.random_bytes(state, readonly)


@pytest.mark.parametrize("kind", ["bootstrap", "randomization", "stratified", "permutation"])
def test_every_plan_draws_the_same_weights_with_and_without_the_kernels(monkeypatch, kind):
    """The kernels continue numpy's streams: each plan's weights (or permutation blocks) are those numpy.random
    draws, for default and non-default streams and for blocks of every size."""
    for n, rows, stream in ((1, 5, ()), (37, 700, ()), (301, 300, (4, 1))):
        if kind == "permutation":
            plan = r.PermutationPlan(n, rows, 3, seed=5, stream=stream)

            def draw(p=plan):
                return np.concatenate(list(p.blocks()))
        else:
            plan = r.Plan(kind, n, rows, seed=5, groups=(4, 2) if kind == "stratified" else None, stream=stream)

            def draw(p=plan):
                return np.concatenate(list(p.chunks(np.float32)))

        fast = draw()
        with monkeypatch.context() as m:
            m.setattr(r, "_plan", None)
            slow = draw()
        assert fast.dtype == slow.dtype and np.array_equal(fast, slow), (kind, n, stream)


def test_a_comparison_does_not_import_numpy_random():
    """A one-pair comparison (bootstrap interval and randomization test) draws through the kernels: numpy.random,
    a sixth of its start-up, is never imported."""
    code = (
        "import sys, mtsig\n"
        f"res = mtsig.compare(r'{ROOT / 'examples' / 'ref.A.en'}', "
        f"[r'{ROOT / 'examples' / 'base.en'}', r'{ROOT / 'examples' / 'new.en'}'], metrics=['bleu'])\n"
        "assert res.comparisons and res.comparisons[0].result.p_value is not None\n"
        "print('numpy.random' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
