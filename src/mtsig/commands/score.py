"""``mtsig score``: corpus scores, with bootstrap intervals on request."""

from __future__ import annotations

import argparse

from mtsig.commands.common import input_flags, output_flags, plot_width, render_result, save_plot


def add_args(p: argparse.ArgumentParser) -> None:
    from mtsig.declare import add_flags
    from mtsig.engine import ScoreOptions

    input_flags(p)
    # --confidence alone asks for the intervals (as sacreBLEU's): not given is None here, 0.95 in the API
    groups = add_flags(p, ScoreOptions)
    from mtsig.marks import off

    off(groups["what to print"].add_argument(
        "--score-only",
        "-b",
        action="store_true",
        help="print the scores alone, one per line (each system, each metric), as sacreBLEU's -b",
    ), "output: the bare numbers on standard output; a run of the web app shows the table in every format")  # fmt: skip
    output_flags(p)


def run(a: argparse.Namespace, table, prog):
    from mtsig.api import score
    from mtsig.declare import given
    from mtsig.engine import ScoreOptions

    settings = given(ScoreOptions, a)
    settings["ci"] = a.ci or a.confidence is not None  # sacreBLEU's --confidence alone asks for the intervals
    return score(stats=table, **settings, progress=prog)


def figure(res, a: argparse.Namespace) -> None:
    from mtsig.report.plots import plot_score

    save_plot(plot_score(res, plot_width(a)), a)


def report(res, command: str) -> str:
    from mtsig.report.html import render_html

    return render_html(res, command)


def output(res, a: argparse.Namespace) -> str:
    """``--score-only``: the bare numbers, one per line; else the result in ``--format``."""
    if not a.score_only:
        return render_result(res, a)
    if a.format != "text" or a.sentence_level:
        from mtsig.errors import InputError

        raise InputError("--score-only prints bare numbers: it takes neither --format nor --sentence-level")
    return "".join(f"{s.scores[m].score:.{res.decimals.get(m, 2)}f}\n" for s in res.systems for m in res.metrics)
