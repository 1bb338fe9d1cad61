"""Results in a notebook (``_repr_html_``): the rows and columns of ``to_pandas()``, numbers rounded for reading
(each metric's decimals for scores, four significant digits for p-values), every cell escaped.

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
        text = f"{value:.4g}" if column in _P_COLUMNS else f"{value:.{decimals}f}"
        return f'<span title="{value!r}">{text}</span>'
    return html.escape(str(value))


def html_table(rows: list[dict[str, Any]], columns: list[str], decimals: dict[str, int] | None = None) -> str:
    """An HTML table of ``rows`` (dicts) in ``columns`` order; a row's ``metric`` picks its decimals."""
    decimals = decimals or {}
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for r in rows:
        d = decimals.get(r.get("metric"), 4)
        body.append("<tr>" + "".join(f"<td>{_cell(c, r.get(c), d)}</td>" for c in columns) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def score_html(res) -> str:
    from mtsig.frames import SCORE_COLUMNS, score_rows

    return html_table(score_rows(res), SCORE_COLUMNS, res.decimals)


def compare_html(res) -> str:
    from mtsig.frames import COMPARE_COLUMNS, compare_rows

    return html_table(compare_rows(res), COMPARE_COLUMNS, res.decimals)


def analyze_html(res) -> str:
    from mtsig.frames import ANALYZE_COLUMNS, analyze_rows

    decimals = {a.metric: a.decimals for a in res.analyses}
    return html_table(analyze_rows(res), ANALYZE_COLUMNS, decimals)


def meta_html(res) -> str:
    rows = res.metric_rows()
    return html_table(rows, list(dict.fromkeys(k for r in rows for k in r)))


def study_html(res) -> str:
    """Each table of a study under its title (the frames of ``to_pandas()``), each column with its decimals."""
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
    return "".join(parts)
