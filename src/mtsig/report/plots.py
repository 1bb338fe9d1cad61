"""Figures drawn from result objects (matplotlib, the ``plot`` extra): nothing is recomputed.

- :func:`plot_score`: per metric, each system's score with its confidence interval; for systems with optimizer
  runs, every run's score and the mean with ± s_sel.
- :func:`plot_compare`: against a baseline, a forest plot of Δ with its bootstrap interval per system; all pairs
  of three or more systems, a matrix of adjusted p-values with the sign of Δ and the clusters; one pair, the
  null (or bootstrap) distribution of the first test with the observed Δ and the p-value region.

Every mark that carries a number has an SVG id (matplotlib's ``gid``) ``mtsig:<kind>:<field>:...`` with the
numbers it shows (``repr`` of the floats, names percent-encoded), so that a figure can be checked against the
JSON of the same result by reading the SVG back (:func:`svg_marks`).
"""

from __future__ import annotations

import io
import re
from typing import Any
from urllib.parse import quote, unquote

import numpy as np

from mtsig.errors import InputError
from mtsig.report.style import COLUMN, DOUBLE, SMALL, direction_text, display_name, fit_texts, paper_figure, rc, wrap_to
from mtsig.report.table import format_p
from mtsig.results import CompareResult, ScoreResult

IMAGE_FORMATS = ("png", "svg", "pdf")


def _figure_class():
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'mtsig[plot]'") from None
    return Figure


def _gid(kind: str, *parts: Any) -> str:
    return "mtsig:" + ":".join([kind, *(quote(repr(p) if isinstance(p, float) else str(p), safe="") for p in parts)])


def svg_marks(svg: str) -> list[list[str]]:
    """The numbers a figure carries: ``[kind, field, ...]`` per marked element of an SVG made here."""
    return [[unquote(x) for x in m.split(":")[1:]] for m in re.findall(r'id="(mtsig:[^"]+)"', svg)]


def _title(metric: str, direction: str) -> str:
    return f"{display_name(metric)} ({direction_text(direction)})"


# ------------------------------------------------------------------------------------------------ scores
@paper_figure
def plot_score(res: ScoreResult, width: float | None = None):
    """Each system's score per metric: a point with its interval (``--ci``), or the runs and their mean ± s_sel;
    one column wide for one metric, two for more (``width`` in inches)."""
    Figure = _figure_class()
    metrics, names = res.metrics, [s.name for s in res.systems]
    width = width or (COLUMN if len(metrics) == 1 else DOUBLE)
    stacked = len(metrics) > 1 and width < 5  # at one column's width, one metric per row
    if stacked:
        fig = Figure(figsize=(width, 0.3 + len(metrics) * (0.75 + 0.22 * len(names))), layout="constrained")
        axes = fig.subplots(len(metrics), 1, squeeze=False)[:, 0]
    else:
        fig = Figure(figsize=(width, 0.9 + 0.22 * len(names)), layout="constrained")
        axes = fig.subplots(1, len(metrics), sharey=True, squeeze=False)[0]
    y = np.arange(len(names))[::-1]
    for ax, m in zip(axes, metrics):
        for yi, s in zip(y, res.systems):
            sc = s.scores[m]
            if sc.runs is not None and len(sc.runs.runs) > 1:
                runs = np.asarray(sc.runs.runs)
                ax.plot(
                    runs, np.full(runs.size, yi), "o", ms=3, color="0.6", gid=_gid("runs", m, s.name, *runs.tolist())
                )
                eb = ax.errorbar(sc.runs.mean, yi, xerr=sc.runs.s_sel, fmt="D", color="C0", ms=5, capsize=3)
                eb[0].set_gid(_gid("mean", m, s.name, sc.runs.mean, sc.runs.s_sel))
            elif sc.ci is not None:
                err = [[sc.score - sc.ci.low], [sc.ci.high - sc.score]]
                eb = ax.errorbar(sc.score, yi, xerr=err, fmt="o", color="C0", ms=5, capsize=3)
                eb[0].set_gid(_gid("score", m, s.name, sc.score, sc.ci.low, sc.ci.high))
            else:
                ax.plot([sc.score], [yi], "o", color="C0", ms=5, gid=_gid("score", m, s.name, sc.score))
        ax.set_title(_title(m, res.directions.get(m, "higher")))
        ax.set_xlabel(f"{display_name(m)} score")
        ax.grid(axis="x", color="0.9")
    for ax in axes if stacked else axes[:1]:
        ax.set_yticks(y, names)
    st = res.settings
    method = getattr(st, "ci_method", None)  # a comparison's settings have none: its scores have no interval
    if any(sc.runs is not None for s in res.systems for sc in s.scores.values()):
        fig.suptitle("runs (grey) and their mean ± s_sel", gid=CAPTION)
    elif method is not None:
        note = f"{st.confidence:.0%} {method} bootstrap intervals, {st.n_bootstrap} resamples, seed {st.seed}"
        fig.suptitle(note, gid=CAPTION)
    fit_texts(fig)
    return fig


