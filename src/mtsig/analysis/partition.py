"""Analyses whose buckets partition the segments, the same for every system (``ref-length``, ``labels``,
``documents``): each bucket is the table of its segments, its scores the metrics of the bucket's summed
statistics (BLEU of a bucket is the BLEU of those segments); its intervals and tests resample its segments."""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig.analysis.context import (
    MIN_BUCKET,
    AnalysisContext,
    adjust_analysis,
    compare_bucket,
    finite_or_none,
    resamples_for,
    subset,
    tested_pairs,
    too_small,
    untested_pairs,
)
from mtsig.analysis.result import Analysis, Bucket, BucketScore
from mtsig.engine import ScoreOptions, score_table
from mtsig.errors import InputError


def partition_analysis(
    ctx: AnalysisContext, kind: str, groups: np.ndarray, labels: list[str], bounds: list[tuple], note: str
) -> list[Analysis]:
    """Buckets that partition the segments (the same for every system): per metric, each system's score of the
    bucket's segments with its interval, and per pair the difference, its interval and the corrected p-value."""
    table = ctx.table
    sizes = [int(np.sum(groups == b)) for b in range(len(labels))]
    units = _unit_counts(ctx, groups, len(labels))
    tested = [b for b, n in enumerate(units) if n >= MIN_BUCKET]
    k = len(tested) * len(ctx.pairs)
    n_res = resamples_for(ctx, k)
    results: dict[int, Any] = {}
    for b in range(len(labels)):
        if sizes[b] == 0:
            continue
        sub = subset(table, np.flatnonzero(groups == b))
        if b in tested:
            results[b] = ("compare", compare_bucket(ctx, sub, n_res))
        else:
            results[b] = ("score", score_table(sub, ScoreOptions(), ctx.resampling.with_count(None)))
    out = []
    for mname, metric in table.metrics.items():
        raw: list[list[dict]] = []
        systems_of: list[dict] = []
        for b in range(len(labels)):
            if b not in results:
                systems_of.append({n: BucketScore(None, None) for n in ctx.names})
                raw.append([])
                continue
            how, res = results[b]
            systems_of.append({s.name: BucketScore(finite_or_none(s.scores[mname].score), s.scores[mname].ci)
                               for s in res.systems})  # fmt: skip
            if how == "compare":
                raw.append(tested_pairs(ctx, res, mname))
            else:
                raw.append(untested_pairs(ctx, {n: v.score for n, v in systems_of[-1].items()}))
        comps = adjust_analysis(ctx, raw)
        buckets = tuple(
            Bucket(
                labels[b],
                bounds[b][0],
                bounds[b][1],
                sizes[b],
                None,
                systems_of[b],
                comps[b],
                too_small=b not in tested or too_small(units[b], k, ctx),
            )  # fmt: skip
            for b in range(len(labels))
        )
        out.append(Analysis(kind, mname, buckets=tuple(buckets), note=note, decimals=metric.decimals,
                            direction=metric.direction, n_resamples=n_res if tested else None,
                            members=groups))  # fmt: skip
    return out


def _unit_counts(ctx: AnalysisContext, groups: np.ndarray, nb: int) -> list[int]:
    """Resampling units in each bucket: segments, or the documents (domains) with segments in it."""
    unit = ctx.opts.resample_unit
    if unit == "segment":
        return [int(np.sum(groups == b)) for b in range(nb)]
    labels = np.asarray(ctx.table.units[unit], dtype=object)
    return [len(set(labels[groups == b])) for b in range(nb)]


def ref_length(ctx: AnalysisContext, arg) -> list[Analysis]:
    cut = ctx.cutoffs("ref-length")
    lengths = ctx.ref_coded("ref-length").lens
    groups = cut.assign(lengths)
    labels = cut.labels()
    note = "reference length in words (the first reference, tokenized as the metrics are); each bucket's scores " \
           "are the metric computed on its segments alone"  # fmt: skip
    return partition_analysis(ctx, "ref-length", groups, labels, [cut.bounds(i) for i in range(cut.n)], note)


def _label_groups(values: list[str]) -> tuple[np.ndarray, list[str]]:
    order = list(dict.fromkeys(values))
    index = {v: i for i, v in enumerate(order)}
    return np.array([index[v] for v in values], dtype=np.int64), order


def labels(ctx: AnalysisContext, arg) -> list[Analysis]:
    table = ctx.table
    if arg is None:
        if "domain" not in table.units:
            raise InputError("analysis labels needs a file of one label per segment: --by labels=FILE (WMT XML "
                             "input brings its domains: then --by labels alone uses them)")  # fmt: skip
        values, source = table.units["domain"], "the test set's domains"
    else:
        from mtsig.io.text import read_lines

        values = [x.strip() for x in read_lines(arg)]
        source = arg
        if len(values) != table.n_segments:
            raise InputError(f"{arg}: {len(values)} labels, but the test set has {table.n_segments} segments")
        empty = next((i for i, v in enumerate(values) if not v), None)
        if empty is not None:
            raise InputError(f"{arg}: line {empty + 1}: empty label")
    groups, order = _label_groups(values)
    note = f"segments labelled by {source}; each bucket's scores are the metric computed on its segments alone"
    return partition_analysis(ctx, "labels", groups, order, [(None, None)] * len(order), note)


def documents(ctx: AnalysisContext, arg) -> list[Analysis]:
    if "document" not in ctx.table.units:
        raise InputError("analysis documents needs the documents of the segments: SGML or WMT XML input, or --docids")
    groups, order = _label_groups(ctx.table.units["document"])
    note = "one bucket per document (in test-set order); each bucket's scores are the metric on its segments alone"
    return partition_analysis(ctx, "documents", groups, order, [(None, None)] * len(order), note)


def corpus(ctx: AnalysisContext, arg) -> list[Analysis]:
    """Every segment as one bucket: each system's corpus score with its interval and each pair's difference with
    its corrected p-value, what ``compare`` reports (compare-mt's first section, with significance)."""
    groups = np.zeros(ctx.table.n_segments, dtype=np.int64)
    note = "every segment: each system's corpus score with its interval, each pair's difference with its " \
           "p-value adjusted over the pairs"  # fmt: skip
    return partition_analysis(ctx, "corpus", groups, ["all segments"], [(None, None)], note)
