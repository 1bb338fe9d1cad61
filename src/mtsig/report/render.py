"""Turn result objects into text: ``text`` (Rich tables), ``json``, ``csv``, ``markdown``, ``latex``."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from mtsig.errors import unknown_name
from mtsig.results import CompareResult, ScoreResult

FORMATS = ("text", "json", "csv", "markdown", "latex")
_DECIMALS = {"nist": 4}


def _fmt(metric: str, x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.{_DECIMALS.get(metric, 2)}f}"


def _fmt_p(p: float) -> str:
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _arrow(higher: bool) -> str:
    return "↑" if higher else "↓"


def to_json(obj: Any) -> str:
    return json.dumps(obj.to_dict(), indent=2, ensure_ascii=False, allow_nan=True) + "\n"


# ------------------------------------------------------------------------------------------- score
def _sd(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _score_cell(metric: str, e: dict[str, Any]) -> str:
    if "runs" in e:
        mid = f"/{_sd(e['s_dev'])}" if e.get("s_dev") is not None else ""
        return f"{_fmt(metric, e['mean'])} ({_sd(e['s_sel'])}{mid}/{_sd(e['s_test'])})"
    if "ci" in e:
        lo, hi = e["ci"]
        return f"{_fmt(metric, e['score'])} [{_fmt(metric, lo)}, {_fmt(metric, hi)}]"
    return _fmt(metric, e["score"])


def _score_rows(res: ScoreResult) -> tuple[list[str], list[list[str]]]:
    metrics = list(res.systems[0]["scores"]) if res.systems else []
    header = ["system", *metrics]
    rows = [[s["name"], *(_score_cell(m, s["scores"][m]) for m in metrics)] for s in res.systems]
    return header, rows


def render_score(res: ScoreResult, fmt: str = "text", width: int | None = None) -> str:
    if fmt not in FORMATS:
        raise unknown_name("format", fmt, FORMATS)
    if fmt == "json":
        return to_json(res)
    metrics = list(res.systems[0]["scores"]) if res.systems else []
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["system", "metric", "score", "ci_low", "ci_high", "s_sel", "s_test", "runs", "signature"])
        for s in res.systems:
            for m in metrics:
                e = s["scores"][m]
                ci = e.get("ci") or [None, None]
                w.writerow(
                    [
                        s["name"],
                        m,
                        e["score"],
                        ci[0],
                        ci[1],
                        e.get("s_sel"),
                        e.get("s_test"),
                        " ".join(map(str, e.get("runs", []))),
                        e["signature"],
                    ]
                )
        return buf.getvalue()
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    header, rows = _score_rows(res)
    sigs = {m: res.systems[0]["scores"][m]["signature"] for m in metrics} if res.systems else {}
    notes = _score_notes(res)
    if fmt == "markdown":
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(out + [""] + [f"- {n}" for n in notes] + [f"- `{sigs[m]}`" for m in metrics]) + "\n"
    if fmt == "latex":
        hdr = " & ".join(
            [
                "System",
                *(
                    f"{m.upper()} {_arrow(res.higher_is_better.get(m, True))}".replace("↑", r"$\uparrow$").replace(
                        "↓", r"$\downarrow$"
                    )
                    for m in metrics
                ),
            ]
        )
        body = "\n".join(" & ".join(_tex(c) for c in r) + r" \\" for r in rows)
        return (
            "\\begin{table}\n\\centering\n\\begin{tabular}{l"
            + "r" * len(metrics)
            + "}\n\\toprule\n"
            + hdr
            + r" \\"
            + "\n\\midrule\n"
            + body
            + "\n\\bottomrule\n\\end{tabular}\n"
            + "\\caption{"
            + _tex(" ".join(notes))
            + "}\n\\end{table}\n"
        )
    table = Table(show_edge=False, header_style="bold")
    for i, h in enumerate(header):
        table.add_column(
            h if i == 0 else f"{h} {_arrow(res.higher_is_better.get(h, True))}", justify="left" if i == 0 else "right"
        )
    for r in rows:
        table.add_row(*(Text(x) for x in r))
    con = Console(file=io.StringIO(), width=width or 250, force_terminal=False, color_system=None)
    con.print(table)
    for n in notes:
        con.print(Text(n), soft_wrap=True)
    for m in metrics:
        con.print(Text(f"{m}: {sigs[m]}"), soft_wrap=True)
    return con.file.getvalue()


def _tex(s: str) -> str:
    return (
        s.replace("\\", r"\textbackslash{}")
        .replace("_", r"\_")
        .replace("%", r"\%")
        .replace("&", r"\&")
        .replace("#", r"\#")
        .replace("$", r"\$")
    )


def _score_notes(res: ScoreResult) -> list[str]:
    st = res.settings
    notes = []
    if "ci_method" in st:
        notes.append(
            f"[low, high]: {st['confidence']:.0%} {st['ci_method']} bootstrap interval, "
            f"{st['n_bootstrap']} resamples, seed {st['seed']}."
        )
    if any("runs" in e for s in res.systems for e in s["scores"].values()):
        dev = any(e.get("s_dev") is not None for s in res.systems for e in s["scores"].values())
        notes.append(
            f"mean ({'s_sel/s_dev/s_test' if dev else 's_sel/s_test'}) over optimizer runs: s_sel = bootstrap std "
            "within a run (test-set selection, averaged over runs), "
            + ("s_dev = std of the runs' development-set scores, " if dev else "")
            + f"s_test = std of the runs' test scores; {st.get('n_bootstrap')} resamples, seed {st.get('seed')}."
        )
    return notes


# ------------------------------------------------------------------------------------------- compare
_TEST_LABEL = {
    "ar": "approx. randomization",
    "bootstrap": "bootstrap (shift)",
    "paired-bootstrap": "paired bootstrap",
    "ttest": "paired t-test",
    "wilcoxon": "Wilcoxon",
}


def render_compare(res: CompareResult, fmt: str = "text", width: int | None = None) -> str:
    if fmt not in FORMATS:
        raise unknown_name("format", fmt, FORMATS)
    if fmt == "json":
        return to_json(res)
    st = res.settings
    cols = [
        "metric",
        "a",
        "b",
        "score_a",
        "score_b",
        "delta",
        "delta_ci_low",
        "delta_ci_high",
        "test",
        "p_value",
        "p_adjusted",
        "significant",
    ]
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for c in res.comparisons:
            ci = c["delta_ci"] or [None, None]
            w.writerow(
                [
                    c["metric"],
                    c["a"],
                    c["b"],
                    c["score_a"],
                    c["score_b"],
                    c["delta"],
                    ci[0],
                    ci[1],
                    c["test"],
                    c["p_value"],
                    c["p_adjusted"],
                    c["significant"],
                ]
            )
        return buf.getvalue()
    notes = _compare_notes(res)
    metrics = list(dict.fromkeys(c["metric"] for c in res.comparisons))
    if fmt in ("markdown", "latex"):
        hdr = [
            "metric",
            "A",
            "B",
            "A score",
            "B score",
            "Δ (B−A)",
            f"{st['confidence']:.0%} CI of Δ",
            "test",
            "p",
            "p adj.",
            "sig.",
        ]
        rows = [
            [
                c["metric"],
                c["a"],
                c["b"],
                _fmt(c["metric"], c["score_a"]),
                _fmt(c["metric"], c["score_b"]),
                _fmt(c["metric"], c["delta"]),
                _ci(c),
                c["test"],
                _fmt_p(c["p_value"]),
                _fmt_p(c["p_adjusted"]),
                "yes" if c["significant"] else "no",
            ]
            for c in res.comparisons
        ]
        rt = _runs_table(res)
        if fmt == "markdown":
            out = []
            if rt is not None:
                out += ["| " + " | ".join(rt[0]) + " |", "|" + "---|" * len(rt[0])]
                out += ["| " + " | ".join(r) + " |" for r in rt[1]] + ["", rt[2], ""]
            out += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
            out += ["| " + " | ".join(r) + " |" for r in rows]
            out += [""] + [f"- {n}" for n in notes]
            return "\n".join(out) + "\n"
        runs_tex = ""
        if rt is not None:
            header = [_tex(h).replace("↑", r"$\uparrow$").replace("↓", r"$\downarrow$") for h in rt[0]]
            runs_tex = (
                "\\begin{table}\n\\centering\n\\begin{tabular}{l"
                + "r" * (len(header) - 1)
                + "}\n\\toprule\n"
                + " & ".join(header)
                + r" \\"
                + "\n\\midrule\n"
                + "\n".join(" & ".join(_tex(x) for x in r) + r" \\" for r in rt[1])
                + "\n\\bottomrule\n\\end{tabular}\n\\caption{"
                + _tex(rt[2])
                + "}\n\\end{table}\n\n"
            )
        hdr = [h.replace("Δ", r"$\Delta$").replace("−", "-") for h in hdr]
        body = "\n".join(" & ".join(_tex(x) if "$" not in x else x for x in r) + r" \\" for r in rows)
        return runs_tex + (
            "\\begin{table}\n\\centering\n\\begin{tabular}{lll"
            + "r" * 5
            + "lrrl}\n\\toprule\n"
            + " & ".join(hdr[:6] + [_tex(hdr[6])] + hdr[7:])
            + r" \\"
            + "\n\\midrule\n"
            + body
            + "\n\\bottomrule\n\\end{tabular}\n\\caption{"
            + _tex(" ".join(notes))
            + "}\n\\end{table}\n"
        )
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    con = Console(file=io.StringIO(), width=width or 250, force_terminal=False, color_system=None)
    rt = _runs_table(res)
    if rt is not None:
        header, rows_, caption = rt
        t = Table(show_edge=False, header_style="bold")
        for i, h in enumerate(header):
            t.add_column(h, justify="left" if i == 0 else "right")
        for r in rows_:
            t.add_row(*map(Text, r))
        con.print(t)
        con.print(Text(caption), soft_wrap=True)
        con.print()
    for m in metrics:
        rows = [c for c in res.comparisons if c["metric"] == m]
        hib = res.higher_is_better.get(m, True)
        t = Table(
            title=Text(f"{m.upper()} {_arrow(hib)}  ({st['signatures'].get(m, '')})"),
            show_edge=False,
            header_style="bold",
            title_justify="left",
        )
        for h, j in [
            ("A", "left"),
            ("B", "left"),
            ("A", "right"),
            ("B", "right"),
            ("Δ B−A", "right"),
            (f"{st['confidence']:.0%} CI of Δ", "right"),
            ("test", "left"),
            ("p", "right"),
            (f"p ({st['correction']})", "right"),
            ("", "left"),
        ]:
            t.add_column(h, justify=j)
        for c in rows:
            t.add_row(
                *map(
                    Text,
                    [
                        c["a"],
                        c["b"],
                        _fmt(m, c["score_a"]),
                        _fmt(m, c["score_b"]),
                        _fmt(m, c["delta"]),
                        _ci(c),
                        _TEST_LABEL.get(c["test"], c["test"]),
                        _fmt_p(c["p_value"]),
                        _fmt_p(c["p_adjusted"]),
                        "*" if c["significant"] else "",
                    ],
                )
            )
        con.print(t)
        if res.clusters.get(m):
            ranks = "  >  ".join("{" + ", ".join(cl) + "}" for cl in res.clusters[m])
            con.print(Text(f"clusters (best first, by {st['cluster_test']}): {ranks}"), soft_wrap=True)
        con.print()
    for n in notes:
        con.print(Text(n), soft_wrap=True)
    return con.file.getvalue()


def _runs_table(res: CompareResult) -> tuple[list[str], list[list[str]], str] | None:
    """MultEval's table: one row per system, per metric ``mean (s_sel/s_test/p)``; None without runs."""
    if not any("runs" in e for s in res.systems for e in s["scores"].values()):
        return None
    st = res.settings
    metrics = list(res.systems[0]["scores"])
    dev = any(s["scores"][m].get("s_dev") is not None for s in res.systems for m in metrics)
    first = st["tests"][0]
    pmap = {
        (c["metric"], c["b"]): c["p_value"] for c in res.comparisons if c["test"] == first and c["a"] == st["baseline"]
    }
    inner = ("s_sel/s_dev/s_test" if dev else "s_sel/s_test") + ("/p" if st["baseline"] else "")
    header = ["system", *(f"{m.upper()} {_arrow(res.higher_is_better.get(m, True))} ({inner})" for m in metrics)]
    rows = []
    for s in res.systems:
        cells = [s["name"]]
        for m in metrics:
            e = s["scores"][m]
            parts = [_sd(e["s_sel"])] + ([_sd(e.get("s_dev"))] if dev else []) + [_sd(e["s_test"])]
            if st["baseline"]:
                p = pmap.get((m, s["name"]))
                parts.append("-" if p is None else f"{p:.2f}")
            cells.append(f"{_fmt(m, e['mean'])} ({'/'.join(parts)})")
        rows.append(cells)
    n_runs = sorted({len(s["scores"][metrics[0]]["runs"]) for s in res.systems})
    caption = (
        f"Mean over optimizer runs (n = {'/'.join(map(str, n_runs))}); s_sel: standard deviation of the score over "
        f"{st['n_bootstrap_delta_ci']} bootstrap resamples of the test set, averaged over runs; "
        + ("s_dev: standard deviation of the runs' development-set scores; " if dev else "")
        + "s_test: standard deviation of the runs' test-set scores"
        + (
            f"; p: stratified approximate randomization against {st['baseline']} "
            f"({st['n_resamples'].get('ar', '-')} shuffles, seed {st['seed']}), unadjusted"
            if st["baseline"]
            else ""
        )
        + ". Arrows: whether higher or lower is better."
    )
    return header, rows, caption


def _ci(c: dict[str, Any]) -> str:
    if not c.get("delta_ci"):
        return "-"
    lo, hi = c["delta_ci"]
    return f"[{_fmt(c['metric'], lo)}, {_fmt(c['metric'], hi)}]"


def _compare_notes(res: CompareResult) -> list[str]:
    st = res.settings
    nres = ", ".join(f"{t}: {n}" for t, n in st["n_resamples"].items())
    return [
        f"* = significant at alpha = {st['alpha']} after {st['correction']} correction over "
        f"{st['n_comparisons']} comparison(s) per metric and test (unadjusted, the experimentwise error "
        f"would be 1-(1-alpha)^k = {st['experimentwise_error_unadjusted']:.3f}).",
        f"Δ CI: {st['confidence']:.0%} percentile interval of {st['n_bootstrap_delta_ci']} paired bootstrap "
        f"resamples. Resamples: {nres or '-'}; seed {st['seed']}; {st['alternative']}; "
        f"{st['n_segments']} segments.",
    ]
