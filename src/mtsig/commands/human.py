"""``mtsig human``: systems ranked from human judgments (WMT DA, MQM, ESA/TSV) with tests, clusters and rank
ranges, as each WMT year ranks them or with corrected tests."""

from __future__ import annotations

import argparse

from mtsig.commands.common import output_flags, plot_width, save_plot


def add_args(p: argparse.ArgumentParser) -> None:
    from mtsig.declare import add_flags
    from mtsig.humaneval.protocols import PROTOCOLS, HumanOptions
    from mtsig.io.human import INPUT_FORMATS
    from mtsig.marks import web

    web(p.add_argument("files", nargs="*", metavar="FILE", help="files of human judgments, all of one format"),
        "files", form="judgments", main=True)  # fmt: skip
    g = p.add_argument_group("judgments")
    web(g.add_argument("--mtme", default=None, metavar="DIR",
                       help="an mt-metrics-eval test-set folder instead of FILE: the gold segment scores of --lp "
                       "with its documents"), "dir")  # fmt: skip
    g.add_argument("--gold", default=None, metavar="NAME",
                   help="--mtme: the human scores to rank by (default: the year's standard, e.g. mqm)")  # fmt: skip
    g.add_argument("--include-outliers", action="store_true", help="--mtme: keep the systems the year calls outliers")
    g.add_argument("--exclude", nargs="+", default=(), metavar="SYS", help="--mtme: systems to leave out")
    g.add_argument("--input-format", default=None, choices=INPUT_FORMATS,
                   help="wmt-da (WMT's DA judgments), wmt-da-seg (WMT's segment scores), mqm (error spans), tsv "
                   "(system, segment, [annotator,] score), pearmut (Pearmut's annotation log, WMT26); default: "
                   "recognised from the first line")  # fmt: skip
    g.add_argument("--standardize", default=None, choices=("none", "annotator"),
                   help="annotator: z-standardize each annotator's scores first (raw DA, ESA)")  # fmt: skip
    web(g.add_argument("--mqm-weights", default=None, metavar="FILE",
                       help="MQM weights: severity<TAB>weight or severity<TAB>category<TAB>weight per line (default: "
                       "Major 5, Minor 1, Neutral 0, Non-translation 25, Minor Fluency/Punctuation 0.1)"),
        "file")  # fmt: skip
    g.add_argument("--da-score", default="z", choices=("z", "raw"), help="wmt-da-seg: the z (default) or raw score")
    g.add_argument(
        "--lp",
        default=None,
        metavar="SRC-TGT",
        help="the language pair to rank, of a file that holds several (Appraise's ESA exports); of a Pearmut log, the "
        "campaign (its key, the key without its version, or en-cs)",
    )
    g.add_argument("--reset", default=None, choices=("campaign", "annotator"),
                   help="Pearmut logs: what a __RESET__ line masks: campaign (WMT26's rule, default: everything "
                   "before it) or annotator (Pearmut's: its annotator's earlier screens)")  # fmt: skip
    web(g.add_argument("--docs", default=None, metavar="FILE",
                       help="the test set's documents (.docs: DOMAIN DOCID per line, as mt-metrics-eval and WMT24/25 "
                       "ship them, or the WMT XML test set): documents and domains of the judged segments (WMT DA "
                       "judgment files bring their documents themselves, from their HITs)"), "file")  # fmt: skip
    groups = add_flags(p, HumanOptions, groups={"judgments": g})
    listing = "; ".join(f"{n}: {e.help}" for n, e in PROTOCOLS.items())
    protocol = next(x for x in groups["ranking"]._group_actions if x.dest == "protocol")
    protocol.help = f"how systems are ranked ({listing})"
    output_flags(p, plot="also draw the ranking, one column wide (.png, .svg, .pdf; the plot extra)",
                 html="also write a self-contained HTML report (ranking figure as inline SVG, tables)")  # fmt: skip


def run(a: argparse.Namespace, table, prog):
    from mtsig.declare import given
    from mtsig.humaneval import human
    from mtsig.humaneval.protocols import HumanOptions

    files = _human_files(a)
    return human(files, input_format=a.input_format, standardize=a.standardize, mqm_weights=a.mqm_weights,
                 da_score=a.da_score, docs=a.docs, lp=a.lp, reset=a.reset, **given(HumanOptions, a),
                 progress=prog)  # fmt: skip


def figure(res, a: argparse.Namespace) -> None:
    from mtsig.report.paper import plot_human
    from mtsig.report.style import COLUMN

    save_plot(plot_human(res, plot_width(a) or COLUMN), a)


def report(res, command: str) -> str:
    from mtsig.report.human import render_human_html

    return render_human_html(res, command)


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
