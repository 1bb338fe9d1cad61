"""``mtsig thresholds``: the metric difference each metric needs for humans to agree with it at 50-95% (Kocmi et
al. 2024)."""

from __future__ import annotations

import argparse

from mtsig.commands.common import output_flags, plot_width, save_plot


def add_args(p: argparse.ArgumentParser) -> None:
    from mtsig.fits import ACCURACIES

    p.add_argument("-m", "--metrics", nargs="+", default=None, metavar="METRIC",
                   help="metrics (mtsig's names, score-file names or the paper's; default: every fit)")  # fmt: skip
    p.add_argument("--accuracy", nargs="+", type=float, default=list(ACCURACIES), metavar="PCT",
                   help="accuracies in %% (default: 50 55 ... 95)")  # fmt: skip
    p.add_argument("--fits", default=None, metavar="FILE", help="a thresholds.json of other fits ({metric: [a, b]})")
    output_flags(
        p,
        plot="also draw each fit's accuracy(Δ) curve, its thresholds marked (.png, .svg, .pdf)",
        html="also write a self-contained HTML report (the table, the curves, the fits, the command)",
    )


def run(a: argparse.Namespace, table, prog):
    from mtsig.thresholds import thresholds

    return thresholds(a.metrics, a.accuracy, a.fits)


def figure(res, a: argparse.Namespace) -> None:
    from mtsig.report.thresholds import plot_thresholds

    save_plot(plot_thresholds(res, plot_width(a)), a)


def report(res, command: str) -> str:
    from mtsig.report.thresholds import render_thresholds_html

    return render_thresholds_html(res, command)
