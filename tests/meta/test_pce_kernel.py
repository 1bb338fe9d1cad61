"""Soft pairwise accuracy (pce) under PERM-BOTH (issue 61): the compiled kernel (``mtsig._meta.pce_block``) fuzzed
against its numpy reference (``mtsig.metaeval.pce.pce_block``) bit for bit; the task set's draws (per-metric
products, the kernel) held to each hybrid built entry by entry and scored by the value path itself
(``core.permutation_pvalues``), ties included; the same task-set result with and without the kernel and with any
number of threads; every size and index the kernel is given checked (each hostile call in its own interpreter)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_compiled_missing import require_compiled

require_compiled("mtsig._meta")


def _block_case(rng: np.random.Generator):
    K, S, P, R = int(rng.integers(2, 6)), int(rng.integers(0, 9)), int(rng.integers(1, 300)), int(rng.integers(1, 6))
    decimals = int(rng.integers(0, 3))  # few decimals: many exact ties between systems' sums
    V = np.round(rng.normal(size=(K, S, P)) * 3, decimals)
    W = np.round(rng.normal(size=(K, R, S, P)) * 3, decimals)
    pairs = rng.integers(0, K, size=(int(rng.integers(1, 12)), 2)).astype(np.int64)
    tol = rng.choice([0.0, 1e-9, 0.5], size=pairs.shape[0])
    ph = np.round(rng.random((S, S)), 3)
    return V, W, pairs, tol, ph


@pytest.mark.parametrize("seed", range(16))
def test_fuzzed_the_kernel_equals_the_numpy_reference_bit_for_bit(seed):
    from mtsig import _meta
    from mtsig.metaeval import pce

    V, W, pairs, tol, ph = _block_case(np.random.default_rng(seed))
    got, want = np.empty((pairs.shape[0], W.shape[1])), np.empty((pairs.shape[0], W.shape[1]))
    _meta.pce_block(V, W, pairs, tol, ph, got)
    pce.pce_block(V, W, pairs, tol, ph, want)
    assert np.array_equal(got, want, equal_nan=True)
    if V.shape[1] < 2:
        assert np.isnan(got).all()  # no pair of systems: pce is undefined


def test_threads_do_not_change_a_number(monkeypatch):
    from mtsig.metaeval import pce

    rng = np.random.default_rng(5)
    V, W, _, _, ph = _block_case(rng)
    K = V.shape[0]
    pairs = np.array([(a, b) for a in range(K) for b in range(K) if a != b], dtype=np.int64)
    tol = np.full(pairs.shape[0], 1e-9)
    outs = []
    for threads in (1, 2, 3):
        monkeypatch.setattr(pce, "KERNEL_THREADS", threads)
        outs.append(pce.kernel(V, W, pairs, tol, ph))
    assert all(np.array_equal(outs[0], o, equal_nan=True) for o in outs[1:])


def _pce_job(seed: int, k: int):
    """A pce DrawJob on random scores with ties: rounded scores, a system that copies another, a constant item."""
    from mtsig.metaeval import tasks as T
    from mtsig.metaeval.core import permutation_pvalues

    rng = np.random.default_rng(seed)
    S, N, K = 7, 33, 4
    gold = np.round(rng.normal(size=(S, N)), 1)
    metrics = [np.round(gold + rng.normal(size=(S, N)) * (0.3 + m), m % 3) for m in range(K)]
    for m in metrics:
        m[3] = m[1]  # two systems with the same scores
        m[:, 5] = 0.0
    prepared = [T._zscore(m.reshape(-1)).reshape(m.shape) for m in metrics]
    job = T.DrawJob("pce", k, seed, 0, prepared, {"ph": permutation_pvalues(gold, T.PCE_PERMUTATIONS),
                                                   "shape": (S, N)})  # fmt: skip
    return job, metrics


def _pce_value(ph: np.ndarray, x: np.ndarray) -> float:
    from mtsig.metaeval.core import permutation_pvalues

    iu = np.triu_indices(x.shape[0], 1)
    return float(1.0 - np.mean(np.abs(ph - permutation_pvalues(x))[iu]))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_draws_are_the_value_path_on_each_hybrid(seed):
    """Every draw equals pce(hybrid a) - pce(hybrid b) with each hybrid built entry by entry from the task's masks
    and scored by ``permutation_pvalues`` (float64 sums in another order, its own tolerance): the same counts, ties
    included (a count that differed would move a draw by 1 / (1000 x 21), far above the 1e-12 allowed)."""
    from mtsig.metaeval import tasks as T

    k = 23
    job, metrics = _pce_job(seed, k)
    K = len(metrics)
    pairs = [(a, b) for a in range(K) for b in range(K) if a != b]
    draws = T.pce_draws((job, pairs, 0, k))
    middle = T.pce_draws((job, pairs, 7, 16))  # any block of draws is the same columns
    assert np.array_equal(middle, draws[:, 7:16])
    M = job.rng((k, *job.const["shape"]))
    ph = job.const["ph"]
    for q, (a, b) in enumerate(pairs):
        za, zb = job.prepared[a], job.prepared[b]
        for r in range(0, k, 4):
            want = _pce_value(ph, np.where(M[r], za, zb)) - _pce_value(ph, np.where(M[r], zb, za))
            assert abs(draws[q, r] - want) <= 1e-12, (a, b, r, draws[q, r], want)
    deltas = T.pce_deltas(job, pairs)
    for q, (a, b) in enumerate(pairs):  # the observed difference: the value path on the metrics' own scores
        assert abs(deltas[q] - (_pce_value(ph, metrics[a]) - _pce_value(ph, metrics[b]))) <= 1e-12


def test_a_task_set_is_the_same_with_and_without_the_kernel(monkeypatch, tmp_path):
    from mtsig import _compiled
    from mtsig.metaeval.tasks import run_task_set
    from tests.meta.test_mtme_tasks import make_folder

    d = make_folder(tmp_path, seed=2)
    fast = run_task_set(d, "wmt24", ["xx-yy"], k=60, seed=3).to_dict()
    original = _compiled.load
    monkeypatch.setattr(_compiled, "load", lambda name: None if name == "_meta" else original(name))
    slow = run_task_set(d, "wmt24", ["xx-yy"], k=60, seed=3).to_dict()
    assert fast == slow
    pce = next(t for t in fast["tasks"] if t["statistic"] == "pce")
    assert len(pce["p_values"]) > 1 and len(set(pce["p_values"].values())) > 1


def _outcome(body: str) -> str:
    """What one call of the kernel on these arrays (changed by ``body``) raised, in a fresh interpreter."""
    from tests.test_compiled_offsets import _outcome as outcome

    setup = """
        import numpy as np
        from mtsig import _meta
        K, R, S, P, Q = 3, 2, 4, 5, 2
        a = dict(V=np.zeros((K, S, P)), W=np.zeros((K, R, S, P)), pairs=np.array([[0, 1], [2, 0]]),
                 tol=np.zeros(Q), ph=np.zeros((S, S)), out=np.zeros((Q, R)))
        """
    return outcome(textwrap.dedent(setup) + textwrap.dedent(body) + "\ndef call():\n    _meta.pce_block(*a.values())\n")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("", "ok"),
        ("a['pairs'][1, 0] = 3", "ValueError pce_block: a pair's metric is outside [0, K)"),
        ("a['pairs'][0, 1] = -1", "ValueError pce_block: a pair's metric is outside [0, K)"),
        ("a['W'] = np.zeros((K, R, S, P + 1))", "ValueError pce_block: V (K, S, P) and W (K, R, S, P) do not agree"),
        ("a['W'] = np.zeros((K + 1, R, S, P))", "ValueError pce_block: V (K, S, P) and W (K, R, S, P) do not agree"),
        ("a['tol'] = np.zeros(Q + 1)", "ValueError pce_block: pairs (Q, 2) and tol (Q,) do not agree"),
        ("a['pairs'] = np.zeros((Q, 3), np.int64)", "ValueError pce_block: pairs (Q, 2) and tol (Q,) do not agree"),
        ("a['ph'] = np.zeros((S, S + 1))", "ValueError pce_block: ph is not (S, S)"),
        ("a['out'] = np.zeros((Q, R + 1))", "ValueError pce_block: out is not (Q, R)"),
        ("a['V'] = np.zeros((K, S, 0)); a['W'] = np.zeros((K, R, S, 0))", "ValueError pce_block: no permutation"),
        ("a['pairs'] = a['pairs'].astype(np.int32)", "TypeError pce_block: pairs: expected a C-contiguous 2-d int64"),
        ("a['V'] = np.zeros((K, S, P), np.float32)", "TypeError pce_block: V: expected a C-contiguous 3-d float64"),
        ("a['W'] = np.zeros((K, R, S, 2 * P))[..., ::2]", "ValueError ndarray is not C-contiguous"),
        ("a['out'].setflags(write=False)", "ValueError"),
        ("a['tol'] = None", "TypeError"),
    ],
)  # fmt: skip
def test_hostile_sizes_indices_and_types_are_exceptions(body, expected):
    assert _outcome(body).startswith(expected)


def test_pce_draws_are_the_same_with_two_processes(tmp_path):
    """pce's work items are blocks of draws of every pair: the task set's result is the same whichever process ran
    which block (the masks are a function of the seed and the task only)."""
    from mtsig.executor import ProcessExecutor
    from mtsig.metaeval import tasks as T
    from tests.meta.test_mtme_tasks import make_folder

    d = make_folder(tmp_path, seed=5)
    one = T.run_task_set(d, "wmt24", ["xx-yy"], k=130, seed=9).to_dict()
    two = T.run_task_set(d, "wmt24", ["xx-yy"], k=130, seed=9, executor=ProcessExecutor(2)).to_dict()
    assert one == two
    assert T.PCE_DRAWS_PER_ITEM < 130  # several blocks, in both


def _meta_data(seed: int, documents: bool):
    """Human segment scores of 12 systems (some gaps), three metrics: one good, a copy of it, one poor."""
    from mtsig.metaeval import MetaData, MetricScores

    rng = np.random.default_rng(seed)
    S, N = 12, 48
    H = np.round(rng.normal(size=(S, N)) + np.arange(S)[:, None] * 0.2, 1)
    H[rng.random(H.shape) < 0.03] = np.nan
    good = np.round(np.nan_to_num(H) + rng.normal(size=H.shape) * 0.5, 2)
    poor = np.round(np.nan_to_num(H) + rng.normal(size=H.shape) * 3, 2)
    ms = tuple(MetricScores(name=n, segments=m, systems=m.mean(1)) for n, m in (("good", good), ("copy", good.copy()),
                                                                             ("poor", poor)))  # fmt: skip
    docs = tuple(f"d{i // 4}" for i in range(N)) if documents else None
    return MetaData(systems=tuple("abcdefghijkl"), human=H, human_systems=np.nanmean(H, 1), metrics=ms,
                    item_documents=docs)  # fmt: skip


@pytest.mark.parametrize("unit", ["segment", "document"])
def test_meta_system_spa_is_perm_both_through_the_engine(unit):
    """``meta --level system --statistic spa`` (refused before issue 61): each pair's null is pce of the two hybrids
    the swap masks make (a system's row of scores swapped whole, whatever the resampling unit of the intervals),
    scored by the value path; a metric against its own copy gets p = 1; the result is reproducible from the seed."""
    from mtsig.metaeval import MetaOptions, run_meta
    from mtsig.metaeval.core import spa
    from mtsig.metaeval.run import SwapMasks, spa_tests

    data = _meta_data(3, unit == "document")
    opts = MetaOptions(level="system", statistic="spa", n_resamples=200, n_bootstrap=20, seed=8, resample_unit=unit)
    res = run_meta(data, opts).to_dict()
    again = run_meta(data, opts).to_dict()
    assert res == again
    by = {(c["a"], c["b"]): c for c in res["comparisons"]}
    assert by[("good", "copy")]["p_value"] == 1.0 or by[("copy", "good")]["p_value"] == 1.0
    g, p = data.metrics[0], data.metrics[2]
    assert by[("good", "poor")]["delta"] == pytest.approx(spa(data.H, p.seg) - spa(data.H, g.seg), abs=1e-12)
    assert by[("good", "poor")]["p_value"] < 0.05
    # the null, hybrid by hybrid: the value path on each hybrid of the same masks
    full = np.all(np.isfinite(data.H), axis=0)
    S = data.H.shape[0]
    z = {m.name: _zs(m.seg[:, full]) for m in (g, p)}
    rows = np.concatenate(list(SwapMasks(S, 200, 8).chunks(200)))  # (200, S): a system's row swapped whole
    Hf = data.H[:, full]
    null = np.array([spa(Hf, np.where(m[:, None], z["good"], z["poor"]))
                     - spa(Hf, np.where(m[:, None], z["poor"], z["good"])) for m in rows])  # fmt: skip
    obs = spa(Hf, z["good"]) - spa(Hf, z["poor"])
    want = (np.count_nonzero(null >= obs - 1e-12) + 1) / 201
    ((got_obs, got_p),) = spa_tests(data, [(g, p)], opts, 200)
    assert got_obs == pytest.approx(obs, abs=1e-12) and got_p == want
    assert len({tuple(r) for r in rows}) > 150  # masks that differ, not a constant null


def _zs(m: np.ndarray) -> np.ndarray:
    v = m.reshape(-1)
    return ((v - v.mean()) / v.std()).reshape(m.shape)