# ------------------------------------------------------------------------------------------------ comparisons
@paper_figure
def plot_compare(res: CompareResult, width: float | None = None):
    """Forest plot (baseline), p-value matrix (all pairs of 3+ systems) or distribution (one pair); one column
    wide for one metric, two for more (``width`` in inches; the matrix takes the room its names need)."""
    Figure = _figure_class()
    if not res.comparisons:
        raise InputError("nothing to plot: no comparison")
    test = next((t for t in res.settings.tests if t != "aso"), res.settings.tests[0])  # ASO has no p-values
    metrics = res.metrics
    rows = {m: [c for c in res.comparisons if c.metric == m and c.result.test == test] for m in metrics}
    one_pair = all(len(r) == 1 for r in rows.values())
    width = width or (COLUMN if len(metrics) == 1 else DOUBLE)
    if not one_pair and res.settings.baseline is None:
        fig = _matrix_figure(Figure, res, metrics, rows, width)
        note = "\n".join(wrap_to(x, width - 0.1) for x in _compare_note(res, test, "matrix").split("; "))
        fig.text(0.02, 1 - 0.08 / fig.get_figheight(), note, va="top", gid=CAPTION)
        return fig
    if one_pair and any(_distribution(r[0]) is not None for r in rows.values()):
        kind, panel = "distribution", 2.4
    else:
        n = max(len(r) for r in rows.values())
        kind, panel = "forest", 1.1 + 0.24 * n
    stacked = len(metrics) > 1 and width < 5  # at one column's width, one metric per row (as score's figure)
    size = (width, 0.35 + len(metrics) * (panel - 0.2)) if stacked else (width, panel)
    fig = Figure(figsize=size, layout="constrained")
    grid = fig.subplots(len(metrics), 1, squeeze=False) if stacked else fig.subplots(1, len(metrics), squeeze=False)
    axes = grid[:, 0] if stacked else grid[0]
    for ax, m in zip(axes, metrics):
        (_distribution_axis if kind == "distribution" else _forest_axis)(ax, res, m, rows[m])
    same_pairs = len({tuple(c.result.b + c.result.a for c in rows[m]) for m in metrics}) == 1
    if kind == "forest" and not stacked and same_pairs:  # side by side: the pairs named once, at the left
        for ax in axes[1:]:
            ax.tick_params(axis="y", labelleft=False)
    null = all(r[0].result.null_distribution is not None for r in rows.values() if r)
    fig.suptitle(wrap_to(_compare_note(res, test, kind, null), size[0]), gid=CAPTION)
    fit_texts(fig)  # titles and axis labels wrapped to their room (several metrics side by side)
    return fig


#: the smallest and largest side of a p-value matrix's cell (inches): 7-pt names need the smallest
MATRIX_CELL = (0.14, 0.45)


