"""``mtsig human`` results as text, JSON, CSV, Markdown, LaTeX and a self-contained HTML page (registered in the
formats' registry; the HTML's ranking figure is inline SVG written here, so it needs no plotting library).

Two tables: the ranking (rank range, system, score with its interval, segments, wins, cluster) and the tests
(Δ, p and adjusted p per pair; ``*`` marks a significant one).
"""

from __future__ import annotations

import html

from mtsig.humaneval.result import HumanResult
from mtsig.report.render import _md, _tex, register_formats
from mtsig.report.table import Table, TextOut, csv_text, format_p, latex, markdown


def _esc(text: str) -> str:
    """HTML text: control and bidirectional-control characters as visible escapes, then HTML-escaped."""
    from mtsig.report.table import printable

    return html.escape(printable(str(text)))


def _n(x: float | None, d: int = 3) -> str:
    return "-" if x is None else f"{x:.{d}f}"


def _p(p: float | None) -> str:
    return "-" if p is None else format_p(p)


def ranking_table(res: HumanResult, d: int | None = None) -> Table:
    d = _decimals(res, d)
    conf = res.settings.get("confidence", 0.95)
    rows = []
    for s in res.systems:
        lo, hi = s.rank_range
        ci = f" [{_n(s.ci[0], d)}, {_n(s.ci[1], d)}]" if s.ci else ""
        rows.append([str(lo) if lo == hi else f"{lo}-{hi}", s.name, _n(s.score, d) + ci, str(s.n_segments),
                     str(s.wins), str(s.cluster)])  # fmt: skip
    interval = "sequence" if res.settings.get("anytime") else "CI"
    head = ["rank", "system", f"score [{conf:.0%} {interval}]", "segments", "wins", "cluster"]
    align = ["left", "left", "right", "right", "right", "right"]
    if any(s.wmt26_boundary for s in res.systems):  # WMT26's mark of the line below each system
        head.append("line below")
        align.append("left")
        rows = [[*r, s.wmt26_boundary or ""] for r, s in zip(rows, res.systems)]
    return Table(head, rows, align, title=f"{res.protocol}: systems by human score (rank: {_rank_words(res)})")


def _rank_words(res: HumanResult) -> str:
    if res.settings.get("anytime"):
        return f"anytime {1 - res.settings.get('alpha', 0.05):.0%} rank sets, valid at every screen"
    if res.protocol == "mtsig":
        return f"simultaneous {res.settings.get('confidence', 0.95):.0%} rank sets"
    return "WMT's losses + 1 to N - wins"


def _decimals(res: HumanResult, d: int | None) -> int:
    return d if d is not None else (res.decimals if res.decimals is not None else 3)


def _anytime_tests(res: HumanResult, d: int) -> Table:
    rows = []
    for c in res.comparisons:
        common = "-" if c.delta_common is None else f"{c.delta_common:+.{d}f}"
        seq = "-" if c.cs is None else f"[{c.cs[0]:+.{d}f}, {c.cs[1]:+.{d}f}]" + ("*" if c.significant else "")
        rows.append([c.a, c.b, f"{c.delta:+.{d}f}", common, str(c.n_common), seq,
                     "-" if c.resolved_at is None else str(c.resolved_at)])  # fmt: skip
    head = ["A", "B", "Δ (B − A)", "Δ common", "documents", "sequence of Δ", "resolved at screen"]
    st = res.settings
    return Table(head, rows, title=f"{res.protocol}: pairs ({st['sequence']} confidence sequences at alpha/M; * "
                 f"resolved at α = {st['alpha']})")  # fmt: skip


def tests_table(res: HumanResult, d: int | None = None) -> Table:
    d = _decimals(res, d)
    if res.settings.get("anytime"):
        return _anytime_tests(res, d)
    one = res.settings.get("one_sided")
    rows = []
    for c in res.comparisons:
        mark = "*" if c.significant else ""
        common = "-" if c.delta_common is None else f"{c.delta_common:+.{d}f}"
        rows.append([c.a, c.b, f"{c.delta:+.{d}f}", common, str(c.n_common), _p(c.p_value),
                     _p(c.p_adjusted) + mark, c.note or ""])  # fmt: skip
    head = ["A", "B", "Δ (B − A)", "Δ common", "common", "p" + (" (A better)" if one else ""), "p adjusted", "note"]
    if not any(r[-1] for r in rows):
        head, rows = head[:-1], [r[:-1] for r in rows]
    corr = res.settings.get("correction", "none")
    return Table(head, rows, title=f"{res.protocol}: tests ({corr}; * significant at α = {res.settings['alpha']})")


