"""Item analyses: the n-grams each system matches more often (``ngrams``) and the segments where each system beats
the other most (``examples``), compare-mt's lists."""

from __future__ import annotations

import numpy as np

from mtsig.analysis.context import AnalysisContext, finite_or_none
from mtsig.analysis.result import Analysis
from mtsig.errors import InputError


def ngrams(ctx: AnalysisContext, arg) -> list[Analysis]:
    from mtsig.analysis.words import ngram_match_table, salient_ngrams

    ref = ctx.ref_coded("ngrams")
    o = ctx.opts
    coder = ctx.coder()
    outs = [ctx.sys_coded("ngrams", n)[0] for n in ctx.names]
    words, grams, counts = ngram_match_table(coder, ref, outs, o.ngram_order)
    word_rank = coder.rank()

    def text(g: int) -> str:
        return " ".join(words[i] for i in grams[g] if i >= 0)

    col = {n: j for j, n in enumerate(ctx.names)}
    items = []
    for a, b in ctx.pairs:
        ma, mb = counts[:, col[a]], counts[:, col[b]]
        a_more, b_more = salient_ngrams(grams, word_rank, ma, mb, o.ngram_alpha, o.top)
        for side, rows in ((a, a_more), (b, b_more)):
            for rank, (ratio, g) in enumerate(rows, 1):
                items.append({"a": a, "b": b, "favours": side, "rank": rank, "ngram": text(g),
                              "order": int((grams[g] >= 0).sum()), "ratio": ratio, "count_a": int(ma[g]),
                              "count_b": int(mb[g])})  # fmt: skip
    runs = " (each system's first optimizer run)" if ctx.table.has_runs else ""
    note = (f"n-grams of orders 1-{o.ngram_order} each system matches in the reference more often than the other"
            f"{runs}, by (count_a + {o.ngram_alpha:g}) / (count_a + count_b + {2 * o.ngram_alpha:g}) (compare-mt's "
            f"smoothed ratio); the top {o.top} each way")  # fmt: skip
    return [Analysis("ngrams", "matched n-grams", items=tuple(items), note=note, decimals=4)]


def examples(ctx: AnalysisContext, arg) -> list[Analysis]:
    table = ctx.table
    refs, systems = ctx.needs_texts("examples")
    source = _source_lines(ctx, refs)
    text = {s.name: s.runs[0] for s in systems}
    out = []
    for mname, metric in table.metrics.items():
        sent = {n: metric.sentence_scores(table.stats[mname][n][0]) for n in ctx.names}
        items = []
        for a, b in ctx.pairs:
            good = metric.goodness(sent[b]) - metric.goodness(sent[a])  # > 0: b better
            good = np.where(np.isfinite(good), good, 0.0)
            for side, order in ((b, np.argsort(-good, kind="stable")), (a, np.argsort(good, kind="stable"))):
                rank = 0
                for i in order[: ctx.opts.top]:
                    if (good[i] <= 0 and side == b) or (good[i] >= 0 and side == a):
                        break
                    rank += 1
                    items.append({
                        "a": a, "b": b, "better": side, "rank": rank, "segment": int(i) + 1,
                        "score_a": finite_or_none(sent[a][i]), "score_b": finite_or_none(sent[b][i]),
                        "delta": finite_or_none(sent[b][i] - sent[a][i]),
                        "source": source[i] if source is not None else None,
                        "reference": refs[0].lines[i], "output_a": text[a].lines[i], "output_b": text[b].lines[i],
                    })  # fmt: skip
        runs = " (first optimizer run)" if table.has_runs else ""
        note = f"the segments where each system beats the other most by segment-level {mname}{runs}; top " \
               f"{ctx.opts.top} each way"  # fmt: skip
        out.append(Analysis("examples", mname, items=tuple(items), note=note, decimals=metric.decimals,
                            direction=metric.direction))  # fmt: skip
    return out


def _source_lines(ctx: AnalysisContext, refs) -> list[str] | None:
    if ctx.opts.source:
        from mtsig.io.text import read_lines

        lines = read_lines(ctx.opts.source)
        if len(lines) != refs.n_segments:
            raise InputError(f"source {ctx.opts.source} has {len(lines)} lines but the references have "
                             f"{refs.n_segments}")  # fmt: skip
        return lines
    return list(refs.source.lines) if refs.source is not None else None
