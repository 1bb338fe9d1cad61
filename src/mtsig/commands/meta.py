"""``mtsig meta``: how well metrics agree with humans (correlations, pairwise accuracy, intervals, PERM-BOTH between
metrics, clusters), from score files, from the texts, or an mt-metrics-eval folder and its WMT metrics tasks."""

from __future__ import annotations

import argparse

from mtsig.commands.common import output_flags, plot_width, save_plot

#: how a task set runs on a cluster, in ``meta --help``
ON_A_CLUSTER = (
    "On a Slurm cluster (pip install 'mtsig[cluster]'): mtsig meta --mtme DIR --task wmt25 --dask slurm:16 "
    "--job-memory 8GB --job-walltime 02:00:00 submits 16 batch jobs of one Dask worker each and sends them the "
    "permutations; the results are the same as in one process (pbs:N and sge:N likewise; a running scheduler: "
    "--dask tcp://HOST:8786). The docs' page 'Running on a cluster' has the details."
)


def add_args(p: argparse.ArgumentParser) -> None:
    from mtsig.commands.common import EPILOG
    from mtsig.marks import web

    p.epilog = f"{ON_A_CLUSTER} {EPILOG}"

    web(p.add_argument("--human", nargs="+", default=None, metavar="FILE",
                       help="human scores: WMT DA, MQM, TSV (as mtsig human reads them) or SYSTEM score lines"),
        "files", form="judgments", main=True)  # fmt: skip
    web(p.add_argument("--metric", nargs="+", default=[], metavar="NAME=FILE",
                       help="metric scores in mt-metrics-eval's layout: SYSTEM score per line (once per system: "
                       "system level; once per segment in test-set order: segment level)"), "named",
        main=True)  # fmt: skip
    p.add_argument("--lower-is-better", nargs="+", default=[], metavar="NAME",
                   help="metric files whose lower scores are better (TER, MetricX as their tools print it): negated "
                   "first")  # fmt: skip
    from mtsig.io.human import INPUT_FORMATS

    p.add_argument(
        "--input-format",
        default=None,
        choices=INPUT_FORMATS,
        help="how to read the human file (default: recognised from its first line; see mtsig human)",
    )
    web(p.add_argument("--docs", default=None, metavar="FILE",
                       help="the test set's documents (.docs: DOMAIN DOCID per line, or the WMT XML test set): places "
                       "WMT DA segment ids in the test set (segment level needs it)"), "file")  # fmt: skip
    web(p.add_argument("--wmt25-scores", nargs="+", default=None, metavar="PATH",
                       help="WMT25's automatic scores (data/automatic_scores, or <SYSTEM>.jsonl files): each metric "
                       "placed on the judged items of WMT25's humeval file"), "files")  # fmt: skip
    p.add_argument("--wmt25-metrics", nargs="+", default=None, metavar="NAME",
                   help="only these metrics of --wmt25-scores (e.g. XCOMET-XL MetricX-24-Hybrid-XL)")  # fmt: skip
    _mtme_args(p)
    _meta_eval_args(p)


def _meta_eval_args(p: argparse.ArgumentParser) -> None:
    from mtsig.commands.common import metrics_flag
    from mtsig.declare import add_flags
    from mtsig.marks import web
    from mtsig.metaeval.core import MetaOptions

    own = p.add_argument_group("mtsig's own metrics (computed from the texts)")
    web(own.add_argument("-r", "--refs", nargs="+", metavar="REF", help="references"), "files", form="ref")
    web(own.add_argument("-s", "--systems", nargs="+", metavar="SYS", help="system outputs, as in compare (NAME=FILE)"),
        "named", naming="systems")  # fmt: skip
    metrics_flag(own, "e.g. bleu chrf ter meteor", default=[])
    add_flags(p, MetaOptions)
    output_flags(p, plot="also draw each metric's agreement and interval, one column (.png, .svg, .pdf)",
                 html="also write a self-contained HTML report (sortable tables, the figure, settings, "
                 "command)")  # fmt: skip


