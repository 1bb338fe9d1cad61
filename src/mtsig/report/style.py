"""The look of every mtsig figure, made for a paper: one column (3.3 in) or two (6.9 in) wide, text of 7 pt or
more, the Okabe-Ito colour-blind-safe palette as matplotlib's colour cycle (``C0``, ``C1`` ... are its colours),
hatches and markers that tell series apart in grey, and text kept as text in SVG and PDF (editable, searchable).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

#: Okabe & Ito's palette (colour-blind safe), and markers and hatches that tell series apart in grey
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
HATCHES = ("", "////", "....", "\\\\\\\\", "xxxx", "----", "oo", "++")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 2)), (0, (8, 2)), (0, (3, 1, 3, 3)))
#: figure widths in inches: one column and the full text width of a two-column paper (ACL, IEEE, ACM)
COLUMN, DOUBLE = 3.3, 6.9
WIDTHS = {"column": COLUMN, "double": DOUBLE}
#: text sizes (pt): nothing smaller than 7 at the printed size
SMALL, NORMAL = 7.0, 7.5
#: ``--caption``'s values other than a file name: drawn in the figure, or left out
CAPTION_MODES = ("figure", "none")
#: saving: text stays text (SVG ``<text>``, PDF TrueType), so that a figure can be edited and searched
TEXT_AS_TEXT = {"svg.fonttype": "none", "pdf.fonttype": 42, "ps.fonttype": 42}


def rc() -> dict[Any, Any]:  # matplotlib types its keys as a Literal of every rc name
    from cycler import cycler

    return {"font.size": NORMAL, "axes.titlesize": NORMAL, "axes.labelsize": NORMAL, "xtick.labelsize": SMALL,
            "ytick.labelsize": SMALL, "legend.fontsize": SMALL, "figure.titlesize": NORMAL,
            "axes.prop_cycle": cycler(color=PALETTE), "axes.spines.top": False, "axes.spines.right": False,
            "axes.linewidth": 0.6, "xtick.major.width": 0.6, "ytick.major.width": 0.6, "lines.linewidth": 1.0,
            "hatch.linewidth": 0.6, "legend.frameon": False, **TEXT_AS_TEXT}  # fmt: skip


def paper_figure(draw: Callable) -> Callable:
    """Run a figure function under the paper style (every artist it creates takes its sizes and colours)."""

    @functools.wraps(draw)
    def wrapped(*args, **kwargs):
        import matplotlib

        with matplotlib.rc_context(rc()):
            return draw(*args, **kwargs)

    return wrapped


def width_inches(width: str | float | None, default: float = COLUMN) -> float:
    """``column``, ``double`` or a width in inches (2-20)."""
    from mtsig.errors import InputError

    if width is None:
        return default
    if isinstance(width, str) and width in WIDTHS:
        return WIDTHS[width]
    try:
        w = float(width)
    except ValueError:
        raise InputError(
            f"--plot-width {width}: give column, double or a width in inches", param="plot_width"
        ) from None
    if not 2.0 <= w <= 20.0:
        raise InputError(f"--plot-width {width}: a figure between 2 and 20 inches wide", param="plot_width")
    return w


#: how each built-in metric is written in a paper
_NAMES = {"bleu": "BLEU", "mbleu": "Modified BLEU", "length": "length ratio", "chrf": "chrF", "chrf++": "chrF++",
          "ter": "TER", "nist": "NIST", "meteor": "METEOR", "depf": "DepF", "seg": "segment score"}  # fmt: skip


def display_name(metric: str) -> str:
    """A metric's name as papers write it (``chrf`` → chrF); names of other metrics as given."""
    return _NAMES.get(metric.lower(), metric)


def wrap_to(text: str, inches: float, per_char: float = 0.055) -> str:
    """``text`` broken into lines that fit ``inches`` (``per_char``: inches a character takes at 7-7.5 pt)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, max(30, int(inches / per_char))))


def direction_text(direction: str) -> str:
    if direction == "higher":
        return "higher is better"
    if direction == "lower":
        return "lower is better"
    return "best " + direction.replace("closest to", "at")


def measurable(fig):
    """``fig`` with a canvas that draws and measures text (a Figure made without pyplot gets Agg's)."""
    if not hasattr(fig.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    return fig


def fit_texts(fig, passes: int = 5) -> None:
    """Wrap the titles and axis labels that are longer than the room they have (a title or an x label: its axes'
    width, a little beyond; a y label: its axes' height; the figure's title: the figure's width), measured on the
    drawn figure, so that nothing runs off a figure at one column's width."""
    dpi = fig.dpi
    fig.set_dpi(300)  # measured as the PNG is drawn: at the screen's 100 dpi, hinted text is narrower
    try:
        _fit_texts(measurable(fig), passes)
    finally:
        fig.set_dpi(dpi)


def _fit_texts(fig, passes: int) -> None:
    import textwrap

    for _ in range(passes):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        room: list = []
        for ax in fig.axes:
            if not ax.get_visible() or not ax.axison:
                continue
            w, h = ax.bbox.width, ax.bbox.height
            cx = (ax.bbox.x0 + ax.bbox.x1) / 2  # a centred title has twice the room to the nearer figure edge
            centred = 2 * min(cx - fig.bbox.x0, fig.bbox.x1 - cx) * 0.98
            room += [(ax.title, min(w * 1.2, centred)), (ax._left_title, w), (ax._right_title, w),
                     (ax.xaxis.label, w), (ax.yaxis.label, h)]  # fmt: skip
        if getattr(fig, "_suptitle", None) is not None:
            room.append((fig._suptitle, fig.bbox.width * 0.98))
        changed = False
        for t, limit in room:
            text = t.get_text()
            if not text.strip() or limit <= 0:
                continue
            e = t.get_window_extent(renderer)
            size = e.height if t is not None and abs(t.get_rotation() - 90) < 1 else e.width
            if size <= limit:
                continue
            flat = " ".join(text.split())
            longest = max(len(x) for x in text.split("\n"))
            chars = max(6, int(longest * limit / size * 0.95))
            wrapped = textwrap.fill(flat, chars, break_long_words=False)
            if wrapped != text:
                t.set_text(wrapped)
                changed = True
        if not changed:
            return


def legend_below(ax, **kwargs):
    """The axes' legend under its x axis (tick labels and label), off the data: placed, drawn, and placed again
    until the layout settles; one column of entries at one column's width, two wider."""
    fig = ax.figure
    kwargs.setdefault("ncol", 1 if fig.get_figwidth() < 5 else 2)
    leg = ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), **kwargs)
    measurable(fig)
    for _ in range(3):
        fig.canvas.draw()
        below = ax.xaxis.get_tightbbox(fig.canvas.get_renderer())
        if below is None:
            break
        y = ax.transAxes.inverted().transform((0, below.y0))[1]
        leg.set_bbox_to_anchor((0.5, y - 0.02), transform=ax.transAxes)
    return leg
