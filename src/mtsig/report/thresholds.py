"""``mtsig thresholds`` shown: the table in every format, the fits' curves as a figure, the HTML report.
Registered, by the result type's name, when a :class:`~mtsig.thresholds.ThresholdsResult` is first rendered."""

from __future__ import annotations

import json
import math
from typing import Any

from mtsig.report.render import register_format
from mtsig.report.table import Table, TextOut, csv_text, latex, markdown

#: a :class:`~mtsig.thresholds.ThresholdsResult`
ThresholdsResult = Any

TITLE = "metric deltas and human agreement"


def note(res: ThresholdsResult) -> str:
    """What the numbers are, and each fit's scale."""
    scales = "; ".join(f"{f} {'as printed' if s == 1 else 'x 100'}" for f, s in res.scales().items())
    return ("Δ a metric needs before that share of human judgments agrees with it (Kocmi et al. 2024, accuracy(Δ) = "
            "a / (1 + exp(-b Δ))); - at or above the fit's ceiling a, or at or below a/2 (its accuracy at Δ = 0: no "
            f"positive difference gives it). Scale: {scales}")  # fmt: skip


def render_thresholds(res: ThresholdsResult, fmt: str = "text", width: int | None = None) -> str:
    if fmt == "json":  # -w rounds the deltas themselves
        d = res.to_dict()
        if res.decimals is not None:
            d["thresholds"] = {f: {k: None if x is None else round(x, res.decimals) for k, x in v.items()}
                               for f, v in d["thresholds"].items()}  # fmt: skip
        return json.dumps(d, indent=1) + "\n"
    head, rows = res.cells()
    if fmt == "csv":
        return csv_text(head, rows)
    if fmt == "markdown":
        return "\n".join(markdown(Table(head, rows))) + f"\n\n{note(res)}\n"
    if fmt == "latex":
        return latex(Table(head, rows), "l" + "r" * (len(head) - 1), note(res).replace("%", "\\%"))
    out = TextOut(width)
    out.table(Table(head, rows, ["left"] + ["right"] * (len(head) - 1), title=TITLE))
    out.line(note(res))
    return out.getvalue()


for _fmt in ("text", "json", "csv", "markdown", "latex"):
    register_format(_fmt, "mtsig.thresholds.ThresholdsResult", render_thresholds)


def plot_thresholds(res: ThresholdsResult, width: float | None = None):
    """Each fit's accuracy(Δ) = a / (1 + exp(-b Δ)), one panel per metric (their Δ are on different scales), the
    table's thresholds marked on it and the ceiling a dotted."""
    import matplotlib

    from mtsig.report.plots import _figure_class
    from mtsig.report.style import COLUMN, DOUBLE, PALETTE, display_name, fit_texts, rc

    fits = list(res.thresholds)
    cols = min(len(fits), 3)
    rows = math.ceil(len(fits) / cols)
    width = width or (COLUMN if cols == 1 else DOUBLE)
    Figure = _figure_class()
    with matplotlib.rc_context(rc()):
        fig = Figure(figsize=(width, 0.4 + 1.75 * rows), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False)
        for i, ax in enumerate(axes.flat):
            if i >= len(fits):
                ax.set_visible(False)
                continue
            _panel(ax, res, fits[i], PALETTE[0])
            ax.set_title(display_name(fits[i]), fontsize=7.5)
        fig.supxlabel("metric difference Δ (the fit's scale)", fontsize=7.5)
        fig.supylabel("humans agreeing (%)", fontsize=7.5)
        fig.suptitle("Kocmi et al. 2024's fits: the share of human judgments agreeing with a metric difference "
                     "(dots: the thresholds; dotted: the fit's ceiling a)", x=0.02, ha="left", fontsize=7.5,
                     gid="caption")  # fmt: skip
        fit_texts(fig)
    return fig


def _panel(ax: Any, res: ThresholdsResult, fit: str, colour: str) -> None:
    a, b = res.fits[fit]
    marked = [(float(k), x) for k, x in res.thresholds[fit].items() if x is not None]
    top = 1.15 * max((x for _, x in marked), default=4.0 / b)
    xs = [top * i / 200 for i in range(201)]
    ax.plot(xs, [a / (1 + math.exp(-b * x)) for x in xs], color=colour, lw=1.2)
    ax.axhline(a, color="#777777", lw=0.6, ls=":")
    for acc, x in marked:
        ax.plot([x], [acc], marker="o", ms=3, color=colour, zorder=3)
    ax.set_xlim(0, top)
    ax.set_ylim(min(45.0, a / 2), 100)


def table_html(res: ThresholdsResult) -> str:
    """The table, sortable, each cell with its full-precision value."""
    from mtsig.report.html import _e, _num, _table

    d, accs = res.shown_decimals, res.accuracies
    rows = [f"<tr><td>{_e(f)}</td>" + "".join(_num(v[k], d) for k in accs) + "</tr>" for f, v in res.thresholds.items()]
    return _table(res.cells()[0], rows, "sortable", "mtsig-thresholds")


def render_thresholds_html(res: ThresholdsResult, command: str | None = None) -> str:
    """The report: the fits, the command, the table (sortable, full-precision cells), the figure and the note."""
    from mtsig._version import __version__
    from mtsig.report.html import _e, _settings, figure_or_note, html_page

    items = [("mtsig", _e(__version__)), *((f"fit {f}", _e(f"a = {a:.4g}%, b = {b:.4g}")) for f, (a, b) in
                                           res.fits.items())]  # fmt: skip
    items += [(f"metric {m}", _e(f)) for m, f in res.names.items() if m != f]
    parts = ["<h1>mtsig thresholds</h1>", "<h2>Settings</h2>", _settings(items)]
    if command:
        parts += ["<h2>Command</h2>", f"<pre id=mtsig-command>{_e(command)}</pre>"]
    parts += [f"<h2>{_e(TITLE)}</h2>", table_html(res),
              figure_or_note(lambda: plot_thresholds(res), "accuracy(Δ) of each fit, its thresholds marked"),
              f'<p class="note">{_e(note(res))}</p>']  # fmt: skip
    return html_page("mtsig thresholds", parts, res.to_dict())