def _matrix_figure(Figure, res: CompareResult, metrics: list[str], rows: dict, width: float):
    """The p-value matrices, laid out by hand (a layout engine measures every tick label again and again, which
    made 16 systems x 3 metrics take seconds): ``width`` inches wide, square cells as large as the width allows
    (within :data:`MATRIX_CELL`), margins from the longest system name, as many metrics side by side as fit, one
    colour bar."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import LogNorm

    names = [s.name for s in res.systems]
    n = len(names)
    label = 0.25 + 0.055 * max(len(x) for x in names)  # inches taken by the tick labels
    top, right = 1.05, 0.85  # the note (four short lines) and the title above; the colour bar
    room = width - right
    cols = max(1, min(len(metrics), int(room // (label + 0.3 + n * MATRIX_CELL[0]))))
    block_w = room / cols
    side = max(n * MATRIX_CELL[0], min(block_w - label - 0.3, n * MATRIX_CELL[1]))
    block_w = max(block_w, label + 0.3 + side)  # many systems: the figure widens rather than cut the matrix off
    nrows = -(-len(metrics) // cols)
    block_h = side + 0.4 + label * 0.87  # rotated labels below each matrix
    W, H = max(width, cols * block_w + right), nrows * block_h + top
    fig = Figure(figsize=(W, H))
    fig._mtsig_caption_room = top - 0.45  # inches the note takes above the titles (freed without the caption)
    norm = LogNorm(vmin=1e-4, vmax=1.0)
    scale = (side / n / MATRIX_CELL[1]) ** 2  # markers as large as the cells
    for k, m in enumerate(metrics):
        r, c = divmod(k, cols)
        x0, y0 = c * block_w + label, H - top - r * block_h - side
        ax = fig.add_axes((x0 / W, y0 / H, side / W, side / H))
        _matrix_axis(ax, res, m, rows[m], norm, scale)
    last = (min(cols, len(metrics)) - 1) * block_w + label + side  # the bar right of the last matrix in a row
    cax = fig.add_axes((min(last + 0.25, W - right + 0.2) / W, (H - top - min(side, H - top - 0.3)) / H, 0.12 / W,
                        min(side, H - top - 0.3) / H))  # fmt: skip
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap="viridis"), cax=cax)
    bar.set_label("adjusted p-value")
    bar.ax.tick_params(labelsize=SMALL)
    bar.ax.minorticks_off()
    return fig


def _compare_note(res: CompareResult, test: str, kind: str, null: bool = True) -> str:
    """The figure's caption (``null``: the one-pair figure draws a null distribution, not a bootstrap one)."""
    st = res.settings
    what = {
        "distribution": "observed Δ (line) against its null distribution (coloured: as extreme or more)"
        if null
        else "observed Δ (line) within its paired-bootstrap distribution",
        "forest": f"Δ = B − A with its {st.confidence:.0%} "
        + (
            "interval (optimizer runs: Δ ± the runs test's threshold, bootstrap and run variance combined)"
            if _run_intervals(res)
            else "paired-bootstrap interval"
        )
        + "; filled: significant",  # fmt: skip
        "matrix": "adjusted p-values; sign: Δ = B − A, B the column system, A the row system; *: significant; "
        "lines: cluster boundaries",
    }[kind]
    return f"{what} ({test}, {st.correction}, α = {st.alpha}, seed {st.seed})"


def _run_intervals(res: CompareResult) -> bool:
    """Whether the intervals of Δ are the runs test's (systems with optimizer runs), not the paired bootstrap's."""
    return any(c.result.delta_ci is not None and c.result.delta_ci.method.startswith("runs") for c in res.comparisons)


def _distribution(c):
    r = c.result
    return r.null_distribution if r.null_distribution is not None else r.bootstrap_distribution


