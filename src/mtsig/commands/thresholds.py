"""``mtsig thresholds``: the metric difference each metric needs for humans to agree with it at 50-95% (Kocmi et
al. 2024)."""

from __future__ import annotations

import argparse

from mtsig.commands.common import layout_width, output_flags


def add_args(p: argparse.ArgumentParser) -> None:
    from mtsig.thresholds import ACCURACIES

    p.add_argument("-m", "--metrics", nargs="+", default=None, metavar="METRIC",
                   help="metrics (mtsig's names, score-file names or the paper's; default: every fit)")  # fmt: skip
    p.add_argument("--accuracy", nargs="+", type=float, default=list(ACCURACIES), metavar="PCT",
                   help="accuracies in %% (default: 50 55 ... 95)")  # fmt: skip
    p.add_argument("--fits", default=None, metavar="FILE", help="a thresholds.json of other fits ({metric: [a, b]})")
    output_flags(p, plot=None, html=None)


def run(a: argparse.Namespace, table, prog) -> str:
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
        return json.dumps(res, indent=1) + "\n"
    rows = [[f, *("-" if v[k] is None else f"{v[k]:.{d}f}" for k in accs)] for f, v in res["thresholds"].items()]
    head = ["metric (fit)", *(f"{k}%" for k in accs)]
    note = ("Δ a metric needs before that share of human judgments agrees with it (Kocmi et al. 2024, accuracy(Δ) = "
            "a / (1 + exp(-b Δ))); - at or above the fit's ceiling a, or at or below a/2 (its accuracy at Δ = 0: no "
            "positive difference gives it). Scale: " + "; ".join(
                f"{f} {'as printed' if scale_of(f) == 1 else 'x 100'}" for f in res["thresholds"]))  # fmt: skip
    if a.format == "csv":
        return csv_text(head, rows)
    if a.format in ("markdown", "latex"):
        t = Table(head, rows)
        if a.format == "markdown":
            return "\n".join(markdown(t)) + f"\n\n{note}\n"
        return latex(t, "l" + "r" * len(accs), note.replace("%", "\\%"))
    out = TextOut(layout_width(a))
    out.table(Table(head, rows, ["left"] + ["right"] * len(accs), title="metric deltas and human agreement"))
    out.line(note)
    return out.getvalue()
