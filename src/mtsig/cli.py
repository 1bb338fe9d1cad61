"""The ``mtsig`` command line.

Built on argparse rather than Typer/Click: the interface users know from sacreBLEU takes several
values after one flag (``-r REF1 REF2 -s SYS1 SYS2 -m bleu nist``), which Click options cannot do.
Rich draws the tables and the progress bars (on a terminal only; nothing is drawn when piped).
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager

from mtsig import __version__
from mtsig.errors import MtsigError
from mtsig.stats.intervals import CI_METHODS
from mtsig.stats.multiple import CORRECTIONS
from mtsig.stats.paired import ALTERNATIVES, TESTS

EPILOG = "Exit status: 0 success, 2 bad input or usage (one-line message on stderr)."


def _common_inputs(p: argparse.ArgumentParser, stats_input: bool = True) -> None:
    g = p.add_argument_group("inputs")
    g.add_argument("-r", "--refs", nargs="+", metavar="REF", help="reference files (plain text or NIST SGML/XML)")
    g.add_argument(
        "-s",
        "--systems",
        nargs="+",
        metavar="SYS",
        help="system outputs: FILE, NAME=FILE, NAME=run1,run2,... or a quoted glob 'NAME=out.*'",
    )
    if stats_input:
        g.add_argument("--stats", metavar="FILE.npz", help="read statistics written by `mtsig stats` instead of text")
    g.add_argument("--allow-empty-refs", action="store_true", help="accept empty reference segments")
    g.add_argument("--dev-refs", nargs="+", metavar="REF", help="development-set references (for s_dev)")
    g.add_argument(
        "-d",
        "--dev-systems",
        nargs="+",
        metavar="SYS",
        help="development-set outputs, one per optimizer run, as -s: NAME=dev.run1,dev.run2,...",
    )
    m = p.add_argument_group("metrics")
    m.add_argument(
        "-m",
        "--metrics",
        nargs="+",
        default=None,
        metavar="METRIC",
        help="metrics (default: bleu); see `mtsig metrics`",
    )
    m.add_argument(
        "--tokenize",
        default="13a",
        help="13a (default), intl, zh, char, none (whitespace only), ... (sacreBLEU's), or "
        "mteval-13a / mteval-intl for exact parity with the NIST scorer",
    )
    m.add_argument(
        "--lowercase",
        "-lc",
        action="store_true",
        help="lowercase (full Unicode; ASCII A-Z only with mteval-13a, as the NIST scorer does)",
    )
    m.add_argument("--bleu-order", type=int, default=4, help="BLEU / Modified BLEU max n-gram order (4)")
    m.add_argument(
        "--smooth",
        default="exp",
        choices=["exp", "floor", "add-k", "none"],
        help="BLEU smoothing (exp: the NIST scorer's, default)",
    )
    m.add_argument("--smooth-value", type=float, default=None, help="value for floor (0.1) / add-k (1)")
    m.add_argument("--nist-order", type=int, default=5, help="NIST max n-gram order (5)")
    t = p.add_argument_group("TER and chrF (sacreBLEU's options and defaults)")
    t.add_argument("--ter-case", action="store_true", help="TER: case-sensitive (default: lowercase)")
    t.add_argument("--ter-normalize", action="store_true", help="TER: tercom's normalization")
    t.add_argument("--ter-no-punct", action="store_true", help="TER: remove punctuation")
    t.add_argument("--ter-asian-support", action="store_true", help="TER: CJK handling (with the two above)")
    t.add_argument("--chrf-char-order", type=int, default=6, help="chrF character n-gram order (6)")
    t.add_argument("--chrf-word-order", type=int, default=None, help="chrF word n-gram order (chrf: 0, chrf++: 2)")
    t.add_argument("--chrf-beta", type=float, default=2, help="chrF beta (2)")
    t.add_argument("--chrf-whitespace", action="store_true", help="chrF: keep whitespace in character n-grams")
    t.add_argument("--chrf-eps-smoothing", action="store_true", help="chrF: eps smoothing (chrF++.py/Moses/NLTK)")
    d = p.add_argument_group("dependency F-score and user segment scores")
    d.add_argument("--parses-ref", nargs="+", metavar="CONLLU", help="CoNLL-U parses of the references (in -r order)")
    d.add_argument(
        "--parses-hyp",
        nargs="+",
        metavar="CONLLU",
        help="CoNLL-U parses of the systems: NAME=FILE[,FILE...] or one file per system in -s order",
    )
    d.add_argument("--parser", default=None, metavar="spacy:PIPELINE", help="parse plain text with spaCy (extra)")
    d.add_argument("--depf-unlabeled", action="store_true", help="depf: (head, dependent) pairs without relations")
    d.add_argument(
        "--seg-scores",
        nargs="+",
        metavar="SPEC",
        help="segment scores for -m seg: NAME=FILE[,FILE...] (one number per line) or a TSV/JSONL table",
    )
    d.add_argument("--seg-name", default="seg", help="name of the segment-score metric in reports (seg)")
    d.add_argument("--seg-lower-is-better", action="store_true", help="the segment scores are lower-is-better")
    g.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=min(os.cpu_count() or 1, 4),
        help="processes to score systems in (default: CPUs, at most 4; 1 = no extra process)",
    )


def _metric_options(a: argparse.Namespace) -> dict:
    return {
        "ter_case": a.ter_case,
        "ter_normalize": a.ter_normalize,
        "ter_no_punct": a.ter_no_punct,
        "ter_asian_support": a.ter_asian_support,
        "chrf_char_order": a.chrf_char_order,
        "chrf_beta": a.chrf_beta,
        "chrf_whitespace": a.chrf_whitespace,
        "chrf_eps_smoothing": a.chrf_eps_smoothing,
        **({"chrf_word_order": a.chrf_word_order} if a.chrf_word_order is not None else {}),
        "depf_labeled": not a.depf_unlabeled,
        "parser": a.parser,
        "parses_ref": a.parses_ref,
        "parses_hyp": a.parses_hyp,
        "seg_scores": a.seg_scores,
        "seg_name": a.seg_name,
        "seg_lower_is_better": a.seg_lower_is_better,
        "tokenize": a.tokenize,
        "lowercase": a.lowercase,
        "bleu_order": a.bleu_order,
        "smooth": a.smooth,
        "smooth_value": a.smooth_value,
        "nist_order": a.nist_order,
        "allow_empty_refs": a.allow_empty_refs,
        "jobs": max(1, a.jobs),
        "dev_refs": a.dev_refs,
        "dev_systems": a.dev_systems,
    }


def _output(p: argparse.ArgumentParser, formats=("text", "json", "csv", "markdown", "latex")) -> None:
    o = p.add_argument_group("output")
    o.add_argument("--format", "-f", default="text", choices=formats, help="output format (text)")
    o.add_argument("--output", "-o", default=None, metavar="FILE", help="write to FILE instead of stdout")
    o.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="mtsig",
        description="Is the difference between MT systems real? Exact BLEU/NIST, bootstrap intervals, "
        "paired tests, many systems.",
        epilog=EPILOG,
    )
    ap.add_argument("--version", action="version", version=f"mtsig {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("score", help="corpus scores of systems (optionally with bootstrap intervals)", epilog=EPILOG)
    _common_inputs(p)
    c = p.add_argument_group("confidence intervals")
    c.add_argument("--ci", action="store_true", help="add bootstrap confidence intervals")
    c.add_argument("--ci-method", default="percentile", choices=CI_METHODS, help="percentile (default), t, bca")
    c.add_argument("--n-bootstrap", type=int, default=1000, help="bootstrap resamples (1000)")
    c.add_argument("--confidence", type=float, default=0.95, help="confidence level (0.95)")
    c.add_argument("--seed", type=int, default=None, help="random seed (default 12345; always reported)")
    _output(p)

    p = sub.add_parser(
        "stats", help="write per-segment statistics to an .npz file (score once, test many times)", epilog=EPILOG
    )
    _common_inputs(p, stats_input=False)
    p.add_argument("--output", "-o", required=True, metavar="FILE.npz", help="statistics file to write")

    p = sub.add_parser("compare", help="paired significance tests between systems", epilog=EPILOG)
    _common_inputs(p)
    t = p.add_argument_group("tests")
    t.add_argument(
        "--test",
        "-t",
        nargs="+",
        default=["ar"],
        choices=TESTS,
        metavar="TEST",
        help=f"one or more of: {', '.join(TESTS)} (default: ar)",
    )
    t.add_argument("--baseline", "-b", default=None, help="compare each system with this one (default: all pairs)")
    t.add_argument(
        "--n-resamples",
        type=int,
        default=None,
        help="shuffles / bootstrap resamples (default: 10000 for ar, 1000 for bootstrap tests)",
    )
    t.add_argument("--seed", type=int, default=None, help="random seed (default 12345; always reported)")
    t.add_argument("--correction", default="holm", choices=CORRECTIONS, help="p-value adjustment (holm)")
    t.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    t.add_argument(
        "--alternative",
        default="two-sided",
        choices=ALTERNATIVES,
        help="two-sided (default); greater: B better than A by the metric's numbers; less",
    )
    t.add_argument("--confidence", type=float, default=0.95, help="level of the interval of the difference")
    t.add_argument(
        "--n-bootstrap",
        type=int,
        default=None,
        help="bootstrap resamples for the interval of the difference and s_sel (1000)",
    )
    t.add_argument(
        "--rank-dir",
        metavar="DIR",
        default=None,
        help="with --baseline: write, per system and metric, the segments ranked by improvement of its "
        "median run over the baseline's median run (TSV)",
    )
    _output(p)

    p = sub.add_parser("metrics", help="list the available metrics, their options and direction")
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


def _write(text: str, path: str | None) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def _table(a: argparse.Namespace):
    from mtsig.api import DEFAULT_METRICS, compute
    from mtsig.errors import InputError
    from mtsig.evaluation import StatsTable

    if getattr(a, "stats", None):
        if a.refs or a.systems:
            raise InputError("give either --stats or -r/-s, not both")
        return StatsTable.load(a.stats).select(a.metrics)
    if not a.refs:
        raise InputError("no reference given: use -r REF [REF ...]")
    if not a.systems:
        raise InputError("no system given: use -s SYS [SYS ...]")
    return compute(a.refs, a.systems, a.metrics or list(DEFAULT_METRICS), **_metric_options(a))


def _run(a: argparse.Namespace) -> int:
    if a.command == "metrics":
        from mtsig.metrics import REGISTRY, load_plugins

        load_plugins()
        for name, cls in REGISTRY.items():
            opts = ", ".join(f"{k}={v!r}" for k, v in cls.options.items())
            print(f"{name:8s} {'higher' if cls.higher_is_better else 'lower'} is better  {cls.description}")
            print(f"{'':8s} options: {opts}")
        return 0
    table = _table(a)
    if a.command == "stats":
        table.save(a.output)
        print(
            f"wrote statistics of {len(table.systems)} system(s) x {len(table.metrics)} metric(s), "
            f"{table.n_segments} segments, to {a.output}",
            file=sys.stderr,
        )
        return 0
    from mtsig.report.render import render_compare, render_score
    from mtsig.results import compare_table, score_table

    with _progress_factory(not a.quiet) as prog:
        if a.command == "score":
            res = score_table(
                table,
                ci=a.ci,
                ci_method=a.ci_method,
                n_bootstrap=a.n_bootstrap,
                confidence=a.confidence,
                seed=a.seed,
                progress=prog,
            )
            _write(render_score(res, a.format), a.output)
        else:
            if a.rank_dir and not a.baseline:
                from mtsig.errors import InputError

                raise InputError("--rank-dir needs --baseline (segments are ranked against the baseline)")
            res = compare_table(
                table,
                a.test,
                n_resamples=a.n_resamples,
                seed=a.seed,
                baseline=a.baseline,
                correction=a.correction,
                alpha=a.alpha,
                alternative=a.alternative,
                confidence=a.confidence,
                n_bootstrap=a.n_bootstrap,
                progress=prog,
            )
            if a.rank_dir:
                from mtsig.report.ranking import write_rankings

                files = write_rankings(table, a.baseline, a.rank_dir)
                print(f"wrote {len(files)} ranking file(s) to {a.rank_dir}", file=sys.stderr)
            _write(render_compare(res, a.format), a.output)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    a = ap.parse_args(argv)
    if a.command is None:
        ap.print_help()
        return 2
    try:
        return _run(a)
    except MtsigError as exc:
        print(f"mtsig: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
