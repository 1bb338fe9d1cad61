"""Agreement statistics between human and metric scores, vectorized over resamples.

Every function here takes human scores ``x`` ``(G, L)`` (G groups of L entries; NaN where there is no human
score), a validity mask, and metric scores ``y`` of shape ``(R, G, L)`` (R resamples, e.g. PERM-BOTH's hybrids),
and returns ``(R, G)``: one statistic per resample and group (NaN where undefined: fewer than 2 entries, or a
constant vector). Groups are what mt-metrics-eval's ``average_by`` makes of a systems x items matrix: ``none``
one group of every entry, ``sys`` one group per system (its items), ``item`` one group per item (its systems).

Definitions (Deutsch et al. 2023 for the Kendall variants; mt-metrics-eval's conventions): with C concordant
pairs, D discordant, T_h tied in the human scores only, T_m tied in the metric only (a metric difference of at most
``epsilon`` is a tie), T_hm tied in both, N all pairs:

- tau-b = (C - D) / sqrt((N - T_h - T_hm)(N - T_m - T_hm)) (NaN when either side is all ties);
- tau-c = 2 (C - D) / (n² (m - 1) / m), m the fewer distinct values of the two vectors (epsilon must be 0);
- tau-23 = (C + T_hm - D - T_h - T_m) / N; acc23 = (C + T_hm) / N.

Pearson's r is a function of six sums; Spearman's is Pearson's on average ranks; a constant vector gives NaN (not
SciPy's 0 or 1, as mt-metrics-eval keeps it).
"""

from __future__ import annotations

import numpy as np

KENDALL_VARIANTS = ("b", "c", "23", "acc23")
#: tie calibration holds every pair's difference and gain (16 bytes) and its sort: at most this many pairs
MAX_CALIBRATION_PAIRS = 20_000_000


def _masked(y: np.ndarray, valid: np.ndarray) -> np.ndarray:
    return np.where(valid, y, 0.0)


