"""The ``mtsig`` command line: a loop over the commands.

Each command is one module of :mod:`mtsig.commands` (its flags, its run, its figure and report); this module
builds the parser of the command asked for (only that one's flags: a command pays only the imports it uses), then
runs every command the same way: the shared checks, the statistics table when the command reads one, the progress
bar, and the result written by one mechanism (``-f``/``-o``/``-w``, ``--plot``, ``--html``, warnings).

Built on argparse rather than Typer/Click: the interface users know from sacreBLEU takes several
values after one flag (``-r REF1 REF2 -s SYS1 SYS2 -m bleu nist``), which Click options cannot do.
Rich draws the tables and the progress bars (on a terminal only; nothing is drawn when piped).

The metric flags are generated from the metrics' declared options and side inputs (plugins included);
errors from the core name API arguments, which are said here with their flags.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from types import ModuleType
from typing import Any

from mtsig._version import __version__
from mtsig.commands.common import EPILOG, OutputFailed, ParseFailed, Parser
from mtsig.errors import MtsigError

#: standard output failed and was reported (see OutputFailed)
_output_failed = False


class Command:
    """A command of ``mtsig``: its one-line help and what the loop gives it (its flags and its work are its module,
    ``mtsig.commands.<name>``). A plain class: a dataclass would compile its methods at every start-up."""

    __slots__ = ("help", "table", "progress")

    def __init__(self, help: str, *, table: bool = False, progress: bool = True):  # noqa: A002 - argparse's name
        #: the one line ``mtsig --help`` shows
        self.help = help
        #: reads the statistics table (texts, --stats, a test set, scores) before it runs
        self.table = table
        #: shows a progress bar on a terminal (unless -q)
        self.progress = progress


COMMANDS: dict[str, Command] = {
    "score": Command("corpus scores of systems (optionally with bootstrap intervals)", table=True),
    "stats": Command(
        "write per-segment statistics to an .npz file (score once, test many times)", table=True, progress=False
    ),
    "compare": Command("paired significance tests between systems", table=True),
    "analyze": Command(
        "where systems differ: scores, differences and corrected p-values per bucket (sentence "
        "length, word frequency, labels, documents, n-grams, examples)",
        table=True,
    ),
    "study": Command(
        "the literature's validation experiments (Koehn 2004, Riezler & Maxwell 2005, Clark et al. "
        "2011) on your outputs (mtsig study NAME --help)",
        table=True,
    ),
    "human": Command("rank systems from human judgments (WMT DA, MQM, ESA/TSV) with tests, clusters and rank ranges"),
    "meta": Command(
        "how well metrics agree with humans: correlations, pairwise accuracy, intervals, PERM-BOTH "
        "between metrics, clusters"
    ),
    "thresholds": Command(
        "the metric difference each metric needs for humans to agree at 50-95%% (Kocmi et al. 2024)", progress=False
    ),
    "serve": Command(
        "mtsig in a browser on this machine: upload outputs, compare, read and export the report (pip "
        "install 'mtsig[serve]')",
        progress=False,
    ),
    "metrics": Command("list the available metrics, their options and direction", progress=False),
}


def command_module(name: str) -> ModuleType:
    """The module of command ``name`` (imported when first asked for)."""
    return importlib.import_module(f"mtsig.commands.{name}")


def build_parser(only: str | None = None, study: str | None = None) -> Parser:
    """The parser; with ``only``, just that command's, and with ``study``, just that study's (building every
    command's flags takes milliseconds)."""
    ap = Parser(
        prog="mtsig",
        description="Is the difference between MT systems real? Exact BLEU/NIST, bootstrap intervals, "
        "paired tests, many systems.",
        epilog=EPILOG,
    )
    ap.add_argument("--version", action="version", version=f"mtsig {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        if only is None or name == only:
            add_args = command_module(name).add_args
            p = sub.add_parser(name, help=command.help, epilog=EPILOG if add_args else None)
            if name == "study":
                add_args(p, study)  # one subcommand per study (with ``study``: that one alone)
            elif add_args is not None:
                add_args(p)
    ap.commands = sub.choices  # command name -> its parser
    return ap


def prepare(a: argparse.Namespace, *, check_only: bool = False) -> tuple[ModuleType, Any]:
    """What every command does before its work: the shared checks, its own checks, and the statistics table it
    reads (``check_only``: the inputs read and checked, no statistics computed; the table is then None). Returns the
    command's module and the table. The web app checks a run with it before queueing it, and runs it with it."""
    from mtsig.commands.common import check_outputs, read_table

    command, module = COMMANDS[a.command], command_module(a.command)
    jobs = getattr(a, "jobs", 1)
    if jobs is not None and jobs < 1:  # (None: a declared flag not given)
        from mtsig.errors import InputError

        raise InputError(f"--jobs must be at least 1, got {a.jobs}")
    check_outputs(a)
    if getattr(a, "width", None) is not None and not 0 <= a.width <= 12:
        from mtsig.errors import InputError

        raise InputError(f"--width must be between 0 and 12 decimals, got {a.width}")
    check = getattr(module, "check", None)
    if check is not None:
        check(a)
    needs = getattr(module, "needs_table", None)
    table = read_table(a, check_only=check_only) if command.table and (needs is None or needs(a)) else None
    return module, table


def _run(a: argparse.Namespace) -> int:
    """Every command the same way: :func:`prepare`, its work with a progress bar, then what it returns written
    (:func:`_emit`)."""
    from mtsig.commands.common import progress_factory

    module, table = prepare(a)
    with progress_factory(COMMANDS[a.command].progress and not getattr(a, "quiet", False)) as prog:
        out = module.run(a, table, prog)
    if isinstance(out, int):  # an exit status (serve)
        return out
    if out is not None:
        _emit(module, out, a, table)
    return 0


def _emit(module: ModuleType, out: Any, a: argparse.Namespace, table) -> None:
    """What a command returned, written: a text as it is; a result shown with -w's decimals, its figure
    (--plot) and report (--html) first, its warnings, what else the command writes, then the result in
    --format (or the command's own output) to -o or standard output."""
    from mtsig.commands.common import render_result, shown, write

    if isinstance(out, str):
        write(out, getattr(a, "output", None))
        return
    res = shown(out, a)
    if getattr(a, "plot", None):
        module.figure(res, a)
    if getattr(a, "html", None):
        import shlex

        write(module.report(res, shlex.join(["mtsig", *a.argv])), a.html, "--html")
    for w in getattr(res, "warnings", ()):
        print(f"mtsig: warning: {w}", file=sys.stderr)
    finish = getattr(module, "finish", None)
    if finish is not None:
        finish(res, a, table)
    output = getattr(module, "output", None)
    write(output(res, a) if output is not None else render_result(res, a), a.output)


_FLAGS = {"refs": "-r/--refs", "systems": "-s/--systems", "dev_systems": "-d/--dev-systems"}


def message_of(exc: MtsigError) -> str:
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


def _parse(argv: list[str]) -> tuple[Parser, argparse.Namespace, list[str]]:
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


def _parse_with_plugins(argv: list[str]) -> tuple[Parser, argparse.Namespace]:
    """Parse without plugins first; with them when a name or flag is not a built-in one. Unknown flags end here
    (one line; for a study, naming the studies that have the flag)."""
    from mtsig.plugins import load_plugins

    try:
        Parser.strict = False
        ap, a, extras = _parse(argv)
    except ParseFailed:
        extras, a = None, None
    finally:
        Parser.strict = True
    if a is None or extras or _unknown_metric(a):
        load_plugins()
        ap, a, extras = _parse(argv)
    if extras:
        sub = ap.commands.get(a.command, ap) if a.command else ap
        if a.command == "study" and getattr(a, "study", None):
            sub = sub.studies[a.study]
            flag = next((x for x in extras if x.startswith("-")), "").split("=")[0]
            from mtsig.commands.study import other_studies_flag

            owners = other_studies_flag(flag, a.study)
            if owners:
                sub.error(f"{flag} is not an option of study {a.study} (it is one of {', '.join(owners)})")
        sub.error(sub.unknown_flags(extras))
    return ap, a


def parse(argv: list[str]) -> argparse.Namespace:
    """``argv`` (after ``mtsig``) parsed as the command line parses it, an error raised as an
    :class:`~mtsig.errors.InputError` (the command line's one line) instead of ending the process: how the web app
    reads the command line a form stands for."""
    from mtsig.errors import InputError
    from mtsig.plugins import load_plugins

    if any(x in ("-h", "--help", "--version") for x in argv):
        raise InputError("-h, --help and --version print help, not a result")
    load_plugins()
    try:
        Parser.strict = False
        ap, a, extras = _parse(list(argv))
        if a.command is not None and extras:
            raise InputError(ap.commands[a.command].unknown_flags(extras))
    except ParseFailed as exc:
        raise InputError(str(exc)) from None
    finally:
        Parser.strict = True
    if a.command is None:
        raise InputError("no command given")
    a.argv = list(argv)
    return a


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
        print(f"mtsig: error: {message_of(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OutputFailed as exc:
        global _output_failed
        _output_failed = True  # said once: the final flush of what is left in the buffer fails again
        print(f"mtsig: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mtsig: interrupted", file=sys.stderr)
        _forget_interrupt()
        return 130


def _forget_interrupt() -> None:
    """CPython (3.11, 3.12) remembers a KeyboardInterrupt that left code run from a string (``exec``/``eval`` of
    text: dataclasses and named tuples build their methods that way, so a Ctrl-C during a lazy import can end
    there) even when it is caught later; under ``python -m`` the interpreter then kills itself with SIGINT after
    a clean ``sys.exit(130)``. Running any string resets that memory."""
    exec("0", {})  # noqa: S102 - a constant, to reset the interpreter's flag


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
    try:
        code = main()
    except KeyboardInterrupt:  # Ctrl-C outside the command's own handler (reading the flags, loading plugins)
        print("mtsig: interrupted", file=sys.stderr)
        os._exit(130)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader that went away, a stream already closed
        sys.exit(code)
    except OSError as exc:  # e.g. no space left (stdout to /dev/full): said once, never a traceback
        if not _output_failed:
            print(f"mtsig: error: cannot write to standard output ({exc.strerror or exc})", file=sys.stderr)
        os._exit(2)
    executor = sys.modules.get("mtsig.executor")
    if executor is not None and executor.ABANDONED:  # a pool stopped mid-work: no clean-up that would wait on it
        os._exit(code)
    if any(m in sys.modules for m in _NEEDS_TEARDOWN):
        import signal

        # the work is done and written: a Ctrl-C now would only break the modules' clean-up into a traceback
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.exit(code)
    if "logging" in sys.modules:  # what logging would flush at exit (sacreBLEU imports it)
        sys.modules["logging"].shutdown()
    os._exit(code)


if __name__ == "__main__":
    run()
