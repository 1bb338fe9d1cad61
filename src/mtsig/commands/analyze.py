"""``mtsig analyze``: where systems differ, bucket by bucket, with corrected p-values."""

from __future__ import annotations

import argparse
import sys

from mtsig.commands.common import PLOT_HELP, input_flags, output_flags, plot_width


def add_args(p: argparse.ArgumentParser) -> None:
    from mtsig.analysis import ANALYSES
    from mtsig.analysis.options import AnalyzeOptions
    from mtsig.declare import add_flags

    input_flags(p)
    groups = {"analyses": p.add_argument_group("analyses")}
    listing = "; ".join(f"{n}: {e.help}" for n, e in ANALYSES.items())
    add_flags(p, AnalyzeOptions, groups=groups)
    by = next(a for a in groups["analyses"]._group_actions if a.dest == "by")
    by.help = f"{by.help}. {listing}"
    g = groups["analyses"]
    g.add_argument("--bucket-cutoffs", nargs="+", default=None, metavar="KIND=C1:C2:...",
                   help="bucket boundaries, e.g. ref-length=10:20:40 (compare-mt's syntax; default: compare-mt's "
                   "for ref-length, length-diff, word-frequency and sentence-score)")  # fmt: skip
    from mtsig.marks import web

    web(g.add_argument("--out-labels", nargs="+", default=None, metavar="NAME=FILE",
                       help="word-labels: each system's file of output word labels"), "named")  # fmt: skip
    output_flags(p, plot=f"{PLOT_HELP}: one figure per analysis, FILE's name with -ANALYSIS-METRIC added")


def _keyed(values: list[str] | None, what: str, sep: str = "=") -> dict[str, str]:
    from mtsig.errors import InputError

    out: dict[str, str] = {}
    for v in values or []:
        k, eq, x = v.partition(sep)
        if not eq or not k or not x:
            raise InputError(f"{what}: {v!r} is not NAME{sep}VALUE")
        if k in out:  # the last one would silently win
            raise InputError(f"{what}: {k} is given twice ({k}{sep}{out[k]} and {v}): give it once")
        out[k] = x
    return out


def _can_fork() -> bool:
    """Whether a child process may be forked safely here: the platform forks by default and no other thread runs
    (a thread holding a lock at the fork would leave it held in the child)."""
    import threading

    from mtsig.executor import start_method

    return start_method() == "fork" and threading.active_count() == 1


def run(a: argparse.Namespace, table, prog):
    from mtsig.analysis.buckets import parse_cutoffs
    from mtsig.analysis.options import AnalyzeOptions
    from mtsig.api_analyze import analyze
    from mtsig.declare import given

    cutoffs = {k: parse_cutoffs(v, k) for k, v in _keyed(a.bucket_cutoffs, "--bucket-cutoffs").items()}
    # the shared comparison in a second process where the command may use one (-j) and the platform forks
    fork = a.jobs > 1 and _can_fork()
    settings = given(AnalyzeOptions, a)
    return analyze(stats=table, **settings, cutoffs=cutoffs, out_labels=_keyed(a.out_labels, "--out-labels"),
                   progress=prog, fork=fork)  # fmt: skip


def figure(res, a: argparse.Namespace) -> None:
    """One figure per analysis: ``--plot``'s name with -ANALYSIS-METRIC added."""
    from mtsig.report.analyze_plots import save_figures

    written = save_figures(res, a.plot, plot_width(a), a.caption)
    if not a.quiet:
        print(f"mtsig: {len(written)} figure(s): {', '.join(written)}", file=sys.stderr)


def report(res, command: str) -> str:
    from mtsig.report.analyze_html import render_analyze_html

    return render_analyze_html(res, command)
