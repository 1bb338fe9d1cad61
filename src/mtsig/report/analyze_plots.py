"""Figures of ``mtsig analyze`` (matplotlib, the ``plot`` extra), one per bucket analysis, made for a paper: one
column (3.3 in) wide by default, each system's number per bucket as a bar (Okabe-Ito colour and a hatch, so that
it prints in grey) with its interval, axis labels that say what is measured and which way is better, and a star
above a bucket where some pair differs significantly after the correction (the caption below says so). With more
than :data:`MAX_BARS` buckets (documents) the buckets become points ordered by the first system's number.

Every bar or point carries its numbers in its SVG id (``mtsig:bucket:<kind>:<metric>:<bucket>:<system>:<score>:
<low>:<high>``), and every star ``mtsig:significant:<kind>:<metric>:<bucket>:<pairs>``, as the other figures do
(:func:`mtsig.report.plots.svg_marks`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mtsig.analysis.result import Analysis, AnalyzeResult
from mtsig.errors import InputError
from mtsig.report.plots import CAPTION, _figure_class, _gid
from mtsig.report.style import (
    CAPTION_MODES,
    COLUMN,
    DOUBLE,
    HATCHES,
    MARKERS,
    direction_text,
    display_name,
    fit_texts,
    paper_figure,
    wrap_to,  # fmt: skip
)

#: more buckets than this are drawn as points (a bar per document cannot be read)
MAX_BARS = 24

#: what each built-in analysis puts its buckets by (the x axis)
_AXIS = {"corpus": "", "ref-length": "reference length (words)", "length-diff": "output − reference length (words)",
         "sentence-score": "segment-level score", "word-frequency": "word frequency in the reference",
         "word-labels": "word label", "labels": "segment label", "documents": "document"}  # fmt: skip


def _y_label(res: AnalyzeResult, a: Analysis) -> str:
    if a.kind in ("length-diff", "sentence-score"):
        return "share of segments (%)"
    if a.kind in ("word-frequency", "word-labels"):
        return "word F-measure (higher is better)"
    return f"{display_name(a.metric)} ({direction_text(a.direction)})"


def _caption(res: AnalyzeResult, a: Analysis) -> str:
    """What the figure draws, and only that: bars with intervals, or (many buckets) points without them; the
    stars where a difference is significant, or that none is."""
    st = res.settings
    n_pairs = len(a.buckets[0].comparisons) if a.buckets else 0
    drawn = (f"bars: {st.confidence:.0%} bootstrap intervals" if len(a.buckets) <= MAX_BARS else
             f"points: each system's number per {_AXIS.get(a.kind) or 'bucket'}, ordered by the first system's "
             "(the intervals are in the table)")  # fmt: skip
    sig = any(c.significant for b in a.buckets for c in b.comparisons)
    stars = (f"*: a significant difference among the {n_pairs} pair(s)" if sig else
             f"no bucket differs significantly for any of the {n_pairs} pair(s)")  # fmt: skip
    return f"{drawn}; {stars} ({st.test}, {st.correction} over buckets and pairs, α = {st.alpha:g}, seed {st.seed})"


def _bars(ax, a: Analysis, systems: tuple[str, ...]) -> None:
    nb, ns = len(a.buckets), len(systems)
    width = 0.8 / ns
    x = np.arange(nb)
    top = 0.0
    for j, name in enumerate(systems):
        labelled = False  # the system's first drawn bar names it in the legend (its first bucket may be empty)
        for i, b in enumerate(a.buckets):
            s = b.systems[name]
            if s.score is None:
                continue
            xi = x[i] - 0.4 + width * (j + 0.5)
            lo, hi = (s.ci.low, s.ci.high) if s.ci else (s.score, s.score)
            bar = ax.bar(xi, s.score, width, color=f"C{j % 8}", hatch=HATCHES[j % len(HATCHES)], edgecolor="white",
                         linewidth=0.3, label=None if labelled else name)  # fmt: skip
            labelled = True
            bar.patches[0].set_gid(_gid("bucket", a.kind, a.metric, b.label, name, s.score, lo, hi))
            if s.ci is not None:
                ax.errorbar(xi, s.score, yerr=[[s.score - lo], [hi - s.score]], fmt="none", ecolor="0.15", lw=0.7,
                            capsize=1.2)  # fmt: skip
            top = max(top, hi)
    for i, b in enumerate(a.buckets):
        _star(ax, a, b, x[i], top * 1.01)
    long = max((len(b.label) for b in a.buckets), default=0) * nb > 40
    ax.set_xticks(x, [b.label for b in a.buckets], rotation=40 if long else 0, ha="right" if long else "center",
                  rotation_mode="anchor")  # fmt: skip
    ax.set_ylim(0, top * 1.1 if top > 0 else 1)
    if nb < 3:  # one or two groups: bars no wider than in a longer analysis
        ax.set_xlim(-1.2, nb + 0.2)


def _points(ax, a: Analysis, systems: tuple[str, ...]) -> None:
    """Many buckets (documents): each system's number per bucket as a point, buckets ordered by the first
    system's; a star above a bucket with a significant difference."""
    first = [b.systems[systems[0]].score for b in a.buckets]
    order = sorted(range(len(a.buckets)), key=lambda i: (first[i] is None, first[i] if first[i] is not None else 0))
    top = -np.inf
    for j, name in enumerate(systems):
        labelled = False
        for k, i in enumerate(order):
            b = a.buckets[i]
            s = b.systems[name]
            if s.score is None:
                continue
            lo, hi = (s.ci.low, s.ci.high) if s.ci else (s.score, s.score)
            dot = ax.plot([k], [s.score], MARKERS[j % len(MARKERS)], color=f"C{j % 8}", ms=2.2, mew=0.4,
                          mfc="none" if j % 2 else f"C{j % 8}", label=None if labelled else name)[0]  # fmt: skip
            labelled = True
            dot.set_gid(_gid("bucket", a.kind, a.metric, b.label, name, s.score, lo, hi))
            top = max(top, s.score)
    for k, i in enumerate(order):
        _star(ax, a, a.buckets[i], k, top)
    ax.set_xticks([])
    ax.set_xlim(-1, len(order))


