"""``mtsig analyze`` results as text, JSON, CSV, Markdown and LaTeX (registered in the formats' registry).

Each bucket analysis is two tables: the systems' scores per bucket (with their intervals) and the differences
per bucket and pair (``Δ`` with the adjusted p-value; ``*`` marks a significant one, ``·`` a bucket too small to
reach significance). CSV is one long table (a row per bucket and system, and per bucket and pair, with every
interval), then the items of the n-gram and example analyses.
"""

from __future__ import annotations

from mtsig.analysis.result import Analysis, AnalyzeResult, Bucket
from mtsig.report.render import _fmt_p, _md, _tex, register_formats
from mtsig.report.table import Table, TextOut, csv_text, latex, markdown


def _num(x: float | None, d: int) -> str:
    return "-" if x is None else f"{x:.{d}f}"


def _ci(iv, d: int) -> str:
    return "" if iv is None else f" [{iv.low:.{d}f}, {iv.high:.{d}f}]"


def _short(name: str) -> str:
    return name if len(name) <= 14 else name[:13] + "…"


def _system_cell(a: Analysis, b: Bucket, name: str, with_ci: bool) -> str:
    s = b.systems[name]
    if s.score is None:
        return "-"
    cell = _num(s.score, a.decimals) + (_ci(s.ci, a.decimals) if with_ci else "")
    if b.n_segments is None and s.n_segments is not None:  # a share: the count beside it
        cell += f" ({s.n_segments:g})"
    return cell


def scores_table(a: Analysis, systems: tuple[str, ...], with_ci: bool = True) -> Table:
    size = "words" if a.buckets and a.buckets[0].n_words is not None else "n"
    head = ["bucket", size, *systems] if a.buckets and a.buckets[0].n_segments is not None or size == "words" \
        else ["bucket", *systems]  # fmt: skip
    rows = []
    for b in a.buckets:
        first = [b.label]
        if len(head) == len(systems) + 2:
            first.append(str(b.n_words if size == "words" else b.n_segments))
        rows.append(first + [_system_cell(a, b, n, with_ci) for n in systems])
    title = f"corpus: {a.metric}" if a.kind == "corpus" else f"{a.kind}: {a.metric} by bucket"
    return Table(head, rows, title=title)


def _pair_cell(a: Analysis, c, too_small: bool) -> str:
    if c.delta is None:
        return "-"
    mark = "*" if c.significant else ""
    p = f" ({_fmt_p(c.p_adjusted)})" if c.p_adjusted is not None else " (untested)"
    return f"{c.delta:+.{a.decimals}f}{mark}{p}" + (" ·" if too_small and not c.significant else "")


def differences_table(a: Analysis) -> Table | None:
    """Δ and the adjusted p-value per bucket and pair; the pairs are those of any bucket that has comparisons (an
    empty bucket has none: its row is ``-`` under every pair, so that no row is short)."""
    pairs = next(([(c.a, c.b) for c in b.comparisons] for b in a.buckets if b.comparisons), None)
    if not pairs:
        return None
    head = ["bucket", *(f"{_short(y)} − {_short(x)}" for x, y in pairs)]
    rows = []
    for b in a.buckets:
        by_pair = {(c.a, c.b): c for c in b.comparisons}
        rows.append([b.label, *(_pair_cell(a, by_pair[p], b.too_small) if p in by_pair else "-" for p in pairs)])
    return Table(head, rows, title=f"{a.kind}: Δ (adjusted p)")


def items_table(a: Analysis) -> Table:
    if a.kind == "ngrams":
        head = ["A", "B", "more in", "rank", "n-gram", "ratio", "count A", "count B"]
        rows = [[i["a"], i["b"], i["favours"], str(i["rank"]), i["ngram"], f"{i['ratio']:.4f}", str(i["count_a"]),
                 str(i["count_b"])] for i in a.items]  # fmt: skip
        return Table(head, rows, title=f"ngrams: {a.metric}")
    head = ["A", "B", "better", "rank", "segment", "score A", "score B", "Δ"]
    rows = [[i["a"], i["b"], i["better"], str(i["rank"]), str(i["segment"]), _num(i["score_a"], a.decimals),
             _num(i["score_b"], a.decimals), _num(i["delta"], a.decimals)] for i in a.items]  # fmt: skip
    return Table(head, rows, title=f"examples: segment-level {a.metric}")


def _settings_line(res: AnalyzeResult) -> str:
    s = res.settings
    n = s.n_resamples if s.n_resamples is not None else "automatic"
    words = f", words: {s.tokenize}" if s.tokenize else ""
    return (f"mtsig analyze: test {s.test} ({n} resamples), {s.correction} over every bucket and pair of an "
            f"analysis, alpha {s.alpha}, {s.confidence:.0%} intervals from {s.n_bootstrap} bootstrap "
            f"resamples, seed {s.seed}, {s.n_segments} segments{words}")  # fmt: skip