def _distribution_axis(ax, res: CompareResult, m: str, rows) -> None:
    c = rows[0]
    r = c.result
    dist = _distribution(c)
    if dist is None:
        ax.text(0.5, 0.5, f"{r.test}: no resampling distribution", ha="center", va="center", transform=ax.transAxes)
        return
    null = r.null_distribution is not None
    bars = ax.hist(dist, bins=60, color="0.75")[2]
    bars[0].set_gid(_gid("hist", m, r.a, r.b, int(dist.size)))
    if null:  # the region at least as extreme as the observed difference: the p-value's share
        lim = abs(r.delta)
        ext = dist[np.abs(dist) >= lim] if r.alternative == "two-sided" else dist[dist >= r.delta]
        if ext.size:
            ax.hist(ext, bins=np.histogram_bin_edges(dist, 60), color="C3", alpha=0.8)
    ax.axvline(r.delta, color="C0", lw=1.5, gid=_gid("observed", m, r.a, r.b, r.delta, r.p_value))
    label = "Δ under the null (shuffled or centred)" if null else "bootstrap distribution of Δ"
    ax.set_title(f"{display_name(m)}: {r.b} − {r.a} = {r.delta:.3g}, p = {format_p(r.p_value)}")
    ax.set_xlabel(f"{label}, {display_name(m)} points")
    ax.set_ylabel("resamples")


def _forest_axis(ax, res: CompareResult, m: str, rows) -> None:
    y = np.arange(len(rows))[::-1]
    for yi, c in zip(y, rows):
        r = c.result
        ci = r.delta_ci
        low, high = (ci.low, ci.high) if ci is not None else (r.delta, r.delta)
        eb = ax.errorbar(r.delta, yi, xerr=[[r.delta - low], [high - r.delta]], fmt="o", ms=5, capsize=3, color="C0",
                         mfc="C0" if c.significant else "white")  # fmt: skip
        eb[0].set_gid(_gid("delta", m, r.a, r.b, r.delta, low, high, c.p_adjusted, int(c.significant)))
        label = (f"ε_min {r.extra['eps_min']:.3f}" if r.p_value is None and "eps_min" in r.extra
                 else f"p adj. {format_p(c.p_adjusted)}")  # fmt: skip
        ax.annotate(label, (high, yi), xytext=(4, 0), textcoords="offset points", va="center")
    ax.axvline(0, color="0.4", lw=0.8)
    ax.set_yticks(y, [f"{c.result.b} − {c.result.a}" for c in rows])
    ax.set_title(_title(m, res.directions.get(m, "higher")))
    ax.set_xlabel(f"Δ {display_name(m)} (points)")
    ax.grid(axis="x", color="0.9")
    lo, hi = ax.get_xlim()
    ax.set_xlim(lo, hi + 0.4 * (hi - lo))  # room for the p-values right of the intervals


def _matrix_axis(ax, res: CompareResult, m: str, rows, norm, scale: float = 1.0) -> None:
    score = {c.result.a: c.result.score_a for c in rows} | {c.result.b: c.result.score_b for c in rows}
    direction = res.directions.get(m, "higher")
    sign = -1.0 if direction == "lower" else 1.0
    if direction.startswith("closest"):
        target = float(direction.rsplit(" ", 1)[-1])
        order = sorted(score, key=lambda s: abs(score[s] - target))
    else:
        order = sorted(score, key=lambda s: -sign * score[s])
    pos = {s: i for i, s in enumerate(order)}
    n = len(order)
    P = np.full((n, n), np.nan)
    for c in rows:
        r = c.result
        i, j = pos[r.a], pos[r.b]
        P[i, j] = P[j, i] = max(c.p_adjusted, 1e-6) if c.p_adjusted is not None else np.nan
    ax.imshow(P, cmap="viridis", norm=norm)
    _matrix_marks(ax, m, rows, pos, P, scale)
    bounds: list[int] = [int(b) for b in np.cumsum([len(cl) for cl in res.clusters.get(m) or []])[:-1]]
    for b in bounds:
        ax.axhline(b - 0.5, color="C3", lw=1.5)
        ax.axvline(b - 0.5, color="C3", lw=1.5)
    ax.set_xticks(range(n), order, rotation=60, ha="right")
    ax.set_yticks(range(n), order)
    ax.set_title(_title(m, direction) + ", best first")