def _star(ax, a: Analysis, b, x: float, y: float) -> None:
    sig = [c for c in b.comparisons if c.significant]
    if sig:
        pairs = ",".join(f"{c.a}|{c.b}" for c in sig)
        t = ax.text(x, y, "*", ha="center", va="bottom", fontsize=9, color="0.1")
        t.set_gid(_gid("significant", a.kind, a.metric, b.label, pairs))


def _table_metric(res: AnalyzeResult, a: Analysis) -> str | None:
    """The metric of the table an analysis shows (``bleu`` for ``bleu: share of segments (%)``), if any."""
    return next((m for m in res.settings.signatures if a.metric == m or a.metric.startswith(m + ":")), None)


def _axis(ax, res: AnalyzeResult, a: Analysis) -> None:
    many = len(a.buckets) > MAX_BARS
    (_points if many else _bars)(ax, a, res.systems)
    if any(c.significant for b in a.buckets for c in b.comparisons):  # room for the stars inside the axes
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi + 0.15 * (hi - lo))
    what = _AXIS.get(a.kind, a.kind)
    table_metric = _table_metric(res, a)
    if a.kind == "sentence-score" and table_metric:
        what = f"segment-level {display_name(table_metric)}"
    if many:
        what = f"{what}s ({len(a.buckets)}), ordered by {res.systems[0]}'s number"
    ax.set_xlabel(what)
    ax.set_ylabel(_y_label(res, a))
    m = _table_metric(res, a)
    metric = f": {display_name(m)}" if m else ""
    ax.set_title(f"{a.kind}{metric}", loc="left")
    ax.grid(axis="y", color="0.9", lw=0.5)
    ax.set_axisbelow(True)


