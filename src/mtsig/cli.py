"""The ``mtsig`` command line.

Built on argparse rather than Typer/Click: the interface users know from sacreBLEU takes several
values after one flag (``-r REF1 REF2 -s SYS1 SYS2 -m bleu nist``), which Click options cannot do.
Rich draws the tables and the progress bars (on a terminal only; nothing is drawn when piped).

The metric flags are generated from the metrics' declared options and side inputs (plugins included);
errors from the core name API arguments, which are said here with their flags.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable
from contextlib import contextmanager

from mtsig._version import __version__
from mtsig.errors import MtsigError

EPILOG = "Exit status: 0 success, 2 bad input or usage (one-line message on stderr)."


#: standard output failed and was reported (see _OutputFailed)
_output_failed = False


class _OutputFailed(Exception):
    """Standard output cannot be written (a full disk, /dev/full): said on stderr, exit status 2."""


class _ParseFailed(Exception):
    """A parse error while plugins are not loaded yet (the parse is tried again with them)."""


#: sacreBLEU's flags that mean something else (or nothing) in mtsig, and what to use instead
SACREBLEU_HABITS = {
    "-i": "give system outputs with -s FILE ... (NAME=FILE to name them)",
    "--input": "give system outputs with -s FILE ... (NAME=FILE to name them)",
    "--paired-bs": "use `mtsig compare --test paired-bootstrap` (with -b BASELINE for sacreBLEU's layout)",
    "--paired-ar": "use `mtsig compare --test ar` (the default test)",
    "--paired-bs-n": "the resamples of every test are --n-resamples",
    "--paired-ar-n": "the resamples of every test are --n-resamples",
    "--paired-jobs": "mtsig's --jobs runs the scoring in processes; resampling is vectorized",
    "--confidence-n": "the bootstrap resamples of intervals are --n-bootstrap",
    "-sl": "per-segment scores: `mtsig score --sentence-level` (or -sl)",
    "--sentence-level": "per-segment scores: `mtsig score --sentence-level` (or -sl)",
    "--score-only": "`mtsig score --score-only` (or -b) prints the numbers alone",
    "--echo": "the JSON has the signatures and every setting",
}


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``mtsig: error: ...``, exit 2) and a hint for misspelled flags."""

    #: False while a first parse runs without plugins: an error then raises _ParseFailed instead of exiting
    strict = True
    #: the top parser: command name -> its parser; ``study``'s parser: study name -> its parser
    commands: dict[str, _Parser]
    studies: dict[str, _Parser]

    def error(self, message: str):  # type: ignore[override]
        if not _Parser.strict:
            raise _ParseFailed(message)
        self.exit(2, f"mtsig: error: {message} (see `{self.prog} --help`)\n")

    def unknown_flags(self, extras: list[str]) -> str:
        import difflib

        flags = sorted(s for a in self._actions for s in a.option_strings if s.startswith("--"))
        bad = next((x for x in extras if x.startswith("-")), extras[0])
        habit = SACREBLEU_HABITS.get(bad.split("=")[0])
        if habit is not None:  # a sacreBLEU flag: say what mtsig calls it, not the closest spelling
            return f"unrecognized arguments: {' '.join(extras)} ({bad.split('=')[0]} is sacreBLEU's: {habit})"
        hint = difflib.get_close_matches(bad.split("=")[0], flags, n=1)
        # one short line: the closest spelling, and where the metric options are listed (not the list itself)
        return (
            f"unrecognized arguments: {' '.join(extras)}"
            + (f" (did you mean {hint[0]}?)" if hint else "")
            + ("; `mtsig metrics` lists the metric options" if bad.startswith("--") and not hint else "")
        )


def _inputs(p: argparse.ArgumentParser, stats_input: bool = True) -> None:
    """-r and -s, the loading settings (their flags declared with :class:`~mtsig.inputs.LoadOptions`), the
    statistics read instead of text, and the metrics."""
    from mtsig.declare import add_flags
    from mtsig.inputs import LoadOptions

    g = p.add_argument_group("inputs")
    g.add_argument("-r", "--refs", nargs="+", metavar="REF",
                   help="reference files (plain text, NIST SGML/XML, or a WMT XML test set)")  # fmt: skip
    g.add_argument(
        "-s",
        "--systems",
        nargs="+",
        metavar="SYS",
        help="system outputs: FILE, NAME=FILE, NAME=run1,run2,... or a quoted glob 'NAME=out.*'; a WMT XML file "
        "gives each of its systems (FILE.xml:SYSTEM one of them)",
    )
    groups = {"inputs": g}
    test_set = ("test_set", "langpair", "mtme", "wmt25", "ref_translator", "docids")  # first: what names a test set
    add_flags(p, LoadOptions, groups=groups, skip=tuple(n for n in LoadOptions.names() if n not in test_set))
    if stats_input:
        g.add_argument("--stats", metavar="FILE.npz", help="read statistics written by `mtsig stats` instead of text")
        g.add_argument("--wmt25-scores", nargs="+", metavar="PATH", default=None,
                       help="WMT25's automatic scores (data/automatic_scores, or some of its <SYSTEM>.jsonl files) "
                       "instead of text: each paragraph of -l's documents a segment, each WMT25 metric a metric (-m "
                       "picks, as WMT25 names them), the documents and domains as units; -s NAME ... picks "
                       "systems")  # fmt: skip
    add_flags(p, LoadOptions, groups=groups, skip=test_set, defaults={"jobs": min(os.cpu_count() or 1, 4)})
    m = p.add_argument_group("metrics")
    m.add_argument(
        "-m",
        "--metrics",
        nargs="+",
        default=None,
        metavar="METRIC",
        help="metrics (default: bleu); see `mtsig metrics`",
    )
    _metric_flags(p)


def _add(group, flags: list[str], **kw) -> None:
    try:
        group.add_argument(*flags, **kw)
    except argparse.ArgumentError as exc:  # a plugin option whose flag mtsig already uses
        warnings.warn(f"mtsig: metric option {kw.get('dest')!r} not offered on the command line: {exc}", stacklevel=2)


def _metric_flags(p: argparse.ArgumentParser) -> None:
    """One flag per declared metric option and side input of the registered metrics (shared options once, in
    their own group). Plugins are registered before the parser is built when they may matter (see main)."""
    from mtsig.metrics import REGISTRY

    owners: dict[str, list[str]] = {}
    for name, cls in REGISTRY.items():
        for k in (*cls.declared_options(), *cls.side_inputs):
            owners.setdefault(k, []).append(name)
    groups: dict[str, argparse._ArgumentGroup] = {}
    done: set[str] = set()
    for name, cls in REGISTRY.items():
        for k, o in cls.declared_options().items():
            if k in done:
                continue
            done.add(k)
            title = "options of several metrics" if len(owners[k]) > 1 else f"{name} options"
            g = groups.setdefault(title, p.add_argument_group(title))
            flags = [o.flag_for(k), *([o.short] if o.short else [])]
            if o.is_bool:
                _add(g, flags, dest=k, action="store_const", const=not o.default, default=None, help=o.help)
            else:
                _add(g, flags, dest=k, type=o.value_type(), choices=o.choices, default=None, metavar=o.metavar,
                     help=o.help)  # fmt: skip
        for k, s in cls.side_inputs.items():
            if k not in done:
                done.add(k)
                g = groups.setdefault(f"{name} inputs", p.add_argument_group(f"{name} inputs"))
                _add(g, [s.flag_for(k)], dest=k, nargs="+", metavar=s.metavar, default=None, help=s.help)


