"""Word analyses (``word-frequency``, ``word-labels``): per bucket, every segment's matched, output and reference
word counts are a metric's sufficient statistics; the F-measure ``2m / (o + r)`` is its corpus score, tested and
bootstrapped over segments like BLEU (compare-mt's word accuracy, with intervals and tests)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from mtsig.analysis.context import (
    MIN_BUCKET,
    AnalysisContext,
    Later,
    as_count,
    batched_buckets,
    bucket_pairs,
    compact_counts,
    derived_table,
)
from mtsig.analysis.derived import WordAccuracy
from mtsig.analysis.result import Analysis, BucketScore
from mtsig.engine import DEFAULT_BOOTSTRAP, ScoreOptions, score_table
from mtsig.errors import InputError
from mtsig.stats.paired import PAIRED_TESTS


def word_analysis(
    ctx: AnalysisContext, kind: str, X: dict[str, np.ndarray], labels: list[str], bounds, note: str
) -> Later:
    """``X[name]``: runs x segments x buckets x [matched, output words, reference words]."""
    from mtsig.stats.kinds import KINDS

    if KINDS[PAIRED_TESTS[ctx.opts.test].kind].name == "sentence":
        raise InputError(
            f"analysis {kind}: the word F-measure is a ratio of counts over the corpus; the sentence-level test "
            f"{ctx.opts.test} does not apply (use ar, bootstrap or paired-bootstrap)",
            param="test",
        )
    table = ctx.table
    nb = len(labels)
    first = X[ctx.names[0]][0]
    n_ref = [int(first[:, b, 2].sum()) for b in range(nb)]
    words = [max(float(X[n][:, :, b, :2].sum(axis=1, dtype=np.float64).mean(axis=0).max()) for n in ctx.names)
             for b in range(nb)]  # fmt: skip
    # a bucket without reference words (the "<1" frequency bucket: words only the outputs have) has F = 0 for every
    # system whatever it outputs: nothing to test, and no place in the correction
    tested = [b for b in range(nb) if n_ref[b] > 0 and max(n_ref[b], words[b]) >= MIN_BUCKET]
    k = len(tested) * len(ctx.pairs)
    key = None
    pr: dict = {}  # the intervals of precision and recall (bootstrap only): computed while the batch finishes
    work = None
    if tested:
        stats = {f"b{b}": {n: X[n][:, :, b, :] for n in ctx.names} for b in tested}
        key = ctx.batch.add({f"b{b}": WordAccuracy("f") for b in tested}, stats, k)
        both = {**{f"p{b}": WordAccuracy("p") for b in tested}, **{f"r{b}": WordAccuracy("r") for b in tested}}
        pr_stats = {f"{c}{b}": stats[f"b{b}"] for c in "pr" for b in tested}
        n_boot = ctx.opts.n_bootstrap or DEFAULT_BOOTSTRAP

        def work() -> None:
            pr["result"] = score_table(
                derived_table(table, both, pr_stats),
                ScoreOptions(
                    ci=True,
                    ci_method="percentile",
                    confidence=ctx.opts.confidence,
                    resample_unit=ctx.opts.resample_unit,
                ),
                replace(ctx.resampling, n_resamples=n_boot),
            )

    args = (ctx, kind, X, labels, bounds, note, n_ref, tested, k, key, pr)
    return Later(lambda: [_word_result(*args)], work)


def _word_result(ctx, kind, X, labels, bounds, note, n_ref, tested, k, key, pr) -> Analysis:  # noqa: PLR0913
    nb = len(labels)
    res = ctx.batch.result if key is not None else None
    raw, systems_of = [], []
    for b in range(nb):
        scores = {}
        for n in ctx.names:
            tot = X[n][:, :, b, :].sum(axis=(0, 1))
            m, o, r = (float(x) for x in tot)
            f = float(WordAccuracy("f").score(tot))
            extra: dict[str, Any] = {
                "precision": float(WordAccuracy("p").score(tot)), "recall": float(WordAccuracy("r").score(tot)),
                "matched": as_count(m), "output_words": as_count(o), "reference_words": as_count(r)}  # fmt: skip
            ci = None
            if res is not None and b in tested:
                ci = next(s for s in res.systems if s.name == n).scores[f"{key}b{b}"].ci
                sp = next(s for s in pr["result"].systems if s.name == n)
                for c, field_name in (("p", "precision"), ("r", "recall")):
                    iv = sp.scores[f"{c}{b}"].ci
                    extra[f"{field_name}_ci"] = iv.to_list() if iv else None
            scores[n] = BucketScore(f, ci, None, extra)
        systems_of.append(scores)
        raw.append(bucket_pairs(ctx, res, f"{key}b{b}", b in tested, scores))
    buckets = batched_buckets(ctx, systems_of, raw, labels, bounds, tested, k, n_ref)
    n_res = ctx.batch.n_resamples if key is not None else None
    return Analysis(
        kind, "word F-measure", buckets=tuple(buckets), note=note, decimals=4, direction="higher", n_resamples=n_res
    )


def word_frequency(ctx: AnalysisContext, arg) -> Later:
    from mtsig.analysis.words import frequency_counts, word_counts_by_frequency

    if ctx.opts.freq_corpus:
        from mtsig.io.load import load_references
        from mtsig.io.text import read_text

        if not read_text(ctx.opts.freq_corpus).strip():
            raise InputError(f"the frequency corpus {ctx.opts.freq_corpus} (freq_corpus) is empty: no words to count",
                             param="freq_corpus")  # fmt: skip
        corpus = load_references([ctx.opts.freq_corpus], allow_empty=True)[0]
        freq, source = frequency_counts(corpus, ctx.tokenizer()), ctx.opts.freq_corpus
    else:
        freq, source = None, "the reference"
    cut = ctx.cutoffs("word-frequency")
    coder = ctx.coder()
    ref = ctx.ref_coded("word-frequency")  # every word gets its id first: the buckets are computed once
    runs = {n: ctx.sys_coded("word-frequency", n) for n in ctx.names}
    if freq is None:  # the reference's own counts, by word id (0 for words only the outputs have)
        counts = np.bincount(ref.ids, minlength=len(coder.vocab)).astype(np.float64)
    else:
        counts = np.fromiter((freq.get(w, 0) for w in coder.vocab), dtype=np.float64, count=len(coder.vocab))
    bucket = cut.assign(counts)
    X = {n: np.stack([compact_counts(word_counts_by_frequency(ref, r, bucket, cut.n)) for r in rs])
         for n, rs in runs.items()}  # fmt: skip
    note = f"words by their frequency in {source}; precision, recall and F-measure of the words each output " \
           "matches in the reference (compare-mt's word accuracy), intervals and tests over segments"  # fmt: skip
    return word_analysis(ctx, "word-frequency", X, cut.labels(), [cut.bounds(i) for i in range(cut.n)], note)


def word_labels(ctx: AnalysisContext, arg) -> Later:
    from mtsig.analysis.words import read_word_labels, word_counts_by_label

    ref = ctx.ref_tokens("word-labels")
    ref_labels = read_word_labels(arg, ref, "the reference")
    missing = [n for n in ctx.names if n not in ctx.opts.out_labels]
    if missing:
        raise InputError(
            f"analysis word-labels needs the labels of every system's output words too: --out-labels NAME=FILE "
            f"for {', '.join(missing)} (an unmatched output word is counted in the bucket of its own label)",
            param="out_labels",
        )
    unknown = sorted(set(ctx.opts.out_labels) - set(ctx.names))
    if unknown:
        raise InputError(f"--out-labels names no system {', '.join(unknown)}; the systems: {', '.join(ctx.names)}")
    outs = {}
    for n in ctx.names:
        runs = ctx.sys_tokens("word-labels", n)
        if len(runs) > 1:
            raise InputError(f"analysis word-labels: {n} has several optimizer runs; give one output per system")
        outs[n] = (runs[0], read_word_labels(ctx.opts.out_labels[n], runs[0], f"output {n}"))
    order = list(dict.fromkeys([x for ls in ref_labels for x in ls] + [x for _, lo in outs.values() for ls in lo
                                                                       for x in ls]))  # fmt: skip
    index = {v: i for i, v in enumerate(order)}
    X = {n: compact_counts(word_counts_by_label(ref, ref_labels, o, lo, index)[None]) for n, (o, lo) in outs.items()}
    note = f"words by their label ({arg}; output words: --out-labels); precision, recall and F-measure of matched " \
           "words, intervals and tests over segments"  # fmt: skip
    return word_analysis(ctx, "word-labels", X, order, [(None, None)] * len(order), note)
