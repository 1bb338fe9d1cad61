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
    head = ["rank", "system", f"score [{conf:.0%} CI]", "segments", "wins", "cluster"]
    return Table(head, rows, ["left", "left", "right", "right", "right", "right"],
                 title=f"{res.protocol}: systems by human score (rank: {_rank_words(res)})")  # fmt: skip


def _rank_words(res: HumanResult) -> str:
    if res.protocol == "mtsig":
        return f"simultaneous {res.settings.get('confidence', 0.95):.0%} rank sets"
    return "WMT's losses + 1 to N - wins"


def _decimals(res: HumanResult, d: int | None) -> int:
    return d if d is not None else (res.decimals if res.decimals is not None else 3)


def tests_table(res: HumanResult, d: int | None = None) -> Table:
    d = _decimals(res, d)
    one = res.settings.get("one_sided")
    rows = []
    for c in res.comparisons:
        mark = "*" if c.significant else ""
        common = "-" if c.delta_common is None else f"{c.delta_common:+.{d}f}"
        rows.append([c.a, c.b, f"{c.delta:+.{d}f}", common, str(c.n_common), _p(c.p_value),
                     _p(c.p_adjusted) + mark, c.note or ""])  # fmt: skip
    head = ["A", "B", "Δ (A − B)", "Δ common", "common", "p" + (" (A better)" if one else ""), "p adjusted", "note"]
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
    for c in res.comparisons:
        rows.append(["comparison", None, c.a, c.b, None, None, None, None, None, None, None, None, c.delta,
                     c.n_common, c.p_value, c.p_adjusted, c.significant])  # fmt: skip
    return csv_text(head, [["" if x is None else x for x in r] for r in rows])


def _markdown(res: HumanResult) -> str:
    out = [f"**{_md(_settings_line(res))}**", ""]
    for t in (ranking_table(res), tests_table(res)):
        esc = Table([_md(h) for h in t.header], [[_md(x) for x in r] for r in t.rows], title=t.title)
        out += [f"*{_md(t.title)}*", "", *markdown(esc), ""]
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
def ranking_svg(res: HumanResult, width: int = 640) -> str:
    """Systems in rank order, each score with its interval, clusters as shaded bands with a rule between them;
    text stays text (editable, searchable)."""
    rows = len(res.systems)
    left, right, top, row_h = 170, 20, 28, 22
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
        rank = f"{s.rank_range[0]}" if s.rank_range[0] == s.rank_range[1] else f"{s.rank_range[0]}-{s.rank_range[1]}"
        out.append(f'<text x="{left - 8}" y="{yy + 4}" text-anchor="end">{e(rank)}  {e(s.name)}</text>')
        if s.ci:
            out.append(f'<line x1="{x(s.ci[0]):.1f}" x2="{x(s.ci[1]):.1f}" y1="{yy}" y2="{yy}" stroke="#0b4f8a" '
                       'stroke-width="2"/>')  # fmt: skip
        out.append(f'<circle cx="{x(s.score):.1f}" cy="{yy}" r="4" fill="#0b4f8a"><title>{e(s.name)}: '
                   f"{s.score:.4f}</title></circle>")  # fmt: skip
    axis_y = top + rows * row_h
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{axis_y}" y2="{axis_y}" stroke="#333"/>')
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        out.append(f'<text x="{x(v):.1f}" y="{axis_y + 14}" text-anchor="middle">{v:.3f}</text>')
    out.append(f'<text x="{(left + width - right) / 2:.1f}" y="{axis_y + 30}" text-anchor="middle">human score '
               "(higher is better)</text></svg>")  # fmt: skip
    return "".join(out)


def _html_table(t: Table) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in t.header)
    body = "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in r) + "</tr>" for r in t.rows)
    return f"<table><caption>{_esc(t.title or '')}</caption><thead><tr>{head}</tr></thead><tbody>{body}" \
           "</tbody></table>"  # fmt: skip


def render_human_html(res: HumanResult, command: str | None = None) -> str:
    """A self-contained HTML report: settings, the command, the ranking figure and both tables."""
    e = _esc
    style = ("body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse;margin:1em 0}"
             "td,th{border-bottom:1px solid #ccc;padding:2px 8px;text-align:right}td:nth-child(2),th:nth-child(2)"
             "{text-align:left}caption{text-align:left;font-weight:bold}code{background:#f4f4f4}")  # fmt: skip
    notes = "".join(f"<li>{e(n)}</li>" for n in res.notes)
    cmd = f"<p>Command: <code>{e(command)}</code></p>" if command else ""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>mtsig human: {e(res.protocol)}'
            f"</title><style>{style}</style></head><body><h1>Human judgments: {e(res.protocol)}</h1>"
            f"<p>{e(_settings_line(res))}</p>{cmd}<figure>{ranking_svg(res)}<figcaption>{e(_clusters_line(res))}"
            f"</figcaption></figure>{_html_table(ranking_table(res))}{_html_table(tests_table(res))}<ul>{notes}</ul>"
            "</body></html>\n")  # fmt: skip


render_human = register_formats(HumanResult, text=_text, csv=_csv, markdown=_markdown, latex=_latex)
