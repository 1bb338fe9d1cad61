"""Results in a notebook (``_repr_html_``): the rows and columns of ``to_pandas()``, numbers rounded for reading
(each metric's decimals for scores, p-values as every output writes them: ``0.0020``, ``1.0e-04``), exact in each
cell's title, every cell escaped. A column empty in every row (optimizer-run statistics without runs, intervals
not asked for) is not shown, and a metric's signature is shown once under the table rather than on every row.

Below the table, the result's figure (inline SVG, as the HTML report shows it) where matplotlib is installed.

Display lives here, in ``report/``; a result type only names its rows (:mod:`mtsig.frames`)."""

from __future__ import annotations

import html
from typing import Any

#: columns shown as p-values (four significant digits, ``<1e-4`` style kept exact in the title attribute)
_P_COLUMNS = ("p_value", "p_adjusted")


def _cell(column: str, value: Any, decimals: int) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != value:  # NaN
            return ""
        if column in _P_COLUMNS:
            from mtsig.report.table import format_p

            text = format_p(value)
        else:
            text = f"{value:.{decimals}f}"
        return f'<span title="{value!r}">{text}</span>'
    return html.escape(str(value))


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def shown_columns(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    """The columns a display shows: those with a value in some row, the signature apart."""
    return [c for c in columns if c != "signature" and any(not _empty(r.get(c)) for r in rows)]


def html_table(rows: list[dict[str, Any]], columns: list[str], decimals: dict[str, int] | None = None) -> str:
    """An HTML table of ``rows`` (dicts) in ``columns`` order (:func:`shown_columns` of them); a row's ``metric``
    picks its decimals; the signatures follow the table, one line per metric."""
    decimals = decimals or {}
    shown = shown_columns(rows, columns)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown)
    body = []
    for r in rows:
        d = decimals.get(str(r.get("metric")), 4)
        body.append("<tr>" + "".join(f"<td>{_cell(c, r.get(c), d)}</td>" for c in shown) + "</tr>")
    out = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    sigs = dict.fromkeys((r.get("metric"), r["signature"]) for r in rows if r.get("signature"))
    if sigs:
        out += "".join(f"<div><small>{html.escape(str(m))}: <code>{html.escape(sig)}</code></small></div>"
                       for m, sig in sigs)  # fmt: skip
    return out


#: each result's figure, named and imported only when drawn: this module imports no result module (the results
#: import it to display themselves)
FIGURES = {"score": "mtsig.report.plots:plot_score", "compare": "mtsig.report.plots:plot_compare",
           "analyze": "mtsig.report.analyze_plots:plot_analyze", "human": "mtsig.report.paper:plot_human",
           "meta": "mtsig.report.paper:plot_meta", "study": "mtsig.report.study_plots:plot_study"}  # fmt: skip


def with_figure(table: str, kind: str, res) -> str:
    """The table, then the result's figure (:data:`FIGURES`; none without matplotlib, or when the result has
    nothing to draw)."""
    import importlib
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        return table
    from mtsig.errors import InputError

    module, name = FIGURES[kind].split(":")
    try:
        fig = getattr(importlib.import_module(module), name)(res)
    except InputError:  # nothing to draw (no comparison, no bucket)
        return table
    html = importlib.import_module("mtsig.report.html")
    return table + html._figure(fig, "")


def score_html(res) -> str:
    from mtsig.frames import SCORE_COLUMNS, score_rows

    return with_figure(html_table(score_rows(res), SCORE_COLUMNS, res.decimals), "score", res)


def compare_html(res) -> str:
    from mtsig.frames import COMPARE_COLUMNS, compare_rows

    return with_figure(html_table(compare_rows(res), COMPARE_COLUMNS, res.decimals), "compare", res)


def analyze_html(res) -> str:
    """The buckets (``to_pandas()``), then the n-grams and example segments (``to_pandas(items=True)``)."""
    from mtsig.frames import ANALYZE_COLUMNS, analyze_rows, item_rows

    decimals = {a.metric: a.decimals for a in res.analyses}
    out = html_table(analyze_rows(res), ANALYZE_COLUMNS, decimals)
    items, columns = item_rows(res)
    if items:
        out += "<h4>n-grams and example segments (to_pandas(items=True))</h4>" + html_table(items, columns, decimals)
    return with_figure(out, "analyze", res)


def human_html(res, columns: list[str]) -> str:
    return with_figure(html_table(res.system_rows(), columns), "human", res)


def meta_html(res) -> str:
    rows = res.metric_rows()
    return with_figure(html_table(rows, list(dict.fromkeys(k for r in rows for k in r))), "meta", res)


def study_html(res) -> str:
    """Each table of a study under its title (``to_pandas()``'s rows of that table), each column with its
    decimals."""
    parts = []
    for t in res.tables:
        decs = list(t.decimals or []) + [None] * len(t.header)
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in t.header)
        body = "".join(
            "<tr>"
            + "".join(f"<td>{_cell(str(c), v, 4 if d is None else d)}</td>" for c, v, d in zip(t.header, r, decs))
            + "</tr>"
            for r in t.rows
        )
        parts.append(
            f"<h4>{html.escape(t.title)}</h4><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )
    return with_figure("".join(parts), "study", res)
