"""The compiled kernel of tie-calibrated acc23 under PERM-BOTH (``mtsig._meta.acc23_block``, issue 61): fuzzed against
its numpy reference (``_Acc23Table.values``, itself held to calibrating every hybrid anew in
test_meta_definitions.py), bit for bit, on random shapes, gaps, ties and averagings; the whole ``meta`` result the
same with and without it; and every size, index and code it is given checked (a Python exception, never a crash:
each hostile call runs in its own interpreter)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_compiled_missing import require_compiled

require_compiled("mtsig._meta")


def _case(rng: np.random.Generator, S: int, n_items: int, decimals: int, gaps: float):
    H = np.round(rng.normal(size=(S, n_items)), decimals)
    H[rng.random(H.shape) < gaps] = np.nan
    za = np.round(np.nan_to_num(H) + rng.normal(size=H.shape), decimals)
    zb = np.round(np.nan_to_num(H) + rng.normal(size=H.shape), decimals)
    za[np.isnan(H)] = zb[np.isnan(H)] = np.nan
    return H, za, zb


@pytest.mark.parametrize("seed", range(12))
def test_fuzzed_the_kernel_equals_the_numpy_path_bit_for_bit(seed):
    from mtsig.metaeval.run import _Acc23Table

    rng = np.random.default_rng(seed)
    S = int(rng.integers(2, 16))
    n_items = int(rng.integers(1, 70))
    avg = ("item", "sys", "none")[seed % 3]
    H, za, zb = _case(rng, S, n_items, int(rng.integers(0, 3)), float(rng.choice([0.0, 0.1, 0.5])))
    table = _Acc23Table(H, za, zb, avg)
    R = int(rng.integers(1, 200))  # partial blocks of 64 included
    bits = (rng.random((R, H.size)) < rng.uniform(0.1, 0.9)).astype(np.uint8)
    got = table.both(bits)
    assert table.compiled() == bool(table.n_groups)
    want = table.values(bits), table.values(1 - bits)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_threads_do_not_change_a_number(monkeypatch):
    from mtsig.metaeval import run

    rng = np.random.default_rng(3)
    H, za, zb = _case(rng, 9, 40, 1, 0.1)
    table = run._Acc23Table(H, za, zb, "item")
    bits = (rng.random((300, H.size)) < 0.5).astype(np.uint8)
    monkeypatch.setattr(run, "KERNEL_THREADS", 1)
    one = table.both(bits)
    monkeypatch.setattr(run, "KERNEL_THREADS", 3)
    three = table.both(bits)
    assert all(np.array_equal(x, y) for x, y in zip(one, three))


@pytest.mark.parametrize("unit", ["segment", "document"])
def test_meta_gives_the_same_result_with_and_without_the_kernel(monkeypatch, unit):
    from mtsig import _compiled
    from mtsig.metaeval import MetaData, MetaOptions, MetricScores, run_meta

    rng = np.random.default_rng(11)
    H, _, _ = _case(rng, 6, 60, 1, 0.05)
    ms = tuple(MetricScores(name=f"m{k}", segments=np.round(np.nan_to_num(H) + rng.normal(size=H.shape) * (1 + k), 2),
                            systems=np.zeros(6)) for k in range(3))  # fmt: skip
    docs = tuple(f"d{i // 5}" for i in range(60))
    data = MetaData(systems=tuple("abcdef"), human=H, human_systems=np.nanmean(H, 1), metrics=ms, item_documents=docs)
    opts = MetaOptions(level="segment", n_resamples=700, n_bootstrap=50, resample_unit=unit)
    fast = run_meta(data, opts).to_dict()
    original = _compiled.load
    monkeypatch.setattr(_compiled, "load", lambda name: None if name == "_meta" else original(name))
    slow = run_meta(data, opts).to_dict()
    assert fast == slow
    assert any(c["p_value"] < 0.5 for c in fast["comparisons"])  # a pair that differs: the nulls were compared


def test_pack_rows_puts_draw_d_in_bit_d():
    from mtsig.metaeval.run import pack_rows

    rng = np.random.default_rng(0)
    bits = (rng.random((130, 7)) < 0.5).astype(np.uint8)
    words = pack_rows(bits)
    assert words.shape == (3, 7)
    back = (words[:, None, :] >> np.arange(64, dtype=np.uint64)[None, :, None]) & np.uint64(1)
    assert np.array_equal(back.reshape(-1, 7)[:130], bits) and not back.reshape(-1, 7)[130:].any()


def _outcome(body: str) -> str:
    """What one call of the kernel on these arrays (changed by ``body``) raised, in a fresh interpreter."""
    from tests.test_compiled_offsets import _outcome as outcome

    setup = """
        import numpy as np
        from mtsig import _meta
        E, P, Q, D, G = 6, 3, 5, 4, 2
        a = dict(words=np.zeros(E, np.uint64), pu=np.array([0, 1, 2]), pv=np.array([3, 4, 5]),
                 good=np.zeros((P, 4), np.uint8), group=np.array([0, 0, 1]), qu=np.zeros(Q, np.int64),
                 qv=np.ones(Q, np.int64), qcode=np.zeros(Q, np.uint8), qgain=np.zeros(Q), qend=np.ones(Q, np.uint8),
                 ca=np.zeros((D, G), np.int64), cb=np.zeros((D, G), np.int64), ba=np.zeros(D), bb=np.zeros(D))
        """
    return outcome(
        textwrap.dedent(setup) + textwrap.dedent(body) + "\ndef call():\n    _meta.acc23_block(*a.values())\n"
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("", "ok"),
        ("a['pu'][1] = 6", "ValueError acc23_block: a pair's entry is outside [0, E)"),
        ("a['pv'][2] = -1", "ValueError acc23_block: a pair's entry is outside [0, E)"),
        ("a['group'][2] = 2", "ValueError acc23_block: a pair's group is outside [0, G)"),
        ("a['qu'][4] = 99", "ValueError acc23_block: a candidate's entry is outside [0, E)"),
        ("a['qcode'][0] = 4", "ValueError acc23_block: a candidate's code is above 3"),
        ("a['good'] = np.zeros((P, 3), np.uint8)",
         "ValueError acc23_block: pu, pv, good (P, 4) and group (P,) do not agree"),
        ("a['qgain'] = np.zeros(Q - 1)", "ValueError acc23_block: qu, qv, qcode, qgain and qend do not agree"),
        ("a['ca'] = np.zeros((65, G), np.int64); a['cb'] = a['ca'].copy(); a['ba'] = a['bb'] = np.zeros(65)",
         "ValueError acc23_block: count_a has more than 64 rows (draws)"),
        ("a['bb'] = np.zeros(D - 1)",
         "ValueError acc23_block: count_a, count_b (D, G), best_a and best_b (D,) do not agree"),
        ("a['pu'] = a['pu'].astype(np.int32)", "TypeError acc23_block: pu: expected a C-contiguous 1-d int64 array"),
        ("a['words'] = np.zeros((E, 2), np.uint64)[:, 0]", "ValueError ndarray is not C-contiguous"),
        ("a['ca'] = np.zeros((D, G), np.int64); a['ca'].setflags(write=False)", "ValueError"),
        ("a['qgain'] = np.zeros(Q, np.float32)",
         "TypeError acc23_block: qgain: expected a C-contiguous 1-d float64 array"),
    ],
)  # fmt: skip
def test_hostile_sizes_indices_and_types_are_exceptions(body, expected):
    assert _outcome(body).startswith(expected)
