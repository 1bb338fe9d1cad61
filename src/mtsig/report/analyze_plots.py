"""Figures of ``mtsig analyze`` (matplotlib, the ``plot`` extra): per bucket analysis, each system's number per
bucket as a bar with its interval; a bucket where some pair differs significantly (after the correction) is
marked with ``*`` above it (against a baseline: above the system that differs). Every bar carries its numbers in
its SVG id (``mtsig:bucket:<kind>:<metric>:<bucket>:<system>:<score>:<low>:<high>``), and every mark
``mtsig:significant:<kind>:<metric>:<bucket>:<pairs>``, as the other figures do (:func:`mtsig.report.plots.svg_marks`).
"""

from __future__ import annotations

import numpy as np

from mtsig.analysis.result import Analysis, AnalyzeResult
from mtsig.errors import InputError
from mtsig.report.plots import _figure_class, _gid


def _bars(ax, a: Analysis, systems: tuple[str, ...]) -> None:
    nb, ns = len(a.buckets), len(systems)
    width = 0.8 / ns
    x = np.arange(nb)
    top = 0.0
    for j, name in enumerate(systems):
        for i, b in enumerate(a.buckets):
            s = b.systems[name]
            if s.score is None:
                continue
            xi = x[i] - 0.4 + width * (j + 0.5)
            lo, hi = (s.ci.low, s.ci.high) if s.ci else (s.score, s.score)
            bar = ax.bar(xi, s.score, width, color=f"C{j % 10}", label=name if i == 0 else None)
            bar.patches[0].set_gid(_gid("bucket", a.kind, a.metric, b.label, name, s.score, lo, hi))
            if s.ci is not None:
                ax.errorbar(xi, s.score, yerr=[[s.score - lo], [hi - s.score]], fmt="none", ecolor="0.25", lw=0.8,
                            capsize=1.5)  # fmt: skip
            top = max(top, hi)
    for i, b in enumerate(a.buckets):
        sig = [c for c in b.comparisons if c.significant]
        if sig:
            pairs = ",".join(f"{c.a}|{c.b}" for c in sig)
            t = ax.text(x[i], top * 1.02, "*", ha="center", va="bottom", fontsize=12, color="C3")
            t.set_gid(_gid("significant", a.kind, a.metric, b.label, pairs))
    ax.set_xticks(x, [b.label for b in a.buckets], rotation=45 if nb > 8 else 0, ha="right" if nb > 8 else "center",
                  fontsize=7 if nb > 20 else 8)  # fmt: skip
    ax.set_ylim(0, top * 1.12 if top > 0 else 1)
    n_pairs = len(a.buckets[0].comparisons) if a.buckets else 0
    ax.set_title(f"{a.kind}: {a.metric} (* a significant difference among {n_pairs} pair(s))", fontsize=9)
    ax.grid(axis="y", color="0.9")
    ax.tick_params(axis="y", labelsize=8)


def plot_analysis(res: AnalyzeResult, a: Analysis):
    """One bucket analysis."""
    Figure = _figure_class()
    fig = Figure(figsize=(min(max(6.0, 0.45 * len(a.buckets) * max(1, len(res.systems) / 3)), 24.0), 3.4),
                 layout="constrained")  # fmt: skip
    ax = fig.subplots()
    _bars(ax, a, res.systems)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def plot_analyze(res: AnalyzeResult):
    """Every bucket analysis of the result, one panel each."""
    Figure = _figure_class()
    panels = [a for a in res.analyses if a.buckets]
    if not panels:
        raise InputError("nothing to plot: the analyses run (n-grams, examples) have no buckets")
    widest = max(len(a.buckets) for a in panels)
    fig = Figure(figsize=(min(max(7.0, 0.45 * widest * max(1, len(res.systems) / 3)), 24.0), 3.0 * len(panels)),
                 layout="constrained")  # fmt: skip
    axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, a in zip(axes, panels):
        _bars(ax, a, res.systems)
    axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig
