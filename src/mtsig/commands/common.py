"""What the commands share, declared once: the input flags (references, systems, the loading settings, the
metrics and their options), the output flags (-f, -o, -q, -w, --plot, --plot-width, --caption, --html), reading
the statistics table, the progress bar, and writing and checking outputs. :mod:`mtsig.cli` loops over the commands
(one module each in this package) with these."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from contextlib import contextmanager

from mtsig.errors import MtsigError

EPILOG = "Exit status: 0 success, 2 bad input or usage (one-line message on stderr)."


class OutputFailed(Exception):
    """Standard output cannot be written (a full disk, /dev/full): said on stderr, exit status 2."""


class ParseFailed(Exception):
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


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` without importing shutil and its archive modules: ``COLUMNS``, else
    the width of standard output's terminal, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, its width read without shutil (argparse makes one for every flag it adds)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, _terminal_columns() - 2 if width is None else width)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``mtsig: error: ...``, exit 2) and a hint for misspelled flags."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    #: False while a first parse runs without plugins: an error then raises ParseFailed instead of exiting
    strict = True
    #: the top parser: command name -> its parser; ``study``'s parser: study name -> its parser
    commands: dict[str, Parser]
    studies: dict[str, Parser]

    def error(self, message: str):  # type: ignore[override]
        if not Parser.strict:
            raise ParseFailed(message)
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


def input_flags(p: argparse.ArgumentParser, stats_input: bool = True) -> None:
    """-r and -s, the loading settings (their flags declared with :class:`~mtsig.inputs.LoadOptions`), the
    statistics read instead of text, and the metrics."""
    from mtsig.declare import add_flags
    from mtsig.inputs import LoadOptions
    from mtsig.marks import web

    g = p.add_argument_group("inputs")
    web(g.add_argument("-r", "--refs", nargs="+", metavar="REF",
                       help="reference files (plain text, NIST SGML/XML, or a WMT XML test set)"),
        "files", form="ref", main=True)  # fmt: skip
    web(g.add_argument(
        "-s",
        "--systems",
        nargs="+",
        metavar="SYS",
        help="system outputs: FILE, NAME=FILE, NAME=run1,run2,... or a quoted glob 'NAME=out.*'; a WMT XML file "
        "gives each of its systems (FILE.xml:SYSTEM one of them)",
    ), "named", naming="systems", main=True)  # fmt: skip
    groups = {"inputs": g}
    test_set = ("test_set", "langpair", "mtme", "wmt25", "ref_translator", "docids")  # first: what names a test set
    add_flags(p, LoadOptions, groups=groups, skip=tuple(n for n in LoadOptions.names() if n not in test_set))
    if stats_input:
        web(g.add_argument("--stats", metavar="FILE.npz",
                           help="read statistics written by `mtsig stats` instead of text"), "file")  # fmt: skip
        web(g.add_argument("--wmt25-scores", nargs="+", metavar="PATH", default=None,
                           help="WMT25's automatic scores (data/automatic_scores, or some of its <SYSTEM>.jsonl "
                           "files) instead of text: each paragraph of -l's documents a segment, each WMT25 metric a "
                           "metric (-m picks, as WMT25 names them), the documents and domains as units; -s NAME ... "
                           "picks systems"), "files")  # fmt: skip
    add_flags(p, LoadOptions, groups=groups, skip=test_set, defaults={"jobs": min(os.cpu_count() or 1, 4)})
    m = p.add_argument_group("metrics")
    metrics_flag(m, "metrics (default: bleu); see `mtsig metrics`")
    _metric_flags(p)


def _metric_names() -> list[str]:
    from mtsig.metrics import REGISTRY

    return list(REGISTRY)


def metrics_flag(g, help: str, default=None) -> None:  # noqa: A002 - argparse's word
    """``-m``: metrics by name (the registry's, plugins included)."""
    from mtsig.api import DEFAULT_METRICS
    from mtsig.marks import web

    web(g.add_argument("-m", "--metrics", nargs="+", default=default, metavar="METRIC", help=help),
        names=_metric_names, default=tuple(DEFAULT_METRICS) if default is None else tuple(default))  # fmt: skip


def _add(group, flags: list[str], web: dict | None = None, **kw) -> None:
    try:
        action = group.add_argument(*flags, **kw)
    except argparse.ArgumentError as exc:  # a plugin option whose flag mtsig already uses
        warnings.warn(f"mtsig: metric option {kw.get('dest')!r} not offered on the command line: {exc}", stacklevel=2)
        return
    if web:
        from mtsig.marks import web as mark

        mark(action, web.pop("kind", None), **web)


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
                _add(g, flags, {"kind": o.path, "default": o.default}, dest=k, type=o.value_type(), choices=o.choices,
                     default=None, metavar=o.metavar, help=o.help)  # fmt: skip
        for k, s in cls.side_inputs.items():
            if k not in done:
                done.add(k)
                g = groups.setdefault(f"{name} inputs", p.add_argument_group(f"{name} inputs"))
                _add(g, [s.flag_for(k)], {"kind": s.path, "naming": s.naming}, dest=k, nargs="+", metavar=s.metavar,
                     default=None, help=s.help)  # fmt: skip


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


def _plot_width_flags(o) -> None:
    o.add_argument("--plot-width", default=None, metavar="W", help=_PLOT_WIDTH_HELP)
    o.add_argument("--caption", default="figure", metavar="figure|none|FILE",
                   help="the figure's caption (what it shows, the test, the seed): drawn in the figure (figure, the "
                   "default), left out (none), or left out and written to FILE, for a paper's own caption")  # fmt: skip


def save_plot(fig, a: argparse.Namespace) -> None:
    """``--plot FILE`` with ``--caption``: the figure saved, its caption in it, left out, or written to a file."""
    from mtsig.report.plots import save, take_caption, write_caption
    from mtsig.report.style import CAPTION_MODES

    text = take_caption(fig, a.caption)
    save(fig, a.plot)
    if a.caption not in CAPTION_MODES:
        write_caption(a.caption, text)


#: why the web app offers none of the output flags
OUTPUT_OFF = (
    "output: a run of the web app writes every format (JSON, text, CSV, LaTeX), the HTML report and its "
    "view at each metric's own decimals; figures are in the report"
)
#: what ``--plot`` draws, unless a command says it itself
PLOT_HELP = "also draw the result to FILE (.png, .svg or .pdf; needs pip install 'mtsig[plot]')"
#: what ``--html`` writes, unless a command says it itself
HTML_HELP = "also write a self-contained HTML report (tables, figures, settings, command)"


def output_flags(p: argparse.ArgumentParser, *, plot: str | None = PLOT_HELP, html: str | None = HTML_HELP) -> None:
    """The output block every command that prints a result shares: -f, -o, -q, -w and, with ``plot`` and ``html``
    (their help; None: the command has none), --plot, --plot-width, --caption and --html."""
    from mtsig.marks import off

    o = p.add_argument_group("output")
    o.add_argument("--format", "-f", default="text", choices=_format_names(), help="output format (text)")
    o.add_argument("--output", "-o", default=None, metavar="FILE", help="write to FILE instead of stdout")
    o.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    o.add_argument("--width", "-w", type=int, default=None, metavar="N",
                   help="decimals of every score in text, Markdown and LaTeX (default: each metric's own; as "
                   "sacreBLEU's -w)")  # fmt: skip
    if plot is not None:
        o.add_argument("--plot", default=None, metavar="FILE", help=plot)
        _plot_width_flags(o)
    if html is not None:
        o.add_argument("--html", default=None, metavar="FILE", help=html)
    for action in o._group_actions:  # a run of the web app writes every format, its report and its view
        off(action, OUTPUT_OFF)


def _format_names() -> tuple[str, ...]:
    from mtsig.report.render import FORMATS

    return tuple(FORMATS)


@contextmanager
def progress_factory(enabled: bool):
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


def layout_width(a: argparse.Namespace) -> int | None:
    """The width text output is laid out for: the terminal's (``COLUMNS``, else the tty's) when it goes to
    standard output, else None (the default, wide layout: files and pipes get the same bytes everywhere)."""
    if getattr(a, "output", None) or getattr(a, "format", "text") != "text":
        return None
    cols = os.environ.get("COLUMNS", "").strip()
    if cols.isdigit() and int(cols) > 0:
        return max(int(cols), 20)
    try:
        if sys.stdout.isatty():
            return max(_terminal_columns(), 20)
    except (AttributeError, OSError, ValueError):
        pass
    return None


def write(text: str, path: str | None, what: str = "--output") -> None:
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
            raise OutputFailed(f"cannot write to standard output ({exc.strerror or exc})") from None


def read_table(a: argparse.Namespace, *, check_only: bool = False):
    """The statistics table of the inputs the command line names (``check_only``: every input read and checked as
    for the table, the statistics not computed; None is returned)."""
    from mtsig.api import DEFAULT_METRICS, compute, read_inputs
    from mtsig.errors import InputError
    from mtsig.table import StatsTable

    compute = read_inputs if check_only else compute  # noqa: F811 - the same reading, without the statistics
    if getattr(a, "wmt25_scores", None):
        return _wmt25_table(a)
    if getattr(a, "stats", None):
        if a.refs or a.systems:
            raise InputError("give either --stats or -r/-s, not both")
        _no_text_options(a, "--stats")
        return StatsTable.load(a.stats).select(a.metrics)
    takes_test = a.command in ("compare", "analyze")
    from mtsig.stats.paired import test_names

    if a.test_set and takes_test and a.test_set in test_names():
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


def shown(res, a: argparse.Namespace):
    """``-w N``: the result shown with N decimals (figures, reports, --score-only); the numbers unchanged."""
    if getattr(a, "width", None) is None:
        return res
    from mtsig.report.render import with_decimals

    return with_decimals(res, a.width)


def render_result(res, a: argparse.Namespace) -> str:
    """The result in ``--format``, at the terminal's width, with ``-w``'s decimals (one mechanism for every command:
    :func:`mtsig.report.render.render`'s ``decimals``)."""
    from mtsig.report.render import render

    return render(res, a.format, layout_width(a), getattr(a, "width", None))


def plot_width(a: argparse.Namespace) -> float | None:
    """``--plot-width`` in inches (None: each figure's default)."""
    from mtsig.report.style import width_inches

    w = getattr(a, "plot_width", None)
    return None if w is None else width_inches(w)


def check_outputs(a: argparse.Namespace) -> None:
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