def _mtme_args(p: argparse.ArgumentParser) -> None:
    from mtsig.marks import off, web

    g = p.add_argument_group("mt-metrics-eval directories (instead of --human and --metric)")
    web(g.add_argument("--mtme", default=None, metavar="DIR",
                       help="an mt-metrics-eval test-set folder (.../mt-metrics-eval-v2/wmt23): its human and metric "
                       "scores of --lp, or with --task the WMT metrics task"), "dir")  # fmt: skip
    g.add_argument("--lp", default=None, metavar="PAIR",
                   help="the language pair of --mtme (e.g. en-de, en-de_DE), or of a --human file holding "
                   "several")  # fmt: skip
    task = "the WMT metrics task set prints its tables (no report or view of its own yet): run it on the command line"
    off(g.add_argument("--task", default=None, choices=("wmt23", "wmt24", "wmt25"),
                       help="the WMT metrics task set as mt-metrics-eval's tasks.py defines it, over --lps"),
        task)  # fmt: skip
    off(g.add_argument("--lps", nargs="+", default=None, metavar="PAIR",
                       help="language pairs of --task (default: the year's official ones)"), task)  # fmt: skip
    off(
        g.add_argument(
            "--k",
            type=int,
            default=None,
            help="--task: permutations per task (0: statistics and ranks by value only; default 1000)",
        ),
        task,
    )
    g.add_argument("--gold", default=None, metavar="NAME", help="human scores to use (default: the year's standard)")
    web(
        g.add_argument(
            "--ref",
            nargs="+",
            default=None,
            metavar="REF",
            help="the main reference(s) (default: the year's standard one); metrics using others are left out",
        ),
        form="mtme_ref",
    )
    g.add_argument(
        "--all-metrics",
        action="store_true",
        help="every metric, not only the primary submissions and baselines (non-primary shown with *)",
    )
    g.add_argument("--include-outliers", action="store_true", help="keep the systems the year calls outliers")
    g.add_argument("--exclude", nargs="+", default=(), metavar="SYS", help="systems to leave out")
    _task_run_args(g, task)


def _task_run_args(g, task: str) -> None:
    """How the WMT metrics task set runs: which metrics, and where its permutations go (command line only)."""
    from mtsig.marks import off

    off(
        g.add_argument(
            "--only",
            nargs="+",
            default=None,
            metavar="METRIC",
            help="--task: these metrics only (names as shown, e.g. 'GEMBA-MQM[noref]')",
        ),
        task,
    )
    off(g.add_argument("-j", "--jobs", type=int, default=1, help="--task: worker processes for the permutations"), task)
    from mtsig.executor import DASK_HELP, add_job_flags

    off(g.add_argument("--dask", default=None, metavar="WHERE", help="--task: " + DASK_HELP), task)
    for action in add_job_flags(g):
        off(action, task)


def _meta_tasks(a: argparse.Namespace, prog):
    from mtsig.errors import InputError
    from mtsig.metaeval.tasks import run_task_set

    if a.lp:
        raise InputError("--task runs over --lps (several pairs), not --lp")
    for flag, given in (("--plot", a.plot), ("--html", a.html)):
        if given:
            raise InputError(f"{flag} draws one meta-evaluation (--lp or --human); --task prints the task tables "
                             "(text, JSON, CSV, Markdown, LaTeX)")  # fmt: skip
    from mtsig.executor import job_settings
    from mtsig.studies.replicates import runner

    run = runner(a.jobs, a.dask, job=job_settings(a))
    try:
        return run_task_set(a.mtme, a.task, a.lps, k=1000 if a.k is None else a.k, seed=a.seed, gold=a.gold,
                            refs=set(a.ref) if a.ref else None, primary=not a.all_metrics,
                            include_outliers=a.include_outliers, exclude=tuple(a.exclude), only=a.only,
                            executor=run.executor, progress=prog)  # fmt: skip
    finally:
        close = getattr(run.executor, "close", None)
        if close is not None:
            close()