@paper_figure
def plot_analysis(res: AnalyzeResult, a: Analysis, width: float | None = None):
    """The figure of one bucket analysis, ``width`` inches wide (one column by default), its caption below."""
    Figure = _figure_class()
    if not a.buckets:
        raise InputError(f"nothing to plot: analysis {a.kind} has no buckets")
    width = width or COLUMN
    fig = Figure(figsize=(width, 2.3 + 0.1 * (len(res.systems) > 3)), layout="constrained")
    ax = fig.subplots()
    _axis(ax, res, a)
    ncol = min(len(res.systems), 4 if width < 5 else 8)
    handles, labels = ax.get_legend_handles_labels()
    if handles:  # an analysis with nothing drawn per system (every bucket empty) has no legend to show
        fig.legend(handles, labels, loc="outside upper center", ncol=ncol, handlelength=1.2, columnspacing=0.8)
    _caption_below(fig, _caption(res, a), width)
    fit_texts(fig)
    return fig


def _caption_below(fig, text: str, width: float) -> None:
    fig.supxlabel(wrap_to(text, width, per_char=0.05), fontsize=7, color="0.2", ha="center", gid=CAPTION)


@paper_figure
def plot_analyze(res: AnalyzeResult, width: float | None = None):
    """Every bucket analysis of the result in one figure, a panel each, ``width`` inches wide (two columns by
    default); for a paper, :func:`save_figures` writes one figure per analysis."""
    Figure = _figure_class()
    panels = _panels(res)
    width = width or DOUBLE
    fig = Figure(figsize=(width, 2.2 * len(panels) + 0.4), layout="constrained")
    axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, a in zip(axes, panels):
        _axis(ax, res, a)
    handles, labels = next((h for h in (ax.get_legend_handles_labels() for ax in axes) if h[0]), ([], []))
    if handles:
        fig.legend(handles, labels, loc="outside upper center", ncol=min(len(res.systems), 8))
    _caption_below(fig, _caption(res, panels[0]), width)
    fit_texts(fig)
    return fig


def _panels(res: AnalyzeResult) -> list[Analysis]:
    panels = [a for a in res.analyses if a.buckets]
    if not panels:
        raise InputError("nothing to plot: the analyses run (n-grams, examples) have no buckets")
    return panels


def figure_paths(res: AnalyzeResult, path: str) -> list[tuple[Analysis, str]]:
    """Where :func:`save_figures` writes each analysis' figure: ``path`` with ``-<kind>[-<metric>]`` before its
    extension (``fig.pdf`` → ``fig-ref-length-bleu.pdf``)."""
    import re

    p = Path(path)
    out = []
    for a in _panels(res):
        metric = _table_metric(res, a)
        tag = re.sub(r"[^A-Za-z0-9+_.-]+", "_", a.kind + (f"-{metric}" if metric else ""))
        out.append((a, str(p.with_name(f"{p.stem}-{tag}{p.suffix}"))))
    return out


def save_figures(res: AnalyzeResult, path: str, width: float | None = None, caption: str = "figure") -> list[str]:
    """One figure per bucket analysis (:func:`figure_paths`), each ``width`` inches wide; returns the paths.
    ``caption``: ``figure`` (drawn in it), ``none``, or a file name: each figure's caption written beside it,
    named as the figures are (``CAP-ANALYSIS-METRIC.txt``)."""
    from mtsig.report.plots import save, take_caption, write_caption

    written = []
    to_file = caption not in CAPTION_MODES
    captions = [where for _, where in figure_paths(res, caption)] if to_file else []
    for k, (a, where) in enumerate(figure_paths(res, path)):
        fig = plot_analysis(res, a, width)
        text = take_caption(fig, caption)
        save(fig, where)
        written.append(where)
        if to_file:
            write_caption(captions[k], text)
            written.append(captions[k])
    return written
