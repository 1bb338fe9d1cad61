"""The self-contained HTML report of ``mtsig analyze``: per analysis, its figure (inline SVG), a sortable table of
every system's number per bucket, a sortable table of the differences per bucket and pair (Δ, interval, p-value,
adjusted p-value), the characteristic n-grams, and the example segments with the words of each output that the
reference does not have highlighted. No network; the result's JSON is embedded (``id="mtsig-result"``)."""

from __future__ import annotations

from collections import Counter

from mtsig._version import __version__
from mtsig.analysis.result import Analysis, AnalyzeResult
from mtsig.report.analyze_plots import plot_analysis
from mtsig.report.html import _e, _num, _p, _settings, _table, figure_or_note, html_page

_MORE_CSS = "mark{background:#ffe3a3;padding:0 .1em}.ex{margin:.5em 0;padding:.4em .6em;border-left:3px solid #ccc}" \
            ".ex div{margin:.1em 0}.ex b{display:inline-block;min-width:6em}"  # fmt: skip


def _anchor(i: int, a: Analysis) -> str:
    return f"a{i}-{a.kind}"


def _bucket_cell(k: int, label: str) -> str:
    return f'<td data-value="{k}">{_e(label)}</td>'


def _bucket_tables(i: int, a: Analysis, systems: tuple[str, ...]) -> list[str]:
    d = a.decimals
    words = a.buckets[0].n_words is not None
    per_system = a.buckets[0].n_segments is None and not words  # buckets by each output: a count per system
    head = ["bucket"] + ([] if per_system else ["words" if words else "segments"])
    for n in systems:
        head += [n, f"{n} low", f"{n} high"] + ([f"{n} segments"] if per_system else [])
    rows = []
    for k, b in enumerate(a.buckets):
        size = b.n_words if words else b.n_segments
        cells = [_bucket_cell(k, b.label)]  # sorted by the buckets' own order, not alphabetically ("<10" first)
        if not per_system:
            cells.append(_num(size, 0) if size is not None else '<td class="n">–</td>')
        for n in systems:
            s = b.systems[n]
            cells += [_num(s.score, d), _num(s.ci.low if s.ci else None, d), _num(s.ci.high if s.ci else None, d)]
            if b.n_segments is None and not words:
                cells.append(_num(s.n_segments, 0 if float(s.n_segments or 0).is_integer() else 2))
        rows.append(f"<tr>{''.join(cells)}</tr>")
    out = [_table(head, rows, "sortable", f"{_anchor(i, a)}-scores")]
    head = ["bucket", "A", "B", "Δ (B − A)", "Δ low", "Δ high", "p", "p adj.", "significant"]
    rows = []
    for k, b in enumerate(a.buckets):
        for c in b.comparisons:
            ci = c.delta_ci
            p = _p(c.p_value) if c.p_value is not None else '<td class="n" data-value="">untested</td>'
            pa = _p(c.p_adjusted) if c.p_adjusted is not None else '<td class="n" data-value="">–</td>'
            cells = [_bucket_cell(k, b.label), f"<td>{_e(c.a)}</td>", f"<td>{_e(c.b)}</td>", _num(c.delta, d),
                     _num(ci.low if ci else None, d), _num(ci.high if ci else None, d), p, pa,
                     f'<td data-value="{int(c.significant)}">{"yes" if c.significant else "no"}</td>']  # fmt: skip
            rows.append(f"<tr{' class=sig' if c.significant else ''}>{''.join(cells)}</tr>")
    if rows:
        out.append(_table(head, rows, "sortable", f"{_anchor(i, a)}-differences"))
    return out


def _ngram_table(i: int, a: Analysis) -> str:
    head = ["A", "B", "more in", "rank", "n-gram", "order", "ratio", "count A", "count B"]
    rows = [
        f"<tr><td>{_e(x['a'])}</td><td>{_e(x['b'])}</td><td>{_e(x['favours'])}</td>{_num(x['rank'], 0)}"
        f"<td>{_e(x['ngram'])}</td>{_num(x['order'], 0)}{_num(x['ratio'], 4)}{_num(x['count_a'], 0)}"
        f"{_num(x['count_b'], 0)}</tr>"
        for x in a.items
    ]
    return _table(head, rows, "sortable", f"{_anchor(i, a)}-items")


