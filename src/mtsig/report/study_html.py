"""``mtsig study NAME --html``: a study's report in compare's design (its settings and design, the command, every
table sortable with full-precision cells, the study's figure, its notes, the result's JSON embedded)."""

from __future__ import annotations

from typing import Any

from mtsig.studies.result import StudyResult, StudyTable


def _cell(x: Any, decimals: int | None) -> str:
    from mtsig.report.html import _e, _num

    if isinstance(x, bool) or x is None or not isinstance(x, (int, float)):
        return f"<td>{_e('-' if x is None else x)}</td>"
    if isinstance(x, int):
        return _num(x, 0)
    return _num(float(x), 4 if decimals is None else decimals)


def _table_html(t: StudyTable, i: int) -> str:
    from mtsig.report.html import _table

    decimals = list(t.decimals or []) + [None] * len(t.header)
    rows = ["<tr>" + "".join(_cell(x, d) for x, d in zip(r, decimals)) + "</tr>" for r in t.rows]
    return _table([str(h) for h in t.header], rows, "sortable", f"mtsig-study-table-{i}")


def render_study_html(res: StudyResult, command: str | None = None) -> str:
    """The report of a study's result; ``command`` is the command line that reproduces it."""
    from mtsig._version import __version__
    from mtsig.report.html import _e, _settings, figure_or_note, html_page
    from mtsig.report.study_plots import plot_study

    items = [("mtsig", _e(__version__)), *((str(k), _e(v)) for k, v in res.settings.items())]
    design = [(str(k), _e("default" if v is None else v)) for k, v in res.design.items()]
    parts = [f"<h1>mtsig study {_e(res.study)}</h1>", "<h2>Settings</h2>", _settings(items)]
    if design:
        parts += ["<h2>Design</h2>", _settings(design)]
    if command:
        parts += ["<h2>Command</h2>", f"<pre id=mtsig-command>{_e(command)}</pre>"]
    for i, t in enumerate(res.tables):
        parts += [f"<h2>{_e(t.title)}</h2>", _table_html(t, i)]
    parts.append(
        figure_or_note(lambda: plot_study(res), f"The figure of study {res.study} (mtsig study {res.study} --plot)")
    )
    if res.notes:
        parts += ["<h2>Notes</h2>", "<ul>" + "".join(f"<li>{_e(n)}</li>" for n in res.notes) + "</ul>"]
    return html_page(f"mtsig study {res.study}", parts, res.to_dict())
