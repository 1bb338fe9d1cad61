"""Running a meta-evaluation: point values, bootstrap intervals, tests between metrics, clusters."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np

from mtsig._compiled import KERNEL_THREADS as _KERNEL_THREADS
from mtsig.declare import changed
from mtsig.errors import InputError
from mtsig.metaeval import stats as st
from mtsig.metaeval.core import (
    MetaData,
    MetaOptions,
    MetaResult,
    MetricAgreement,
    MetricComparison,
    groups,
    permutation_pvalues,
    segment_level,
    spa,
    system_level,
)
from mtsig.resample import Resampling
from mtsig.stats.multiple import adjust

SYSTEM_STATS = ("pearson", "spearman", "kendall", "pairwise_accuracy", "spa")
SEGMENT_STATS = ("pearson", "spearman", "kendall", "kendall_c", "tau23", "acc23")
#: per-resample chunk of PERM-BOTH and the bootstrap (bounds memory: chunk x groups x pairs booleans)
CHUNK = 25


def _zscore(v: np.ndarray) -> np.ndarray:
    sd = v.std()
    return (v - v.mean()) / sd if sd > 0 else v - v.mean()


# ------------------------------------------------------------------------------------------------ values
def _system_values(data: MetaData, m) -> dict[str, float | None]:
    vals: dict[str, float | None] = {}
    for s in SYSTEM_STATS:
        if s == "spa":
            ok = (
                data.human is not None
                and m.segments is not None
                and int(np.all(np.isfinite(data.H), axis=0).sum()) >= 2
            )
            vals[s] = spa(data.H, m.seg) if ok else None
        else:
            vals[s] = float(system_level(data.human_systems, m.systems[None], s)[0])
    return vals


def _segment_values(data: MetaData, m, opts: MetaOptions, skip: set[str]) -> tuple[dict, float | None]:
    if m.segments is None or data.human is None:
        raise InputError(f"metric {m.name}: segment-level meta-evaluation needs segment scores of humans and of every "
                         "metric")  # fmt: skip
    vals: dict[str, float | None] = {}
    eps = None
    for s in SEGMENT_STATS:
        if s in skip:
            vals[s] = None
            continue
        v, e = segment_level(data.H, m.seg, s, opts.average_by, empty=np.nan)
        vals[s] = float(v)
        if s == "acc23":
            eps = e
    return vals, eps


def _too_large(data: MetaData, opts: MetaOptions, notes: list[str]) -> set[str]:
    """acc23's calibration holds every pair of a group: checked first; refused when it is the statistic compared,
    left out (and said) otherwise."""
    if opts.level != "segment" or data.human is None:
        return set()
    try:
        st.check_calibration_size(
            np.isfinite(data.H.reshape(-1)[groups(data.H.shape[0], data.H.shape[1], opts.average_by)])
        )
    except InputError as exc:
        if opts.compared_on == "acc23":
            raise
        notes.append(f"acc23 not computed: {exc}")
        return {"acc23"}
    return set()


def _values(data: MetaData, opts: MetaOptions) -> tuple[dict[str, dict], dict[str, float | None], list[str]]:
    out: dict[str, dict] = {}
    eps: dict[str, float | None] = {}
    notes: list[str] = []
    skip = _too_large(data, opts, notes)
    for m in data.metrics:
        eps[m.name] = None
        if opts.level == "system":
            vals = _system_values(data, m)
        else:
            vals, eps[m.name] = _segment_values(data, m, opts, skip)
        out[m.name] = {k: (None if v is None or not np.isfinite(v) else v) for k, v in vals.items()}
    if opts.level == "system" and data.human is not None:
        full = int(np.all(np.isfinite(data.H), axis=0).sum())
        if full < 2:
            notes.append(f"spa: {full} of {data.H.shape[1]} segments have a human score for every system: too few "
                         "for its paired permutation tests (none given)")  # fmt: skip
        elif full < data.H.shape[1]:
            notes.append(f"spa: {full} of {data.H.shape[1]} segments have a human score for every system; it is "
                         "computed on those")  # fmt: skip
    if opts.level == "system":
        notes += _leverage_notes(data, out)
    else:
        flipped = [m for m, v in out.items() if (v.get("tau23") or 0) < 0 < (v.get("kendall") or 0)]
        if flipped:
            notes.append(f"{', '.join(flipped)}: tau-23 is negative while tau-b is positive. tau-23 counts a pair the "
                         "metric ties and humans do not as discordant (Deutsch et al. 2023), so a metric with many "
                         "tied scores (a coarse scale) loses there; acc23 with its tie threshold is the fairer "
                         "reading")  # fmt: skip
    undefined = [m for m, v in out.items() if v.get(opts.compared_on) is None and opts.compared_on != "spa"]
    if undefined:
        notes.append(f"{', '.join(undefined)}: {opts.compared_on} is undefined (a constant metric, or too few "
                     "entries): shown as -, and not compared with the other metrics")  # fmt: skip
    return out, eps, notes


#: a system is said to drive a metric's system-level Pearson when leaving it out moves r by this much or more and
#: its Cook's distance in the regression of the metric on the human scores exceeds :data:`COOK` (the usual rule for
#: a point that alone moves the fit): both, so that the noise of a weakly correlated metric is not flagged
LEVERAGE, COOK = 0.1, 1.0


def _leverage_notes(data: MetaData, values: dict[str, dict]) -> list[str]:
    """Systems that drive a system-level Pearson: one system far from the others can make r near 1 (or near 0) on
    its own (an outlier's leverage), which an interval over few systems does not show. For each system, the metrics
    whose Pearson moves by at least :data:`LEVERAGE` when it is left out and in whose fit it has a Cook's distance
    above :data:`COOK`."""
    h = np.asarray(data.human_systems, dtype=np.float64)
    S = h.size
    if S < 5:  # leaving one out of four leaves three points: every r is fragile, nothing to single out
        return []
    by_system: dict[int, list[tuple[float, str, float, float]]] = {}
    for m in data.metrics:
        r = values[m.name].get("pearson")
        x = np.asarray(m.systems, dtype=np.float64)
        if r is None or not (np.isfinite(x).all() and np.isfinite(h).all()):
            continue
        cook = _cooks_distance(h, x)
        for k in range(S):
            if not cook[k] > COOK:
                continue
            keep = np.arange(S) != k
            a, b = h[keep], x[keep]
            if np.ptp(a) == 0 or np.ptp(b) == 0:
                continue
            r_k = float(np.corrcoef(a, b)[0, 1])
            if abs(r - r_k) >= LEVERAGE:
                by_system.setdefault(k, []).append((abs(r - r_k), m.name, r, r_k))
    notes = []
    for k, hits in sorted(by_system.items(), key=lambda kv: -max(x[0] for x in kv[1])):
        hits.sort(reverse=True)
        shown = "; ".join(f"{name} {r:.3f} with it, {r_k:.3f} without" for _, name, r, r_k in hits[:3])
        more = f" (and {len(hits) - 3} more metric(s))" if len(hits) > 3 else ""
        notes.append(f"system {data.systems[k]} drives the system-level Pearson of {len(hits)} metric(s): {shown}"
                     f"{more}. One system far from the others can decide r on its own; read Spearman, Kendall "
                     "and pairwise accuracy beside it")  # fmt: skip
    return notes


def _cooks_distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Cook's distance of each point in the least-squares line of ``y`` on ``x`` (zeros where it is undefined)."""
    n = x.size
    dx = x - x.mean()
    sxx = float(dx @ dx)
    if sxx == 0 or n < 3:
        return np.zeros(n)
    b = float(dx @ (y - y.mean())) / sxx
    e = y - (y.mean() + b * dx)
    s2 = float(e @ e) / (n - 2)
    lev = 1.0 / n + dx**2 / sxx
    if s2 == 0:
        return np.zeros(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nan_to_num(e**2 / (2 * s2) * lev / (1 - lev) ** 2)


# ------------------------------------------------------------------------------------------------ intervals
def _human_system_boot(H: np.ndarray, W: np.ndarray) -> np.ndarray:
    ok = np.isfinite(H)
    num = W @ np.where(ok, H, 0.0).T
    den = W @ ok.T.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den


def _system_vector(hs: np.ndarray, ms: np.ndarray, stat: str) -> np.ndarray:
    """(R,) statistic of human (R, S) against metric (R, S), vectorized over R as groups."""
    valid = np.isfinite(hs)
    if stat == "pairwise_accuracy":
        i, j = np.triu_indices(hs.shape[1], 1)
        ok = valid[:, i] & valid[:, j]
        agree = (np.sign(hs[:, i] - hs[:, j]) == np.sign(ms[:, i] - ms[:, j])) & ok
        return agree.sum(1) / np.maximum(ok.sum(1), 1)
    from mtsig.metaeval.core import STATISTICS

    return STATISTICS.get(stat).of(np.where(valid, hs, np.nan), ms[None], valid)[0]


def _system_resampled_intervals(data: MetaData, opts: MetaOptions) -> tuple[dict[str, dict], list[str]]:
    """System-level scores only: a percentile bootstrap over the systems (resampled with replacement)."""
    S = len(data.systems)
    plan = Resampling(opts.n_bootstrap, opts.seed).plan("bootstrap", S, opts.n_bootstrap)
    W = np.vstack(list(plan.chunks())).astype(np.int64)
    idx = np.stack([np.repeat(np.arange(S), w) for w in W])  # each resample's systems
    hs = data.human_systems[idx]
    a = (1 - opts.confidence) / 2
    out: dict[str, dict] = {}
    for m in data.metrics:
        out[m.name] = {}
        for s in ("pearson", "spearman", "kendall", "pairwise_accuracy"):
            v = _system_vector(hs, m.systems[idx], s)
            v = v[np.isfinite(v)]
            out[m.name][s] = [float(np.quantile(v, a)), float(np.quantile(v, 1 - a))] if v.size >= 2 else None
    why = "no human segment scores placed in the test set" if data.human is None else "system scores only"
    return out, [f"intervals: {opts.n_bootstrap} bootstrap resamples of the {S} systems ({why}), percentile, "
                 f"{opts.confidence:.0%}; spa has none"]  # fmt: skip


def _outside_notes(values: dict, cis: dict) -> list[str]:
    """Intervals that leave out their own estimate (a percentile interval can, when the bootstrap distribution of a
    statistic lies to one side of it: r near its bound of 1, few systems): said, never drawn as if they held it."""
    out = []
    for m, by in cis.items():
        for s, ci in (by or {}).items():
            v = values.get(m, {}).get(s)
            if ci is not None and v is not None and np.isfinite(v) and not ci[0] <= v <= ci[1]:
                out.append(f"{m} {s} {v:.3f}: its percentile interval [{ci[0]:.3f}, {ci[1]:.3f}] leaves out the "
                           "estimate itself (the bootstrap distribution of the statistic lies to one side of it, as "
                           "it can near ±1 or with few systems): the estimate is biased under resampling, and the "
                           "interval is the resamples' spread, not a range around the estimate")  # fmt: skip
    return out


def _intervals(data: MetaData, opts: MetaOptions, eps: dict) -> tuple[dict[str, dict], list[str]]:
    system_only = any(m.segments is None and m.resampled is None for m in data.metrics)
    if opts.level == "system" and (data.human is None or system_only):
        return _system_resampled_intervals(data, opts)
    unit = resample_unit(data, opts)[0]
    W = np.vstack(list(item_weights(data, opts, opts.n_bootstrap, unit)))
    a = (1 - opts.confidence) / 2
    out: dict[str, dict] = {m.name: {} for m in data.metrics}
    notes = []

    def q(v: np.ndarray) -> list[float] | None:
        v = v[np.isfinite(v)]
        return [float(np.quantile(v, a)), float(np.quantile(v, 1 - a))] if v.size >= 2 else None

    if opts.level == "system":
        hs = _human_system_boot(data.H, W)
        for m in data.metrics:
            ms = m.system_boot(W)
            for s in ("pearson", "spearman", "kendall", "pairwise_accuracy"):
                out[m.name][s] = q(_system_vector(hs, ms, s))
        notes.append(f"intervals: {opts.n_bootstrap} bootstrap resamples of the {unit}s (system scores recomputed "
                     f"from each), percentile, {opts.confidence:.0%}; spa has none")  # fmt: skip
        return out, notes
    if opts.average_by != "item":
        notes.append("intervals: only with --average-by item (each item's statistic is resampled)")
        return out, notes
    for m in data.metrics:
        for s in SEGMENT_STATS:
            per_item = _per_group(data.H, m.seg, s, eps.get(m.name) if s == "acc23" else None)
            ok = np.isfinite(per_item)
            with np.errstate(invalid="ignore", divide="ignore"):
                boot = (W @ np.where(ok, per_item, 0.0)) / (W @ ok.astype(np.float64))
            out[m.name][s] = q(boot)
    what = "items" if unit == "segment" else "documents"
    notes.append(f"intervals: {opts.n_bootstrap} bootstrap resamples of the {what}, percentile, "
                 f"{opts.confidence:.0%}; acc23 at each metric's calibrated epsilon")  # fmt: skip
    return out, notes


def _per_group(H: np.ndarray, M: np.ndarray, stat: str, epsilon: float | None) -> np.ndarray:
    """Each item's statistic (item averaging)."""
    g = groups(H.shape[0], H.shape[1], "item")
    X, Y = H.reshape(-1)[g], M.reshape(-1)[g][None]
    valid = np.isfinite(X)
    if stat == "acc23":
        return st.kendall(X, Y, valid, "acc23", epsilon or 0.0)[0]
    from mtsig.metaeval.core import STATISTICS

    return STATISTICS.get(stat).of(X, Y, valid)[0]


# ------------------------------------------------------------------------------------------------ tests
def _perm_both_system(data: MetaData, a, b, stat: str, W: np.ndarray) -> tuple[float, np.ndarray]:
    ok = np.isfinite(data.human_systems)
    h = data.human_systems[ok]
    za, zb = _zscore(a.systems[ok]), _zscore(b.systems[ok])
    Wk = W[:, : ok.sum()].astype(bool)
    ha, hb = np.where(Wk, zb, za), np.where(Wk, za, zb)
    hs = np.broadcast_to(h, ha.shape)
    null = _system_vector(hs, ha, stat) - _system_vector(hs, hb, stat)
    obs = _system_vector(h[None], za[None], stat)[0] - _system_vector(h[None], zb[None], stat)[0]
    return float(obs), null


#: Kendall-type statistics PERM-BOTH computes from per-pair lookup tables at item level
_PAIR_CODED = ("kendall", "tau23")
#: PERM-BOTH of Pearson's r by products of the source bits (the direct path is the reference in the tests)
_LINEAR = True
#: PERM-BOTH of tie-calibrated acc23 from one table of candidates (the direct path is the reference in the tests)
_TABLED = True


def _coded_tables(H: np.ndarray, za: np.ndarray, zb: np.ndarray):
    """Item averaging, Kendall-type statistics: for every pair of systems within an item and each of the 4 ways its
    two entries can come from metric a or b (bit 1: from b), the pair's outcome packed in one integer: (C - D + 1)
    + 128 T_m + 16384 T_hm (0 for a pair without both human scores); and per item the human ties and the pairs."""
    g = groups(H.shape[0], H.shape[1], "item")
    X, A, B = H.reshape(-1)[g], za.reshape(-1)[g], zb.reshape(-1)[g]
    i, j = np.triu_indices(X.shape[1], 1)
    ok = np.isfinite(X[:, i]) & np.isfinite(X[:, j])
    dx = X[:, i] - X[:, j]
    tie_h = (dx == 0) & ok
    enc = np.empty((4, *dx.shape), dtype=np.int32)
    for code in range(4):
        vi = np.where(code >> 1, B[:, i], A[:, i])
        vj = np.where(code & 1, B[:, j], A[:, j])
        dy = vi - vj
        tie_m = dy == 0
        sign = np.where(tie_m | (dx == 0), 0, np.where((dx > 0) == (dy > 0), 1, -1))
        enc[code] = np.where(ok, (sign + 1) + 128 * tie_m + 16384 * (tie_m & tie_h), 0)
    return g, (i, j), enc, tie_h.sum(1), ok.sum(1)


def _decode(total: np.ndarray, n: np.ndarray, th_all: np.ndarray, stat: str) -> np.ndarray:
    """The per-item statistic from the summed packed outcomes (R, items)."""
    thm = total // 16384
    tm = (total % 16384) // 128
    cd = total % 128 - n  # C - D (each valid pair carried +1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if stat == "kendall":
            r = cd / np.sqrt(n - th_all) / np.sqrt(n - tm)
            return np.where((th_all == n) | (tm == n) | (n == 0), np.nan, r)
        return np.where(n > 0, (cd + 3 * thm - th_all - tm) / n, np.nan)  # tau-23


def _mean_items(v: np.ndarray) -> np.ndarray:
    ok = np.isfinite(v)
    with np.errstate(invalid="ignore"):
        out = np.where(ok, v, 0.0).sum(-1) / ok.sum(-1)
    return np.where(ok.any(-1), out, 0.0)


def _perm_both_coded(H, za, zb, stat: str, mask: np.ndarray) -> tuple[float, np.ndarray]:
    """PERM-BOTH of a Kendall-type statistic at item level without pair arrays per resample: a pair's packed
    outcome is a function of its two entries' source bits b_i, b_j, so an item's sum is
    ``base + b . lin + b' Q b`` (``lin`` per entry, ``Q`` per pair of entries): two small products per resample,
    exact in float32 (integers below 2^24)."""
    g, (i, j), enc, th_all, n = _coded_tables(H, za, zb)
    e00, e01, e10, e11 = (enc[k].astype(np.float64) for k in range(4))
    items, S = g.shape
    lin = np.zeros((items, S))
    np.add.at(lin.T, i, (e10 - e00).T)
    np.add.at(lin.T, j, (e01 - e00).T)
    Q = np.zeros((items, S, S), dtype=np.float32)
    Q[:, i, j] = e11 - e10 - e01 + e00
    base, lin = e00.sum(-1), lin.astype(np.float32)

    def totals(b: np.ndarray) -> np.ndarray:  # b (R, items, S) float32 -> packed sums (R, items)
        quad = (np.matmul(b.transpose(1, 0, 2), Q).transpose(1, 0, 2) * b).sum(-1)
        return np.rint(base + (b * lin).sum(-1) + quad).astype(np.int64)

    def stat_of(t: np.ndarray) -> np.ndarray:
        return _mean_items(_decode(t, n, th_all, stat))

    obs = stat_of(enc[0].sum(-1, dtype=np.int64)[None])[0] - stat_of(enc[3].sum(-1, dtype=np.int64)[None])[0]
    nulls = []
    for c in range(0, mask.shape[0], 4 * CHUNK):
        b = mask[c : c + 4 * CHUNK].reshape(-1, H.size)[:, g].astype(np.float32)  # (R, items, systems)
        nulls.append(stat_of(totals(b)) - stat_of(totals(1.0 - b)))
    return float(obs), np.concatenate(nulls)


def _perm_both_pearson(H, za, zb, average_by: str, mask: np.ndarray) -> tuple[float, np.ndarray]:
    """PERM-BOTH of Pearson's r: a hybrid's sums per group (of y, y², xy) are linear in the entries' source bits
    (y = a + b (z_b - z_a), and b² = b), so each resample is three products; r from centred sums."""
    g = groups(H.shape[0], H.shape[1], average_by)
    X = H.reshape(-1)[g]
    ok = np.isfinite(X)
    n = ok.sum(-1).astype(np.float64)
    A, D = np.where(ok, za.reshape(-1)[g], 0.0), np.where(ok, (zb - za).reshape(-1)[g], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = np.where(ok, X - (np.where(ok, X, 0.0).sum(-1) / n)[:, None], 0.0)  # centred human scores
    sxx = (x * x).sum(-1)
    coef = {"y": (A.sum(-1), D), "yy": ((A * A).sum(-1), 2 * A * D + D * D), "xy": ((x * A).sum(-1), x * D)}

    def r_of(b: np.ndarray) -> np.ndarray:  # b (R, G, L) float -> mean over groups of r
        s = {k: c0 + (b * c1).sum(-1) for k, (c0, c1) in coef.items()}
        with np.errstate(invalid="ignore", divide="ignore"):
            syy = s["yy"] - s["y"] ** 2 / n
            r = s["xy"] / np.sqrt(sxx * syy)
        bad = (n < 2) | (sxx == 0) | (syy <= 1e-12 * np.maximum(s["yy"], 1e-300))
        return _mean_items(np.where(bad, np.nan, np.clip(r, -1, 1)))

    shape = (1, *g.shape)
    obs = r_of(np.zeros(shape))[0] - r_of(np.ones(shape))[0]
    nulls = []
    for c in range(0, mask.shape[0], 4 * CHUNK):
        bits = mask[c : c + 4 * CHUNK].reshape(-1, H.size)[:, g].astype(np.float64)
        nulls.append(r_of(bits) - r_of(1.0 - bits))
    return float(obs), np.concatenate(nulls)


def pack_rows(bits: np.ndarray) -> np.ndarray:
    """0/1 rows (R, E), 64 at a time, as words (ceil(R / 64), E) uint64: bit d of word (b, e) is row 64 b + d's
    entry e (rows past R: 0)."""
    R, E = bits.shape
    nb = -(-R // 64)
    rows = np.zeros((nb * 64, E), dtype=np.uint8)
    rows[:R] = bits
    by_entry = np.ascontiguousarray(rows.reshape(nb, 64, E).transpose(0, 2, 1))
    return np.packbits(by_entry, axis=2, bitorder="little").view("<u8")[..., 0]


#: threads of the compiled acc23 kernel (blocks of 64 draws at a time; the same numbers with any count)
KERNEL_THREADS = _KERNEL_THREADS

#: the most (pair, source-combination) candidates the tie-calibrated acc23 PERM-BOTH tabulates (about 28 bytes each)
ACC23_CANDIDATES = 2**24


class _Acc23Table:
    """Tie-calibrated acc23 of every PERM-BOTH hybrid of two metrics without a calibration per hybrid.

    A pair of entries (u, v) of a group has four possible metric differences in a hybrid, one per source of its two
    entries (code 2 b_u + b_v, b = 1: from metric b). All 4P candidates are sorted once by |difference|; a
    hybrid selects one candidate per pair, and its calibrated acc23 is the base plus the largest running sum of the
    selected candidates' gains (a pair's change when it becomes a metric tie: human tie minus agreement at ε = 0)
    at the end of each run of equal |difference|, over the groups. The same sums in the same order as
    :func:`mtsig.metaeval.stats.tie_calibration` on each hybrid (adding zeros for the candidates not selected), so
    the same values."""

    def __init__(self, H: np.ndarray, za: np.ndarray, zb: np.ndarray, average_by: str):
        g = groups(H.shape[0], H.shape[1], average_by)
        X = H.reshape(-1)[g]
        A, B = za.reshape(-1)[g], zb.reshape(-1)[g]
        i, j = np.triu_indices(g.shape[1], 1)
        ok = np.isfinite(X[:, i]) & np.isfinite(X[:, j]) & np.isfinite(A[:, i]) & np.isfinite(A[:, j])
        tot = ok.sum(1).astype(np.float64)
        self.n_groups = int((tot > 0).sum())
        gi, pi = np.nonzero(ok)  # the valid pairs, group by group (the order tie_calibration sees them in)
        self.u, self.v = g[gi, i[pi]], g[gi, j[pi]]  # flat entry indices of each pair's two entries
        dx = X[gi, i[pi]] - X[gi, j[pi]]
        tie_h = dx == 0
        d = np.empty((len(gi), 4))
        gain = np.empty((len(gi), 4))
        self.good = np.empty((len(gi), 4), dtype=np.int64)
        for code in range(4):
            yu = np.where(code >> 1, B[gi, i[pi]], A[gi, i[pi]])
            yv = np.where(code & 1, B[gi, j[pi]], A[gi, j[pi]])
            dy = yu - yv
            tie_m = dy == 0
            good = (~tie_h & ~tie_m & ((dx > 0) == (dy > 0))) | (tie_h & tie_m)
            d[:, code] = np.abs(dy)
            gain[:, code] = (tie_h.astype(np.float64) - good) * 1.0 / tot[gi]  # as tie_calibration computes it
            self.good[:, code] = good
        live = np.flatnonzero(tot > 0)
        group = np.searchsorted(live, gi)  # each pair's group among the groups that have a pair (in order)
        self.starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if group.size else np.zeros(0, int)
        self.tot = tot[live]
        self.short = g.shape[1] <= 64  # tie_calibration sums the groups' values pairwise (short) or in order
        flat = d.reshape(-1)
        self.order = np.argsort(flat, kind="stable")
        ds = flat[self.order]
        self.ends = np.flatnonzero(np.r_[ds[1:] != ds[:-1], True])  # the last candidate of each run of equal |diff|
        self.gain_sorted = gain.reshape(-1)[self.order]
        self.rank = np.empty_like(self.order)
        self.rank[self.order] = np.arange(self.order.size)  # where candidate (p, code) sits in the sorted order
        self.group = group
        self._kernel = None  # the compiled kernel's arrays (:meth:`_compiled`), made at the first use

    def _compiled(self):
        """The compiled kernel (``mtsig._meta.acc23_block``) and its arrays, or None without it. Only the candidates
        whose gain is not 0 are kept (the others add nothing to any running sum), each marked where it is the last
        kept candidate of its run of equal differences: the largest running sum at those marks is the largest at
        every run's end (a run with nothing kept repeats the value before it)."""
        if self._kernel is None:
            from mtsig._compiled import load

            mod = load("_meta")
            if mod is None:
                self._kernel = (None,)
            else:
                is_end = np.zeros(self.order.size, dtype=bool)
                is_end[self.ends] = True
                run = np.cumsum(is_end) - is_end  # each sorted candidate's run
                kept = np.flatnonzero(self.gain_sorted != 0)
                last = np.r_[run[kept][1:] != run[kept][:-1], True] if kept.size else np.zeros(0, dtype=bool)
                pair, code = np.divmod(self.order[kept], 4)
                arrays = (self.u, self.v, np.ascontiguousarray(self.good, dtype=np.uint8), self.group,
                          self.u[pair], self.v[pair], code.astype(np.uint8), self.gain_sorted[kept],
                          last.astype(np.uint8))  # fmt: skip
                self._kernel = (mod.acc23_block, tuple(np.ascontiguousarray(a) for a in arrays))
        return None if self._kernel[0] is None else self._kernel

    def compiled(self) -> bool:
        """Whether the compiled kernel computes the draws."""
        return bool(self.n_groups) and self._compiled() is not None

    def both(self, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Calibrated acc23 of both hybrids of each draw: ``values(bits)`` and ``values(1 - bits)``; through the
        compiled kernel, 64 draws at a time, where it is built (the same numbers: the same sums in the same order)."""
        if not self.compiled():
            return self.values(bits), self.values(1 - bits)
        return self.draws(pack_rows(bits), len(bits))

    def draws(self, words: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`both` of ``n`` draws given as packed words (:func:`pack_rows`: block b, entry e, bit d = draw
        64 b + d's bit of entry e), through the compiled kernel (:meth:`compiled` must be true)."""
        fn, arrays = self._compiled()
        G = self.tot.size
        ca, cb = np.empty((n, G), dtype=np.int64), np.empty((n, G), dtype=np.int64)
        ba, bb = np.empty(n), np.empty(n)

        def block(b: int) -> None:
            lo = 64 * b
            fn(words[b], *arrays, ca[lo : lo + 64], cb[lo : lo + 64], ba[lo : lo + 64], bb[lo : lo + 64])

        blocks = range(-(-n // 64))
        if KERNEL_THREADS > 1 and len(blocks) > 1:  # the kernel releases the GIL; each block writes its own rows
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(KERNEL_THREADS, len(blocks))) as pool:
                list(pool.map(block, blocks))
        else:
            for b in blocks:
                block(b)
        return self._finish(ca, ba), self._finish(cb, bb)

    def _finish(self, counts: np.ndarray, best: np.ndarray) -> np.ndarray:
        """The calibrated acc23 of each draw from its agreeing pairs per group at ε = 0 and its best gain."""
        per = counts / self.tot  # each group's acc23 at ε = 0
        base = per.sum(axis=1) if self.short else np.cumsum(per, axis=1)[:, -1]
        return (base + best) / self.n_groups

    def values(self, bits: np.ndarray) -> np.ndarray:
        """Calibrated acc23 of the hybrids whose entries come from metric b where ``bits`` (R, entries) is 1."""
        if not self.n_groups:
            return np.zeros(len(bits))
        code = 2 * bits[:, self.u].astype(np.int64) + bits[:, self.v]
        P = self.u.size
        at = self.rank[np.arange(P) * 4 + code]  # (R, P): where each pair's candidate sits in the sorted order
        picked = np.zeros((len(bits), 4 * P))
        rows = np.arange(len(bits))[:, None]
        picked[rows, at] = self.gain_sorted[at]
        running = np.cumsum(picked, axis=1)[:, self.ends]
        good = self.good.reshape(-1)[np.arange(P) * 4 + code]  # (R, P): each pair's agreement at ε = 0
        best = np.maximum(0.0, running.max(axis=1)) if running.shape[1] else np.zeros(len(bits))
        return self._finish(np.add.reduceat(good, self.starts, axis=1), best)


def _perm_both_acc23(H, za, zb, average_by: str, mask: np.ndarray, advance=None) -> tuple[float, np.ndarray] | None:
    """PERM-BOTH of tie-calibrated acc23 from one table of candidates (:class:`_Acc23Table`); None when the table
    would be too large (long groups: ``none`` or ``sys`` averaging of many segments)."""
    g = groups(H.shape[0], H.shape[1], average_by)
    if 2 * g.shape[1] * (g.shape[1] - 1) * g.shape[0] > ACC23_CANDIDATES:
        return None
    table = _Acc23Table(H, za, zb, average_by)
    obs = segment_level(H, za, "acc23", average_by)[0] - segment_level(H, zb, "acc23", average_by)[0]
    # draws per call: the dense rows of the numpy path take 32 bytes per candidate and draw; the compiled kernel
    # takes blocks of 64 draws and holds only each draw's agreement count per group
    per = 64 * 4 * KERNEL_THREADS if table.compiled() else max(1, 2**23 // max(1, 4 * table.u.size))
    nulls = []
    for c in range(0, mask.shape[0], per):
        bits = mask[c : c + per].reshape(-1, H.size)
        va, vb = table.both(bits)
        nulls.append(va - vb)
        if advance:
            advance(len(bits))
    return float(obs), np.concatenate(nulls)


def _zscored_pair(data: MetaData, a, b) -> tuple[np.ndarray, np.ndarray]:
    """Both metrics' segment scores z-scored over the entries with a human score (NaN elsewhere), as PERM-BOTH swaps
    them."""
    ok = np.isfinite(data.H)
    za, zb = np.full(ok.shape, np.nan), np.full(ok.shape, np.nan)
    za[ok], zb[ok] = _zscore(a.seg[ok]), _zscore(b.seg[ok])
    return za, zb


def _perm_both_acc23_words(data: MetaData, a, b, opts: MetaOptions, W: SwapMasks,
                           advance=None) -> tuple[float, np.ndarray] | None:  # fmt: skip
    """PERM-BOTH of tie-calibrated acc23 through the compiled kernel, from the masks packed once for every pair of
    metrics (:meth:`SwapMasks.words`); None where the kernel is not built or the table would be too large (the
    caller then takes the numpy path, which gives the same numbers)."""
    za, zb = _zscored_pair(data, a, b)
    g = groups(data.H.shape[0], data.H.shape[1], opts.average_by)
    if 2 * g.shape[1] * (g.shape[1] - 1) * g.shape[0] > ACC23_CANDIDATES:
        return None
    table = _Acc23Table(data.H, za, zb, opts.average_by)
    if not table.compiled():
        return None
    obs = segment_level(data.H, za, "acc23", opts.average_by)[0] - segment_level(data.H, zb, "acc23",
                                                                                 opts.average_by)[0]  # fmt: skip
    words = W.words()
    step = 16 * KERNEL_THREADS  # blocks of 64 draws per call
    nulls = []
    for lo in range(0, words.shape[0], step):
        w = words[lo : lo + step]
        n = min(W.n - 64 * lo, 64 * len(w))
        va, vb = table.draws(w if W.expand is None else np.ascontiguousarray(w[:, W.expand]), n)
        nulls.append(va - vb)
        if advance:
            advance(n)
    return float(obs), np.concatenate(nulls)


def _perm_both_segment(data: MetaData, a, b, opts: MetaOptions, W: np.ndarray,
                       advance=None) -> tuple[float, np.ndarray]:  # fmt: skip
    stat = opts.compared_on
    za, zb = _zscored_pair(data, a, b)
    ok = np.isfinite(data.H)
    mask = W[:, : ok.size].reshape(-1, *ok.shape)
    if stat in _PAIR_CODED and opts.average_by == "item" and data.H.shape[0] <= 64:
        got = _perm_both_coded(data.H, za, zb, stat, mask)
        if advance:
            advance(mask.shape[0])
        return got
    if stat == "pearson" and _LINEAR:
        got = _perm_both_pearson(data.H, za, zb, opts.average_by, mask)
        if advance:
            advance(mask.shape[0])
        return got
    if stat == "acc23" and _TABLED:
        tabled = _perm_both_acc23(data.H, za, zb, opts.average_by, mask, advance)
        if tabled is not None:
            return tabled
    nulls = []
    for c in range(0, mask.shape[0], CHUNK):
        if advance:
            advance(min(CHUNK, mask.shape[0] - c))
        w = mask[c : c + CHUNK]
        ha, hb = np.where(w, zb, za), np.where(w, za, zb)
        if stat == "acc23":  # tie calibration anew for every hybrid (PERM-BOTH with an optimized epsilon)
            va = np.array([segment_level(data.H, x, "acc23", opts.average_by)[0] for x in ha])
            vb = np.array([segment_level(data.H, x, "acc23", opts.average_by)[0] for x in hb])
        else:
            va = segment_level(data.H, ha, stat, opts.average_by)
            vb = segment_level(data.H, hb, stat, opts.average_by)
        nulls.append(va - vb)
    obs = segment_level(data.H, za, stat, opts.average_by)[0] - segment_level(data.H, zb, stat,
                                                                                   opts.average_by)[0]  # fmt: skip
    return float(obs), np.concatenate(nulls)


def _pair_outcomes(H: np.ndarray, M: np.ndarray, average_by: str, epsilon: float):
    """Every within-group pair's acc23 outcome (1: agrees) under ``epsilon``, the group of each pair, and each
    group's number of pairs."""
    g = groups(H.shape[0], H.shape[1], average_by)
    good: list[np.ndarray] = []
    grp: list[np.ndarray] = []
    tot: list[int] = []
    for row in g:
        x, y = H.reshape(-1)[row], M.reshape(-1)[row]
        ok = np.isfinite(x)
        x, y = x[ok], y[ok]
        if x.size < 2:
            continue
        i, j = np.triu_indices(x.size, 1)
        dx, dy = x[i] - x[j], y[i] - y[j]
        tie_h, tie_m = dx == 0, np.abs(dy) <= epsilon
        good.append((~tie_h & ~tie_m & ((dx > 0) == (dy > 0))) | (tie_h & tie_m))
        grp.append(np.full(i.size, len(tot)))
        tot.append(i.size)
    return np.concatenate(good).astype(np.float64), np.concatenate(grp), np.asarray(tot, dtype=np.float64)


def _pairwise_perm(data: MetaData, a, b, opts: MetaOptions, eps: dict, rs: Resampling) -> tuple[float, np.ndarray]:
    """The pairwise permutation test of acc23 at each metric's own epsilon: each pair's agreement outcome swapped
    between the two metrics with probability 1/2."""
    ga, grp, tot = _pair_outcomes(data.H, a.seg, opts.average_by, eps[a.name] or 0.0)
    gb, _, _ = _pair_outcomes(data.H, b.seg, opts.average_by, eps[b.name] or 0.0)
    starts = np.r_[0, np.cumsum(tot)[:-1]].astype(np.int64)
    G = tot.size
    base_a = np.add.reduceat(ga, starts) / tot
    base_b = np.add.reduceat(gb, starts) / tot
    obs = float(base_a.mean() - base_b.mean())
    d = ga - gb
    plan = rs.plan("randomization", d.size, opts.n_resamples or 1000)
    nulls = []
    for W in plan.chunks():
        moved = np.add.reduceat(W * d, starts, axis=1) / tot  # swapped pairs move from a's hybrid to b's
        nulls.append((base_a - base_b - 2 * moved).sum(axis=1) / G)
    return obs, np.concatenate(nulls)


class SwapMasks:
    """PERM-BOTH's swap masks: one row per resample, one column per (system, item) entry (or system), the same for
    every pair of metrics. Held once when they fit in :data:`MASK_BYTES`; otherwise drawn again for each pair from
    the plan's seed (the same rows: a plan is a pure function of its seed), so memory stays bounded at any count."""

    def __init__(self, width: int, n: int, seed: int, expand: np.ndarray | None = None):
        self.width, self.n, self.seed = width, n, seed
        #: each entry's block (documents as the unit: a system's entries of one document swap together)
        self.expand = expand
        self._held = self._draw() if width * n <= MASK_BYTES else None
        self._words: np.ndarray | None = None

    def words(self) -> np.ndarray:
        """The masks as words (:func:`pack_rows`: 64 resamples to a word, one word per unit and block), made once:
        ``(ceil(n / 64), width)`` uint64, an eighth of the masks' bytes."""
        if self._words is None:
            self._words = np.concatenate([pack_rows(M) for M in self._blocks(64 * 256)])
        return self._words

    def _draw(self) -> np.ndarray:
        plan = Resampling(self.n, self.seed).plan("randomization", self.width, self.n)
        return np.vstack([c.astype(bool) for c in plan.chunks(np.float32)])

    def chunks(self, rows: int):
        """The masks, ``rows`` resamples at a time (one column per entry)."""
        for M in self._blocks(rows):
            yield M if self.expand is None else M[:, self.expand]

    def _blocks(self, rows: int):
        if self._held is not None:
            for lo in range(0, self.n, rows):
                yield self._held[lo : lo + rows]
            return
        plan = Resampling(self.n, self.seed).plan("randomization", self.width, self.n)
        buf = np.zeros((0, self.width), dtype=bool)
        for c in plan.chunks(np.float32):
            buf = np.concatenate([buf, c.astype(bool)])
            while len(buf) >= rows:
                yield buf[:rows]
                buf = buf[rows:]
        if len(buf):
            yield buf


#: the most bytes of PERM-BOTH swap masks held at once (beyond: drawn again for each pair)
MASK_BYTES = 256 * 2**20


def swap_masks(data: MetaData, opts: MetaOptions, n: int | None = None) -> SwapMasks | None:
    """PERM-BOTH's swap masks (None for the tests that do not use them). Segment level with documents as the unit:
    one bit per (system, document), so a system's entries of one document are swapped together."""
    if opts.test != "perm-both" and opts.level != "system":
        return None
    R = n if n is not None else (opts.n_resamples or 1000)
    if opts.level == "system":
        return SwapMasks(len(data.systems), R, opts.seed)
    docs = data.document_index() if resample_unit(data, opts)[0] == "document" else None
    if docs is None:
        return SwapMasks(data.H.size, R, opts.seed)
    idx, D = docs
    S = data.H.shape[0]
    return SwapMasks(S * D, R, opts.seed, (np.arange(S)[:, None] * D + idx[None, :]).reshape(-1))


#: documents as the resampling unit need at least this many (fewer: segments, and a note)
MIN_DOCUMENTS = 10


def resample_unit(data: MetaData, opts: MetaOptions) -> tuple[str, str | None]:
    """The unit of intervals and segment-level PERM-BOTH: the user's, or documents wherever the human scores have
    them (and at least :data:`MIN_DOCUMENTS`), and a note saying why when chosen here."""
    docs = data.document_index()
    if opts.resample_unit == "document" and docs is None:
        raise InputError("resample_unit document: the human scores have no documents here (give docs, or scores "
                         "with a document column)", param="resample_unit")  # fmt: skip
    if opts.resample_unit is not None or docs is None or data.human is None:
        return opts.resample_unit or "segment", None
    judged = np.isfinite(data.H).any(axis=0)
    n = len(set(np.asarray(data.item_documents, dtype=object)[judged]))
    if n < MIN_DOCUMENTS:
        return "segment", (f"resampling unit: segments (the human scores come in {n} documents, too few to "
                           "resample)")  # fmt: skip
    return "document", (f"resampling unit: the {n} documents (the human scores were given by document, and the "
                        "segments of one document are not independent): intervals resample whole documents and "
                        "segment-level PERM-BOTH swaps a system's scores of a document together (--resample-unit "
                        "segment for segments)")  # fmt: skip


def item_weights(data: MetaData, opts: MetaOptions, n: int, unit: str):
    """Bootstrap weights over the items, chunk by chunk: resampled items, or resampled whole documents (each item
    weighted by its document's count)."""
    if unit == "document":
        docs = data.document_index()
        if docs is None:
            raise InputError("resampling whole documents needs each item's document")
        idx, D = docs
        for W in Resampling(n, opts.seed).plan("bootstrap", D, n).chunks():
            yield W[:, idx]
        return
    yield from Resampling(n, opts.seed).plan("bootstrap", data.H.shape[1], n).chunks()


def _bootstrap_system(data: MetaData, a, b, stat: str, opts: MetaOptions, R: int) -> tuple[float, np.ndarray]:
    """System level, paired bootstrap over the segments: every resample recomputes the human system scores and
    both metrics' system scores, and the difference of the statistic; its centred distribution is the null (the
    shift method). No longer offered as a test (a metric's per-system errors never vary when segments are resampled:
    it rejected 0.20-0.33 at 0.05 under such a null); kept for benchmarks/meta_calibration.py, which measures it."""
    diffs = []
    for W in item_weights(data, opts, R, resample_unit(data, opts)[0]):
        hs = _human_system_boot(data.H, W)
        diffs.append(_system_vector(hs, a.system_boot(W), stat) - _system_vector(hs, b.system_boot(W), stat))
    d = np.concatenate(diffs)
    h = data.human_systems[None]
    obs = float(_system_vector(h, a.systems[None], stat)[0] - _system_vector(h, b.systems[None], stat)[0])
    d = d[np.isfinite(d)]
    return obs, d - d.mean()


def _count(obs: float, null: np.ndarray) -> int:
    tol = 1e-12 * max(1.0, abs(obs))
    return int(np.count_nonzero(null >= obs - tol))


def pair_test(data: MetaData, a, b, opts: MetaOptions, eps: dict, W, advance=None) -> tuple[float, float]:  # noqa: PLR0913
    """The observed difference of the statistic (a minus b) and the one-sided p that a agrees with humans better
    than b: ``(c + 1) / (R + 1)`` with c the resamples whose difference reaches the observed one (ties counted).
    ``W``: the swap masks (:class:`SwapMasks`, or an array of them); R is ``opts.n_resamples`` (1,000 if None)."""
    stat = opts.compared_on
    R = opts.n_resamples or 1000
    if opts.test == "pairwise" and opts.level == "segment" and stat == "acc23":
        obs, null = _pairwise_perm(data, a, b, replace(opts, n_resamples=R), eps, Resampling(R, opts.seed))
        if advance:
            advance(R)
        return obs, (_count(obs, null) + 1) / (null.size + 1)
    if opts.level == "segment" and stat == "acc23" and isinstance(W, SwapMasks):
        packed = _perm_both_acc23_words(data, a, b, opts, W, advance)
        if packed is not None:
            obs, null = packed
            return obs, (_count(obs, null) + 1) / (null.size + 1)
    masks = W.chunks(W.n if W._held is not None else max(100, MASK_BYTES // W.width)) if isinstance(W, SwapMasks) \
        else [W]  # fmt: skip
    c = n = 0
    obs = float("nan")
    for M in masks:
        if opts.level == "system":
            obs, null = _perm_both_system(data, a, b, stat, M)
            if advance:
                advance(len(M))
        else:
            obs, null = _perm_both_segment(data, a, b, opts, M, advance)
        c += _count(obs, null)
        n += null.size
    return obs, (c + 1) / (n + 1)


def auto_resamples(opts: MetaOptions, k: int) -> int:
    """PERM-BOTH's permutations: at least 1,000, and enough that the smallest p-value (twice 1/(R+1), two-sided)
    is a tenth of the corrected threshold, at most :data:`MAX_AUTO_RESAMPLES`."""
    from mtsig.stats.multiple import CORRECTIONS

    thr = CORRECTIONS.get(opts.correction).threshold(opts.alpha, max(k, 1))
    need = int(np.ceil(np.ceil(10 * 2 / thr - 1) / 100) * 100)
    return min(max(1000, need), MAX_AUTO_RESAMPLES)


#: the automatic count of permutations stops here (a two-sided p-value can then reach 2e-4; every permutation
#: recomputes both hybrids' statistics, for every pair of metrics)
MAX_AUTO_RESAMPLES = 10_000


def _resamples(opts: MetaOptions, k: int) -> tuple[int, list[str]]:
    from mtsig.stats.multiple import CORRECTIONS

    thr = CORRECTIONS.get(opts.correction).threshold(opts.alpha, max(k, 1))
    R = opts.n_resamples if opts.n_resamples is not None else auto_resamples(opts, k)
    notes = []
    if opts.n_resamples is None and R > 1000:
        notes.append(f"{R:,} permutations per pair of metrics, chosen so that a p-value can reach a tenth of the "
                     f"corrected threshold {thr:.2g} ({opts.correction}, {k} pairs)")  # fmt: skip
    smallest = 2 / (R + 1)
    if k and smallest > thr:
        need = auto_resamples(opts, k)
        notes.append(f"with {R:,} permutations the smallest two-sided p-value is {smallest:.2g}, above the corrected "
                     f"threshold {thr:.2g} ({opts.correction}, {k} pairs): no pair of metrics can be significantly "
                     "different after correction"
                     + (f"; give --n-resamples {need} or more" if need > R else
                        "; compare fewer metrics, or use --correction bh (false discovery rate)"))  # fmt: skip
    return R, notes


def spa_tests(data: MetaData, pairs: list[tuple], opts: MetaOptions, R: int, advance=None) -> list[tuple[float, float]]:
    """PERM-BOTH of soft pairwise accuracy for the pairs (a, b) of metrics, all at once, through the engine of the
    task sets (:class:`~mtsig.metaeval.pce.Engine`: one product per metric, the compiled kernel), on the segments
    every system has a human score for. As for every system-level statistic here, a system's two z-scored rows of
    scores are swapped whole, with probability 1/2 (``R`` masks from the seed, the same for every pair): an error a
    metric makes on a whole system then stays with its system. (WMT's task sets swap single (system, segment)
    entries, as mt-metrics-eval does; with metrics that misjudge whole systems that test rejects about twice as
    often as it should: docs/meta.md.) Returns (observed pce(a) - pce(b), the one-sided ``(c + 1) / (R + 1)``)."""
    from mtsig.metaeval.pce import PCE_PERMUTATIONS, Engine

    full = np.all(np.isfinite(data.H), axis=0)
    S, N = data.H.shape[0], int(full.sum())
    metrics = list({m.name: m for pair in pairs for m in pair}.values())
    at = {m.name: i for i, m in enumerate(metrics)}
    Z = np.stack([_zscore(m.seg[:, full].reshape(-1)).reshape(S, N) for m in metrics])
    engine = Engine(Z, permutation_pvalues(data.H[:, full], PCE_PERMUTATIONS))
    q = np.array([(at[a.name], at[b.name]) for a, b in pairs], dtype=np.int64).reshape(-1, 2)
    masks = SwapMasks(S, R, opts.seed, np.repeat(np.arange(S), N))
    null: list[np.ndarray] = []
    r0 = 0
    for M in masks.chunks(max(1, min(R, MASK_BYTES // max(1, S * N)))):

        def rows(lo: int, hi: int, M: np.ndarray = M, r0: int = r0) -> np.ndarray:
            return M[lo - r0 : hi - r0]

        null.append(engine.draws(q, rows, r0, r0 + len(M)))
        r0 += len(M)
        if advance:
            advance(len(M) * len(pairs))
    draws = np.concatenate(null, axis=1)
    return [(float(d), (_count(float(d), row) + 1) / (R + 1)) for d, row in zip(engine.deltas(q), draws)]


def _compare(data: MetaData, opts: MetaOptions, eps: dict, values: dict, progress=None):
    stat = opts.compared_on
    pairs = list(itertools.combinations(data.metrics, 2))
    defined = [values[x.name].get(stat) is not None and values[y.name].get(stat) is not None for x, y in pairs]
    k = sum(defined)
    R, notes = _resamples(opts, k)
    W = swap_masks(data, opts, R) if stat != "spa" else None
    advance = progress(f"tests between metrics ({k} pairs x {R:,} resamples)", k * R) if progress and k else None
    ordered = []
    for x, y in pairs:
        va, vb = values[x.name].get(stat), values[y.name].get(stat)
        ordered.append((x, y) if (va or 0) >= (vb or 0) else (y, x))
    to_test = [ab for ab, ok in zip(ordered, defined) if ok]
    spa_rows = iter(spa_tests(data, to_test, opts, R, advance) if stat == "spa" and to_test else [])
    rows: list[tuple[str, str, float | None, float | None]] = []
    for (a, b), ok in zip(ordered, defined):
        if not ok:
            rows.append((a.name, b.name, None, None))
        elif stat == "spa":
            rows.append((a.name, b.name, *next(spa_rows)))
        else:
            rows.append((a.name, b.name, *pair_test(data, a, b, replace(opts, n_resamples=R), eps, W, advance)))
    # a is the metric that agrees better on these data: the one-sided p tests that direction, chosen after looking;
    # the decision ("they differ") uses the two-sided p (twice it), corrected over all pairs
    two = [min(1.0, 2 * r[3]) if r[3] is not None else None for r in rows]
    tested = [t for t in two if t is not None]
    padj_t = iter(adjust(tested, opts.correction) if tested else [])
    padj = [float(next(padj_t)) if t is not None else None for t in two]
    out = []
    for (na, nb, d, p), t, q in zip(rows, two, padj):
        note = (
            None
            if p is not None
            else f"not tested: {stat} is undefined for {na if values[na].get(stat) is None else nb}"
        )
        delta = None if d is None else -d  # B − A (the pair's test is of a against b)
        out.append(MetricComparison(a=na, b=nb, statistic=stat, delta=delta, p_value=p, p_two_sided=t, p_adjusted=q,
                                    significant=bool(q is not None and q <= opts.alpha), note=note))  # fmt: skip
    return out, R, notes


def greedy_clusters(order: list[str], p_better: dict[tuple[str, str], float], alpha: float) -> list[list[str]]:
    """WMT's metric clusters: down the ranked list, a metric starts a new cluster when the first metric of the
    current cluster is significantly better than it; otherwise it joins."""
    out: list[list[str]] = []
    for m in order:
        if out and p_better.get((out[-1][0], m), 1.0) > alpha:
            out[-1].append(m)
        else:
            out.append([m])
    return out


def run_meta(data: MetaData, opts: MetaOptions | None = None, progress=None) -> MetaResult:
    opts = opts or MetaOptions()
    if len(data.metrics) < 1:
        raise InputError("give at least one metric")
    values, eps, notes = _values(data, opts)
    if opts.test == "pairwise":
        notes.append("the pairwise permutation test swaps pairs' outcomes as if they were independent; under a null "
                     "of two equally good metrics it rejected 16% at 0.05 (benchmarks/meta_calibration.md): its "
                     "p-values are too small. PERM-BOTH holds its level")  # fmt: skip
    if opts.test == "perm-both" and opts.level == "segment" and opts.compared_on == "acc23" and len(data.metrics) > 1:
        notes.append("acc23 under PERM-BOTH re-optimizes each hybrid's tie threshold, which makes the test liberal: "
                     "0.082 [0.059, 0.110] at 0.05 under a null of two equally good metrics (docs/meta.md); Pearson "
                     "and tau-b (--statistic) hold their level")  # fmt: skip
    unit, why = resample_unit(data, opts)
    if why:
        notes.append(why)
    cis, more = _intervals(data, opts, eps)
    more += _outside_notes(values, cis)
    comps, R, count_notes = _compare(data, opts, eps, values, progress) if len(data.metrics) > 1 else ([], None, [])
    stat = opts.compared_on

    def _rank_key(n: str) -> float:
        v = values[n].get(stat)
        return -(v if v is not None else -np.inf)

    order = sorted(values, key=_rank_key)
    raw = {(c.a, c.b): 1.0 if c.p_value is None else c.p_value for c in comps}
    cor = {(c.a, c.b): 1.0 if c.p_adjusted is None else c.p_adjusted for c in comps}
    cl, cl2 = greedy_clusters(order, raw, opts.alpha), greedy_clusters(order, cor, opts.alpha)
    at = {n: i + 1 for i, c in enumerate(cl) for n in c}
    at2 = {n: i + 1 for i, c in enumerate(cl2) for n in c}
    metrics = tuple(MetricAgreement(name=n, values=values[n], ci=cis[n], epsilon=eps[n], cluster=at[n],
                                    cluster_corrected=at2[n]) for n in order)  # fmt: skip
    test = {"pairwise": "pairwise permutation"}.get(opts.test, "PERM-BOTH")
    settings = {"level": opts.level, "statistic": stat, "average_by": opts.average_by if opts.level == "segment"
                else None, "test": test, "n_resamples": R, "n_bootstrap": opts.n_bootstrap,
                "confidence": opts.confidence, "alpha": opts.alpha, "correction": opts.correction, "seed": opts.seed,
                "systems": list(data.systems), "resample_unit": unit if data.human is not None else "system",
                "n_items": None if data.human is None else int(data.H.shape[1])}  # fmt: skip
    settings.update(changed(opts, tuple(settings)))  # every other setting given, under its own name
    negated = [m.name for m in data.metrics if "(negated" in m.source]
    if negated:  # lower-is-better metrics, negated so that higher is better (figures and readers say so)
        settings["negated"] = negated
    return MetaResult(level=opts.level, statistic=stat, metrics=metrics, comparisons=tuple(comps),
                      clusters=tuple(map(tuple, cl)), clusters_corrected=tuple(map(tuple, cl2)), settings=settings,
                      notes=(*data.notes, *notes, *count_notes, *more))  # fmt: skip