def _compute_options(a: argparse.Namespace) -> dict:
    """The keywords of ``mtsig.compute``: the metric options and side inputs given, and loading options."""
    from mtsig.metrics import all_options, all_side_inputs

    given = {k: getattr(a, k) for k in (*all_options(), *all_side_inputs()) if getattr(a, k, None) is not None}
    from mtsig.inputs import LoadOptions

    loading = {n: getattr(a, n, None) for n in LoadOptions.names()}  # every loading flag, declared once
    return {**given, **loading, "allow_empty_refs": bool(loading["allow_empty_refs"]), "jobs": max(1, a.jobs)}


_PLOT_WIDTH_HELP = (
    "the figure's width: column (3.3 in), double (6.9 in) or inches (default: column for one panel, double for several)"
)


def _plot_width(o) -> None:
    o.add_argument("--plot-width", default=None, metavar="W", help=_PLOT_WIDTH_HELP)
    o.add_argument("--caption", default="figure", metavar="figure|none|FILE",
                   help="the figure's caption (what it shows, the test, the seed): drawn in the figure (figure, the "
                   "default), left out (none), or left out and written to FILE, for a paper's own caption")  # fmt: skip


def _save_plot(fig, a: argparse.Namespace) -> None:
    """``--plot FILE`` with ``--caption``: the figure saved, its caption in it, left out, or written to a file."""
    from mtsig.report.plots import save, take_caption, write_caption
    from mtsig.report.style import CAPTION_MODES

    text = take_caption(fig, a.caption)
    save(fig, a.plot)
    if a.caption not in CAPTION_MODES:
        write_caption(a.caption, text)


def _output(p: argparse.ArgumentParser, formats: tuple[str, ...] | None = None, plot: bool = True) -> None:
    formats = formats or _format_names()
    o = p.add_argument_group("output")
    o.add_argument("--format", "-f", default="text", choices=formats, help="output format (text)")
    o.add_argument("--output", "-o", default=None, metavar="FILE", help="write to FILE instead of stdout")
    o.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    o.add_argument("--width", "-w", type=int, default=None, metavar="N",
                   help="decimals of every score in text, Markdown and LaTeX (default: each metric's own; as "
                   "sacreBLEU's -w)")  # fmt: skip
    if "text" in formats and plot:
        o.add_argument(
            "--plot",
            default=None,
            metavar="FILE",
            help="also draw the result to FILE (.png, .svg or .pdf; needs pip install 'mtsig[plot]'); analyze "
            "writes one figure per analysis, FILE's name with -ANALYSIS-METRIC added",
        )
        _plot_width(o)
        o.add_argument("--html", default=None, metavar="FILE",
                       help="also write a self-contained HTML report (tables, figures, settings, command)")  # fmt: skip


def _score_args(p: argparse.ArgumentParser) -> None:
    from mtsig.declare import add_flags
    from mtsig.engine import ScoreOptions

    _inputs(p)
    # --confidence alone asks for the intervals (as sacreBLEU's): not given is None here, 0.95 in the API
    groups = add_flags(p, ScoreOptions)
    groups["what to print"].add_argument(
        "--score-only",
        "-b",
        action="store_true",
        help="print the scores alone, one per line (each system, each metric), as sacreBLEU's -b",
    )
    _output(p)


def _stats_args(p: argparse.ArgumentParser) -> None:
    _inputs(p, stats_input=False)
    p.add_argument("--output", "-o", required=True, metavar="FILE.npz", help="statistics file to write")


def _compare_args(p: argparse.ArgumentParser) -> None:
    from mtsig.declare import add_flags
    from mtsig.engine import CompareOptions

    _inputs(p)
    groups = add_flags(p, CompareOptions)
    groups["tests"].add_argument("--rank-dir", metavar="DIR", default=None,
                                 help="with --baseline: write, per system and metric, the segments ranked by "
                                 "improvement of its median run over the baseline's median run (TSV)")  # fmt: skip
    _output(p)


def _analyze_args(p: argparse.ArgumentParser) -> None:
    from mtsig.analysis import ANALYSES
    from mtsig.analysis.options import AnalyzeOptions
    from mtsig.declare import add_flags

    _inputs(p)
    groups = {"analyses": p.add_argument_group("analyses")}
    listing = "; ".join(f"{n}: {e.help}" for n, e in ANALYSES.items())
    add_flags(p, AnalyzeOptions, groups=groups)
    by = next(a for a in groups["analyses"]._group_actions if a.dest == "by")
    by.help = f"{by.help}. {listing}"
    g = groups["analyses"]
    g.add_argument("--bucket-cutoffs", nargs="+", default=None, metavar="KIND=C1:C2:...",
                   help="bucket boundaries, e.g. ref-length=10:20:40 (compare-mt's syntax; default: compare-mt's "
                   "for ref-length, length-diff, word-frequency and sentence-score)")  # fmt: skip
    g.add_argument("--out-labels", nargs="+", default=None, metavar="NAME=FILE",
                   help="word-labels: each system's file of output word labels")  # fmt: skip
    _output(p)


def _unit_flag(group) -> None:
    from mtsig.units import UNITS

    group.add_argument("--resample-unit", default="segment", choices=UNITS,
                       help="what resampling draws or swaps: segment (default), document (whole documents: segments "
                       "of a document are not independent) or domain")  # fmt: skip


def _study_args(p: _Parser, only: str | None = None) -> None:
    """``mtsig study NAME``: one subcommand per registered study, its flags generated from its design (with
    ``only``, a registered study's name: just that one, as the metric flags of each take milliseconds)."""
    from mtsig.studies.design import add_flags
    from mtsig.studies.registry import STUDIES, get_study

    sub = p.add_subparsers(dest="study", metavar="STUDY", parser_class=_Parser)
    sub.required = True
    p.studies = {}
    for name in list(STUDIES):
        if only in STUDIES and name != only:
            continue
        study = get_study(name)
        q = sub.add_parser(name, help=study.help, description=study.help, epilog=EPILOG)
        q.prog = f"mtsig study {name}"
        _inputs(q)
        add_flags(q.add_argument_group(f"{name} options"), study.design_type)
        if study.unit_option:
            _unit_flag(q.add_argument_group("resampling"))
        if study.replicated:
            q.add_argument("--dask", default=None, metavar="ADDRESS",
                           help="run the replicates on Dask distributed: a scheduler address, or local:N for N local "
                           "worker processes (pip install 'mtsig[dask]')")  # fmt: skip
        o = q.add_argument_group("output")
        o.add_argument("--format", "-f", default="text", choices=_format_names())
        o.add_argument("--output", "-o", default=None, metavar="FILE", help="write to FILE instead of stdout")
        o.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
        o.add_argument("--plot", default=None, metavar="FILE", help="also draw the study's figure (.png, .svg, .pdf)")
        _plot_width(o)
        p.studies[name] = q


def _format_names() -> tuple[str, ...]:
    from mtsig.report.render import FORMATS

    return tuple(FORMATS)


def _other_studies_flag(flag: str, here: str) -> list[str]:
    """The studies that have ``flag`` (for the error when another study is given it)."""
    from dataclasses import fields

    from mtsig.studies.design import flag_of
    from mtsig.studies.registry import STUDIES, get_study

    return [
        n for n in list(STUDIES) if n != here and any(flag_of(f.name) == flag for f in fields(get_study(n).design_type))
    ]