def check(a: argparse.Namespace) -> None:
    """What can be refused before any file is read: flags that belong to another way of giving the scores, and
    lower-is-better names that are none of the metric files'."""
    if a.mtme is None:
        _check_files(a)
    else:
        _check_mtme(a)


def _check_files(a: argparse.Namespace) -> None:
    """--human with --metric or -m: no flag of --mtme's; the lower-is-better names among the metric files'."""
    from mtsig.errors import InputError

    for flag, given in (("--task", a.task), ("--lps", a.lps), ("--k", a.k is not None),
                        ("--gold", a.gold), ("--ref", a.ref), ("--only", a.only), ("--exclude", a.exclude),
                        ("--all-metrics", a.all_metrics), ("--include-outliers", a.include_outliers),
                        ("--dask", a.dask), ("-j", a.jobs != 1)):  # fmt: skip
        if given:
            raise InputError(f"{flag} belongs to --mtme DIR (an mt-metrics-eval folder)")
    if not a.human:
        raise InputError("give --human FILE (with --metric NAME=FILE or -m), or --mtme DIR (an mt-metrics-eval "
                         "folder) with --lp or --task")  # fmt: skip
    if a.metrics and not (a.refs and a.systems):
        raise InputError("-m computes metrics from the texts: give -r REF and -s SYS too")
    named = [spec.partition("=")[0] for spec in a.metric or []]
    if named and not a.metrics and not a.wmt25_scores:  # every metric is a file named here
        for name in a.lower_is_better or []:
            if name not in named:
                raise InputError(f"--lower-is-better names {name!r}, which is not a metric file given ("
                                 f"{', '.join(named)})", param="lower_is_better")  # fmt: skip


def _check_mtme(a: argparse.Namespace) -> None:
    """--mtme DIR: none of the score files; --lp, or --task with its own flags."""
    from mtsig.errors import InputError

    if a.human or a.metric or a.metrics or a.wmt25_scores:
        raise InputError("--mtme DIR brings the human and metric scores: leave out --human, --metric, "
                         "--wmt25-scores and -m")  # fmt: skip
    if a.task:
        return
    for flag, given in (("--lps", a.lps), ("--k", a.k is not None), ("--only", a.only), ("--dask", a.dask),
                        ("-j", a.jobs != 1)):  # fmt: skip
        if given:
            raise InputError(f"{flag} belongs to --task")
    if not a.lp:
        from mtsig.metaeval.mtme import language_pairs

        raise InputError(f"--mtme {a.mtme}: give --lp (one of {', '.join(language_pairs(a.mtme)) or 'none'}) "
                         "or --task")  # fmt: skip


def run(a: argparse.Namespace, table, prog):
    """One meta-evaluation (--human and --metric, -m, or --mtme --lp), or a metrics task set (--mtme --task); the
    flags were checked (:func:`check`)."""
    from mtsig.declare import given as settings_given
    from mtsig.metaeval import MetaOptions, meta

    if a.mtme is not None:
        if a.task:
            return _meta_tasks(a, prog)
        return meta(mtme=a.mtme, lp=a.lp, gold=a.gold, ref=a.ref, all_metrics=a.all_metrics,
                    include_outliers=a.include_outliers, exclude=a.exclude, **settings_given(MetaOptions, a),
                    progress=prog)  # fmt: skip
    return meta(a.human, a.metric, refs=a.refs, systems=a.systems, compute=a.metrics,
                **settings_given(MetaOptions, a),
                lower_is_better=a.lower_is_better, docs=a.docs, input_format=a.input_format, lp=a.lp,
                wmt25_scores=a.wmt25_scores, wmt25_metrics=a.wmt25_metrics, progress=prog)  # fmt: skip


def figure(res, a: argparse.Namespace) -> None:
    from mtsig.report.paper import plot_meta
    from mtsig.report.style import COLUMN

    save_plot(plot_meta(res, plot_width(a) or COLUMN), a)


def report(res, command: str) -> str:
    from mtsig.report.meta import render_meta_html

    return render_meta_html(res, command)
