"""``mtsig compare``: paired significance tests between systems."""

from __future__ import annotations

import argparse
import os
import sys

from mtsig.commands.common import input_flags, output_flags, plot_width, save_plot


def add_args(p: argparse.ArgumentParser) -> None:
    from mtsig.declare import add_flags
    from mtsig.engine import CompareOptions

    input_flags(p)
    groups = add_flags(p, CompareOptions)
    from mtsig.marks import off

    off(groups["tests"].add_argument("--rank-dir", metavar="DIR", default=None,
                                     help="with --baseline: write, per system and metric, the segments ranked by "
                                     "improvement of its median run over the baseline's median run (TSV)"),
        "it writes a folder of files on the machine that runs it; its rankings are the command line's")  # fmt: skip
    output_flags(p)


def check(a: argparse.Namespace) -> None:
    from mtsig.errors import InputError

    if a.rank_dir and os.path.exists(a.rank_dir) and not os.path.isdir(a.rank_dir):
        raise InputError(f"--rank-dir {a.rank_dir}: exists and is not a folder")
    if a.rank_dir and not a.baseline:
        raise InputError("--rank-dir needs --baseline (segments are ranked against the baseline)")


def run(a: argparse.Namespace, table, prog):
    from mtsig.api import compare
    from mtsig.declare import given
    from mtsig.engine import CompareOptions

    keep = bool(a.plot or a.html)  # the one-pair figure shows the null distribution, the report systems' intervals
    settings = given(CompareOptions, a, skip=("tests",))
    settings.update(test=tuple(a.tests or ("ar",)), keep_distributions=keep, system_ci=keep or a.system_ci)
    return compare(stats=table, **settings, progress=prog)


def figure(res, a: argparse.Namespace) -> None:
    from mtsig.report.plots import plot_compare

    save_plot(plot_compare(res, plot_width(a)), a)


def report(res, command: str) -> str:
    from mtsig.report.html import render_html

    return render_html(res, command)


def finish(res, a: argparse.Namespace, table) -> None:
    """``--rank-dir``: the segments ranked by improvement over the baseline."""
    if a.rank_dir:
        from mtsig.report.ranking import write_rankings

        files = write_rankings(table, a.baseline, a.rank_dir)
        print(f"wrote {len(files)} ranking file(s) to {a.rank_dir}", file=sys.stderr)
