"""numpy's seeded random streams, without importing :mod:`numpy.random`.

Every resample of mtsig is drawn from ``Generator(PCG64(SeedSequence(seed, spawn_key=key)))``. Importing
numpy.random costs a one-pair comparison about a sixth of its run time (it imports secrets, hmac, hashlib and
random as well), and the plans only ever ask it for two things: ``Generator.bytes(n)`` (randomization) and
``Generator.integers(0, n, size)`` (bootstrap, stratified runs). So the plans seed the same PCG64 themselves
(``mtsig._plan.seed_pcg64`` from the words :func:`entropy` assembles; :func:`pcg64_state` is its Python reference)
and the compiled kernels ``mtsig._plan.random_bytes`` and ``mtsig._plan.draws`` continue the stream: the same
bytes and the same integers, which ``tests/test_pcg.py`` checks against numpy itself over many seeds, keys and
sizes. Without the compiled part the plans use numpy.random.

The algorithms are public: SeedSequence hashes its entropy words into a pool of four 32-bit words and draws the
state from the pool (numpy's ``bit_generator.pyx``, after M. O'Neill's ``seed_seq_fe``); PCG64 is the 128-bit
linear congruential generator with the XSL-RR output (O'Neill 2014), seeded by ``pcg_setseq_128_srandom_r``.
"""

from __future__ import annotations

_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
#: SeedSequence's hashing constants
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
#: SeedSequence's pool: four 32-bit words
_POOL = 4
#: PCG64's multiplier
PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645


def _words(n: int) -> list[int]:
    """A whole number as 32-bit words, least significant first (0 is one word)."""
    if n < 0:
        raise ValueError(f"a seed or key must be at least 0, got {n}")
    out = [n & _M32]
    n >>= 32
    while n:
        out.append(n & _M32)
        n >>= 32
    return out


def entropy(seed: int, key: tuple[int, ...] = ()) -> list[int]:
    """The 32-bit words SeedSequence(seed, spawn_key=key) hashes: the seed's words, padded with zeros to the
    pool's size when there is a key (so no key can read as part of a seed), then the key's words."""
    run = _words(int(seed))
    spawn = [w for k in key for w in _words(int(k))]
    if spawn and len(run) < _POOL:
        run += [0] * (_POOL - len(run))
    return run + spawn


def pool(words: list[int]) -> list[int]:
    """SeedSequence's pool of four words from its entropy words."""
    const = _INIT_A

    def hashed(value: int) -> int:
        nonlocal const
        value ^= const
        const = (const * _MULT_A) & _M32
        value = (value * const) & _M32
        return value ^ (value >> 16)

    def mixed(x: int, y: int) -> int:
        value = (_MIX_L * x - _MIX_R * y) & _M32
        return value ^ (value >> 16)

    out = [hashed(words[i] if i < len(words) else 0) for i in range(_POOL)]
    for src in range(_POOL):  # every word into every other: late words reach early ones
        for dst in range(_POOL):
            if src != dst:
                out[dst] = mixed(out[dst], hashed(out[src]))
    for word in words[_POOL:]:  # words beyond the pool: each into every pool word
        for dst in range(_POOL):
            out[dst] = mixed(out[dst], hashed(word))
    return out


def generate_state(words: list[int], n: int) -> list[int]:
    """SeedSequence.generate_state(n, uint64): n 64-bit words drawn from the pool (two 32-bit words each, the
    first the low half)."""
    const, half = _INIT_B, []
    for i in range(2 * n):
        value = words[i % _POOL] ^ const
        const = (const * _MULT_B) & _M32
        value = (value * const) & _M32
        half.append(value ^ (value >> 16))
    return [half[2 * i] | (half[2 * i + 1] << 32) for i in range(n)]


def pcg64_state(seed: int, key: tuple[int, ...] = ()) -> tuple[int, int, int, int]:
    """The state of ``PCG64(SeedSequence(seed, spawn_key=key))`` before its first draw, as four 64-bit words:
    (state high, state low, increment high, increment low)."""
    v = generate_state(pool(entropy(seed, key)), 4)
    start, sequence = (v[0] << 64) | v[1], (v[2] << 64) | v[3]
    inc = ((sequence << 1) | 1) & _M128
    state = (inc + start) & _M128  # one step from 0 is the increment, then the start is added
    state = (state * PCG_MULT + inc) & _M128
    return state >> 64, state & _M64, inc >> 64, inc & _M64