def _fitted(t: Table, width: int | None) -> Table:
    """The tests for a terminal narrower than their table: each pair on two lines (A, then → B) with its numbers on
    the first, as compare's narrow layout; the note column, when there is one, kept. Unchanged when the table fits
    or the narrow one does not either (then the table is printed as records)."""
    from mtsig.report.table import DEFAULT_WIDTH, natural_width, shown

    if width is None or width >= DEFAULT_WIDTH or natural_width(shown(t)) <= width:
        return t
    rows = []
    for r in t.rows:
        rows += [[r[0], *r[2:]], ["→ " + r[1]] + [""] * (len(r) - 2)]
    narrow = Table(["A / B", *t.header[2:]], rows, ["left", *(["right"] * (len(t.header) - 2))], title=t.title)
    return narrow if natural_width(shown(narrow)) <= width else t


def _clusters_line(res: HumanResult) -> str:
    return "clusters: " + " > ".join("{" + ", ".join(c) + "}" for c in res.clusters)


def _settings_line(res: HumanResult) -> str:
    st = res.settings
    parts = [f"mtsig human: protocol {res.protocol}", f"{st['n_systems']} systems", f"{st['n_segments']} segments",
             f"input {st['input_format']}"]  # fmt: skip
    if st.get("anytime"):
        screens = f", {st['screens']} screens" if st.get("screens") else ""
        parts.append(f"anytime: {st['sequence']} confidence sequences per pair at alpha/M, documents as units"
                     f"{screens}")  # fmt: skip
        return ", ".join(parts)
    if "test" in st:
        parts.append(f"test {st['test']} ({st['n_resamples']} resamples of {st['resample_unit']}s)")
    parts += [f"{st['n_bootstrap']} bootstrap resamples", f"seed {st['seed']}"]
    return ", ".join(parts)


def _text(res: HumanResult, width: int | None) -> str:
    out = TextOut(width)
    out.line(_settings_line(res))
    out.line()
    out.table(ranking_table(res))
    out.line(_clusters_line(res))
    out.line()
    out.table(_fitted(tests_table(res), width))
    for n in res.notes:
        out.line(f"note: {n}")
    return out.getvalue()


def _csv(res: HumanResult) -> str:
    head = ["row", "system", "a", "b", "score", "ci_low", "ci_high", "n_segments", "wins", "cluster", "rank_low",
            "rank_high", "delta", "n_common", "p_value", "p_adjusted", "significant"]  # fmt: skip
    rows = []
    for s in res.systems:
        lo, hi = s.ci or (None, None)
        rows.append(["system", s.name, None, None, s.score, lo, hi, s.n_segments, s.wins, s.cluster, *s.rank_range,
                     None, None, None, None, None])  # fmt: skip
    extra = bool(res.settings.get("anytime"))  # the anytime ranking: each pair's sequence and when it resolved
    wmt26 = any(s.wmt26_boundary for s in res.systems)
    if extra:
        head += ["cs_low", "cs_high", "resolved_at"]
        rows = [r + [None, None, None] for r in rows]
    if wmt26:
        head.append("wmt26_boundary")
        rows = [r + [s.wmt26_boundary] for r, s in zip(rows, res.systems)]
    for c in res.comparisons:
        row = ["comparison", None, c.a, c.b, None, None, None, None, None, None, None, None, c.delta,
               c.n_common, c.p_value, c.p_adjusted, c.significant]  # fmt: skip
        if extra:
            row += [*(c.cs or (None, None)), c.resolved_at]
        rows.append(row + ([None] if wmt26 else []))
    for n in res.notes:  # the notes too: a CSV read alone must not lose them (row "note", the text under "system")
        rows.append(["note", n, *([None] * (len(head) - 2))])
    return csv_text(head, [["" if x is None else x for x in r] for r in rows])


def _markdown(res: HumanResult) -> str:
    out = [f"**{_md(_settings_line(res))}**", ""]
    for t in (ranking_table(res), tests_table(res)):
        esc = Table([_md(h) for h in t.header], [[_md(x) for x in r] for r in t.rows], title=t.title)
        out += [f"*{_md(t.title or '')}*", "", *markdown(esc), ""]
    out += [_md(_clusters_line(res)), ""]
    out += [f"- {_md(n)}" for n in res.notes]
    return "\n".join(out) + "\n"


def _latex(res: HumanResult) -> str:
    parts = []
    for t, caption in ((ranking_table(res), _clusters_line(res)), (tests_table(res), _settings_line(res))):
        esc = Table([_tex(h) for h in t.header], [[_tex(x) for x in r] for r in t.rows])
        spec = "ll" + "r" * (len(t.header) - 2)
        parts.append(latex(esc, spec, _tex(f"{t.title}. {caption}")))
    return "".join(parts)