def _run_study(a: argparse.Namespace, table, prog):
    from dataclasses import fields

    from mtsig.studies.design import design_from
    from mtsig.studies.registry import get_study, run_study
    from mtsig.studies.replicates import Runner, runner

    study = get_study(a.study)
    design = design_from(study.design_type, {f.name: getattr(a, f.name, None) for f in fields(study.design_type)})
    unit = getattr(a, "resample_unit", "segment")
    if not study.replicated:
        return run_study(a.study, table, design, Runner(progress=prog), unit)
    run = runner(a.jobs, a.dask, prog)
    try:
        return run_study(a.study, table, design, run, unit)
    finally:
        if hasattr(run.executor, "close"):
            run.executor.close()


def _study(a: argparse.Namespace, table) -> None:
    from mtsig.report.render import render

    with _progress_factory(not a.quiet) as prog:
        res = _run_study(a, table, prog)
    if a.plot:
        from mtsig.report.study_plots import plot_study

        _save_plot(plot_study(res, _width(a)), a)
    _write(render(res, a.format, _layout_width(a)), a.output)


def _human_args(p: argparse.ArgumentParser) -> None:
    from mtsig.declare import add_flags
    from mtsig.humaneval.protocols import PROTOCOLS, HumanOptions
    from mtsig.io.human import INPUT_FORMATS

    p.add_argument("files", nargs="*", metavar="FILE", help="files of human judgments, all of one format")
    g = p.add_argument_group("judgments")
    g.add_argument("--mtme", default=None, metavar="DIR",
                   help="an mt-metrics-eval test-set folder instead of FILE: the gold segment scores of --lp with "
                   "its documents")  # fmt: skip
    g.add_argument("--gold", default=None, metavar="NAME",
                   help="--mtme: the human scores to rank by (default: the year's standard, e.g. mqm)")  # fmt: skip
    g.add_argument("--include-outliers", action="store_true", help="--mtme: keep the systems the year calls outliers")
    g.add_argument("--exclude", nargs="+", default=(), metavar="SYS", help="--mtme: systems to leave out")
    g.add_argument("--input-format", default=None, choices=INPUT_FORMATS,
                   help="wmt-da (WMT's DA judgments), wmt-da-seg (WMT's segment scores), mqm (error spans), tsv "
                   "(system, segment, [annotator,] score); default: recognised from the first line")  # fmt: skip
    g.add_argument("--standardize", default=None, choices=("none", "annotator"),
                   help="annotator: z-standardize each annotator's scores first (raw DA, ESA)")  # fmt: skip
    g.add_argument("--mqm-weights", default=None, metavar="FILE",
                   help="MQM weights: severity<TAB>weight or severity<TAB>category<TAB>weight per line (default: "
                   "Major 5, Minor 1, Neutral 0, Non-translation 25, Minor Fluency/Punctuation 0.1)")  # fmt: skip
    g.add_argument("--da-score", default="z", choices=("z", "raw"), help="wmt-da-seg: the z (default) or raw score")
    g.add_argument(
        "--lp",
        default=None,
        metavar="SRC-TGT",
        help="the language pair to rank, of a file that holds several (Appraise's ESA exports)",
    )
    g.add_argument("--docs", default=None, metavar="FILE",
                   help="the test set's documents (.docs: DOMAIN DOCID per line, as mt-metrics-eval and WMT24/25 "
                   "ship them, or the WMT XML test set): documents and domains of the judged segments (WMT DA "
                   "judgment files bring their documents themselves, from their HITs)")  # fmt: skip
    groups = add_flags(p, HumanOptions, groups={"judgments": g})
    listing = "; ".join(f"{n}: {e.help}" for n, e in PROTOCOLS.items())
    protocol = next(x for x in groups["ranking"]._group_actions if x.dest == "protocol")
    protocol.help = f"how systems are ranked ({listing})"
    _output(p, plot=False)
    p.add_argument("--plot", default=None, metavar="FILE",
                   help="also draw the ranking, one column wide (.png, .svg, .pdf; the plot extra)")  # fmt: skip
    _plot_width(p)
    p.add_argument("--html", default=None, metavar="FILE",
                   help="also write a self-contained HTML report (ranking figure as inline SVG, tables)")  # fmt: skip


def _human(a: argparse.Namespace, prog) -> None:
    from mtsig.declare import given
    from mtsig.humaneval import human
    from mtsig.humaneval.protocols import HumanOptions

    files = _human_files(a)
    res = human(files, input_format=a.input_format, standardize=a.standardize, mqm_weights=a.mqm_weights,
                da_score=a.da_score, docs=a.docs, lp=a.lp, **given(HumanOptions, a), progress=prog)  # fmt: skip
    if a.html:
        import shlex

        from mtsig.report.human import render_human_html

        _write(render_human_html(res, shlex.join(["mtsig", *a.argv])), a.html, "--html")
    if a.plot:
        from mtsig.report.paper import plot_human
        from mtsig.report.style import COLUMN

        _save_plot(plot_human(res, _width(a) or COLUMN), a)
    _write(_render(res, a), a.output)


def _human_files(a: argparse.Namespace):
    """The judgment files, or the human scores of an mt-metrics-eval folder (``--mtme DIR --lp LP``)."""
    from mtsig.errors import InputError

    if a.mtme is None:
        for flag, given in (("--gold", a.gold), ("--include-outliers", a.include_outliers),
                            ("--exclude", a.exclude)):  # fmt: skip
            if given:
                raise InputError(f"{flag} belongs to --mtme DIR (an mt-metrics-eval folder)")
        if not a.files:
            raise InputError("give files of human judgments, or --mtme DIR --lp LP (an mt-metrics-eval folder)")
        return a.files
    if a.files or a.docs or a.input_format:
        raise InputError("--mtme DIR brings the judgments and the documents: leave out FILE, --docs and "
                         "--input-format")  # fmt: skip
    from mtsig.metaeval.mtme import human_scores, language_pairs, read_evalset

    if not a.lp:
        raise InputError(f"--mtme {a.mtme}: give --lp (one of {', '.join(language_pairs(a.mtme)) or 'none'})")
    h = human_scores(read_evalset(a.mtme, a.lp), gold=a.gold, include_outliers=a.include_outliers,
                     exclude=tuple(a.exclude))  # fmt: skip
    a.lp = None  # the folder's pair is read already
    return h


def _meta_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--human", nargs="+", default=None, metavar="FILE",
                   help="human scores: WMT DA, MQM, TSV (as mtsig human reads them) or SYSTEM score lines")  # fmt: skip
    p.add_argument("--metric", nargs="+", default=[], metavar="NAME=FILE",
                   help="metric scores in mt-metrics-eval's layout: SYSTEM score per line (once per system: system "
                   "level; once per segment in test-set order: segment level)")  # fmt: skip
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
    p.add_argument("--docs", default=None, metavar="FILE",
                   help="the test set's documents (.docs: DOMAIN DOCID per line, or the WMT XML test set): places "
                   "WMT DA segment ids in the test set (segment level needs it)")  # fmt: skip
    p.add_argument("--wmt25-scores", nargs="+", default=None, metavar="PATH",
                   help="WMT25's automatic scores (data/automatic_scores, or <SYSTEM>.jsonl files): each metric placed "
                   "on the judged items of WMT25's humeval file")  # fmt: skip
    p.add_argument("--wmt25-metrics", nargs="+", default=None, metavar="NAME",
                   help="only these metrics of --wmt25-scores (e.g. XCOMET-XL MetricX-24-Hybrid-XL)")  # fmt: skip
    _mtme_args(p)
    _meta_eval_args(p)


