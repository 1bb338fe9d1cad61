"""The WMT metrics tasks: mt-metrics-eval's ``tasks.WMT23``, ``WMT24`` and ``WMT25`` task sets computed from an
mt-metrics-eval directory (``mtsig meta --mtme DIR --task wmt23``).

A task set is a list of tasks, each one statistic of every metric on one language pair (or, for WMT23's first
task, pooled over the pairs), and a weight per task:

- ``wmt23``: system-level pairwise accuracy pooled over the pairs (Agreement counts summed, then divided), then per
  pair system-level Pearson, segment-level Pearson (one correlation over every system's segments) and segment-level
  acc-eq (``KendallWithTiesOpt``: acc23 with the tie threshold that maximises it, averaged over items, every pair of
  the calibration used: ``sample_rate`` 1.0). Weights: the accuracy task counts as many times as there are pairs,
  every other task once, normalised.
- ``wmt24`` and ``wmt25``: per pair soft pairwise accuracy (``pce``: 1 - the mean absolute difference of every
  system pair's permutation p-values under humans and under the metric, Thompson et al. 2024) and acc-eq;
  uniform weights. On a WMT23 folder ``wmt24`` is mt-metrics-eval's ``WMT24OnWMT23``.

The average correlation rescales each task's values to [0, 1] (``(v - b) / (e - b)`` with the range (0, 1) for
accuracy, pce and acc-eq, (-1, 1) for Pearson) and sums them with the weights, over the metrics present in every
task; the average rank is the weighted sum of the ranks. Metrics are named as mt-metrics-eval names them
(``GEMBA-MQM[noref]``; ``*`` before a non-primary metric).

Significance (``k`` > 0) is mt-metrics-eval's: PERM-BOTH (Deutsch et al. 2021) within a task for every pair of
metrics, each metric's scores z-scored, each entry's two scores swapped with probability 1/2, ``p`` = the share of
draws whose difference reaches the observed one (no +1, as mt-metrics-eval counts it); for acc-eq the pairwise
variant (each system pair's agreement outcome swapped, each metric at its own threshold). Ranks are WMT's
greedy clusters at 0.05 (``AssignRanks``); with ``k`` = 0 they are 1..n by value. Clusters across tasks sum each
task's draws, rescaled and weighted, and compare the sum with the difference of the averages.

Where mtsig differs from mt-metrics-eval's run (not its definitions): mt-metrics-eval draws every pair's permutations
anew, unseeded, and stops a pair early (blocks of 100 draws: below 0.02 or above 0.5); for the clusters across tasks
it repeats ("tiles") a task's early-stopped draws until they are as many as the longest task's, so those draws are
not independent and a pair stopped at 100 draws counts each of them ten times. mtsig draws ``k`` swaps per task
from one seed (the same swaps for every pair of metrics of the task), without early stopping, so every p-value has
``k`` independent draws and the result is reproducible from the seed. The draws are work items run through the
executor seam (``jobs``, Dask): one product per metric for acc-eq and Pearson, blocks of draws of every pair for pce,
blocks of pairs for the pooled accuracy; the result does not depend on where they ran. pce's hybrids count their
permutations in float64 with the value path's tolerance (mt-metrics-eval: float32, where rounding decides ties).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.metaeval import stats as st
from mtsig.metaeval.core import permutation_pvalues, segment_level
from mtsig.metaeval.mtme import EvalSet, Scored, read_evalset, task_data
from mtsig.metaeval.pce import PCE_PERMUTATIONS, Engine
from mtsig.serialize import as_dict, jfield, out

TASK_SETS = ("wmt23", "wmt24", "wmt25")
DEFAULT_LPS = {
    "wmt23": ("en-de", "he-en", "zh-en"),
    "wmt24": ("en-de", "en-es", "ja-zh"),
    "wmt25": ("cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE", "en-is_IS", "en-it_IT",
              "en-ja_JP", "en-ko_KR", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN", "ja-zh_CN"),
}  # fmt: skip
#: pairs whose human translations (other references) are scored as systems, as mt-metrics-eval's task sets say; a
#: fact of the test set's data: its WMT24OnWMT23 (the WMT24 tasks on the WMT23 folder) takes WMT23's
MULTI_REF = {"wmt23": frozenset({"en-he", "he-en"}), "wmt24": frozenset({"en-de"}), "wmt25": frozenset()}
#: mt-metrics-eval's significance level of the clusters
CLUSTER_ALPHA = 0.05
#: pairs of metrics per block of draws (one work item of the executor)
PAIRS_PER_BLOCK = 24
#: a draw within this of the observed difference reaches it (the same sum taken in another order)
TIE = 1e-12


@dataclass(frozen=True)
class TaskDef:
    """One task: ``statistic`` (``accuracy``, ``pearson``, ``KendallWithTiesOpt``, ``pce``) at ``level`` (``sys``,
    ``seg``) on ``lps`` (several only for the pooled accuracy); ``human``: human translations scored as systems."""

    lps: tuple[str, ...]
    level: str
    statistic: str
    human: bool = False

    @property
    def lp(self) -> str:
        return ",".join(self.lps)

    @property
    def range(self) -> tuple[float, float]:
        return (0.0, 1.0) if self.statistic in ("accuracy", "pce", "KendallWithTiesOpt") else (-1.0, 1.0)


def task_set(name: str, lps: Sequence[str] | None = None, test_set: str | None = None,
             ) -> tuple[list[TaskDef], list[float]]:  # fmt: skip
    """The tasks and weights of mt-metrics-eval's ``tasks.WMT23``/``WMT24``/``WMT25`` (``lps`` sorted, as there) on
    the folder of ``test_set`` (default: the task set's year; ``wmt24`` on ``wmt23`` is its ``WMT24OnWMT23``)."""
    if name not in TASK_SETS:
        from mtsig.errors import unknown_name

        raise unknown_name("task set", name, TASK_SETS)
    lps = sorted(lps or DEFAULT_LPS[name])
    multi = MULTI_REF.get(test_set or name, MULTI_REF[name])
    tasks: list[TaskDef] = []
    if name == "wmt23":
        tasks.append(TaskDef(tuple(lps), "sys", "accuracy", bool(multi & set(lps))))
        for lp in lps:
            h = lp in multi
            tasks += [TaskDef((lp,), "sys", "pearson", h), TaskDef((lp,), "seg", "pearson", h),
                      TaskDef((lp,), "seg", "KendallWithTiesOpt", h)]  # fmt: skip
        w = [float(len(lps))] + [1.0] * (len(tasks) - 1)
    else:
        for lp in lps:
            h = lp in multi
            tasks += [TaskDef((lp,), "sys", "pce", h), TaskDef((lp,), "seg", "KendallWithTiesOpt", h)]
        w = [1.0] * len(tasks)
    return tasks, [x / sum(w) for x in w]


# ------------------------------------------------------------------------------------------------ data
@dataclass
class TaskInput:
    """What one task's statistic and draws need: the gold scores and each metric's scores over the same systems,
    shaped for the statistic."""

    task: TaskDef
    names: list[str]
    #: per language pair of the task: its Scored data (sys level for accuracy/pearson-sys, seg otherwise)
    parts: list[Scored]
    notes: list[str] = field(default_factory=list)
    #: acc-eq's (value, threshold) per metric, calibrated once
    calibrated: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: pce's human p-values, computed once
    human_p: np.ndarray | None = None


def _inputs(task: TaskDef, sets: dict[str, EvalSet], opts: dict[str, Any]) -> TaskInput:
    level = "seg" if task.statistic == "pce" else task.level
    parts = []
    for lp in task.lps:
        evs = sets[lp]
        # pce is a system-level task on segment scores: its gold is the system level's standard name
        gold = opts.get("gold") or evs.info.std_gold.get(task.level)
        parts.append(task_data(evs, level, refs=opts.get("refs"), gold=gold, include_human=task.human,
                               include_outliers=opts.get("include_outliers", False),
                               primary=opts.get("primary", True), exclude=tuple(opts.get("exclude", ()))))  # fmt: skip
    names = sorted(set.intersection(*(set(p.metrics) for p in parts)))
    if not names:
        raise InputError(f"task {task.statistic} at {task.level} level on {task.lp}: no metric has scores at that "
                         "level in every language pair")  # fmt: skip
    ti = TaskInput(task, names, parts)
    if task.statistic == "pce":
        g = parts[0].gold
        full = np.isfinite(g).all(axis=0)
        none = ~np.isfinite(g).any(axis=0)
        if not (full | none).all():
            ti.notes.append(f"{task.lp}: some segments have gold scores for some systems only; soft pairwise accuracy "
                            "uses the segments judged for every system (mt-metrics-eval drops each system's gaps "
                            "and would pair different segments)")  # fmt: skip
    return ti


# ------------------------------------------------------------------------------------------------ statistics
def _pearson_value(g: np.ndarray, m: np.ndarray) -> float:
    """scipy's pearsonr on the entries with a gold score, as mt-metrics-eval's AverageCorrelation: 0 when it is
    undefined (fewer than 2 entries, a constant vector)."""
    ok = np.isfinite(g)
    g, m = g[ok], m[ok]
    if g.size < 2 or np.all(g == g[0]) or np.all(m == m[0]):
        return 0.0
    import warnings

    from scipy.stats import pearsonr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(pearsonr(g, m)[0])


def value(ti: TaskInput, name: str) -> float:
    """One metric's statistic in the task, as mt-metrics-eval computes it."""
    t = ti.task
    if t.statistic == "accuracy":
        agree = pairs = 0
        for p in ti.parts:
            a, n = st.pairwise_accuracy(p.gold, p.metrics[name])
            agree, pairs = agree + a, pairs + n
        return agree / pairs if pairs else 0.0
    p = ti.parts[0]
    if t.statistic == "pearson":
        return _pearson_value(p.gold.reshape(-1), p.metrics[name].reshape(-1))
    if t.statistic == "KendallWithTiesOpt":
        return _acc_eq(ti, name)[0]
    g, m = _full_columns(p.gold, p.metrics[name])
    if ti.human_p is None:
        ti.human_p = permutation_pvalues(g, PCE_PERMUTATIONS)
    ph = ti.human_p
    pm = permutation_pvalues(m, PCE_PERMUTATIONS)
    iu = np.triu_indices(g.shape[0], 1)
    return float(1.0 - np.mean(np.abs(ph - pm)[iu]))


def _acc_eq(ti: TaskInput, name: str) -> tuple[float, float]:
    """A metric's acc-eq and its calibrated threshold, calibrated once (the statistic and the draws need both)."""
    if name not in ti.calibrated:
        p = ti.parts[0]
        v, eps = segment_level(p.gold, p.metrics[name], "acc23", "item")
        ti.calibrated[name] = (float(v), eps)
    return ti.calibrated[name]


def _full_columns(g: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    full = np.isfinite(g).all(axis=0)
    if full.all():
        return g, m
    return g[:, full], m[:, full]


# ------------------------------------------------------------------------------------------------ draws
def _zscore(v: np.ndarray) -> np.ndarray:
    """scipy.stats.zscore (ddof 0; NaN for a constant vector)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (v - v.mean()) / v.std()


@dataclass
class DrawJob:
    """Everything one task's draws need, in plain arrays (it pickles for Dask)."""

    statistic: str
    k: int
    seed: int
    index: int
    #: per metric: its prepared scores (z-scored vector; for acc-eq its agreement outcomes per slot)
    prepared: list[np.ndarray]
    #: statistic-specific constants
    const: dict[str, Any]

    def rng(self, shape: tuple[int, ...]) -> np.ndarray:
        """The task's swap masks: a function of (seed, task) only, the same for every pair of metrics."""
        n = int(np.prod(shape))
        bits = np.unpackbits(self.packed(n), count=n)
        return bits.reshape(shape).view(bool)

    def packed(self, n: int) -> np.ndarray:
        """The first ``n`` bits of the task's stream, 8 to a byte (most significant first): :meth:`rng`'s masks
        in an eighth of the memory."""
        gen = np.random.default_rng(np.random.SeedSequence([self.seed, self.index]))
        return np.frombuffer(gen.bytes((n + 7) // 8), dtype=np.uint8)

    def rows(self, packed: np.ndarray, width: int, lo: int, hi: int) -> np.ndarray:
        """Rows ``lo:hi`` of ``rng((k, width))`` from its packed bits."""
        start, stop = lo * width, hi * width
        bits = np.unpackbits(packed[start // 8 : (stop + 7) // 8])[start % 8 : start % 8 + stop - start]
        return bits.reshape(hi - lo, width).view(bool)


def draw_job(ti: TaskInput, k: int, seed: int, index: int) -> DrawJob:
    t = ti.task
    if t.statistic == "accuracy":
        gold = np.concatenate([p.gold for p in ti.parts])
        ok = np.isfinite(gold)
        sizes = [int(np.isfinite(p.gold).sum()) for p in ti.parts]
        prepared = [_zscore(np.concatenate([p.metrics[n] for p in ti.parts])[ok]) for n in ti.names]
        blocks = []
        at = 0
        for size in sizes:
            i, j = np.triu_indices(size, 1)
            g = gold[ok][at : at + size]
            blocks.append((i + at, j + at, np.sign(g[i] - g[j])))
            at += size
        return DrawJob("accuracy", k, seed, index, prepared, {"blocks": blocks, "L": int(ok.sum())})
    p = ti.parts[0]
    if t.statistic == "pearson":
        gold = p.gold.reshape(-1)
        ok = np.isfinite(gold)
        prepared = [_zscore(p.metrics[n].reshape(-1)[ok]) for n in ti.names]
        return DrawJob("pearson", k, seed, index, prepared, {"gold": gold[ok]})
    if t.statistic == "pce":
        g, _ = _full_columns(p.gold, p.gold)
        full = np.isfinite(p.gold).all(axis=0)
        prepared = []
        for n in ti.names:
            m = p.metrics[n][:, full]
            prepared.append(_zscore(m.reshape(-1)).reshape(m.shape))
        if ti.human_p is None:
            ti.human_p = permutation_pvalues(g, PCE_PERMUTATIONS)
        return DrawJob("pce", k, seed, index, prepared, {"ph": ti.human_p,
                                                          "shape": prepared[0].shape})  # fmt: skip
    # acc-eq: each metric's agreement outcome per (item, system pair) at its own threshold
    G = p.gold.T  # (items, systems)
    i, j = np.triu_indices(G.shape[1], 1)
    ok = np.isfinite(G[:, i]) & np.isfinite(G[:, j])
    n_valid = np.isfinite(G).sum(axis=1)
    tot = n_valid * (n_valid - 1) / 2.0
    live = tot > 0
    weight = np.where(ok, 1.0 / np.where(live, tot, 1.0)[:, None], 0.0) / max(int(live.sum()), 1)
    gd = G[:, i] - G[:, j]
    prepared = []
    for n in ti.names:
        eps = _acc_eq(ti, n)[1]
        M = p.metrics[n].T
        md = M[:, i] - M[:, j]
        mtie = np.abs(md) <= eps
        agree = (mtie & (gd == 0)) | (~mtie & (gd != 0) & (np.sign(md) == np.sign(gd)))
        prepared.append((agree & ok).reshape(-1))
    return DrawJob("KendallWithTiesOpt", k, seed, index, prepared, {"weight": weight.reshape(-1)})


def _stats_scores(job: DrawJob, H: np.ndarray) -> np.ndarray:
    """The statistic of hybrids ``H`` (R, L) of z-scored vectors (accuracy, pearson)."""
    if job.statistic == "pearson":
        gold = job.const["gold"]
        r = st.pearson(gold[None], H[:, None, :], np.ones((1, gold.size), dtype=bool))[:, 0]
        return np.where(np.isfinite(r), r, 0.0)
    agree = np.zeros(H.shape[0])
    pairs = 0
    for i, j, gs in job.const["blocks"]:
        agree += (np.sign(H[:, i] - H[:, j]) == gs).sum(axis=1)
        pairs += i.size
    return agree / pairs if pairs else np.zeros(H.shape[0])


def _pce_engine(job: DrawJob) -> Engine:
    """The pce engine of a task's metrics (:class:`~mtsig.metaeval.pce.Engine`), made once per process."""
    if "engine" not in job.const:
        S, N = job.const["shape"]
        Z = np.stack(job.prepared) if job.prepared else np.zeros((0, S, N))
        job.const["engine"] = Engine(Z, job.const["ph"])
    return job.const["engine"]


#: draws per work item of pce
PCE_DRAWS_PER_ITEM = 50


def pce_draws(item: tuple[DrawJob, list[tuple[int, int]], int, int]) -> np.ndarray:
    """Draws ``r0:r1`` of pce(hybrid a) - pce(hybrid b) for every pair (a, b) of metrics: (pairs, r1 - r0), from the
    task's masks (:meth:`DrawJob.rows`)."""
    job, pair_list, r0, r1 = item
    S, N = job.const["shape"]
    packed = job.packed(job.k * S * N)
    pairs = np.asarray(pair_list, dtype=np.int64).reshape(-1, 2)
    return _pce_engine(job).draws(pairs, lambda lo, hi: job.rows(packed, S * N, lo, hi), r0, r1)


def pce_deltas(job: DrawJob, pair_list: list[tuple[int, int]]) -> np.ndarray:
    """The observed pce(a) - pce(b) on the draws' footing."""
    return _pce_engine(job).deltas(np.asarray(pair_list, dtype=np.int64).reshape(-1, 2))


def work_item(item: tuple[str, Any]) -> Any:
    """One work item of a task set's draws (it pickles for Dask): ``("pairs", (job, pairs))`` -> :func:`pair_draws`,
    ``("metrics", (job, metrics))`` -> :func:`metric_products`, ``("pce", (job, pairs, r0, r1))`` ->
    :func:`pce_draws`."""
    kind, what = item
    if kind == "pce":
        return pce_draws(what)
    return pair_draws(what) if kind == "pairs" else metric_products(what)


def pair_draws(item: tuple[DrawJob, list[tuple[int, int]]]) -> tuple[np.ndarray, np.ndarray]:
    """For pairs (a, b) of metric indices: the observed difference stat(a) - stat(b) on the test's own footing and
    the ``k`` draws of stat(hybrid a) - stat(hybrid b). Returns (deltas (P,), draws (P, k))."""
    job, pairs = item
    k = job.k
    if job.statistic == "KendallWithTiesOpt":
        return _acc_eq_draws(job, pairs)
    if job.statistic == "pearson":
        return _pearson_draws(job, pairs)
    if job.statistic == "pce":
        return pce_deltas(job, pairs), pce_draws((job, pairs, 0, k))
    deltas = np.empty(len(pairs))
    draws = np.empty((len(pairs), k))
    M = job.rng((k, job.prepared[0].size))
    B = M.astype(np.float64) if job.statistic == "accuracy" else None
    for n, (a, b) in enumerate(pairs):
        za, zb = job.prepared[a], job.prepared[b]
        obs = _stats_scores(job, np.stack([za, zb]))
        deltas[n] = obs[0] - obs[1]
        if B is not None:
            draws[n] = _accuracy_draws(job, za, zb, B)
        else:
            draws[n] = _stats_scores(job, np.where(M, za, zb)) - _stats_scores(job, np.where(M, zb, za))
    return deltas, draws


def _accuracy_draws(job: DrawJob, za: np.ndarray, zb: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Pairwise accuracy of hybrid a (system s from za where B's bit is 1, from zb elsewhere) minus hybrid b's, for
    every draw: a system pair's agreement is one of four outcomes, by the sources of its two systems, so a hybrid's
    count is ``base + B lin + B Q B'`` (integers, exact in float64): two products per hybrid instead of every
    system pair of every draw. The same counts as comparing the hybrids' scores pair by pair."""
    L = job.const["L"]
    base, lin, Q, pairs = 0.0, np.zeros(L), np.zeros((L, L)), 0
    for i, j, gs in job.const["blocks"]:
        e = [(np.sign(np.where(c >> 1, za[i], zb[i]) - np.where(c & 1, za[j], zb[j])) == gs).astype(np.float64)
             for c in range(4)]  # fmt: skip
        base += e[0].sum()
        np.add.at(lin, i, e[2] - e[0])
        np.add.at(lin, j, e[1] - e[0])
        np.add.at(Q, (i, j), e[3] - e[2] - e[1] + e[0])
        pairs += i.size
    if not pairs:
        return np.zeros(B.shape[0])

    def agree(bits: np.ndarray) -> np.ndarray:
        return base + bits @ lin + ((bits @ Q) * bits).sum(axis=1)

    return agree(B) / pairs - agree(1.0 - B) / pairs


#: entries of a mask block multiplied at once (float64: 8 bytes each per draw)
_SLOTS = 8192
#: mask bits unpacked at once (one byte each) when the products go row block by row block
_ROW_BITS = 2**24
#: statistics whose draws are differences of per-metric products ``M @ v`` (one product per metric, not per pair)
BY_METRIC = ("KendallWithTiesOpt", "pearson")
#: metrics per work item of those statistics (fixed, so the products do not depend on the number of workers)
METRICS_PER_BLOCK = 32


def metric_columns(job: DrawJob, metric: int) -> np.ndarray:
    """The vectors ``v`` (L, c) whose products ``M @ v`` give a metric's hybrid sums: acc-eq, its agreement
    outcomes weighted (c = 1); Pearson, g z, z and z^2 (c = 3; g the centred gold)."""
    z = job.prepared[metric]
    if job.statistic == "KendallWithTiesOpt":
        return (z.astype(np.float64) * job.const["weight"])[:, None]
    g = job.const["gold"]
    gc = g - g.mean()
    return np.stack([gc * z, z, z * z], axis=1)


def metric_products(item: tuple[DrawJob, list[int]]) -> np.ndarray:
    """``M @ v`` for the task's masks M (k, L) and every column of the listed metrics (:func:`metric_columns`),
    side by side (k, c * metrics): the masks unpacked a block of rows at a time from their packed bits, so memory
    stays bounded (an eighth of the masks, plus a block)."""
    job, metrics = item
    V = np.concatenate([metric_columns(job, m) for m in metrics], axis=1)
    L = V.shape[0]
    packed = job.packed(job.k * L)
    out = np.zeros((job.k, V.shape[1]))
    step = max(1, _ROW_BITS // max(L, 1))
    for r0 in range(0, job.k, step):
        r1 = min(job.k, r0 + step)
        M = job.rows(packed, L, r0, r1)
        for lo in range(0, L, _SLOTS):
            out[r0:r1] += M[:, lo : lo + _SLOTS].astype(np.float64) @ V[lo : lo + _SLOTS]
    return out


def pairs_from_products(job: DrawJob, U: np.ndarray, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pair_draws` of acc-eq or Pearson from the per-metric products ``U`` (k, c * metrics, in metric order):
    a hybrid's sums are metric b's plus the swapped entries' differences, ``M @ (v_a - v_b) = U_a - U_b``."""
    c = 1 if job.statistic == "KendallWithTiesOpt" else 3
    deltas = np.empty(len(pairs))
    draws = np.empty((len(pairs), job.k))
    if job.statistic == "KendallWithTiesOpt":
        w = job.const["weight"]
        for n, (a, b) in enumerate(pairs):
            total = float(((job.prepared[a].astype(np.float64) - job.prepared[b]) * w).sum())
            deltas[n] = total
            draws[n] = 2.0 * (U[:, a] - U[:, b]) - total
        return deltas, draws
    g = job.const["gold"]
    gc = g - g.mean()
    sxx = float(gc @ gc)
    L = g.size

    def r(sxy, sy, syy):
        with np.errstate(invalid="ignore", divide="ignore"):
            out = sxy / np.sqrt(sxx * (syy - sy * sy / L))
        return np.where(np.isfinite(out), np.clip(out, -1.0, 1.0), 0.0)

    for n, (a, b) in enumerate(pairs):
        za, zb = job.prepared[a], job.prepared[b]
        D = za - zb
        b0, b1, b2 = float(gc @ zb), float(zb.sum()), float(zb @ zb)
        tot = np.array([(gc * D).sum(), D.sum(), (za * za - zb * zb).sum()])
        mv = U[:, c * a : c * a + c] - U[:, c * b : c * b + c]
        draws[n] = r(b0 + mv[:, 0], b1 + mv[:, 1], b2 + mv[:, 2]) - r(b0 + tot[0] - mv[:, 0], b1 + tot[1] - mv[:, 1],
                                                                       b2 + tot[2] - mv[:, 2])  # fmt: skip
        deltas[n] = float(r(np.array([b0 + tot[0]]), np.array([b1 + tot[1]]), np.array([b2 + tot[2]]))[0]
                          - r(np.array([b0]), np.array([b1]), np.array([b2]))[0])  # fmt: skip
    return deltas, draws


# the per-pair reference of metric_products, held to it in the tests
def _mask_products(job: DrawJob, V: np.ndarray) -> np.ndarray:
    """``M @ V`` for the task's masks M (k, L) and V (L, c), a block of entries at a time."""
    L = V.shape[0]
    M = job.rng((job.k, L))
    out = np.zeros((job.k, V.shape[1]))
    for lo in range(0, L, _SLOTS):
        out += M[:, lo : lo + _SLOTS].astype(np.float64) @ V[lo : lo + _SLOTS]
    return out


# the per-pair reference of pairs_from_products, held to it in the tests
def _pearson_draws(job: DrawJob, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """PERM-BOTH on Pearson's r from sums: hybrid a = zb + M (za - zb) entrywise, so its sums of g h, h and h^2
    are zb's plus ``M @ v`` for three vectors v (and hybrid b's are the rest), one matrix product per block of
    pairs instead of building every hybrid."""
    g = job.const["gold"]
    gc = g - g.mean()
    sxx = float(gc @ gc)
    L = g.size
    V = np.empty((L, 3 * len(pairs)))
    base = []
    for n, (a, b) in enumerate(pairs):
        za, zb = job.prepared[a], job.prepared[b]
        D = za - zb
        V[:, 3 * n], V[:, 3 * n + 1], V[:, 3 * n + 2] = gc * D, D, za * za - zb * zb
        base.append((float(gc @ zb), float(zb.sum()), float(zb @ zb), V[:, 3 * n : 3 * n + 3].sum(axis=0)))
    MV = _mask_products(job, V)

    def r(sxy, sy, syy):
        with np.errstate(invalid="ignore", divide="ignore"):
            out = sxy / np.sqrt(sxx * (syy - sy * sy / L))
        return np.where(np.isfinite(out), np.clip(out, -1.0, 1.0), 0.0)

    deltas = np.empty(len(pairs))
    draws = np.empty((len(pairs), job.k))
    for n, (b0, b1, b2, tot) in enumerate(base):
        mv = MV[:, 3 * n : 3 * n + 3]
        draws[n] = r(b0 + mv[:, 0], b1 + mv[:, 1], b2 + mv[:, 2]) - r(b0 + tot[0] - mv[:, 0], b1 + tot[1] - mv[:, 1],
                                                                       b2 + tot[2] - mv[:, 2])  # fmt: skip
        deltas[n] = float(r(np.array([b0 + tot[0]]), np.array([b1 + tot[1]]), np.array([b2 + tot[2]]))[0]
                          - r(np.array([b0]), np.array([b1]), np.array([b2]))[0])  # fmt: skip
    return deltas, draws


# the per-pair reference of pairs_from_products, held to it in the tests
def _acc_eq_draws(job: DrawJob, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The pairwise permutation test of acc-eq: hybrid a takes metric a's agreement outcome of a (item, system
    pair) slot where the mask says so, metric b's elsewhere; stat(a) - stat(b) = sum over slots of
    (2 m - 1)(agree_a - agree_b) w, w = 1 / (the item's pairs x the items)."""
    w = job.const["weight"]
    V = np.empty((w.size, len(pairs)))
    for n, (a, b) in enumerate(pairs):
        V[:, n] = (job.prepared[a].astype(np.float64) - job.prepared[b]) * w
    total = V.sum(axis=0)
    return total, (2.0 * _mask_products(job, V) - total).T


def assign_ranks(sig: np.ndarray, alpha: float = CLUSTER_ALPHA) -> list[int]:
    """WMT's greedy clusters (mt-metrics-eval's ``AssignRanks``): going down the order, a metric starts a new rank
    when a metric of the current rank above it is significantly better (p <= alpha)."""
    n = sig.shape[0]
    ranks, rank, start = [], 1, 0
    for i in range(n):
        if np.any(sig[start:i, i] <= alpha):
            rank += 1
            start = i
        ranks.append(rank)
    return ranks


# ------------------------------------------------------------------------------------------------ results
def _task_keys(task: TaskDef, _result: Any) -> dict[str, Any]:
    return {"lp": task.lp, "level": task.level, "statistic": task.statistic}


def _pairs(p_values: np.ndarray, result: Any) -> dict[str, float]:
    names = list(result.values)
    return {
        f"{names[i]} > {names[j]}": float(p_values[i, j]) for i in range(len(names)) for j in range(i + 1, len(names))
    }


@dataclass
class TaskResult:
    #: written as its language pair, level and statistic
    task: TaskDef = field(metadata=out(flatten=True, convert=_task_keys))
    weight: float
    #: metric -> value, in descending order (ties by name)
    values: dict[str, float] = field(metadata=out(key="metrics"))
    ranks: dict[str, int]
    #: (n, n) p-values of "row's metric is better than column's" (upper triangle, value order); None with k = 0;
    #: written as ``{"A > B": p}``
    p_values: np.ndarray | None = jfield(None, omit="none", convert=_pairs)

    to_dict = as_dict


@dataclass
class TaskSetResult:
    """A metrics task set: each task's values and ranks, the average correlation and rank, clusters across tasks."""

    name: str = field(metadata=out(key="task_set"))
    test_set: str
    lps: list[str]
    k: int
    seed: int
    tasks: list[TaskResult]
    average: dict[str, float]
    average_ranks: dict[str, float]
    #: clusters across tasks (k > 0), best first
    clusters: list[list[str]] | None = None
    average_p_values: np.ndarray | None = jfield(None, skip=True)
    notes: list[str] = jfield(default_factory=list, omit="empty")
    #: decimals shown (``-w``; None: 3)
    decimals: int | None = jfield(None, skip=True)

    to_dict = as_dict

    def __repr__(self) -> str:
        top = ", ".join(f"{m} {v:.4f}" for m, v in list(self.average.items())[:3])
        return (f"<TaskSetResult {self.name} {','.join(self.lps)}: {len(self.tasks)} tasks, "
                f"{len(self.average)} metrics; {top}{' ...' if len(self.average) > 3 else ''}>")  # fmt: skip


# ------------------------------------------------------------------------------------------------ run
def run_task_set(  # noqa: PLR0913
    root: str | Path,
    name: str,
    lps: Sequence[str] | None = None,
    *,
    k: int = 0,
    seed: int | None = None,
    gold: str | None = None,
    refs: set[str] | None = None,
    primary: bool = True,
    include_outliers: bool = False,
    exclude: Sequence[str] = (),
    only: Sequence[str] | None = None,
    executor: Any = None,
    progress: Any = None,
) -> TaskSetResult:
    """Run WMT's metrics task set ``name`` (``wmt23``, ``wmt24``, ``wmt25``) on the mt-metrics-eval test-set folder
    ``root`` (``.../mt-metrics-eval-v2/wmt23``) for ``lps`` (default: the year's official pairs), with ``k``
    permutations per task (0: statistics and ranks by value only, as mt-metrics-eval's k=0). ``only``: the metrics
    to keep (names as shown, e.g. ``GEMBA-MQM[noref]``); ``exclude``: systems left out."""
    from mtsig.checks import whole_number
    from mtsig.resample import DEFAULT_SEED, MAX_RESAMPLES

    k = whole_number(k, "k", 0, MAX_RESAMPLES)
    seed = DEFAULT_SEED if seed is None else whole_number(seed, "seed")
    root = Path(root)
    tasks, weights = task_set(name, lps, root.name)
    all_lps = sorted({lp for t in tasks for lp in t.lps})
    sets = {lp: read_evalset(root, lp) for lp in all_lps}
    unknown = [x for x in exclude if not any(x in evs.systems for evs in sets.values())]
    if unknown:
        from mtsig.errors import InputError

        raise InputError(f"--exclude {unknown[0]}: not a system of any language pair of the task set "
                         f"({', '.join(all_lps)})", param="exclude")  # fmt: skip
    opts = {"gold": gold, "refs": refs, "primary": primary, "include_outliers": include_outliers, "exclude": exclude}
    inputs = [_inputs(t, sets, opts) for t in tasks]
    if only is not None:
        _keep_only(inputs, only)
    notes = [n for ti in inputs for n in ti.notes]
    if 0 < k < 1000:  # each p-value is a count over k draws: with few, the clusters at 0.05 are a coin's
        se = (0.05 * 0.95 / k) ** 0.5
        notes.append(f"warning: k = {k} permutation(s) per task: each p-value is a multiple of 1/{k} and a p-value "
                     f"of 0.05 is known only to ±{se:.3f} (one standard error), so the clusters at 0.05 "
                     + ("are drawn from a single permutation and mean nothing" if k == 1 else "are unreliable")
                     + "; use k = 1000 (mt-metrics-eval's) or more")  # fmt: skip
    results: list[TaskResult] = []
    for t, w, ti in zip(tasks, weights, inputs):
        vals = {n: value(ti, n) for n in ti.names}
        order = sorted(vals, key=lambda n: (-vals[n], n))
        results.append(TaskResult(t, w, {n: vals[n] for n in order}, {n: i + 1 for i, n in enumerate(order)}))
    draws = _permute(inputs, results, k, seed, executor, progress) if k else [{} for _ in tasks]
    average, average_ranks = _averages(results)
    out_res = TaskSetResult(name, root.name, all_lps, k, seed, results, average, average_ranks, notes=notes)
    if k:
        out_res.clusters, out_res.average_p_values = _clusters(results, draws, average)
    return out_res


def _keep_only(inputs: list, only: Sequence[str]) -> None:
    """Each task's metrics narrowed to ``only`` (a name no task has is an error)."""
    known = {n for ti in inputs for n in ti.names}
    unknown = [n for n in only if n not in known]
    if unknown:
        from mtsig.errors import unknown_name

        raise unknown_name("metric", unknown[0], sorted(known))
    for ti in inputs:
        ti.names = [n for n in ti.names if n in set(only)]


#: the task set's progress bar counts its work in these units (per mille), each item weighted by its cost
PROGRESS_UNITS = 1000


def _item_cost(kind: str, what: Any) -> float:
    """A work item's cost in rough multiply-adds, to weigh the progress bar (its estimate of the time left then holds
    while cheap and costly items alternate): a per-metric product item, its masks times its columns; a pce item,
    its masked sums and its two hybrids' comparisons per pair (one comparison about two multiply-adds, measured);
    an item of pairs, its quadratic forms."""
    if kind == "metrics":
        job, metrics = what
        L = job.prepared[0].size if job.prepared else 0
        return float(job.k * L * (len(metrics) + 8))
    if kind == "pce":
        job, pairs, r0, r1 = what
        S, N = job.const["shape"]
        return float((r1 - r0) * S * PCE_PERMUTATIONS * (len(job.prepared) * N + 2 * len(pairs) * (S - 1)))
    job, pairs = what
    L = job.prepared[0].size if job.prepared else 0
    return float(job.k * len(pairs) * L * (L + 1))


def _work(inputs: list, results: list[TaskResult], k: int, seed: int) -> tuple[list, list[tuple[str, Any]]]:
    """The draws' jobs ``(task index, job, pairs)`` and work items: ``("metrics", (job, metrics))`` (one product per
    metric: acc-eq, Pearson), ``("pce", (job, pairs, r0, r1))`` (a block of draws of every pair), ``("pairs", (job,
    pairs))`` (a block of pairs, every draw)."""
    jobs: list[tuple[int, DrawJob, list[tuple[int, int]]]] = []
    items: list[tuple[str, Any]] = []
    for index, (ti, res) in enumerate(zip(inputs, results)):
        order = list(res.values)
        job = draw_job(ti, k, seed, index)
        pos = {n: i for i, n in enumerate(ti.names)}
        pairs = [(pos[order[i]], pos[order[j]]) for i in range(len(order)) for j in range(i + 1, len(order))]
        if job.statistic in BY_METRIC:  # one product per metric; the pairs' draws are their differences
            jobs.append((index, job, pairs))
            m = len(ti.names)
            items += [("metrics", (job, list(range(lo, min(m, lo + METRICS_PER_BLOCK)))))
                      for lo in range(0, m, METRICS_PER_BLOCK)]  # fmt: skip
        elif job.statistic == "pce":  # every pair at once, a block of draws per item
            jobs.append((index, job, pairs))
            items += [("pce", (job, pairs, lo, min(k, lo + PCE_DRAWS_PER_ITEM)))
                      for lo in range(0, k, PCE_DRAWS_PER_ITEM)]  # fmt: skip
        else:
            for lo in range(0, len(pairs), PAIRS_PER_BLOCK):
                jobs.append((index, job, pairs[lo : lo + PAIRS_PER_BLOCK]))
                items.append(("pairs", (job, pairs[lo : lo + PAIRS_PER_BLOCK])))
    return jobs, items


def _collect(jobs: list, items: list[tuple[str, Any]], done: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each job's (observed differences, draws) from its items' results."""
    blocks: dict[int, list[np.ndarray]] = {}
    plain = iter([r for (kind, _), r in zip(items, done) if kind == "pairs"])
    for (kind, (job, *_)), r in zip(items, done):
        if kind != "pairs":
            blocks.setdefault(job.index, []).append(r)
    out = []
    for _, job, pairs in jobs:
        if job.statistic in BY_METRIC:
            out.append(pairs_from_products(job, np.concatenate(blocks[job.index], axis=1), pairs))
        elif job.statistic == "pce":
            out.append((pce_deltas(job, pairs), np.concatenate(blocks[job.index], axis=1)))
        else:
            out.append(next(plain))
    return out


def _per_mille(cost: list[float]) -> list[int]:
    """Whole shares of :data:`PROGRESS_UNITS` in proportion to ``cost`` that add up to it exactly (the largest
    remainders round up)."""
    total = sum(cost)
    exact = [c * PROGRESS_UNITS / total for c in cost] if total else [PROGRESS_UNITS / max(1, len(cost))] * len(cost)
    out = [int(x) for x in exact]
    for i in sorted(range(len(cost)), key=lambda i: out[i] - exact[i])[: PROGRESS_UNITS - sum(out)]:
        out[i] += 1
    return out


def _permute(inputs: list, results: list[TaskResult], k: int, seed: int, executor: Any,
             progress: Any) -> list[dict[tuple[str, str], np.ndarray]]:  # fmt: skip
    """``k`` permutations of every pair of metrics of every task (in blocks, on ``executor``): each task's p-values
    and ranks set on its result; returns each task's draws by pair (for the clusters of the average)."""
    from mtsig.executor import SerialExecutor

    draws: list[dict[tuple[str, str], np.ndarray]] = [{} for _ in results]
    jobs, items = _work(inputs, results, k, seed)
    weights = _per_mille([_item_cost(kind, what) for kind, what in items])
    advance = progress(f"permutations ({sum(len(j[2]) for j in jobs):,} pairs of metrics x {k:,}; per mille of the "
                       "work)", PROGRESS_UNITS) if progress else None  # fmt: skip
    done = (executor or SerialExecutor()).map(work_item, items, advance, weights)
    sig = [np.ones((len(r.values), len(r.values))) for r in results]
    for (index, _, pairs), (deltas, d) in zip(jobs, _collect(jobs, items, done)):
        ti, res = inputs[index], results[index]
        order = list(res.values)
        at = {n: i for i, n in enumerate(order)}
        for (a, b), delta, row in zip(pairs, deltas, d):
            na, nb = ti.names[a], ti.names[b]
            sig[index][at[na], at[nb]] = float(np.mean(row >= delta - TIE))
            draws[index][(na, nb)] = row
    for res, s in zip(results, sig):
        res.p_values = s
        res.ranks = dict(zip(res.values, assign_ranks(s)))
    return draws


def _averages(results: list[TaskResult]) -> tuple[dict[str, float], dict[str, float]]:
    """mt-metrics-eval's AverageCorrs and AverageRanks: metrics in every task, in order of first appearance (task by
    task, each in value order), then sorted (stably) by the weighted average."""
    seen: dict[str, list[float]] = {}
    ranks: dict[str, list[float]] = {}
    for r in results:
        b, e = r.task.range
        for m, v in r.values.items():
            seen.setdefault(m, []).append((v - b) / (e - b) * r.weight)
            ranks.setdefault(m, []).append(r.ranks[m] * r.weight)
    n = len(results)
    avg = {m: sum(v) for m, v in seen.items() if len(v) == n}
    rk = {m: sum(v) for m, v in ranks.items() if len(v) == n}
    return dict(sorted(avg.items(), key=lambda x: -x[1])), dict(sorted(rk.items(), key=lambda x: x[1]))


def _clusters(results: list[TaskResult], draws: list[dict], average: dict[str, float]):
    """mt-metrics-eval's AverageCorrMatrix on mtsig's draws: for each pair of metrics (average order), the weighted,
    rescaled sum over tasks of each task's draws against the difference of the averages."""
    names = list(average)
    n = len(names)
    sig = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            a, b = names[i], names[j]
            null = 0.0
            for r, d in zip(results, draws):
                lo, hi = r.task.range
                row = d[(a, b)] if (a, b) in d else -d[(b, a)]
                null = null + r.weight * row / (hi - lo)
            sig[i, j] = float(np.mean(null >= average[a] - average[b] - TIE))
    ranks = assign_ranks(sig)
    clusters: dict[int, list[str]] = {}
    for m, rank in zip(names, ranks):
        clusters.setdefault(rank, []).append(m)
    return [clusters[r] for r in sorted(clusters)], sig


__all__ = ["DEFAULT_LPS", "TASK_SETS", "TaskDef", "TaskResult", "TaskSetResult", "assign_ranks", "pair_draws",
           "run_task_set", "task_set"]  # fmt: skip