def pearson(x: np.ndarray, y: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Pearson's r per resample and group (centred sums: exact to rounding, no cancellation)."""
    v = valid.astype(np.float64)
    n = v.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        xm = np.where(n > 0, (np.where(valid, x, 0.0)).sum(-1) / n, 0.0)
        xc = np.where(valid, x - xm[:, None], 0.0)
        ym = _masked(y, valid).sum(-1) / n
        yc = np.where(valid, y - ym[..., None], 0.0)
        sxy = (xc * yc).sum(-1)
        sxx = (xc * xc).sum(-1)
        syy = (yc * yc).sum(-1)
        r = sxy / np.sqrt(sxx * syy)
    # a constant vector is found from its values (max == min), not from its centred sum of squares, which rounding
    # leaves at ~1e-28 instead of 0 (scipy's pearsonr, and so mt-metrics-eval, tests the values the same way)
    bad = (n < 2) | _constant(x, valid) | _constant(y, valid) | (sxx == 0) | (syy == 0)
    return np.where(bad, np.nan, np.clip(r, -1.0, 1.0))


def _constant(x: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Whether the valid entries of each row (last axis) are all equal (True for rows with none)."""
    hi = np.where(valid, x, -np.inf).max(axis=-1)
    lo = np.where(valid, x, np.inf).min(axis=-1)
    return ~(hi > lo)


def average_ranks(y: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """1-based average ranks along the last axis among the valid entries (ties share their mean rank)."""
    big = np.where(valid, y, np.inf)
    order = np.argsort(big, axis=-1, kind="stable")
    s = np.take_along_axis(big, order, axis=-1)
    L = s.shape[-1]
    pos = np.broadcast_to(np.arange(L), s.shape)
    new = np.ones(s.shape, dtype=bool)
    new[..., 1:] = s[..., 1:] != s[..., :-1]
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=-1)
    end_new = np.ones(s.shape, dtype=bool)
    end_new[..., :-1] = new[..., 1:]
    end = np.flip(np.minimum.accumulate(np.flip(np.where(end_new, pos, L), -1), axis=-1), -1)
    avg = (start + end) / 2 + 1
    out = np.empty(s.shape)
    np.put_along_axis(out, order, avg, axis=-1)
    return out


def spearman(x: np.ndarray, y: np.ndarray, valid: np.ndarray) -> np.ndarray:
    rx = average_ranks(x[None], valid[None])[0]
    ry = average_ranks(y, np.broadcast_to(valid, y.shape))
    return pearson(rx, ry, valid)


class PairIndex:
    """The pairs (i < j) of entries within each group, for Kendall-type statistics on short groups."""

    def __init__(self, L: int):
        self.i, self.j = np.triu_indices(L, 1)


def pair_counts(x: np.ndarray, y: np.ndarray, valid: np.ndarray, epsilon: float | np.ndarray = 0.0) -> dict:
    """C, D, T_h, T_m, T_hm and N per resample and group (pairs of valid entries), by pair matrices (groups of a
    few hundred entries at most)."""
    pi = PairIndex(x.shape[-1])
    dx = x[:, pi.i] - x[:, pi.j]
    ok = valid[:, pi.i] & valid[:, pi.j]
    dy = y[..., pi.i] - y[..., pi.j]
    eps = np.asarray(epsilon, dtype=np.float64)
    tie_m = np.abs(dy) <= (eps[..., None, None] if eps.ndim else eps)
    tie_h = dx == 0
    con = ~tie_m & ~tie_h & ((dx > 0) == (dy > 0))
    dis = ~tie_m & ~tie_h & ~con
    c = {"con": con, "dis": dis, "ties_h": tie_h & ~tie_m, "ties_m": tie_m & ~tie_h, "ties_hm": tie_h & tie_m}
    out = {k: (v & ok).sum(-1) for k, v in c.items()}
    out["n"] = np.broadcast_to(ok.sum(-1), out["con"].shape)
    return out


def kendall_from_counts(c: dict, variant: str, distinct: tuple[np.ndarray, np.ndarray] | None = None,
                        n_entries: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    con, dis, th, tm, thm, n = (c[k].astype(np.float64) for k in ("con", "dis", "ties_h", "ties_m", "ties_hm", "n"))
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            xt, yt = th + thm, tm + thm
            r = (con - dis) / np.sqrt(n - xt) / np.sqrt(n - yt)
            return np.where((xt == n) | (yt == n) | (n == 0), np.nan, r)
        if variant == "c":
            if distinct is None or n_entries is None:
                raise ValueError("tau-c needs the distinct values of each side and the entries per group")
            m = np.minimum(*distinct)
            r = 2 * (con - dis) / (n_entries**2 * (m - 1) / m)
            return np.where((th + thm == n) | (tm + thm == n) | (n == 0), np.nan, r)
        if variant == "23":
            return np.where(n > 0, (con + thm - dis - th - tm) / n, np.nan)
        if variant == "acc23":
            return np.where(n > 0, (con + thm) / n, np.nan)
    raise ValueError(f"unknown Kendall variant {variant!r}")


def _distinct(v: np.ndarray, valid: np.ndarray) -> np.ndarray:
    s = np.sort(np.where(valid, v, np.inf), axis=-1)
    new = np.ones(s.shape, dtype=bool)
    new[..., 1:] = s[..., 1:] != s[..., :-1]
    return (new & np.isfinite(s)).sum(-1)


def kendall(x: np.ndarray, y: np.ndarray, valid: np.ndarray, variant: str = "b", epsilon: float = 0.0) -> np.ndarray:
    if variant == "c" and epsilon:
        raise ValueError("tau-c is not defined with a tie threshold epsilon > 0")
    if x.shape[-1] <= 400:
        c = pair_counts(x, y, valid, epsilon)
        distinct = n_entries = None
        if variant == "c":
            distinct = (_distinct(x, valid)[None], _distinct(y, np.broadcast_to(valid, y.shape)))
            n_entries = valid.sum(-1)[None].astype(np.float64)
        return kendall_from_counts(c, variant, distinct, n_entries)
    return _kendall_long(x, y, valid, variant, epsilon)


def _kendall_long(x, y, valid, variant, epsilon) -> np.ndarray:
    """Long groups: the pair counts of each (resample, group) by sorting (C - D from scipy's tau-b and the tie
    counts), one group at a time; a tie threshold on long groups is counted in chunks of pairs."""
    R, G, _ = y.shape
    out = np.full((R, G), np.nan)
    for g in range(G):
        ok = valid[g]
        xs = x[g][ok]
        for r in range(R):
            c = long_counts(xs, y[r, g][ok], epsilon)
            distinct = (np.asarray(np.unique(xs).size), np.asarray(np.unique(y[r, g][ok]).size))
            c = {k: np.asarray(v) for k, v in c.items()}
            out[r, g] = kendall_from_counts(c, variant, distinct, np.asarray(xs.size))
    return out


def long_counts(x: np.ndarray, y: np.ndarray, epsilon: float = 0.0, chunk: int = 2048) -> dict:
    """C, D, T_h, T_m, T_hm, N of two long vectors: exact integer counts, O(n²/chunk) memory."""
    n = x.size
    total = {"con": 0, "dis": 0, "ties_h": 0, "ties_m": 0, "ties_hm": 0}
    for a in range(0, n, chunk):
        xi, yi = x[a : a + chunk, None], y[a : a + chunk, None]
        idx = np.arange(a, min(a + chunk, n))[:, None]
        later = np.arange(n)[None, :] > idx
        dx, dy = xi - x[None, :], yi - y[None, :]
        tie_m, tie_h = np.abs(dy) <= epsilon, dx == 0
        con = ~tie_m & ~tie_h & ((dx > 0) == (dy > 0))
        total["con"] += int((con & later).sum())
        total["dis"] += int((~tie_m & ~tie_h & ~con & later).sum())
        total["ties_h"] += int((tie_h & ~tie_m & later).sum())
        total["ties_m"] += int((tie_m & ~tie_h & later).sum())
        total["ties_hm"] += int((tie_h & tie_m & later).sum())
    total["n"] = n * (n - 1) // 2
    return total


def pairwise_accuracy(x: np.ndarray, y: np.ndarray) -> tuple[int, int]:
    """Kocmi et al. 2021 (mt-metrics-eval's ``Agreement``): over all pairs of systems with a human score, how many
    have the same sign of difference under humans and the metric (both tied counts as agreeing)."""
    ok = np.isfinite(x)
    x, y = x[ok], y[ok]
    i, j = np.triu_indices(x.size, 1)
    agree = int(np.sum(np.sign(x[i] - x[j]) == np.sign(y[i] - y[j])))
    return agree, int(i.size)


def check_calibration_size(valid: np.ndarray) -> None:
    """Refuse a tie calibration whose pairs (of the valid entries of each group) would not fit in memory."""
    n = valid.sum(axis=-1).astype(np.int64)
    pairs = int((n * (n - 1) // 2).sum())
    if pairs > MAX_CALIBRATION_PAIRS:
        from mtsig.errors import InputError

        raise InputError(f"tie calibration of acc23 over {pairs:,} pairs of entries (groups of up to {int(n.max()):,} "
                         f"entries) holds every pair's difference in memory; at most {MAX_CALIBRATION_PAIRS:,}: "
                         "average by item (average_by, as WMT's metrics task does) or use a statistic without "
                         "calibration (pearson, kendall)", param=("statistic", "average_by"))  # fmt: skip


def tie_calibration(x: np.ndarray, y: np.ndarray, valid: np.ndarray, variant: str = "acc23",
                    curve: bool = False):  # fmt: skip
    """The tie threshold epsilon that maximizes the group-averaged tau-23 or acc23 (Deutsch et al. 2023), over
    every pair of every group (exact: every distinct metric difference is a candidate; the smallest epsilon of
    the maximum is chosen). Returns (best statistic, epsilon), and with ``curve`` also every candidate threshold
    and its value. Entries without a human or a metric score are left out."""
    valid = valid & np.isfinite(y)
    if variant not in ("23", "acc23"):
        raise ValueError("tie calibration applies to the 23 variants")
    check_calibration_size(valid)
    parts = _tie_parts_short(x, y, valid, variant) if x.shape[1] <= 64 else _tie_parts_long(x, y, valid, variant)
    if parts is None:
        return (float("nan"), 0.0, np.zeros(0), np.zeros(0)) if curve else (float("nan"), 0.0)
    d, gain, base, groups = parts
    order = np.argsort(d, kind="stable")
    d, cum = d[order], base + np.cumsum(gain[order])
    last = np.r_[d[1:] != d[:-1], True]  # the value after every pair with this difference became a tie
    thresholds = np.r_[0.0, d[last]]
    values = np.r_[base, cum[last]] / groups
    if d.size and d[0] == 0:  # pairs the metric already ties: threshold 0 includes them
        thresholds, values = thresholds[1:], values[1:]
    k = int(np.nanargmax(values))
    if curve:
        return float(values[k]), float(thresholds[k]), thresholds, values
    return float(values[k]), float(thresholds[k])


def _tie_parts_short(x, y, valid, variant):
    """Short groups (item averaging): every group's pairs at once. Returns (|metric difference| per pair, the
    change of the sum of group statistics when the pair becomes a metric tie, that sum at epsilon 0, the number
    of groups with a pair), or None."""
    i, j = np.triu_indices(x.shape[1], 1)
    ok = valid[:, i] & valid[:, j]
    tot = ok.sum(1).astype(np.float64)
    live = tot > 0
    groups = int(live.sum())
    if not groups:
        return None
    dx, dy = x[:, i] - x[:, j], y[:, i] - y[:, j]
    tie_h, tie_m = dx == 0, dy == 0
    good = (~tie_h & ~tie_m & ((dx > 0) == (dy > 0))) | (tie_h & tie_m)
    w = 1.0 if variant == "acc23" else 2.0  # tau-23 = 2 acc23 - 1 per group
    safe = np.where(live, tot, 1.0)
    per = (good & ok).sum(1) / safe
    gain = (tie_h.astype(np.float64) - good) * w / safe[:, None]
    base = float((per[live] * w - (0.0 if variant == "acc23" else 1.0)).sum())
    return np.abs(dy)[ok], gain[ok], base, groups


def _tie_parts_long(x, y, valid, variant):
    """As :func:`_tie_parts_short`, group by group (long groups: ``sys`` or ``none`` averaging)."""
    diffs, gain = [], []
    base = 0.0
    groups = 0
    for g in range(x.shape[0]):
        ok = valid[g]
        xs, ys = x[g][ok], y[g][ok]
        if xs.size < 2:
            continue
        i, j = np.triu_indices(xs.size, 1)
        dx, dy = xs[i] - xs[j], ys[i] - ys[j]
        tot = float(i.size)
        tie_h, tie_m = dx == 0, dy == 0
        good = (~tie_h & ~tie_m & ((dx > 0) == (dy > 0))) | (tie_h & tie_m)  # pairs acc23 counts as agreeing
        w = 1.0 if variant == "acc23" else 2.0  # tau-23 = 2 acc23 - 1 per group
        base += (good.sum() / tot) * w - (0.0 if variant == "acc23" else 1.0)
        diffs.append(np.abs(dy))
        gain.append((tie_h.astype(np.float64) - good) * w / tot)  # a pair made a metric tie agrees iff humans tie
        groups += 1
    if not groups:
        return None
    return np.concatenate(diffs), np.concatenate(gain), base, groups
