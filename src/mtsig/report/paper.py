"""Figures of ``mtsig human`` and ``mtsig meta`` results for a paper (matplotlib, the ``plot`` extra): one column
wide (3.3 in) by default, 7-pt text at least, the Okabe-Ito colour-blind-safe palette with distinct markers (they
print in grey), intervals, clusters drawn as alternating bands, and editable text in SVG and PDF."""

from __future__ import annotations

from mtsig.report.plots import _figure_class, _gid
from mtsig.report.style import COLUMN, MARKERS, PALETTE, display_name, fit_texts, rc


def _ranked_dots(names, values, cis, clusters, text: dict, width: float):
    """``text``: ``xlabel``, ``title``, ``kind`` (the SVG ids' prefix) and optionally ``labels`` (the y ticks)."""
    import matplotlib

    xlabel, title, kind, labels = text["xlabel"], text["title"], text["kind"], text.get("labels")

    Figure = _figure_class()
    with matplotlib.rc_context(rc()):
        fig = Figure(figsize=(width, 0.55 + 0.19 * len(names)), layout="constrained")
        ax = fig.subplots()
        cluster_of = {n: k for k, c in enumerate(clusters) for n in c}
        ys = list(range(len(names)))[::-1]
        for k, c in enumerate(clusters):  # bands: one per cluster
            rows = [ys[names.index(n)] for n in c if n in names]
            if rows and k % 2 == 0:
                ax.axhspan(min(rows) - 0.5, max(rows) + 0.5, color="#e8e8e8", lw=0, zorder=0)
        for n, v, ci, y in zip(names, values, cis, ys):
            k = cluster_of.get(n, 0)
            color, marker = PALETTE[k % len(PALETTE)], MARKERS[k % len(MARKERS)]
            if ci is not None:
                bar = ax.errorbar(v, y, xerr=[[v - ci[0]], [ci[1] - v]], fmt="none", ecolor=color, elinewidth=1.0,
                                  capsize=2)  # fmt: skip
                bar.lines[2][0].set_gid(_gid(kind, "ci", n, float(ci[0]), float(ci[1])))
            dot = ax.plot([v], [y], marker=marker, color=color, ms=4.5, ls="none")[0]
            dot.set_gid(_gid(kind, "value", n, float(v), k + 1))
        ax.set_yticks(ys, labels or names)
        ax.set_xlabel(xlabel)
        ax.set_title(title, loc="left", fontsize=7.5, gid="caption")
        ax.grid(axis="x", color="#cccccc", lw=0.4)
        ax.set_ylim(-0.6, len(names) - 0.4)
        fit_texts(fig)
    return fig


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