# ------------------------------------------------------------------------------------------------ HTML
def _ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Round tick values within [lo, hi]: steps of 1, 2 or 5 times a power of ten, at most ``most`` of them."""
    import math

    span = hi - lo
    step = 10 ** math.floor(math.log10(span / most)) if span > 0 else 1.0
    for f in (1, 2, 5, 10):
        if span / (f * step) <= most:
            step *= f
            break
    first = math.ceil(lo / step) * step
    return [round(first + k * step, 12) for k in range(int((hi - first) / step + 1e-9) + 1)]


def ranking_svg(res: HumanResult, width: int = 640) -> str:
    """Systems in rank order, each score with its interval, clusters as shaded bands with a rule between them;
    text stays text (editable, searchable); round tick values. Drawn without matplotlib, so a base install has it."""
    rows = len(res.systems)
    left, right, top, row_h = 190, 20, 28, 22
    height = top + rows * row_h + 36
    vals = [v for s in res.systems for v in ((s.score,) + (tuple(s.ci) if s.ci else ()))]
    lo, hi = min(vals), max(vals)
    pad = (hi - lo) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (width - left - right)

    e = _esc
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" font-family="sans-serif" font-size="12">',
           f"<title>{e(res.protocol)}: human scores with {res.settings.get('confidence', 0.95):.0%} intervals; "
           "shaded bands are clusters</title>"]  # fmt: skip
    y = top
    for i, cl in enumerate(res.clusters):
        h = len(cl) * row_h
        fill = "#eef2f7" if i % 2 == 0 else "#ffffff"
        out.append(f'<rect x="0" y="{y - row_h / 2:.1f}" width="{width}" height="{h}" fill="{fill}"/>')
        if i:
            out.append(f'<line x1="0" x2="{width}" y1="{y - row_h / 2:.1f}" y2="{y - row_h / 2:.1f}" '
                       'stroke="#555" stroke-dasharray="4 3"/>')  # fmt: skip
        y += h
    for i, s in enumerate(res.systems):
        yy = top + i * row_h
        rank = f"{s.rank_range[0]}" if s.rank_range[0] == s.rank_range[1] else f"{s.rank_range[0]}–{s.rank_range[1]}"
        out.append(f'<text x="{left - 8}" y="{yy + 4}" text-anchor="end">{e(s.name)} ({e(rank)})</text>')
        if s.ci:
            out.append(f'<line x1="{x(s.ci[0]):.1f}" x2="{x(s.ci[1]):.1f}" y1="{yy}" y2="{yy}" stroke="#0b4f8a" '
                       'stroke-width="2"/>')  # fmt: skip
        out.append(f'<circle cx="{x(s.score):.1f}" cy="{yy}" r="4" fill="#0b4f8a"><title>{e(s.name)}: '
                   f"{s.score:.4f}</title></circle>")  # fmt: skip
    axis_y = top + rows * row_h
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{axis_y}" y2="{axis_y}" stroke="#333"/>')
    for v in _ticks(lo, hi):
        out.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{axis_y}" y2="{axis_y + 4}" stroke="#333"/>'
                   f'<text x="{x(v):.1f}" y="{axis_y + 16}" text-anchor="middle">{v:g}</text>')  # fmt: skip
    out.append(f'<text x="{(left + width - right) / 2:.1f}" y="{axis_y + 32}" text-anchor="middle">human score '
               "(higher is better; rank range in parentheses)</text></svg>")  # fmt: skip
    return "".join(out)


def _tests_html(res: HumanResult, d: int) -> str:
    from mtsig.report.html import _e, _num, _table
    from mtsig.report.html import _p as p_cell

    one = " (A better)" if res.settings.get("one_sided") else ""
    tests = []
    for c in res.comparisons:
        cls = ' class="sig"' if c.significant else ""
        tests.append(f"<tr{cls}><td>{_e(c.a)}</td><td>{_e(c.b)}</td>{_num(c.delta, d)}{_num(c.delta_common, d)}"
                     f"{_num(c.n_common, 0)}{p_cell(c.p_value)}{p_cell(c.p_adjusted)}"
                     f"<td>{'yes *' if c.significant else 'no'}</td><td>{_e(c.note or '')}</td></tr>")  # fmt: skip
    return _table(["A", "B", "Δ (B − A)", "Δ common", "common", f"p{one}", "p adjusted", "significant", "note"],
                  tests, "sortable", "mtsig-tests")  # fmt: skip


def _anytime_html(res: HumanResult, d: int) -> str:
    """The anytime ranking's pairs: each sequence of Δ and the screen it resolved at, as the text shows them."""
    from mtsig.report.html import _e, _num, _table

    rows = []
    for c in res.comparisons:
        cls = ' class="sig"' if c.significant else ""
        lo, hi = c.cs or (None, None)
        rows.append(f"<tr{cls}><td>{_e(c.a)}</td><td>{_e(c.b)}</td>{_num(c.delta, d)}{_num(c.delta_common, d)}"
                    f"{_num(c.n_common, 0)}{_num(lo, d)}{_num(hi, d)}{_num(c.resolved_at, 0)}"
                    f"<td>{'yes *' if c.significant else 'no'}</td></tr>")  # fmt: skip
    return _table(["A", "B", "Δ (B − A)", "Δ common", "documents", "sequence of Δ low", "sequence of Δ high",
                   "resolved at screen", "resolved"], rows, "sortable", "mtsig-tests")  # fmt: skip


