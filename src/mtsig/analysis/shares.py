"""Analyses whose buckets depend on each output (``length-diff``, ``sentence-score``): a segment falls in a
different bucket for each system, so the number compared is the share of a system's segments in the bucket
(compare-mt counts them); the paired tests treat the bucket indicator as a sentence-level metric over all
segments. Each system's corpus score of its own bucket segments is shown beside it."""

from __future__ import annotations

import numpy as np

from mtsig.analysis.buckets import DEFAULT_CUTOFFS, Cutoffs
from mtsig.analysis.context import (
    MIN_BUCKET,
    AnalysisContext,
    Later,
    as_count,
    batched_buckets,
    bucket_pairs,
    finite_or_none,
)
from mtsig.analysis.derived import BucketShare
from mtsig.analysis.result import Analysis, BucketScore
from mtsig.table import StatsTable


def share_analysis(
    ctx: AnalysisContext,
    kind: str,
    metric_label: str,
    groups: dict[str, np.ndarray],
    cut: Cutoffs,
    note: str,
) -> Later:
    """Buckets each system's segments fall in by its own output (``groups[name]``: runs x segments): the share of
    its segments in each bucket, compared between systems with the paired tests over all segments."""
    nb = cut.n
    counts = {n: np.array([(g == b).sum(axis=1).mean() for b in range(nb)]) for n, g in groups.items()}
    most = [max(float(counts[n][b]) for n in ctx.names) for b in range(nb)]
    tested = [b for b in range(nb) if most[b] >= MIN_BUCKET]
    k = len(tested) * len(ctx.pairs)
    cut.labels()
    key = None
    if tested:
        metrics = {f"b{b}": BucketShare() for b in tested}
        # each system's [in bucket b, 1] columns, every tested bucket's in one array (runs x segments x buckets + 1)
        # with the column of ones last: bucket i's statistics are the view of columns i and T (no copy per bucket)
        # as int8 (0/1: NumPy sums them in int64, exactly; every metric casts its totals to float64)
        T = len(tested)
        both = {}
        for n, g in groups.items():
            both[n] = np.empty((*g.shape, T + 1), dtype=np.int8)
            for i, b in enumerate(tested):
                both[n][..., i] = g == b
            both[n][..., T] = 1
        stats = {f"b{b}": {n: both[n][..., i :: T - i] for n in groups} for i, b in enumerate(tested)}
        key = ctx.batch.add(metrics, stats, k)
    return Later(lambda: [_share_result(ctx, kind, metric_label, groups, cut, note, counts, tested, k, key)])


def _share_result(ctx, kind, metric_label, groups, cut, note, counts, tested, k, key) -> Analysis:  # noqa: PLR0913
    table = ctx.table
    nb = cut.n
    labels = cut.labels()
    res = ctx.batch.result if key is not None else None
    raw, systems_of = [], []
    for b in range(nb):
        scores = {}
        for n in ctx.names:
            g = groups[n]
            share = 100.0 * float((g == b).mean())
            ci = None
            if res is not None and b in tested:
                ci = next(s for s in res.systems if s.name == n).scores[f"{key}b{b}"].ci
            extra = {"scores": _own_bucket_scores(table, n, g == b)}
            scores[n] = BucketScore(share, ci, as_count(counts[n][b]), extra)
        systems_of.append(scores)
        raw.append(bucket_pairs(ctx, res, f"{key}b{b}", b in tested, scores))
    buckets = batched_buckets(ctx, systems_of, raw, labels, [cut.bounds(b) for b in range(nb)], tested, k)
    n_res = ctx.batch.n_resamples if key is not None else None
    return Analysis(kind, metric_label, buckets=tuple(buckets), note=note, decimals=1, direction="higher",
                    n_resamples=n_res, members={n: g[0] for n, g in groups.items()})  # fmt: skip


def _own_bucket_scores(table: StatsTable, name: str, mask: np.ndarray) -> dict[str, float | None]:
    """Each metric's corpus score of the segments of one system that fall in the bucket (runs pooled)."""
    out: dict[str, float | None] = {}
    for mname, metric in table.metrics.items():
        A = table.stats[mname][name]  # runs x segments x d
        if not mask.any():
            out[mname] = None
            continue
        tot = (A * mask[..., None]).sum(axis=(0, 1))
        out[mname] = finite_or_none(metric.score(tot))
    return out


def length_diff(ctx: AnalysisContext, arg) -> Later:
    cut = ctx.cutoffs("length-diff")
    ref = ctx.ref_coded("length-diff").lens
    groups = {n: np.stack([cut.assign(run.lens - ref) for run in ctx.sys_coded("length-diff", n)]) for n in ctx.names}
    note = "output length minus reference length, in words; each system's share (%) of segments per bucket " \
           "(its count beside it), compared segment by segment between systems"  # fmt: skip
    return share_analysis(ctx, "length-diff", "share of segments (%)", groups, cut, note)


def sentence_score(ctx: AnalysisContext, arg) -> Later:
    out = []
    table = ctx.table
    for mname, metric in table.metrics.items():
        scores = {n: np.stack([metric.sentence_scores(run) for run in table.stats[mname][n]]) for n in ctx.names}
        if metric.scale == 100:  # compare-mt's cutoffs are on its 0-100 scale
            default = DEFAULT_CUTOFFS["sentence-score"]
        else:  # the deciles of every system's segment scores
            pooled = np.concatenate([s.ravel() for s in scores.values()])
            pooled = pooled[np.isfinite(pooled)]
            q = np.unique(np.round(np.quantile(pooled, np.linspace(0.1, 0.9, 9)), 4)) if pooled.size else [0.0]
            default = tuple(float(x) for x in q)
        cut = ctx.cutoffs("sentence-score", integer=False, default=default)
        groups = {n: cut.assign(np.nan_to_num(s, nan=-np.inf)) for n, s in scores.items()}
        note = f"each system's segment-level {mname} ({metric.sentence_score_label}); each system's share (%) of " \
               "segments per bucket, compared segment by segment between systems"  # fmt: skip
        out.append(share_analysis(ctx, "sentence-score", f"{mname}: share of segments (%)", groups, cut, note))
    return Later(lambda: [a for later in out for a in later.build()])