def _meta_eval_args(p: argparse.ArgumentParser) -> None:
    from mtsig.declare import add_flags
    from mtsig.metaeval.core import MetaOptions

    own = p.add_argument_group("mtsig's own metrics (computed from the texts)")
    own.add_argument("-r", "--refs", nargs="+", metavar="REF", help="references")
    own.add_argument("-s", "--systems", nargs="+", metavar="SYS", help="system outputs, as in compare (NAME=FILE)")
    own.add_argument("-m", "--metrics", nargs="+", default=[], metavar="METRIC", help="e.g. bleu chrf ter meteor")
    add_flags(p, MetaOptions)
    _output(p, plot=False)
    p.add_argument("--plot", default=None, metavar="FILE",
                   help="also draw each metric's agreement and interval, one column (.png, .svg, .pdf)")  # fmt: skip
    _plot_width(p)
    p.add_argument("--html", default=None, metavar="FILE",
                   help="also write a self-contained HTML report (sortable tables, the figure, settings, "
                   "command)")  # fmt: skip


def _mtme_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("mt-metrics-eval directories (instead of --human and --metric)")
    g.add_argument("--mtme", default=None, metavar="DIR",
                   help="an mt-metrics-eval test-set folder (.../mt-metrics-eval-v2/wmt23): its human and metric "
                   "scores of --lp, or with --task the WMT metrics task")  # fmt: skip
    g.add_argument("--lp", default=None, metavar="PAIR",
                   help="the language pair of --mtme (e.g. en-de, en-de_DE), or of a --human file holding "
                   "several")  # fmt: skip
    g.add_argument("--task", default=None, choices=("wmt23", "wmt24", "wmt25"),
                   help="the WMT metrics task set as mt-metrics-eval's tasks.py defines it, over --lps")  # fmt: skip
    g.add_argument("--lps", nargs="+", default=None, metavar="PAIR",
                   help="language pairs of --task (default: the year's official ones)")  # fmt: skip
    g.add_argument(
        "--k",
        type=int,
        default=None,
        help="--task: permutations per task (0: statistics and ranks by value only; default 1000)",
    )
    g.add_argument("--gold", default=None, metavar="NAME", help="human scores to use (default: the year's standard)")
    g.add_argument(
        "--ref",
        nargs="+",
        default=None,
        metavar="REF",
        help="the main reference(s) (default: the year's standard one); metrics using others are left out",
    )
    g.add_argument(
        "--all-metrics",
        action="store_true",
        help="every metric, not only the primary submissions and baselines (non-primary shown with *)",
    )
    g.add_argument("--include-outliers", action="store_true", help="keep the systems the year calls outliers")
    g.add_argument("--exclude", nargs="+", default=(), metavar="SYS", help="systems to leave out")
    g.add_argument(
        "--only",
        nargs="+",
        default=None,
        metavar="METRIC",
        help="--task: these metrics only (names as shown, e.g. 'GEMBA-MQM[noref]')",
    )
    g.add_argument("-j", "--jobs", type=int, default=1, help="--task: worker processes for the permutations")
    g.add_argument(
        "--dask",
        default=None,
        metavar="ADDRESS",
        help="--task: run the permutations on a Dask scheduler (or local:N workers); same results",
    )


def _meta_tasks(a: argparse.Namespace) -> None:
    from mtsig.errors import InputError
    from mtsig.metaeval.tasks import run_task_set

    if a.lp:
        raise InputError("--task runs over --lps (several pairs), not --lp")
    for flag, given in (("--plot", a.plot), ("--html", a.html)):
        if given:
            raise InputError(f"{flag} draws one meta-evaluation (--lp or --human); --task prints the task tables "
                             "(text, JSON, CSV, Markdown, LaTeX)")  # fmt: skip
    if a.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {a.jobs}")
    from mtsig.studies.replicates import runner

    run = runner(a.jobs, a.dask)
    try:
        with _progress_factory(not a.quiet) as prog:
            res = run_task_set(a.mtme, a.task, a.lps, k=1000 if a.k is None else a.k, seed=a.seed, gold=a.gold,
                               refs=set(a.ref) if a.ref else None, primary=not a.all_metrics,
                               include_outliers=a.include_outliers, exclude=tuple(a.exclude), only=a.only,
                               executor=run.executor, progress=prog)  # fmt: skip
    finally:
        close = getattr(run.executor, "close", None)
        if close is not None:
            close()
    _write(_render(res, a), a.output)


def _meta(a: argparse.Namespace) -> None:
    from mtsig.declare import given as settings_given
    from mtsig.errors import InputError
    from mtsig.metaeval import MetaOptions, meta

    if a.mtme is None:
        for flag, given in (("--task", a.task), ("--lps", a.lps), ("--k", a.k is not None),
                            ("--gold", a.gold), ("--ref", a.ref), ("--only", a.only), ("--exclude", a.exclude),
                            ("--all-metrics", a.all_metrics), ("--include-outliers", a.include_outliers),
                            ("--dask", a.dask), ("-j", a.jobs != 1)):  # fmt: skip
            if given:
                raise InputError(f"{flag} belongs to --mtme DIR (an mt-metrics-eval folder)")
        if not a.human:
            raise InputError("give --human FILE (with --metric NAME=FILE or -m), or --mtme DIR (an mt-metrics-eval "
                             "folder) with --lp or --task")  # fmt: skip
    else:
        if a.human or a.metric or a.metrics or a.wmt25_scores:
            raise InputError("--mtme DIR brings the human and metric scores: leave out --human, --metric, "
                             "--wmt25-scores and -m")  # fmt: skip
        if a.task:
            return _meta_tasks(a)
        for flag, given in (("--lps", a.lps), ("--k", a.k is not None), ("--only", a.only), ("--dask", a.dask),
                            ("-j", a.jobs != 1)):  # fmt: skip
            if given:
                raise InputError(f"{flag} belongs to --task")
        if not a.lp:
            from mtsig.metaeval.mtme import language_pairs

            raise InputError(f"--mtme {a.mtme}: give --lp (one of {', '.join(language_pairs(a.mtme)) or 'none'}) "
                             "or --task")  # fmt: skip
        return _meta_mtme(a)

    if a.metrics and not (a.refs and a.systems):
        from mtsig.errors import InputError

        raise InputError("-m computes metrics from the texts: give -r REF and -s SYS too")
    with _progress_factory(not a.quiet) as prog:
        res = meta(a.human, a.metric, refs=a.refs, systems=a.systems, compute=a.metrics,
                   **settings_given(MetaOptions, a),
                   lower_is_better=a.lower_is_better, docs=a.docs, input_format=a.input_format, lp=a.lp,
                   wmt25_scores=a.wmt25_scores, wmt25_metrics=a.wmt25_metrics, progress=prog)  # fmt: skip
    _meta_extras(res, a)
    _write(_render(res, a), a.output)


def _meta_extras(res, a: argparse.Namespace) -> None:
    """``--plot`` and ``--html`` of one meta-evaluation."""
    if a.plot:
        from mtsig.report.paper import plot_meta
        from mtsig.report.style import COLUMN

        _save_plot(plot_meta(res, _width(a) or COLUMN), a)
    if a.html:
        import shlex

        from mtsig.report.meta import render_meta_html

        _write(render_meta_html(_shown(res, a), shlex.join(["mtsig", *a.argv])), a.html, "--html")