def _matrix_marks(ax, m: str, rows, pos: dict[str, int], P: np.ndarray, scale: float = 1.0) -> None:
    """Per cell the sign of Δ (column system minus row system: + or −) and a star when significant, drawn as
    markers (one collection each: text per cell is slow to lay out); per pair an invisible square with its
    numbers in its id."""
    from matplotlib.patches import Rectangle

    cells: dict[str, list] = {"plus": [], "minus": [], "equal": [], "star": []}
    for c in rows:
        r = c.result
        i, j = pos[r.a], pos[r.b]
        for row, col, d in ((i, j, r.delta), (j, i, -r.delta)):
            cells["plus" if d > 0 else "minus" if d < 0 else "equal"].append((col, row, P[row, col] < 0.01))
            if c.significant:
                cells["star"].append((col + 0.3, row - 0.28, P[row, col] < 0.01))
        box = Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=0, transform=ax.transData)
        box.set_gid(_gid("pair", m, r.a, r.b, r.delta, c.p_adjusted, int(c.significant)))
        ax.add_artist(box)  # not add_patch: the limits are the image's
    style = {"plus": ("+", 40), "minus": ("_", 40), "equal": ("$=$", 30), "star": ("*", 14)}
    for kind, pts in cells.items():
        if pts:
            x, y, dark = (np.array(v) for v in zip(*pts))
            marker, size = style[kind]
            ax.scatter(x, y, s=size * scale, marker=marker, c=np.where(dark, "white", "black"),
                       linewidths=1.2 * min(1.0, scale**0.5))  # fmt: skip


# ------------------------------------------------------------------------------------------------ captions
#: the id of a figure's caption text (what ``--caption`` keeps, leaves out or writes to a file)
CAPTION = "caption"


def take_caption(fig, mode: str = "figure") -> str:
    """A figure's caption (its texts with the :data:`CAPTION` id, one per line); ``mode`` ``figure`` leaves it in
    the figure, anything else takes it out (the room it took freed), for a paper that sets its own caption."""
    from matplotlib.text import Text

    texts = [t for t in fig.findobj(Text) if t.get_gid() == CAPTION and t.get_text().strip()]
    caption = "\n".join(" ".join(t.get_text().split()) for t in texts)
    if mode != "figure":
        for t in texts:
            t.set_visible(False)
        room = getattr(fig, "_mtsig_caption_room", 0.0)
        if room and texts:  # a figure laid out by hand: shorter by the caption's room, the axes where they were
            w, h = fig.get_size_inches()
            boxes = [ax.get_position().bounds for ax in fig.axes]
            fig.set_size_inches(w, h - room)
            for ax, (x0, y0, bw, bh) in zip(fig.axes, boxes):
                ax.set_position((x0, y0 * h / (h - room), bw, bh * h / (h - room)))
    return caption


def write_caption(path: str, text: str) -> None:
    """A figure's caption as a text file (one line per caption line)."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    except OSError as exc:
        raise InputError(f"--caption {path}: cannot write it ({exc.strerror or exc})", param="caption") from None


# ------------------------------------------------------------------------------------------------ output
def check_path(path: str) -> str:
    """The format a figure file's extension names; an unknown one, or no matplotlib, is an error now, before
    any work is done."""
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if ext not in IMAGE_FORMATS:
        raise InputError(f"--plot {path}: the file must end in .png, .svg or .pdf", param="plot")
    _figure_class()
    return ext


def save(fig, path: str) -> None:
    """Write ``fig`` to ``path`` in the format its extension names (no dates inside: same result, same bytes)."""
    ext = check_path(path)
    import matplotlib

    try:
        # the paper style again while drawing: colours named C0, C1 ... are looked up then (the Okabe-Ito palette);
        # text stays text (editable)
        with matplotlib.rc_context({**rc(), "svg.hashsalt": "mtsig"}):
            fig.savefig(path, format=ext, dpi=300 if ext == "png" else 150, metadata=_metadata(ext))
    except OSError as exc:
        raise InputError(f"--plot {path}: cannot write ({exc.strerror or exc})", param="plot") from None


def _metadata(ext: str) -> dict:
    """No dates in the files: the same result gives the same bytes."""
    return {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}, "png": {}}[ext]


def svg_text(fig) -> str:
    """The figure as an SVG document (for the HTML report)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({**rc(), "svg.hashsalt": "mtsig"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()