def render_human_html(res: HumanResult, command: str | None = None) -> str:
    """``human --html``: compare's report design (sortable tables whose cells carry full-precision ``data-value``,
    the settings, the command, the result's JSON embedded) with the ranking figure and both tables."""
    from mtsig._version import __version__
    from mtsig.report.html import _e, _num, _settings, _table, html_page

    st = res.settings
    items = [("mtsig", _e(__version__)), ("protocol", _e(res.protocol)),
             ("systems", _e(st.get("n_systems"))), ("segments", _e(st.get("n_segments"))),
             ("input", _e(f"{st.get('input_format')}: {', '.join(st.get('files', []))}"))]  # fmt: skip
    if "test" in st:
        items.append(("test", _e(f"{st['test']}, {st['n_resamples']} resamples of {st['resample_unit']}s, "
                                 f"{st.get('correction', 'none')} over {st.get('n_comparisons', '-')} pairs, "
                                 f"α = {st['alpha']}")))  # fmt: skip
    if st.get("anytime"):  # the anytime ranking: sequences, no resampling
        items.append(("ranking", _e(f"anytime: {st['sequence']} confidence sequences per pair at α/M = "
                                    f"{st['alpha']}/{st.get('n_comparisons')}, documents as units"
                                    + (f", {st['screens']} screens" if st.get("screens") else ""))))  # fmt: skip
    else:
        items += [("intervals and rank sets", _e(f"{st['confidence']:.0%}, {st['n_bootstrap']} bootstrap resamples")),
                  ("seed", _e(st["seed"]))]  # fmt: skip
    d = _decimals(res, None)
    rows = []
    for s in res.systems:
        lo, hi = s.rank_range
        ci = s.ci or (None, None)
        rank = str(lo) if lo == hi else f"{lo}-{hi}"  # as the text writes it
        rows.append(f'<tr><td class="n" data-value="{lo}">{_e(rank)}</td><td>{_e(s.name)}</td>{_num(s.score, d)}'
                    f"{_num(ci[0], d)}{_num(ci[1], d)}{_num(s.n_segments, 0)}{_num(s.wins, 0)}{_num(s.cluster, 0)}"
                    "</tr>")  # fmt: skip
    conf = f"{st.get('confidence', 0.95):.0%} {'sequence' if st.get('anytime') else 'CI'}"
    head = ["rank", "system", "score", f"{conf} low", f"{conf} high", "segments", "wins", "cluster"]
    if any(s.wmt26_boundary for s in res.systems):  # WMT26's mark of the line below each system
        head.append("line below")
        rows = [r.replace("</tr>", f"<td>{_e(s.wmt26_boundary or '')}</td></tr>") for r, s in zip(rows, res.systems)]
    ranking = _table(head, rows, "sortable", "mtsig-ranking")
    table = _anytime_html(res, d) if st.get("anytime") else _tests_html(res, d)
    notes = "".join(f"<li>{_e(n)}</li>" for n in res.notes)
    parts = [f"<h1>Human judgments: {_e(res.protocol)}</h1>", "<h2>Settings</h2>", _settings(items)]
    if command:
        parts += ["<h2>Command</h2>", f"<pre id=mtsig-command>{_e(command)}</pre>"]
    parts += [
        "<h2>Ranking</h2>",
        f"<p>Rank: {_e(_rank_words(res))}. Click a header to sort.</p>",
        f"<figure>{ranking_svg(res)}<figcaption>{_e(_clusters_line(res))}</figcaption></figure>",
        ranking,
        "<h2>Tests</h2>",
        f"<p>{_e(tests_table(res).title or '')}; significant rows are marked * and shaded.</p>",
        table,
    ]
    if notes:
        parts += ["<h2>Notes</h2>", f"<ul>{notes}</ul>"]  # fmt: skip
    return html_page(f"mtsig human: {res.protocol}", parts, res.to_dict())


render_human = register_formats(HumanResult, text=_text, csv=_csv, markdown=_markdown, latex=_latex)