def _meta_mtme(a: argparse.Namespace) -> None:
    from mtsig.declare import given
    from mtsig.metaeval import MetaOptions, meta

    with _progress_factory(not a.quiet) as prog:
        res = meta(mtme=a.mtme, lp=a.lp, gold=a.gold, ref=a.ref, all_metrics=a.all_metrics,
                   include_outliers=a.include_outliers, exclude=a.exclude, **given(MetaOptions, a),
                   progress=prog)  # fmt: skip
    _meta_extras(res, a)
    _write(_render(res, a), a.output)


def _thresholds_args(p: argparse.ArgumentParser) -> None:
    from mtsig.thresholds import ACCURACIES

    p.add_argument("-m", "--metrics", nargs="+", default=None, metavar="METRIC",
                   help="metrics (mtsig's names, score-file names or the paper's; default: every fit)")  # fmt: skip
    p.add_argument("--accuracy", nargs="+", type=float, default=list(ACCURACIES), metavar="PCT",
                   help="accuracies in %% (default: 50 55 ... 95)")  # fmt: skip
    p.add_argument("--fits", default=None, metavar="FILE", help="a thresholds.json of other fits ({metric: [a, b]})")
    _output(p, plot=False)


def _thresholds(a: argparse.Namespace) -> None:
    import json

    from mtsig.checks import decimals
    from mtsig.report.table import Table, TextOut, csv_text, latex, markdown
    from mtsig.thresholds import scale_of, thresholds_table

    res = thresholds_table(a.metrics, a.accuracy, a.fits)
    accs = [f"{x:g}" for x in a.accuracy]
    d = 3 if a.width is None else decimals(a.width)
    if a.width is not None:
        res["thresholds"] = {f: {k: None if x is None else round(x, d) for k, x in v.items()}
                             for f, v in res["thresholds"].items()}  # fmt: skip
    if a.format == "json":
        _write(json.dumps(res, indent=1) + "\n", a.output)
        return
    rows = [[f, *("-" if v[k] is None else f"{v[k]:.{d}f}" for k in accs)] for f, v in res["thresholds"].items()]
    head = ["metric (fit)", *(f"{k}%" for k in accs)]
    note = ("Δ a metric needs before that share of human judgments agrees with it (Kocmi et al. 2024, accuracy(Δ) = "
            "a / (1 + exp(-b Δ))); - at or above the fit's ceiling a, or at or below a/2 (its accuracy at Δ = 0: no "
            "positive difference gives it). Scale: " + "; ".join(
                f"{f} {'as printed' if scale_of(f) == 1 else 'x 100'}" for f in res["thresholds"]))  # fmt: skip
    if a.format == "csv":
        _write(csv_text(head, rows), a.output)
    elif a.format in ("markdown", "latex"):
        t = Table(head, rows)
        _write("\n".join(markdown(t)) + f"\n\n{note}\n" if a.format == "markdown" else
               latex(t, "l" + "r" * len(accs), note.replace("%", "\\%")), a.output)  # fmt: skip
    else:
        out = TextOut(_layout_width(a))
        out.table(Table(head, rows, ["left"] + ["right"] * len(accs), title="metric deltas and human agreement"))
        out.line(note)
        _write(out.getvalue(), a.output)


def _serve_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine "
                   "only; another address needs --token)")  # fmt: skip
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument("--data", default=None, metavar="DIR", help="a folder whose files the page offers as inputs")
    p.add_argument("--results", default="mtsig-results", metavar="DIR",
                   help="where runs are kept, one bundle each (default: ./mtsig-results)")  # fmt: skip
    p.add_argument("--token", default=os.environ.get("MTSIG_TOKEN"), metavar="T", help="required of every "
                   "request (default: $MTSIG_TOKEN); needed for a non-loopback --host")  # fmt: skip
    p.add_argument("--max-upload-mb", type=int, default=50, metavar="MB", help="largest upload per run (default 50)")
    p.add_argument("--max-files", type=int, default=20, metavar="N", help="most files per run (default 20)")
    p.add_argument("--jobs", "-j", type=int, default=2, help="runs at a time; the others wait (default 2)")


def _serve(a: argparse.Namespace) -> int:
    from pathlib import Path

    from mtsig.errors import InputError

    try:
        import uvicorn

        from mtsig.serve.app import Config, check_bind, create_app
    except ImportError as exc:
        raise InputError(f"mtsig serve needs its extra: pip install 'mtsig[serve]' ({exc})") from None
    check_bind(a.host, a.token)
    if a.data is not None and not os.path.isdir(a.data):
        raise InputError(f"--data {a.data}: not a folder")
    for flag, v in (("--max-upload-mb", a.max_upload_mb), ("--max-files", a.max_files), ("--jobs", a.jobs)):
        if v < 1:
            raise InputError(f"{flag} must be at least 1, got {v}")
    config = Config(results=Path(a.results), data=Path(a.data) if a.data else None, token=a.token,
                    max_upload_bytes=a.max_upload_mb * 2**20, max_files=a.max_files, jobs=a.jobs)  # fmt: skip
    url = f"http://{a.host}:{a.port}/" + (f"?token={a.token}" if a.token else "")
    print(f"mtsig serve: {url} (results in {config.results})", file=sys.stderr)
    uvicorn.run(create_app(config), host=a.host, port=a.port, log_level="warning")
    return 0


#: command -> (help, function adding its arguments)
COMMANDS: dict[str, tuple[str, Callable[..., None] | None]] = {
    "score": ("corpus scores of systems (optionally with bootstrap intervals)", _score_args),
    "stats": ("write per-segment statistics to an .npz file (score once, test many times)", _stats_args),
    "compare": ("paired significance tests between systems", _compare_args),
    "analyze": (
        "where systems differ: scores, differences and corrected p-values per bucket (sentence length, "
        "word frequency, labels, documents, n-grams, examples)",
        _analyze_args,
    ),
    "study": (
        "the literature's validation experiments (Koehn 2004, Riezler & Maxwell 2005, Clark et "
        "al. 2011) on your outputs (mtsig study NAME --help)",
        _study_args,
    ),
    "human": (
        "rank systems from human judgments (WMT DA, MQM, ESA/TSV) with tests, clusters and rank ranges",
        _human_args,
    ),
    "meta": (
        "how well metrics agree with humans: correlations, pairwise accuracy, intervals, PERM-BOTH between "
        "metrics, clusters",
        _meta_args,
    ),
    "thresholds": (
        "the metric difference each metric needs for humans to agree at 50-95%% (Kocmi et al. 2024)",
        _thresholds_args,
    ),
    "serve": (
        "mtsig in a browser on this machine: upload outputs, compare, read and export the report "
        "(pip install 'mtsig[serve]')",
        _serve_args,
    ),
    "metrics": ("list the available metrics, their options and direction", None),
}


