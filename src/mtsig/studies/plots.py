"""The figure of each study, drawn from the numbers its result carries (``StudyResult.data``)."""

from __future__ import annotations

import numpy as np

from mtsig.report.plots import _figure_class
from mtsig.studies.result import StudyResult


def _sampling(fig, res: StudyResult) -> None:
    ax1, ax2 = fig.subplots(1, 2)
    for k, (name, v) in enumerate(res.data["scores"].items()):
        x = np.arange(len(v["blocks"]))
        ax1.plot(x, v["blocks"], "o", color=f"C{k}", ms=4, label=f"{name}: blocks")
        ax1.plot(x, v["broad"], "x", color=f"C{k}", ms=5, label=f"{name}: broad")
        ax1.axhline(v["full"], color=f"C{k}", lw=0.8, ls="--")
    ax1.set(xlabel="sample", ylabel=res.settings["metric"], title="per-sample scores (dashed: full set)")
    ax1.legend(fontsize=6, ncol=2)
    for k, v in enumerate(res.data["differences"].values()):
        ax2.plot([k - 0.15] * len(v["blocks"]), v["blocks"], "o", color="C0", ms=3, label="blocks" if k == 0 else None)
        ax2.plot([k + 0.15] * len(v["broad"]), v["broad"], "x", color="C1", ms=4, label="broad" if k == 0 else None)
        ax2.plot([k - 0.3, k + 0.3], [v["full"]] * 2, color="k", lw=1)
    pairs = list(res.data["differences"])
    ax2.set_xticks(range(len(pairs)), pairs, rotation=30, ha="right", fontsize=6)
    ax2.axhline(0, color="grey", lw=0.6)
    ax2.set(ylabel="Δ (B - A)", title="per-sample differences (bar: full set)")
    ax2.legend(fontsize=7)


def _coverage(fig, res: StudyResult) -> None:
    axes = fig.subplots(1, len(res.data["full"]), sharey=False, squeeze=False)[0]
    for ax, (name, full) in zip(axes, res.data["full"].items()):
        b = np.asarray(res.data["percentile_bounds"][name])
        hit = (b[:, 0] <= full) & (full <= b[:, 1])
        x = np.arange(len(b))
        ax.vlines(x[hit], b[hit, 0], b[hit, 1], color="C0", lw=0.8)
        ax.vlines(x[~hit], b[~hit, 0], b[~hit, 1], color="C3", lw=1.2)
        ax.axhline(full, color="k", lw=0.8)
        ax.set_title(f"{name}: {int((~hit).sum())} of {len(b)} miss", fontsize=8)
        ax.set_xlabel("sample", fontsize=7)
    axes[0].set_ylabel(f"{res.settings['metric']} (percentile intervals)")


def _testsize(fig, res: StudyResult) -> None:
    ax = fig.subplots()
    for k, (pair, pts) in enumerate(res.data["curves"].items()):
        p = np.asarray(pts, dtype=float)
        ax.plot(p[:, 0], p[:, 1], "o-", color=f"C{k % 10}", label=pair)
        if p[:, 2].any():
            ax.plot(p[:, 0], p[:, 2], "x:", color=f"C{k % 10}")
    ax.set(xlabel="sample size (segments)", ylabel="conclusions %", ylim=(-2, 102),
           title=f"{res.settings['test']} at α = {res.settings['alpha']:g}: correct (o) and wrong (x)")  # fmt: skip
    ax.legend(fontsize=6)


def _levels(fig, res: StudyResult) -> None:
    ax = fig.subplots()
    bins = res.data["bins"]
    labels = [b[0] for b in bins]
    correct = [b[2] if b[2] is not None else 0.0 for b in bins]
    ax.bar(range(len(bins)), correct, color="C0")
    for k, b in enumerate(bins):
        ax.text(k, correct[k] + 1, f"n={b[1]}", ha="center", fontsize=6)
    ax.set_xticks(range(len(bins)), labels, rotation=30, ha="right", fontsize=7)
    ax.set(ylabel="correct conclusions %", ylim=(0, 110), title="conclusions by the significance level they reach")


_DRAW = {"sampling": _sampling, "coverage": _coverage, "testsize": _testsize, "levels": _levels}


def plot_study(res: StudyResult):
    Figure = _figure_class()
    wide = res.study in ("sampling", "coverage")
    fig = Figure(figsize=(11 if wide else 7, 4.2), layout="constrained")
    _DRAW[res.study](fig, res)
    return fig