def _highlight(text: str, reference: str) -> str:
    """``text`` escaped, its words that the reference does not have (beyond the reference's count) marked."""
    left = Counter(reference.split())
    out = []
    for w in text.split():
        if left[w] > 0:
            left[w] -= 1
            out.append(_e(w))
        else:
            out.append(f"<mark>{_e(w)}</mark>")
    return " ".join(out)


def _examples(a: Analysis) -> str:
    parts = []
    for x in a.items:
        head = (f"<b>{_e(x['better'])}</b> better (#{x['rank']}), segment {x['segment']}: {_e(x['a'])} "
                f"{_e(_fmt(x['score_a'], a.decimals))}, {_e(x['b'])} {_e(_fmt(x['score_b'], a.decimals))}")  # fmt: skip
        rows = [f"<div>{head}</div>"]
        if x.get("source") is not None:
            rows.append(f"<div><b>source</b>{_e(x['source'])}</div>")
        rows.append(f"<div><b>reference</b>{_e(x['reference'])}</div>")
        for side in ("a", "b"):
            rows.append(f"<div><b>{_e(x[side])}</b>{_highlight(x[f'output_{side}'], x['reference'])}</div>")
        parts.append(f'<div class="ex" data-segment="{x["segment"]}">{"".join(rows)}</div>')
    return "".join(parts)


def _fmt(x: float | None, d: int) -> str:
    return "–" if x is None else f"{x:.{d}f}"


def render_analyze_html(res: AnalyzeResult, command: str) -> str:
    """The report of an analyze result; ``command`` reproduces it."""
    st = res.settings
    n_res = st.n_resamples if st.n_resamples is not None else "automatic"
    items = [("mtsig", _e(__version__)), ("segments", _e(st.n_segments)), ("systems", _e(", ".join(res.systems))),
             ("test", _e(f"{st.test} ({n_res} resamples)")), ("seed", _e(st.seed)),
             ("correction", _e(f"{st.correction} over every bucket and pair of an analysis, α = {st.alpha}")),
             ("intervals", _e(f"{st.confidence:.0%} percentile, {st.n_bootstrap} bootstrap resamples")),
             ("baseline", _e(st.baseline or "none (all pairs)")),
             ("resampled by", _e(st.resample_unit))]  # fmt: skip
    if st.tokenize:
        items.append(("words", f"<code>{_e(st.tokenize)}</code>"))
    items += [(f"signature ({m})", f"<code>{_e(s)}</code>") for m, s in st.signatures.items()]
    toc = "".join(f'<li><a href="#{_anchor(i, a)}">{_e(a.kind)}: {_e(a.metric)}</a></li>'
                  for i, a in enumerate(res.analyses))  # fmt: skip
    parts = ["<h1>mtsig analysis</h1>", "<h2>Settings</h2>", _settings(items), "<h2>Command</h2>",
             f"<pre id=mtsig-command>{_e(command)}</pre>", f"<h2>Analyses</h2><ul>{toc}</ul>"]  # fmt: skip
    if res.warnings:
        parts += [
            "<h2>Warnings</h2>",
            "<ul>" + "".join(f'<li class="warn">{_e(w)}</li>' for w in res.warnings) + "</ul>",
        ]
    for i, a in enumerate(res.analyses):
        sort = " Click a header to sort." if a.buckets or a.kind == "ngrams" else ""
        parts.append(f'<h2 id="{_anchor(i, a)}">{_e(a.kind)}: {_e(a.metric)}</h2><p>{_e(a.note)}.{sort}</p>')
        if a.buckets:
            parts.append(figure_or_note(lambda a=a: plot_analysis(res, a), f"{a.kind}: {a.metric}"))
            parts += _bucket_tables(i, a, res.systems)
        elif a.kind == "ngrams":
            parts.append(_ngram_table(i, a))
        else:
            parts.append(_examples(a))
    return html_page("mtsig analysis", parts, res.to_dict(), _MORE_CSS)