def build_parser(only: str | None = None, study: str | None = None) -> _Parser:
    """The parser; with ``only``, just that command's, and with ``study``, just that study's (building every
    command's flags takes milliseconds)."""
    ap = _Parser(
        prog="mtsig",
        description="Is the difference between MT systems real? Exact BLEU/NIST, bootstrap intervals, "
        "paired tests, many systems.",
        epilog=EPILOG,
    )
    ap.add_argument("--version", action="version", version=f"mtsig {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for name, (text, add_args) in COMMANDS.items():
        if only is None or name == only:
            p = sub.add_parser(name, help=text, epilog=EPILOG if add_args else None)
            if add_args is _study_args:
                _study_args(p, study)
            elif add_args is not None:
                add_args(p)
    ap.commands = sub.choices  # command name -> its parser
    return ap


@contextmanager
def _progress_factory(enabled: bool):
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as prog:

        def factory(label: str, total: int):
            task = prog.add_task(label, total=total)
            return lambda n: prog.advance(task, n)

        yield factory


def _inputs_of(a: argparse.Namespace) -> list[str]:
    """Every input file named on the command line (references, systems and their runs, side inputs)."""
    from mtsig.io.load import parse_system_spec

    out = list(getattr(a, "refs", None) or []) + list(getattr(a, "dev_refs", None) or [])
    out += ([a.stats] if getattr(a, "stats", None) else []) + list(getattr(a, "files", None) or [])
    out += list(getattr(a, "human", None) or []) + [x.partition("=")[2] for x in getattr(a, "metric", None) or []]
    out += [getattr(a, "mqm_weights", None)] if getattr(a, "mqm_weights", None) else []
    for spec in [*(getattr(a, "systems", None) or []), *(getattr(a, "dev_systems", None) or [])]:
        try:
            out += parse_system_spec(spec)[1]
        except MtsigError:
            pass  # reported when the inputs are read
    return out


def _check_output(path: str, a: argparse.Namespace, what: str = "--output") -> None:
    """Refuse an output that would overwrite an input or cannot be written, before any work is done."""
    from mtsig.errors import InputError

    if os.path.isdir(path):
        raise InputError(f"{what} {path}: is a directory; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{what} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise InputError(f"{what} {path}: not writable")
    if os.path.exists(path):
        for inp in _inputs_of(a):
            if inp != "-" and os.path.exists(inp) and os.path.samefile(inp, path):
                raise InputError(f"{what} {path} is also an input ({inp}); refusing to overwrite it")


def _check_distinct(outputs: dict[str, str]) -> None:
    """Refuse two outputs written to one file (the second would overwrite the first)."""
    from mtsig.errors import InputError

    seen: dict[str, str] = {}
    for flag, path in outputs.items():
        key = os.path.realpath(path)
        if key in seen:
            raise InputError(f"{seen[key]} and {flag} name the same file ({path}): give each its own")
        seen[key] = flag


#: what a stream that cannot encode the table's characters gets instead (one character for one, so that columns
#: stay aligned): the box rules, arrows and the few symbols of the tables
_ASCII_FALLBACK = str.maketrans({
    "┃": "|", "│": "|", "━": "=", "─": "-", "╇": "+", "┼": "+", "╋": "+", "┏": "+", "┓": "+", "┗": "+", "┛": "+",
    "Δ": "D", "↑": "^", "↓": "v", "→": ">", "α": "a", "−": "-", "–": "-", "—": "-", "≤": "<", "≥": ">", "×": "x",
    "…": ".", "·": ";", "•": "-", "½": "h", "√": "V", "∝": "~", "²": "2", "’": "'", "“": '"', "”": '"',
})  # fmt: skip


def _encodable(text: str, encoding: str) -> str:
    """``text`` as the stream's encoding can write it: unchanged when it can (UTF-8 terminals, files), else the
    table characters in ASCII and anything else that remains escaped (``\\u4e2d``), never a traceback (a
    Windows console in cp1252, ``LC_ALL=C``, ``PYTHONIOENCODING=ascii``)."""
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        pass
    try:
        return text.translate(_ASCII_FALLBACK).encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:
        return text.translate(_ASCII_FALLBACK).encode("ascii", "backslashreplace").decode("ascii")


def _layout_width(a: argparse.Namespace) -> int | None:
    """The width text output is laid out for: the terminal's (``COLUMNS``, else the tty's) when it goes to
    standard output, else None (the default, wide layout: files and pipes get the same bytes everywhere)."""
    if getattr(a, "output", None) or getattr(a, "format", "text") != "text":
        return None
    cols = os.environ.get("COLUMNS", "").strip()
    if cols.isdigit() and int(cols) > 0:
        return max(int(cols), 20)
    try:
        if sys.stdout.isatty():
            import shutil  # here: a piped run never needs it

            return max(shutil.get_terminal_size().columns, 20)
    except (AttributeError, OSError, ValueError):
        pass
    return None


def _write(text: str, path: str | None, what: str = "--output") -> None:
    if path:
        from mtsig.errors import InputError

        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise InputError(f"{what} {path}: cannot write ({exc.strerror or exc})") from None
    else:
        try:
            sys.stdout.write(_encodable(text, getattr(sys.stdout, "encoding", None) or "utf-8"))
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputFailed(f"cannot write to standard output ({exc.strerror or exc})") from None


def _table(a: argparse.Namespace):
    from mtsig.api import DEFAULT_METRICS, compute
    from mtsig.errors import InputError
    from mtsig.table import StatsTable

    if getattr(a, "wmt25_scores", None):
        return _wmt25_table(a)
    if getattr(a, "stats", None):
        if a.refs or a.systems:
            raise InputError("give either --stats or -r/-s, not both")
        _no_text_options(a, "--stats")
        return StatsTable.load(a.stats).select(a.metrics)
    takes_test = a.command in ("compare", "analyze")
    if a.test_set and takes_test and a.test_set in _test_names():
        raise InputError(
            f"-t is --test-set (a test set by name, as in sacreBLEU); for the test give --test {a.test_set}"
        )
    if a.test_set and a.refs:
        raise InputError("give -r or -t (a test set by name), not both")
    for flag, folder in (("--mtme", a.mtme), ("--wmt25", getattr(a, "wmt25", None))):
        if folder:
            if a.refs:
                raise InputError(f"give -r or {flag} (a test set with its outputs), not both")
            return compute(None, a.systems, a.metrics or list(DEFAULT_METRICS), **_compute_options(a))
    if not a.refs and not a.test_set and getattr(a, "seg_scores", None):
        return compute(None, a.systems, a.metrics or ["seg"], **_compute_options(a))  # segment scores alone
    if not a.refs and not a.test_set:
        raise InputError("no reference given: use -r REF [REF ...] (or -t TESTSET -l SRC-TGT)")
    if not a.systems:
        piped = "" if sys.stdin.isatty() else " (standard input is -s -)"
        raise InputError(f"no system given: use -s SYS [SYS ...]{piped}")
    return compute(a.refs, a.systems, a.metrics or list(DEFAULT_METRICS), **_compute_options(a))


def _no_text_options(a: argparse.Namespace, source: str, allowed: tuple[str, ...] = ()) -> None:
    """Options of the texts given with statistics that do not come from texts: refused, not silently ignored."""
    from mtsig.errors import InputError

    given = {k: v for k, v in _compute_options(a).items() if k not in ("jobs", "allow_empty_refs", *allowed)}
    textual = [k for k, v in given.items() if v] + (["allow_empty_refs"] if a.allow_empty_refs else [])
    if textual:  # the statistics were computed with the options the file records; these would be ignored
        flags = ", ".join("--" + k.replace("_", "-") for k in textual)
        raise InputError(f"{flags}: options of the texts do not apply to statistics read with {source}")


def _wmt25_table(a: argparse.Namespace):
    """The statistics of WMT25's automatic scores of -l; their notes (null scores) on standard error."""
    from mtsig.errors import InputError
    from mtsig.io.wmt25scores import wmt25_table

    for flag, given in (("-r", a.refs), ("-t", a.test_set), ("--mtme", a.mtme), ("--wmt25", a.wmt25),
                        ("--stats", a.stats)):  # fmt: skip
        if given:
            raise InputError(f"give {flag} or --wmt25-scores (scores without texts), not both")
    _no_text_options(a, "--wmt25-scores", allowed=("langpair",))
    specs = a.systems or []
    bad = next((s for s in specs if "=" in s or os.path.sep in s), None)
    if bad is not None:
        raise InputError(f"-s {bad}: with --wmt25-scores, -s picks systems by name (the files' names without .jsonl)")
    table, notes = wmt25_table(a.wmt25_scores, a.langpair, metrics=a.metrics, systems=specs or None)
    if not a.quiet:
        for n in notes:
            sys.stderr.write(f"mtsig: note: {n}\n")
    return table


def _test_names() -> list[str]:
    from mtsig.stats.paired import test_names

    return list(test_names())


def _list_metrics() -> int:
    from mtsig.metrics import REGISTRY
    from mtsig.plugins import load_plugins

    load_plugins()
    lines = []
    for name, cls in REGISTRY.items():
        opts = ", ".join(f"{k}={o.default!r}" for k, o in cls.declared_options().items())
        direction = "higher" if cls.higher_is_better else "lower"
        direction = f"closest to {cls.target:g}" if cls.target is not None else direction
        lines += [f"{name:8s} {direction + ' is better':26s} {cls.description}", f"{'':8s} options: {opts}"]
    _write("".join(x + "\n" for x in lines), None)
    return 0


def _score(a: argparse.Namespace, table, prog) -> None:
    from mtsig.api import score
    from mtsig.declare import given
    from mtsig.engine import ScoreOptions

    settings = given(ScoreOptions, a)
    settings["ci"] = a.ci or a.confidence is not None  # sacreBLEU's --confidence alone asks for the intervals
    res = score(stats=table, **settings, progress=prog)
    res = _shown(res, a)
    _figures(a, res)
    if a.score_only:
        if a.format != "text" or a.sentence_level:
            from mtsig.errors import InputError

            raise InputError("--score-only prints bare numbers: it takes neither --format nor --sentence-level")
        lines = [f"{s.scores[m].score:.{res.decimals.get(m, 2)}f}" for s in res.systems for m in res.metrics]
        _write("".join(x + "\n" for x in lines), a.output)
        return
    _write(_render(res, a), a.output)


def _compare(a: argparse.Namespace, table, prog) -> None:
    from mtsig.api import compare
    from mtsig.declare import given
    from mtsig.engine import CompareOptions
    from mtsig.errors import InputError

    if a.rank_dir and not a.baseline:
        raise InputError("--rank-dir needs --baseline (segments are ranked against the baseline)")
    keep = bool(a.plot or a.html)  # the one-pair figure shows the null distribution, the report systems' intervals
    settings = given(CompareOptions, a, skip=("tests",))
    settings.update(test=tuple(a.tests or ("ar",)), keep_distributions=keep, system_ci=keep or a.system_ci)
    res = compare(stats=table, **settings, progress=prog)
    res = _shown(res, a)
    _figures(a, res)
    for w in res.warnings:
        print(f"mtsig: warning: {w}", file=sys.stderr)
    if a.rank_dir:
        from mtsig.report.ranking import write_rankings

        files = write_rankings(table, a.baseline, a.rank_dir)
        print(f"wrote {len(files)} ranking file(s) to {a.rank_dir}", file=sys.stderr)
    _write(_render(res, a), a.output)


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


def _analyze(a: argparse.Namespace, table, prog) -> None:
    from mtsig.analysis.buckets import parse_cutoffs
    from mtsig.analysis.options import AnalyzeOptions
    from mtsig.api import analyze
    from mtsig.declare import given

    cutoffs = {k: parse_cutoffs(v, k) for k, v in _keyed(a.bucket_cutoffs, "--bucket-cutoffs").items()}
    # the shared comparison in a second process where the command may use one (-j) and the platform forks
    fork = a.jobs > 1 and _can_fork()
    settings = given(AnalyzeOptions, a)
    res = analyze(stats=table, **settings, cutoffs=cutoffs, out_labels=_keyed(a.out_labels, "--out-labels"),
                  progress=prog, fork=fork)  # fmt: skip
    if a.plot:
        from mtsig.report.analyze_plots import save_figures

        written = save_figures(res, a.plot, _width(a), a.caption)
        if not a.quiet:
            print(f"mtsig: {len(written)} figure(s): {', '.join(written)}", file=sys.stderr)
    if a.html:
        import shlex

        from mtsig.report.analyze_html import render_analyze_html

        _write(render_analyze_html(res, shlex.join(["mtsig", *a.argv])), a.html, "--html")
    for w in res.warnings:
        print(f"mtsig: warning: {w}", file=sys.stderr)
    _write(_render(res, a), a.output)


def _shown(res, a: argparse.Namespace):
    """``-w N``: the result shown with N decimals (figures, reports, --score-only); the numbers unchanged."""
    if getattr(a, "width", None) is None:
        return res
    from mtsig.report.render import with_decimals

    return with_decimals(res, a.width)


def _render(res, a: argparse.Namespace) -> str:
    """The result in ``--format``, at the terminal's width, with ``-w``'s decimals (one mechanism for every command:
    :func:`mtsig.report.render.render`'s ``decimals``)."""
    from mtsig.report.render import render

    return render(res, a.format, _layout_width(a), getattr(a, "width", None))


def _width(a: argparse.Namespace) -> float | None:
    """``--plot-width`` in inches (None: each figure's default)."""
    from mtsig.report.style import width_inches

    w = getattr(a, "plot_width", None)
    return None if w is None else width_inches(w)


def _figures(a: argparse.Namespace, res) -> None:
    """``--plot`` and ``--html``: drawn from the result, before the tables are written."""
    from mtsig.results import CompareResult

    if a.plot:
        from mtsig.report import plots

        fig = (plots.plot_compare if isinstance(res, CompareResult) else plots.plot_score)(res, _width(a))
        _save_plot(fig, a)
    if a.html:
        import shlex

        from mtsig.report.html import render_html

        _write(render_html(res, shlex.join(["mtsig", *a.argv])), a.html, "--html")


def _check_outputs(a: argparse.Namespace) -> None:
    """Every file the command will write, checked before any work: writable, distinct, a figure's format known."""
    from mtsig.report.style import CAPTION_MODES  # a light module: constants and small helpers

    given = {f"--{flag}": getattr(a, flag) for flag in ("output", "plot", "html") if getattr(a, flag, None)}
    if getattr(a, "caption", "figure") not in CAPTION_MODES:
        if not getattr(a, "plot", None):
            from mtsig.errors import InputError

            raise InputError("--caption FILE writes the caption of the figure --plot draws: give --plot too")
        given["--caption"] = a.caption
    for flag, path in given.items():
        _check_output(path, a, flag)
    _check_distinct(given)
    if getattr(a, "plot", None):
        from mtsig.report.plots import check_path

        check_path(a.plot)


def _run(a: argparse.Namespace) -> int:
    if a.command == "metrics":
        return _list_metrics()
    if getattr(a, "jobs", 1) < 1:
        from mtsig.errors import InputError

        raise InputError(f"--jobs must be at least 1, got {a.jobs}")
    _check_outputs(a)
    if getattr(a, "width", None) is not None and not 0 <= a.width <= 12:
        from mtsig.errors import InputError

        raise InputError(f"--width must be between 0 and 12 decimals, got {a.width}")
    if a.command == "human":
        with _progress_factory(not a.quiet) as prog:
            _human(a, prog)
        return 0
    if a.command == "meta":
        _meta(a)
        return 0
    if a.command == "thresholds":
        _thresholds(a)
        return 0
    if a.command == "serve":
        return _serve(a)
    if getattr(a, "rank_dir", None) and os.path.exists(a.rank_dir) and not os.path.isdir(a.rank_dir):
        from mtsig.errors import InputError

        raise InputError(f"--rank-dir {a.rank_dir}: exists and is not a folder")
    table = _table(a)
    if a.command == "stats":
        try:
            table.save(a.output)
        except OSError as exc:
            from mtsig.errors import InputError

            raise InputError(f"--output {a.output}: cannot write ({exc.strerror or exc})") from None
        print(
            f"wrote statistics of {len(table.systems)} system(s) x {len(table.metrics)} metric(s), "
            f"{table.n_segments} segments, to {a.output}",
            file=sys.stderr,
        )
        return 0
    if a.command == "study":
        _study(a, table)
        return 0
    with _progress_factory(not a.quiet) as prog:
        {"score": _score, "compare": _compare, "analyze": _analyze}[a.command](a, table, prog)
    return 0


_FLAGS = {"refs": "-r/--refs", "systems": "-s/--systems", "dev_systems": "-d/--dev-systems"}


def _message(exc: MtsigError) -> str:
    """The error in the command line's words: the API arguments the core names become their flags."""
    import re

    msg = str(exc)
    for p in getattr(exc, "params", ()):
        flag = _FLAGS.get(p, "--" + p.replace("_", "-"))
        msg = re.sub(rf"(?<![\w-]){re.escape(p)}(?![\w-])", flag.replace("\\", "\\\\"), msg)
    return msg


def _unknown_metric(a: argparse.Namespace) -> bool:
    from mtsig.metrics import ALIASES, REGISTRY

    return any(ALIASES.get(n.lower(), n.lower()) not in REGISTRY for n in getattr(a, "metrics", None) or [])


def _parse(argv: list[str]) -> tuple[_Parser, argparse.Namespace, list[str]]:
    words = [x for x in argv if not x.startswith("-")]
    first = words[0] if words else None
    help_asked = "-h" in argv or "--help" in argv
    study = words[1] if first == "study" and len(words) > 1 and not help_asked else None
    ap = build_parser(first if first in COMMANDS and not help_asked else None, study)
    a, extras = ap.parse_known_args(argv)
    return ap, a, extras


def _show_warning(message, category, filename, lineno, file=None, line=None):  # noqa: PLR0913 - warnings' API
    from mtsig.errors import MtsigWarning

    if issubclass(category, MtsigWarning):
        print(f"mtsig: warning: {message}", file=sys.stderr)
    else:
        _DEFAULT_SHOWWARNING(message, category, filename, lineno, file, line)


_DEFAULT_SHOWWARNING = warnings.showwarning


def _parse_with_plugins(argv: list[str]) -> tuple[_Parser, argparse.Namespace]:
    """Parse without plugins first; with them when a name or flag is not a built-in one. Unknown flags end here
    (one line; for a study, naming the studies that have the flag)."""
    from mtsig.plugins import load_plugins

    try:
        _Parser.strict = False
        ap, a, extras = _parse(argv)
    except _ParseFailed:
        extras, a = None, None
    finally:
        _Parser.strict = True
    if a is None or extras or _unknown_metric(a):
        load_plugins()
        ap, a, extras = _parse(argv)
    if extras:
        sub = ap.commands.get(a.command, ap) if a.command else ap
        if a.command == "study" and getattr(a, "study", None):
            sub = sub.studies[a.study]
            flag = next((x for x in extras if x.startswith("-")), "").split("=")[0]
            owners = _other_studies_flag(flag, a.study)
            if owners:
                sub.error(f"{flag} is not an option of study {a.study} (it is one of {', '.join(owners)})")
        sub.error(sub.unknown_flags(extras))
    return ap, a


def _sacrebleu_habits(argv: list[str]) -> list[str] | int:
    """sacreBLEU's flags read as sacreBLEU means them (:mod:`mtsig.sacrebleu_flags`), and its positional form
    (``mtsig REF -i SYS``) answered with mtsig's; an int is the exit status of a one-line error."""
    from mtsig.errors import InputError
    from mtsig.sacrebleu_flags import translate

    if argv and not argv[0].startswith("-") and argv[0] not in COMMANDS and os.path.isfile(argv[0]):
        print(f"mtsig: error: mtsig takes a command first: `mtsig score -r {argv[0]} -s SYSTEM ...` (sacreBLEU's "
              "`sacrebleu REF -i SYSTEM`); `mtsig --help` lists the commands", file=sys.stderr)  # fmt: skip
        return 2
    try:
        return translate(argv)
    except InputError as exc:
        print(f"mtsig: error: {exc}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"] or (argv[:1] and argv[0] in ("score", "compare", "analyze") and
                                 ("--version" in argv or "-V" in argv)):  # fmt: skip
        print(f"mtsig {__version__}")  # answered before anything else is imported (numpy, the metrics)
        return 0
    early = _sacrebleu_habits(argv)
    if isinstance(early, int):
        return early
    argv = early
    from mtsig.plugins import load_plugins

    warnings.showwarning = _show_warning
    # plugins add metrics and their flags, tests, studies and formats: register them first only when they may
    # matter (scanning entry points costs tens of milliseconds): for help, and when a flag, a metric, a test, a
    # study or a format is not a built-in one
    if "-h" in argv or "--help" in argv:
        load_plugins()
    ap, a = _parse_with_plugins(argv)
    if a.command is None:
        ap.print_help()
        return 2
    a.argv = argv  # what reproduces the result (the HTML report shows it)
    try:
        return _run(a)
    except MtsigError as exc:
        print(f"mtsig: error: {_message(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except _OutputFailed as exc:
        global _output_failed
        _output_failed = True  # said once: the final flush of what is left in the buffer fails again
        print(f"mtsig: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mtsig: interrupted", file=sys.stderr)
        return 130


#: modules that clean up at interpreter exit (Dask clusters, process pools): their presence keeps the normal exit
_NEEDS_TEARDOWN = ("distributed", "dask", "multiprocessing", "concurrent.futures.process")


def run() -> None:
    """The ``mtsig`` command: :func:`main`, then exit. Once the output is flushed, the process ends at once
    (``os._exit``) rather than tearing the interpreter down module by module (30-50 ms, a tenth of a short
    command, with nothing left to do), unless a module that cleans up at exit was loaded. The cyclic garbage
    collector runs less often: reading text makes a list per segment, and the default threshold (700 new
    containers) walked the growing heap dozens of times per file (3-4% of a run); mtsig's data is freed by
    reference counting, the collector still runs."""
    import gc

    gc.set_threshold(100_000, 50, 100)
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader that went away, a stream already closed
        sys.exit(code)
    except OSError as exc:  # e.g. no space left (stdout to /dev/full): said once, never a traceback
        if not _output_failed:
            print(f"mtsig: error: cannot write to standard output ({exc.strerror or exc})", file=sys.stderr)
        os._exit(2)
    if any(m in sys.modules for m in _NEEDS_TEARDOWN):
        sys.exit(code)
    if "logging" in sys.modules:  # what logging would flush at exit (sacreBLEU imports it)
        sys.modules["logging"].shutdown()
    os._exit(code)


if __name__ == "__main__":
    run()
