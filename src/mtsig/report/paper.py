"""Figures of ``mtsig human`` and ``mtsig meta`` results for a paper (matplotlib, the ``plot`` extra): one column
wide (3.3 in) by default, 7-pt text at least, the Okabe-Ito colour-blind-safe palette with distinct markers (they
print in grey), intervals, clusters drawn as alternating bands, and editable text in SVG and PDF."""

from __future__ import annotations

from mtsig.report.plots import _figure_class, _gid
from mtsig.report.style import COLUMN, MARKERS, PALETTE, display_name, fit_texts, rc


def outliers(values, cis) -> tuple[list[int], str] | None:
    """The systems so far from the rest that, on one axis, they would squeeze the others into a sliver: those beyond
    the widest gap between sorted values when that gap is over twice the rest's span (intervals included), at most
    a quarter of the systems, all on one side; with the side (``low`` or ``high``). None when there are none."""
    import math

    pts = [(v, i) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    if len(pts) < 4:
        return None
    pts.sort()
    gaps = [(pts[k + 1][0] - pts[k][0], k) for k in range(len(pts) - 1)]
    gap, k = max(gaps)
    low, high = pts[: k + 1], pts[k + 1 :]
    few, rest, side = (low, high, "low") if len(low) <= len(high) else (high, low, "high")
    if len(few) > max(1, len(pts) // 4):
        return None

    def span(group):
        lo = min(min(v, (cis[i] or (v, v))[0]) for v, i in group)
        hi = max(max(v, (cis[i] or (v, v))[1]) for v, i in group)
        return lo, hi

    r_lo, r_hi = span(rest)
    f_lo, f_hi = span(few)
    between = f_lo - r_hi if side == "high" else r_lo - f_hi
    if between <= 0 or between <= 2 * max(r_hi - r_lo, 1e-12):
        return None
    return [i for _, i in few], side


def _ranked_dots(names, values, cis, clusters, text: dict, width: float):
    """``text``: ``xlabel``, ``title``, ``kind`` (the SVG ids' prefix) and optionally ``labels`` (the y ticks). A
    system far from the rest (:func:`outliers`) gets its own stretch of a broken x axis, and the title names it."""
    import matplotlib

    xlabel, title, kind, labels = text["xlabel"], text["title"], text["kind"], text.get("labels")
    far = outliers(values, cis)

    Figure = _figure_class()
    with matplotlib.rc_context(rc()):
        fig = Figure(figsize=(width, 0.55 + 0.19 * len(names)), layout="constrained")
        if far is None:
            axes = [fig.subplots()]
        else:
            ratios = (1, 4) if far[1] == "low" else (4, 1)
            axes = list(fig.subplots(1, 2, sharey=True, width_ratios=ratios, gridspec_kw={"wspace": 0.05}))
        cluster_of = {n: k for k, c in enumerate(clusters) for n in c}
        ys = list(range(len(names)))[::-1]
        for ax in axes:
            _dots(ax, (names, values, cis, ys), clusters, cluster_of, kind)
        ax = axes[0]
        ax.set_yticks(ys, labels or names)
        if far is not None:  # the title over both parts of the axis (on one part, it would squeeze that part)
            title = f"{title}; x axis broken: {', '.join(names[i] for i in far[0])} far from the rest"
            _break(axes, values, cis, far)
            fig.supxlabel(xlabel, fontsize=7.5)
            fig.suptitle(title, x=0.02, ha="left", fontsize=7.5, gid="caption")
        else:
            ax.set_xlabel(xlabel)
            ax.set_title(title, loc="left", fontsize=7.5, gid="caption")
        fit_texts(fig)
    return fig


def _dots(ax, rows_of: tuple, clusters, cluster_of, kind) -> None:
    names, values, cis, ys = rows_of
    for k, c in enumerate(clusters):  # bands: one per cluster
        rows = [ys[names.index(n)] for n in c if n in names]
        if rows and k % 2 == 0:
            ax.axhspan(min(rows) - 0.5, max(rows) + 0.5, color="#e8e8e8", lw=0, zorder=0)
    for n, v, ci, y in zip(names, values, cis, ys):
        k = cluster_of.get(n, 0)
        color, marker = PALETTE[k % len(PALETTE)], MARKERS[k % len(MARKERS)]
        if ci is not None:
            # drawn from its ends (a percentile interval can leave out its own estimate: no negative half-width)
            mid, half = (ci[0] + ci[1]) / 2, (ci[1] - ci[0]) / 2
            bar = ax.errorbar(mid, y, xerr=[[half], [half]], fmt="none", ecolor=color, elinewidth=1.0, capsize=2)
            bar.lines[2][0].set_gid(_gid(kind, "ci", n, float(ci[0]), float(ci[1])))
        dot = ax.plot([v], [y], marker=marker, color=color, ms=4.5, ls="none")[0]
        dot.set_gid(_gid(kind, "value", n, float(v), k + 1))
    ax.grid(axis="x", color="#cccccc", lw=0.4)
    ax.set_ylim(-0.6, len(names) - 0.4)


def _break(axes, values, cis, far) -> None:
    """Each part of the broken axis limited to its systems (intervals included), the spines between them hidden,
    and the break marked with two slanted strokes on each side."""
    idx, side = far
    few = set(idx)

    def limits(keep):
        lo = min(min(values[i], (cis[i] or (values[i],) * 2)[0]) for i in keep)
        hi = max(max(values[i], (cis[i] or (values[i],) * 2)[1]) for i in keep)
        pad = 0.08 * (hi - lo) if hi > lo else max(abs(hi), 1.0) * 0.02
        return lo - pad, hi + pad

    rest = [i for i, v in enumerate(values) if i not in few and v is not None]
    out_ax, main_ax = (axes[0], axes[1]) if side == "low" else (axes[1], axes[0])
    from matplotlib.ticker import MaxNLocator

    main_ax.set_xlim(*limits(rest))
    out_ax.set_xlim(*limits(idx))
    main_ax.xaxis.set_major_locator(MaxNLocator(4))
    out_ax.set_xticks([values[i] for i in idx][:2])  # the outliers' own values: no crowded ticks on the short part
    left, right = axes
    left.spines["right"].set_visible(False)
    right.spines["left"].set_visible(False)
    right.tick_params(axis="y", left=False)
    marks = {"marker": [(-1, -1), (1, 1)], "markersize": 6, "linestyle": "none", "color": "k", "mec": "k",
             "mew": 0.8, "clip_on": False}  # fmt: skip
    left.plot([1], [0], transform=left.transAxes, **marks)
    right.plot([0], [0], transform=right.transAxes, **marks)


def plot_human(res, width: float = COLUMN):
    """Systems in rank order, each score with its interval; clusters as bands (and colour + marker)."""
    names = [s.name for s in res.systems]
    conf = res.settings.get("confidence", 0.95)
    label = "mean z-score (higher is better)" if res.settings.get("input_format", "").startswith("wmt-da") \
        else "human score (higher is better)"  # fmt: skip
    title = f"{res.protocol} ranking: mean with its {conf:.0%} interval; rank range in brackets"
    labels = [f"{s.name} ({s.rank_range[0]}" + (f"–{s.rank_range[1]})" if s.rank_range[1] != s.rank_range[0] else ")")
              for s in res.systems]  # fmt: skip
    return _ranked_dots(names, [s.score for s in res.systems], [s.ci for s in res.systems],
                        [list(c) for c in res.clusters],
                        {"xlabel": label, "title": title, "kind": "human", "labels": labels}, width)  # fmt: skip


def plot_meta(res, width: float = COLUMN):
    """Metrics ranked by the compared statistic with its interval; corrected clusters as bands."""
    stat = res.statistic
    names = [m.name for m in res.metrics]
    values = [m.values.get(stat) if m.values.get(stat) is not None else float("nan") for m in res.metrics]
    cis = [m.ci.get(stat) for m in res.metrics]
    avg = f", {res.settings['average_by']} averaging" if res.level == "segment" else ""
    label = {"pearson": "Pearson's r", "kendall": "Kendall's tau-b", "acc23": "acc23 (tie-calibrated)",
             "spearman": "Spearman's rho", "pairwise_accuracy": "pairwise accuracy"}.get(stat, stat)  # fmt: skip
    title = f"{res.level} level{avg}, {res.settings['confidence']:.0%} CIs"
    negated = set(res.settings.get("negated") or ())
    labels = [display_name(n) + (" (negated)" if n in negated else "") for n in names]  # TER, chrF as papers write
    return _ranked_dots(names, values, cis, [list(c) for c in res.clusters_corrected],
                        {"xlabel": f"{label} with humans", "title": title, "kind": "meta", "labels": labels},
                        width)  # fmt: skip
