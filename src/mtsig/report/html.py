"""One self-contained HTML report of a score or compare result: no network, figures inline as SVG.

It holds the settings (seed, resamples, correction, signatures), the command that reproduces it, the score
table (intervals, runs), the comparison table (sortable by clicking a header: a few lines of JavaScript of
our own), the clusters, the warnings and the figures of :mod:`mtsig.report.plots`. Every number in a table
cell is also in its ``data-value`` attribute (full precision), and the result's JSON is embedded in
``<script type="application/json" id="mtsig-result">``, so a report can be checked against the JSON.
"""

from __future__ import annotations

import html
import json
import math

from mtsig._version import __version__
from mtsig.report.plots import plot_compare, plot_score, svg_text
from mtsig.report.table import format_p
from mtsig.results import CompareResult, ScoreResult

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;
padding:1em 1.5em;color:#1d1d1f}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin:1.6em 0 .4em;border-bottom:1px solid #ddd}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f5f5f7;padding:.6em .8em;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;margin:.4em 0;font-size:13px}th,td{padding:.25em .6em;border-bottom:1px solid #e5e5e5}
th{text-align:left;background:#fafafa;position:sticky;top:0}td.n{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer;user-select:none}th:focus-visible{outline:3px solid #1a4fa0;outline-offset:-3px}
table.sortable th[aria-sort=ascending]::after{content:" ▲"}
table.sortable th[aria-sort=descending]::after{content:" ▼"}tr.sig td{background:#eef6ee}
.wrap{overflow-x:auto}dl{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em}dt{color:#555}dd{margin:0}
.warn{color:#8a4b00}figure{margin:.6em 0}figure svg{max-width:100%;height:auto}
h3{font-size:1.05em;margin:1.2em 0 .2em}h3 .dir{font-weight:normal;color:#555;font-size:.9em}
td.n{white-space:nowrap}code,dd{overflow-wrap:anywhere;min-width:0}
@media (max-width:600px){body{padding:.6em .7em}table{font-size:12px}th,td{padding:.2em .35em}}
@media print{body{max-width:none;font-size:11px}th{position:static}.wrap{overflow:visible}figure{break-inside:avoid}
table{break-inside:auto}tr{break-inside:avoid}h3{break-after:avoid}}
"""

# sort the rows of a table.sortable by the clicked header: numbers by their data-value, text by its content
_JS = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.tabIndex = 0;  // sortable by keyboard too: Tab to a header, Enter or Space
    th.title = "sort by this column";
    th.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); th.click(); }
    });
    th.addEventListener("click", function () {
      var asc = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (r1, r2) {
        var a = r1.cells[col], b = r2.cells[col];
        var x = a.dataset.value, y = b.dataset.value, c;
        if (x !== undefined && y !== undefined && x !== "" && y !== "") { c = parseFloat(x) - parseFloat(y); }
        else { c = a.textContent.localeCompare(b.textContent); }
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def _e(x) -> str:
    """Text for HTML: control and bidirectional-control characters as visible escapes (a system name with U+202E
    must not reorder the page), then HTML-escaped."""
    from mtsig.report.table import printable

    return html.escape(printable(str(x)), quote=True)


def _num(x: float | None, decimals: int) -> str:
    """A numeric cell: the rounded number shown, the full one in data-value."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return '<td class="n" data-value="">–</td>'
    return f'<td class="n" data-value="{x!r}">{x:.{decimals}f}</td>'


def _p(x: float | None) -> str:
    """A p-value cell ("–" for none)."""
    if x is None:
        return '<td class="n" data-value="">–</td>'
    return f'<td class="n" data-value="{x!r}">{format_p(x)}</td>'


def _table(header: list[str], rows: list[str], cls: str = "", tid: str = "") -> str:
    head = "".join(f'<th scope="col">{_e(h)}</th>' for h in header)
    attrs = (f' class="{cls}"' if cls else "") + (f' id="{tid}"' if tid else "")
    return f'<div class="wrap"><table{attrs}><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _settings(items: list[tuple[str, str]]) -> str:
    return "<dl>" + "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


def _score_rows(res: ScoreResult | CompareResult) -> tuple[list[str], list[str]]:
    metrics = list(res.systems[0].scores) if res.systems else []
    header = ["system"]
    for m in metrics:
        header += [m]
        sample = res.systems[0].scores[m]
        if sample.ci is not None:
            header += [f"{m} CI low", f"{m} CI high"]
        if sample.runs is not None:
            header += [f"{m} s_sel", f"{m} s_test", f"{m} runs"]
    rows = []
    for s in res.systems:
        cells = [f"<td>{_e(s.name)}</td>"]
        for m in metrics:
            sc, d = s.scores[m], res.decimals.get(m, 2)
            cells.append(_num(sc.score, d))
            if sc.ci is not None:
                cells += [_num(sc.ci.low, d), _num(sc.ci.high, d)]
            if sc.runs is not None:
                runs = " ".join(f"{x:.{d}f}" for x in sc.runs.runs)
                cells += [_num(sc.runs.s_sel, d), _num(sc.runs.s_test, d), f"<td>{_e(runs)}</td>"]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return header, rows


def _better(direction: str, r) -> str:
    """The system whose score is better in ``direction`` (``higher``, ``lower``, ``closest to T``)."""
    if direction.startswith("closest"):
        target = float(direction.rsplit(" ", 1)[-1])
        return r.b if abs(r.score_b - target) < abs(r.score_a - target) else r.a
    return r.b if (r.delta > 0) == (direction != "lower") else r.a


def _direction_text(direction: str) -> str:
    if direction.startswith("closest"):
        return f"↔ best at {direction.rsplit(' ', 1)[-1]}"
    return "↑ higher is better" if direction != "lower" else "↓ lower is better"


def _p_pair(r, c) -> tuple[str, str]:
    """The p and adjusted-p cells; an ASO row shows its ε_min (it has no p-value) and its gate's adjusted p."""
    if r.p_value is None and "eps_min" in r.extra:
        eps = r.extra["eps_min"]
        g = r.extra["gate_p_adjusted"]
        return (f'<td class="n" data-value="{eps!r}">ε_min {eps:.3f}</td>',
                f'<td class="n" data-value="{g!r}">gate {format_p(g)}</td>')  # fmt: skip
    return _p(r.p_value), _p(c.p_adjusted)


def _comparison_rows(res: CompareResult, metric: str) -> list[str]:
    rows = []
    direction = res.directions.get(metric, "higher")
    agree = _agrees(res, metric)
    for c in res.comparisons:
        if c.metric != metric:
            continue
        r, d = c.result, res.decimals.get(c.metric, 2)
        ci = r.delta_ci
        low, high = (ci.low, ci.high) if ci else (None, None)
        verdict = f"{_e(_better(direction, r))} better" if c.significant else "no significant difference"
        mark = " *" if c.significant else ""
        cells = [f"<td>{_e(r.a)}</td>", f"<td>{_e(r.b)}</td>", _num(r.score_a, d), _num(r.score_b, d),
                 _num(r.delta, d), _num(low, d), _num(high, d), f"<td>{_e(r.test)}</td>", *_p_pair(r, c),
                 f'<td data-value="{int(c.significant)}">{verdict}{mark}</td>']  # fmt: skip
        if agree:
            acc = c.human_agreement["accuracy"] if c.human_agreement else None
            cells.append(f'<td class="n" data-value="{"" if acc is None else repr(acc)}">'
                         f"{'–' if acc is None else f'{acc:.0%}'}</td>")  # fmt: skip
        rows.append(f"<tr{' class=sig' if c.significant else ''}>{''.join(cells)}</tr>")
    return rows


def _comparison_tables(res: CompareResult) -> list[str]:
    """One sortable table per metric, under a heading with the metric's direction; each row says which system
    is better when the difference is significant."""
    header = ["A", "B", "score A", "score B", "Δ (B − A)", "Δ low", "Δ high", "test", "p", "p adj.", "result"]
    out = []
    for m in dict.fromkeys(c.metric for c in res.comparisons):
        direction = res.directions.get(m, "higher")
        title = f"<h3>{_e(m.upper())} <span class=dir>{_e(_direction_text(direction))}</span></h3>"
        head = header + (["humans agree"] if _agrees(res, m) else [])
        out += [title, _table(head, _comparison_rows(res, m), "sortable comparisons", f"mtsig-comparisons-{_e(m)}")]
    return out


def _agrees(res: CompareResult, metric: str) -> bool:
    """Whether the metric's comparisons carry Kocmi et al.'s human agreement (the text's "humans agree" column)."""
    return any(c.human_agreement for c in res.comparisons if c.metric == metric)


def have_matplotlib() -> bool:
    """Whether figures can be drawn (the plot extra); the report's tables never need it."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def figure_or_note(draw, caption: str) -> str:
    """The figure ``draw()`` makes, inline; without matplotlib (a base install), a note in its place: the tables
    above it carry every number."""
    if not have_matplotlib():
        return (f'<p class="note">Figure "{_e(caption)}" left out: it needs matplotlib (pip install '
                "'mtsig[plot]'); its table has every number it would show.</p>")  # fmt: skip
    return _figure(draw(), caption)


#: a paper figure (7-pt text at 3.3 or 6.9 in) shown this much larger on a screen: a column's figure about 500 px
#: wide with 15-px text, as a page's own text, where at print size it was 317 px with 9-px text
SCREEN_SCALE = 1.6


def _figure(fig, caption: str) -> str:
    import re

    svg = svg_text(fig)
    svg = svg[svg.index("<svg") :]  # drop the XML prolog and doctype: the SVG is inline
    width = re.match(r'<svg[^>]*\bwidth="([0-9.]+)pt"', svg)
    if width:  # at screen size (the page's CSS keeps it within the page: max-width 100%)
        px = float(width.group(1)) * 96 / 72 * SCREEN_SCALE
        svg = svg.replace("<svg ", f'<svg style="width:{px:.0f}px" ', 1)
    for c in _BIDI:  # a label's bidirectional control shown as its escape, as in every table
        svg = svg.replace(chr(c), f"\\u{c:04x}")
    return f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


#: bidirectional controls (they reorder the text around them): never raw in a report
_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))


#: characters that must not appear raw in JSON inside a <script> element: "<" starts "</script>" or "<!--" (which
#: changes how the HTML parser reads the rest), ">" and "&" for symmetry, U+2028/U+2029 (line terminators of older
#: JavaScript); all written as JSON escapes, so JSON.parse reads the same strings
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029",
                   # bidirectional controls as JSON escapes: the same strings, nothing raw in the page
                   **{chr(c): f"\\u{c:04x}" for c in _BIDI}}  # fmt: skip


def embedded_json(obj) -> str:
    """``obj`` as JSON that is safe inside an HTML ``<script>`` element whatever its strings hold."""
    from mtsig.report.render import strict

    text = json.dumps(strict(obj), ensure_ascii=False, allow_nan=False)
    for ch, esc in _SCRIPT_ESCAPES.items():
        text = text.replace(ch, esc)
    return text


def html_page(title: str, parts: list[str], result: dict, css: str = "") -> str:
    """A self-contained report page: ``parts`` (HTML) in the report's style (plus ``css``), the result's JSON
    embedded, the tables' sorting script."""
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}{css}</style></head><body>\n{body}\n"
        f'<script type="application/json" id="mtsig-result">{embedded_json(result)}</script>\n'
        f"<script>{_JS}</script>\n</body></html>\n"
    )


def render_html(res: ScoreResult | CompareResult, command: str) -> str:
    """The report of ``res``; ``command`` is the command line that reproduces it."""
    compare = isinstance(res, CompareResult)
    st = res.settings
    sigs = st.signatures
    items = [("mtsig", _e(__version__)), ("segments", _e(st.n_segments))]
    if getattr(st, "resample_unit", None) not in (None, "segment"):
        items.append(("resampled by", _e(f"{st.resample_unit} ({st.n_units})")))
    if isinstance(res, CompareResult):
        items += _compare_settings(res)
    elif st.seed is not None:
        items += [("seed", _e(st.seed)), ("bootstrap", _e(f"{st.n_bootstrap} resamples"))]
    items += [(f"signature ({m})", f"<code>{_e(s)}</code>") for m, s in sigs.items()]
    parts = [f"<h1>mtsig {'comparison' if compare else 'scores'}</h1>", "<h2>Settings</h2>", _settings(items),
             "<h2>Command</h2>", f"<pre id=mtsig-command>{_e(command)}</pre>"]  # fmt: skip
    warnings = getattr(res, "warnings", ())
    if warnings:
        parts += ["<h2>Warnings</h2>", "<ul>" + "".join(f'<li class="warn">{_e(w)}</li>' for w in warnings) + "</ul>"]
    header, rows = _score_rows(res)
    parts += ["<h2>Scores</h2>", _table(header, rows, "sortable", "mtsig-scores"),
              figure_or_note(lambda: plot_score(res), "Scores")]  # fmt: skip
    if isinstance(res, CompareResult):
        parts += _compare_sections(res)
    return html_page("mtsig report", parts, res.to_dict())


def _compare_settings(res: CompareResult) -> list[tuple[str, str]]:
    st = res.settings
    return [("tests", _e(", ".join(f"{t} ({st.n_resamples.get(t, '-')} resamples)" for t in st.tests))),
            ("seed", _e(st.seed)), ("correction", _e(f"{st.correction}, α = {st.alpha}, {st.n_comparisons} "
            "comparison(s) per metric and test")), ("alternative", _e(st.alternative)),
            ("interval of Δ", _e(f"{st.confidence:.0%} percentile, {st.n_bootstrap} paired bootstrap resamples")),
            ("baseline", _e(st.baseline or "none (all pairs)"))]  # fmt: skip


def _compare_sections(res: CompareResult) -> list[str]:
    st = res.settings
    parts = ["<h2>Comparisons</h2>", f"<p>Per metric; a difference is significant (*) at α = {_e(st.alpha)} after "
             f"{_e(st.correction)} correction. Click a header (or Enter on it) to sort.</p>",
             *_comparison_tables(res)]  # fmt: skip
    clusters = [(m, cl) for m, cl in res.clusters.items() if cl]
    if clusters:
        parts += ["<h2>Clusters</h2>", "<p>Best first; a boundary only where every system above is significantly "
                  f"different from every system below ({_e(st.cluster_test)}).</p><ul>"]  # fmt: skip
        parts += [f"<li><b>{_e(m)}</b>: {' &gt; '.join('{' + _e(', '.join(c)) + '}' for c in cl)}</li>"
                  for m, cl in clusters]  # fmt: skip
        parts.append("</ul>")
    parts.append(figure_or_note(lambda: plot_compare(res), "Comparisons"))
    from mtsig.report.render import compare_notes

    notes = compare_notes(res)
    if notes:
        parts += ["<h2>Notes</h2>", "<ul class=notes>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>"]
    return parts