def _example_lines(a: Analysis) -> list[str]:
    out = []
    for i in a.items:
        sa, sb = _num(i["score_a"], a.decimals), _num(i["score_b"], a.decimals)
        out.append(f"{i['better']} better (#{i['rank']}), segment {i['segment']}: {i['a']} {sa}, {i['b']} {sb}")
        if i.get("source") is not None:
            out.append(f"  source: {i['source']}")
        out += [f"  ref:    {i['reference']}", f"  {i['a']}: {i['output_a']}", f"  {i['b']}: {i['output_b']}"]
    return out


#: what the marks of the differences tables mean (said once, after the settings)
LEGEND = "Δ (adjusted p): * significant after the correction; · a bucket too small to reach significance"


def _text(res: AnalyzeResult, width: int | None) -> str:
    out = TextOut(width)
    out.line(_settings_line(res))
    out.line(LEGEND)
    for a in res.analyses:
        out.line()
        if a.buckets:
            out.table(scores_table(a, res.systems))
            d = differences_table(a)
            if d is not None:
                out.table(d)
        elif a.kind == "ngrams":
            out.table(items_table(a))
        else:
            out.line(f"examples: segment-level {a.metric}")
            for line in _example_lines(a):
                out.line(line)
        out.line(a.note)
    for w in res.warnings:
        out.line(f"warning: {w}")
    return out.getvalue()


def _csv(res: AnalyzeResult) -> str:
    head = ["kind", "metric", "bucket", "lower", "upper", "n_segments", "n_words", "row", "system", "a", "b", "value",
            "ci_low", "ci_high", "p_value", "p_adjusted", "significant", "too_small"]  # fmt: skip
    rows = []
    for a in res.analyses:
        for b in a.buckets:
            base = [a.kind, a.metric, b.label, b.lower, b.upper, b.n_segments, b.n_words]
            for n, s in b.systems.items():
                lo, hi = (s.ci.low, s.ci.high) if s.ci else (None, None)
                rows.append([*base, "system", n, None, None, s.score, lo, hi, None, None, None, b.too_small])
            for c in b.comparisons:
                lo, hi = (c.delta_ci.low, c.delta_ci.high) if c.delta_ci else (None, None)
                rows.append([*base, "difference", None, c.a, c.b, c.delta, lo, hi, c.p_value, c.p_adjusted,
                             c.significant, b.too_small])  # fmt: skip
    text = csv_text(head, [["" if x is None else x for x in r] for r in rows])
    for a in res.analyses:
        if a.items:
            keys = list(a.items[0])
            text += f"# {a.kind}: {a.metric}\n" + csv_text(keys, [[i[k] for k in keys] for i in a.items])
    return text


def _markdown(res: AnalyzeResult) -> str:
    out = [f"**{_md(_settings_line(res))}**", "", _md(LEGEND), ""]
    for a in res.analyses:
        tables = [scores_table(a, res.systems), differences_table(a)] if a.buckets else [items_table(a)]
        for t in tables:
            if t is None:
                continue
            esc = Table([_md(h) for h in t.header], [[_md(x) for x in r] for r in t.rows], title=t.title)
            out += [f"*{_md(t.title or '')}*", "", *markdown(esc), ""]
        out += [_md(a.note), ""]
    return "\n".join(out)


def _latex(res: AnalyzeResult) -> str:
    parts = []
    conf = f"{res.settings.confidence:.0%}"
    for a in res.analyses:
        if a.buckets:
            what = "scores" if a.buckets[0].n_words is None and a.buckets[0].n_segments is not None else "values"
            tables = [(scores_table(a, res.systems), f"each system's {what} with its {conf} bootstrap interval"),
                      (differences_table(a), "each pair's difference B - A with its p-value adjusted over every "
                       "bucket and pair of the analysis (* significant; · a bucket too small to reach "
                       "significance)")]  # fmt: skip
        else:
            tables = [(items_table(a), "")]
        for t, what in tables:
            if t is None:
                continue
            esc = Table([_tex(h) for h in t.header], [[_tex(x) for x in r] for r in t.rows])
            note = a.note[:1].upper() + a.note[1:]
            caption = f"{t.title}: {what}. {note}" if what else f"{t.title}. {note}"
            parts.append(latex(esc, "l" + "r" * (len(t.header) - 1), _tex(caption)))
    return "".join(parts)


render_analyze = register_formats(AnalyzeResult, text=_text, csv=_csv, markdown=_markdown, latex=_latex)
