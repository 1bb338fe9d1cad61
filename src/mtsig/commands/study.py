"""``mtsig study NAME``: the literature's validation experiments on the user's outputs, one subcommand per
registered study, its flags generated from its design."""

from __future__ import annotations

import argparse

from mtsig.commands.common import EPILOG, Parser, input_flags, output_flags, plot_width, save_plot


def _unit_flag(group) -> None:
    from mtsig.units import UNITS

    group.add_argument("--resample-unit", default="segment", choices=UNITS,
                       help="what resampling draws or swaps: segment (default), document (whole documents: segments "
                       "of a document are not independent) or domain")  # fmt: skip


def add_args(p: Parser, only: str | None = None) -> None:
    """``mtsig study NAME``: one subcommand per registered study, its flags generated from its design (with
    ``only``, a registered study's name: just that one, as the metric flags of each take milliseconds)."""
    from mtsig.studies.design import add_flags
    from mtsig.studies.registry import STUDIES, get_study

    sub = p.add_subparsers(dest="study", metavar="STUDY", parser_class=Parser)
    sub.required = True
    p.studies = {}
    for name in list(STUDIES):
        if only in STUDIES and name != only:
            continue
        study = get_study(name)
        q = sub.add_parser(name, help=study.help, description=study.help, epilog=EPILOG)
        q.prog = f"mtsig study {name}"
        if study.human:
            _human_input(q)
        else:
            input_flags(q)
        add_flags(q.add_argument_group(f"{name} options"), study.design_type)
        if study.unit_option:
            _unit_flag(q.add_argument_group("resampling"))
        if study.replicated:
            from mtsig.executor import DASK_HELP, add_job_flags

            q.add_argument("--dask", default=None, metavar="WHERE", help="the replicates: " + DASK_HELP)
            add_job_flags(q.add_argument_group("batch jobs (--dask slurm:N, pbs:N, sge:N)"))
        output_flags(
            q,
            plot="also draw the study's figure (.png, .svg, .pdf)",
            html="also write a self-contained HTML report (settings, design, tables, figure, command)",
        )
        p.studies[name] = q


def _human_input(q: Parser) -> None:
    """A study of human judgments reads them as ``mtsig human`` does: files, or an mt-metrics-eval folder."""
    from mtsig.io.human import INPUT_FORMATS

    g = q.add_argument_group("judgments")
    g.add_argument("files", nargs="*", metavar="FILE", help="files of human judgments, all of one format")
    g.add_argument("--mtme", default=None, metavar="DIR",
                   help="an mt-metrics-eval test-set folder instead of FILE: the gold segment scores of --lp with "
                   "its documents")  # fmt: skip
    g.add_argument("--gold", default=None, metavar="NAME", help="--mtme: the human scores (default: the year's)")
    g.add_argument("--include-outliers", action="store_true", help="--mtme: keep the systems the year calls outliers")
    g.add_argument("--exclude", nargs="+", default=(), metavar="SYS", help="--mtme: systems to leave out")
    g.add_argument("--input-format", default=None, choices=INPUT_FORMATS, help="the files' format (default: "
                   "recognised from the first line)")  # fmt: skip
    g.add_argument("--lp", default=None, metavar="SRC-TGT", help="the language pair (or Pearmut campaign)")
    g.add_argument("--docs", default=None, metavar="FILE", help="the test set's documents (.docs or WMT XML)")
    g.add_argument("-j", "--jobs", type=int, default=1, metavar="N", help="processes for the replays (the same "
                   "numbers with any number)")  # fmt: skip


def needs_table(a: argparse.Namespace) -> bool:
    """A study of system outputs reads the statistics table first; a study of human judgments reads them itself."""
    from mtsig.studies.registry import get_study

    return not get_study(a.study).human


def _human_scores(a: argparse.Namespace):
    from mtsig.commands.human import _human_files
    from mtsig.io.human import HumanScores, read_human

    a.standardize, a.mqm_weights, a.da_score, a.reset = None, None, "z", None
    got = _human_files(a)
    if isinstance(got, HumanScores):
        return got
    return read_human(got, input_format=a.input_format, docs=a.docs, lp=a.lp)


def other_studies_flag(flag: str, here: str) -> list[str]:
    """The studies that have ``flag`` (for the error when another study is given it)."""
    from dataclasses import fields

    from mtsig.studies.design import flag_of
    from mtsig.studies.registry import STUDIES, get_study

    return [
        n for n in list(STUDIES) if n != here and any(flag_of(f.name) == flag for f in fields(get_study(n).design_type))
    ]


def run(a: argparse.Namespace, table, prog):
    from dataclasses import fields

    from mtsig.studies.design import design_from
    from mtsig.studies.registry import get_study, run_study
    from mtsig.studies.replicates import Runner, runner

    study = get_study(a.study)
    design = design_from(study.design_type, {f.name: getattr(a, f.name, None) for f in fields(study.design_type)})
    unit = getattr(a, "resample_unit", "segment")
    if study.human:
        table = _human_scores(a)
    if not study.replicated:
        return run_study(a.study, table, design, Runner(progress=prog), unit)
    from mtsig.executor import job_settings

    replicates = runner(a.jobs, a.dask, prog, job=job_settings(a))
    try:
        return run_study(a.study, table, design, replicates, unit)
    finally:
        if hasattr(replicates.executor, "close"):
            replicates.executor.close()


def figure(res, a: argparse.Namespace) -> None:
    from mtsig.report.study_plots import plot_study

    save_plot(plot_study(res, plot_width(a)), a)


def report(res, command: str) -> str:
    from mtsig.report.study_html import render_study_html

    return render_study_html(res, command)
