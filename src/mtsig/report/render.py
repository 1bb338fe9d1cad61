"""Turn result objects into text: ``text`` (Rich tables), ``json``, ``csv``, ``markdown``, ``latex``.

One registry, :data:`FORMATS` (format name -> result type -> renderer), serves ``score``, ``compare`` and the
studies; :func:`render` looks a result's renderer up, and :func:`register_format` adds a format (or a result
type to one). Every format is built from the same :class:`~mtsig.report.table.Table` objects (score table,
comparison table per metric, MultEval's runs table, each study's tables) and the same notes, and every LaTeX
string goes through one escaper (:func:`_tex`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from mtsig.errors import unknown_name
from mtsig.registry import Registry
from mtsig.report.table import (
    DEFAULT_WIDTH,
    Table,
    TextOut,
    console,
    csv_text,
    decimals_of_output,
    format_p,
    latex,
    markdown,
    natural_width,
    p_cells,
    print_rich,
    printable,
    rounded,
    shown,
)
from mtsig.stats.paired import PAIRED_TESTS

if TYPE_CHECKING:
    from mtsig.results import CompareResult, Comparison, RunStats, ScoreResult, SystemScore
    from mtsig.studies.result import StudyResult, StudyTable

#: format name -> result type (by qualified name, so that no result module is imported for the others) ->
#: ``renderer(result, fmt, width) -> str`` (filled at the end of this module)
FORMATS: Registry[dict[str, Callable[[Any, str, int | None], str]]] = Registry("format", "mtsig.formats")


class _Fmt:
    """Number formatting with each metric's decimals."""

    def __init__(self, decimals: dict[str, int]):
        self.decimals = decimals

    def __call__(self, metric: str, x: float | None) -> str:
        if x is None:
            return "-"
        return f"{x:.{self.decimals.get(metric, 2)}f}"


def _fmt_p(p: float) -> str:
    return format_p(p)


def _arrow(direction: str) -> str:
    """↑ (higher is better), ↓ (lower) or →100 (closest to 100)."""
    return {"higher": "↑", "lower": "↓"}.get(direction, "→" + direction.rsplit(" ", 1)[-1])


def _arrow_of(res, metric: str) -> str:
    return _arrow(res.directions.get(metric, "higher"))


_TEX = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "{": r"\{",
        "}": r"\}",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
        "|": r"\textbar{}",
        "<": r"\textless{}",
        ">": r"\textgreater{}",
        "Δ": r"$\Delta$",
        "−": "-",
        "α": r"$\alpha$",
        "↑": r"$\uparrow$",
        "↓": r"$\downarrow$",
        "→": r"$\rightarrow$",
        "≤": r"$\leq$",
        "≥": r"$\geq$",
        "∝": r"$\propto$",
        "√": r"$\surd$",
    }
)


def _tex(s: str) -> str:
    """Text as LaTeX (each special character escaped once; Δ, α and arrows as math)."""
    return printable(s).translate(_TEX)


def _md(s: str) -> str:
    """Text for a Markdown table cell or list item (pipes and asterisks kept literal)."""
    return printable(s).replace("|", "\\|").replace("*", "\\*")


def strict(obj: Any) -> Any:
    """``obj`` with every non-finite number (NaN, ±Infinity: a constant difference's t statistic, a ratio of no
    reference words) as None: JSON has no such numbers, and ``JSON.parse`` and strict parsers refuse them."""
    if isinstance(obj, dict):
        return rounded({k: strict(v) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return [strict(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return float(obj) if np.isfinite(obj) else None
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def to_json(obj: Any) -> str:
    return json.dumps(strict(obj.to_dict()), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _sd(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


# ------------------------------------------------------------------------------------------- score
def _score_cell(fmt: _Fmt, metric: str, e: SystemScore) -> str:
    if e.runs is not None:
        mid = f"/{_sd(e.runs.s_dev)}" if e.runs.s_dev is not None else ""
        return f"{fmt(metric, e.runs.mean)} ({_sd(e.runs.s_sel)}{mid}/{_sd(e.runs.s_test)})"
    if e.ci is not None:
        return f"{fmt(metric, e.score)} [{fmt(metric, e.ci.low)}, {fmt(metric, e.ci.high)}]"
    return fmt(metric, e.score)


def _score_table(res: ScoreResult | CompareResult) -> Table:
    fmt = _Fmt(res.decimals)
    rows = [[s.name, *(_score_cell(fmt, m, s.scores[m]) for m in res.metrics)] for s in res.systems]
    return Table(["system", *res.metrics], rows)


def _score_csv(res: ScoreResult) -> str:
    rows = []
    for s in res.systems:
        for m in res.metrics:
            e = s.scores[m]
            ci = e.ci.to_list() if e.ci else [None, None]
            r = e.runs
            runs = " ".join(map(str, r.runs)) if r else ""
            rows.append([s.name, m, e.score, *ci, r.s_sel if r else None, r.s_test if r else None, runs, e.signature])
    return csv_text(["system", "metric", "score", "ci_low", "ci_high", "s_sel", "s_test", "runs", "signature"], rows)


def units_note(unit: str | None, n_units: int | None) -> str:
    """What resampling drew when it was not segments: ", resampling whole documents (271)"."""
    if unit in (None, "segment"):
        return ""
    return f", resampling whole {unit}s ({n_units})"


def _score_notes(res: ScoreResult) -> list[str]:
    st = res.settings
    notes = []
    if st.ci_method is not None:
        notes.append(
            f"[low, high]: {st.confidence:.0%} {st.ci_method} bootstrap interval, "
            f"{st.n_bootstrap} resamples{units_note(st.resample_unit, st.n_units)}, seed {st.seed}."
        )
    scores = [e for s in res.systems for e in s.scores.values()]
    if any(e.runs is not None for e in scores):
        dev = any(e.runs is not None and e.runs.s_dev is not None for e in scores)
        notes.append(
            f"mean ({'s_sel/s_dev/s_test' if dev else 's_sel/s_test'}) over optimizer runs: s_sel = bootstrap std "
            "within a run (test-set selection, averaged over runs), "
            + ("s_dev = std of the runs' development-set scores, " if dev else "")
            + f"s_test = std of the runs' test scores; {st.n_bootstrap} resamples"
            + f"{units_note(st.resample_unit, st.n_units)}, seed {st.seed}."
        )
    return notes


def _segment_tables(res: ScoreResult) -> list[tuple[str, Table]]:
    """With segment scores: per metric, a table of segment number x system (or run)."""
    out = []
    for m, cols in (res.segments or {}).items():
        d = res.decimals.get(m, 2)
        names = list(cols)
        n = len(next(iter(cols.values()))) if cols else 0
        rows = [[str(i + 1), *(f"{cols[c][i]:.{d}f}" for c in names)] for i in range(n)]
        out.append((m, Table(["segment", *names], rows, title=f"segment scores: {m}")))
    return out


def _segment_csv(res: ScoreResult) -> str:
    rows = [[c, m, i + 1, x] for m, cols in (res.segments or {}).items() for c, xs in cols.items()
            for i, x in enumerate(xs)]  # fmt: skip
    return csv_text(["system", "metric", "segment", "score"], rows)


def render_score(res: ScoreResult, fmt: str = "text", width: int | None = None) -> str:
    text = _render_score(res, fmt, width)
    if res.segments is None or fmt == "json":
        return text
    if fmt == "csv":
        return text + "\n# segment scores\n" + _segment_csv(res)
    if fmt == "markdown":
        for m, t in _segment_tables(res):
            text += f"\n*segment scores: {_md(m)}*\n\n" + "\n".join(markdown(t)) + "\n"
        return text
    if fmt == "latex":
        for m, t in _segment_tables(res):
            esc = Table(t.header and [_tex(h) for h in t.header], t.rows)
            text += latex(esc, "r" * len(t.header), _tex(f"Segment scores: {m}"))
        return text
    out = TextOut(width)
    for _, t in _segment_tables(res):
        out.line()
        out.table(t)
    return text + out.getvalue()


def _render_score(res: ScoreResult, fmt: str, width: int | None) -> str:
    FORMATS.get(fmt)  # an unknown format is refused (plugins loaded first)
    if fmt == "json":
        return to_json(res)
    if fmt == "csv":
        return _score_csv(res)
    metrics = res.metrics
    t = _score_table(res)
    sigs = {m: res.systems[0].scores[m].signature for m in metrics} if res.systems else {}
    notes = _score_notes(res)
    if fmt == "markdown":
        t = Table(t.header, [[_md(c) for c in r] for r in t.rows])
        lines = markdown(t) + [""] + [f"- {_md(n)}" for n in notes] + [f"- `{sigs[m]}`" for m in metrics]
        return "\n".join(lines) + "\n"
    arrows = [f"{m} {_arrow_of(res, m)}" for m in metrics]
    if fmt == "latex":
        tex = Table(["System", *(_tex(a.upper()) for a in arrows)], [[_tex(c) for c in r] for r in t.rows])
        caption = " ".join([*notes, "Signatures:", "; ".join(f"{m}: {sigs[m]}" for m in metrics)])
        return latex(tex, "l" + "r" * len(metrics), _tex(caption))
    out = TextOut(width)
    out.table(Table([t.header[0], *arrows], t.rows))
    for n in notes:
        out.line(n)
    for m in metrics:
        out.line(f"{m}: {sigs[m]}")
    return out.getvalue()


# ------------------------------------------------------------------------------------------- compare
_CSV_COLUMNS = ["metric", "a", "b", "score_a", "score_b", "delta", "delta_ci_low", "delta_ci_high", "test",
                "p_value", "p_adjusted", "significant"]  # fmt: skip


def _compare_csv(res: CompareResult) -> str:
    rows = []
    aso = "aso" in res.settings.tests  # ASO rows have no p-value: their ε_min and gate's adjusted p get columns
    assume = any("assumption" in c.result.extra for c in res.comparisons)  # the runs test says what it rests on
    for c in res.comparisons:
        r = c.result
        ci = r.delta_ci.to_list() if r.delta_ci else [None, None]
        rank = _cluster_ranks(res, r.metric)
        more = ([r.extra.get("eps_min"), r.extra.get("gate_p_adjusted")] if aso else []) + (
            [r.extra.get("assumption")] if assume else []
        )
        rows.append([r.metric, r.a, r.b, r.score_a, r.score_b, r.delta, *ci, r.test, r.p_value, c.p_adjusted,
                     c.significant, rank.get(r.a), rank.get(r.b), *more])  # fmt: skip
    head = (
        [*_CSV_COLUMNS, "cluster_a", "cluster_b"]
        + (["eps_min", "gate_p_adjusted"] if aso else [])
        + (["assumption"] if assume else [])
    )
    return csv_text(head, rows)


def _cluster_ranks(res: CompareResult, metric: str) -> dict[str, int]:
    """Each system's significance cluster under ``metric``, 1 = best (empty without clusters)."""
    return {n: k + 1 for k, cl in enumerate(res.clusters.get(metric) or []) for n in cl}


def _cluster_lines(res: CompareResult) -> list[str]:
    """One line per metric with clusters: ``bleu clusters (best first, by ar): {A, B}  >  {C}``."""
    return [
        f"{m} clusters (best first, by {res.settings.cluster_test}): "
        + "  >  ".join("{" + ", ".join(cl) + "}" for cl in res.clusters.get(m) or [])
        for m in res.metrics
        if res.clusters.get(m)
    ]


def _ci(fmt: _Fmt, c: Comparison) -> str:
    ci = c.result.delta_ci
    if not ci:
        return "-"
    return f"[{fmt(c.metric, ci.low)}, {fmt(c.metric, ci.high)}]"


def _compare_doc_table(res: CompareResult) -> Table:
    """All comparisons in one table (Markdown and LaTeX)."""
    fmt = _Fmt(res.decimals)
    hdr = ["metric", "A", "B", "A score", "B score", "Δ (B−A)", f"{res.settings.confidence:.0%} CI of Δ", "test", "p",
           "p adj.", "sig."]  # fmt: skip
    rows = []
    for c in res.comparisons:
        r, m = c.result, c.metric
        rows.append([m, r.a, r.b, fmt(m, r.score_a), fmt(m, r.score_b), fmt(m, r.delta), _ci(fmt, c), r.test,
                     *p_cells(r, c.p_adjusted), "yes" if c.significant else "no"])  # fmt: skip
    return Table(hdr, rows)


def _compare_text_table(res: CompareResult, m: str) -> Table:
    st, fmt = res.settings, _Fmt(res.decimals)
    cols = [("A", "left"), ("B", "left"), ("score A", "right"), ("score B", "right"), ("Δ B−A", "right"),
            (f"{st.confidence:.0%} CI of Δ", "right"), ("test", "left"), ("p", "right"),
            (f"p ({st.correction})", "right"), ("sig.", "left")]  # fmt: skip
    mine = [c for c in res.comparisons if c.metric == m]
    agree = any(c.human_agreement for c in mine)
    if agree:  # Kocmi et al. 2024: the share of human judgments expected to agree with the metric's preference
        cols.append(("humans agree", "right"))
    rows = []
    for c in mine:
        r = c.result
        label = PAIRED_TESTS[r.test].label if r.test in PAIRED_TESTS else r.test
        rows.append([r.a, r.b, fmt(m, r.score_a), fmt(m, r.score_b), fmt(m, r.delta), _ci(fmt, c), label,
                     *p_cells(r, c.p_adjusted), "*" if c.significant else ""])  # fmt: skip
        if agree:
            rows[-1].append(f"{c.human_agreement['accuracy']:.0%}" if c.human_agreement else "-")
    title = f"{m.upper()} {_arrow_of(res, m)}  ({st.signatures.get(m, '')})"
    return Table([h for h, _ in cols], rows, [j for _, j in cols], title)


def _compare_latex(res: CompareResult, runs: tuple[Table, str] | None, notes: list[str]) -> str:
    out = ""
    if runs is not None:
        t, caption = runs
        header = [_tex(h) for h in t.header]
        rows = [[_tex(x) for x in r] for r in t.rows]
        out = latex(Table(header, rows), "l" + "r" * (len(header) - 1), _tex(caption)) + "\n"
    t = _compare_doc_table(res)
    tex = Table([_tex(h) for h in t.header], [[_tex(x) for x in r] for r in t.rows])
    return out + latex(tex, "lllrrrrlrrl", _tex(" ".join([*(x + "." for x in _cluster_lines(res)), *notes])))


def _compare_markdown(res: CompareResult, runs: tuple[Table, str] | None, notes: list[str]) -> str:
    out = []
    if runs is not None:
        t = Table(runs[0].header, [[_md(x) for x in r] for r in runs[0].rows])
        out += markdown(t) + ["", _md(runs[1]), ""]
    t = _compare_doc_table(res)
    out += markdown(Table(t.header, [[_md(x) for x in r] for r in t.rows]))
    out += [""] + [f"- {_md(n)}" for n in [*_cluster_lines(res), *notes]]
    return "\n".join(out) + "\n"


def _compare_narrow(res: CompareResult, m: str, table: Table) -> tuple[str, list[Table]]:
    """The comparisons of ``m`` for a terminal narrower than their table, every number kept and no name cut: a
    line naming the metric, the test (the same on every row) and the signature; each system's score once (a small
    table); then each pair on two lines (A, then → B) with the difference, its interval, the p-value and the
    adjusted one (``*``: significant)."""
    col = {h: i for i, h in enumerate(table.header)}
    scores: dict[str, str] = {}
    for r in table.rows:
        scores.setdefault(r[col["A"]], r[col["score A"]])
        scores.setdefault(r[col["B"]], r[col["score B"]])
    corrected = next(h for h in table.header if h.startswith("p ("))
    agree = "humans agree" in col
    header = ["A / B", "Δ B−A", table.header[col["Δ B−A"] + 1], "p", corrected] + (["agree"] if agree else [])
    tests = list(dict.fromkeys(r[col["test"]] for r in table.rows))
    align = ["left", *(["right"] * (len(header) - 1))]
    pairs = []
    for test in tests:  # one block per test, titled with it: no row can be read as another test's
        rows = []
        for r in (r for r in table.rows if r[col["test"]] == test):
            first = [r[col["A"]], r[col["Δ B−A"]], r[col["Δ B−A"] + 1], r[col["p"]],
                     r[col[corrected]] + r[col["sig."]]]  # fmt: skip
            rows += [first + ([r[col["humans agree"]]] if agree else []),
                     ["→ " + r[col["B"]]] + [""] * (len(header) - 1)]  # fmt: skip
        pairs.append(Table(header, rows, align, f"{m.upper()}, {test}" if len(tests) > 1 else None))
    one = f", {tests[0]}" if len(tests) == 1 else ""
    line = f"{m.upper()} {_arrow_of(res, m)}{one} ({res.settings.signatures.get(m, '')})"
    return line, [Table(["system", m], [[n, v] for n, v in scores.items()], ["left", "right"]), *pairs]


def _compare_text(res: CompareResult, runs: tuple[Table, str] | None, notes: list[str], width) -> str:
    out = TextOut(width)
    if runs is not None:
        out.table(runs[0])
        out.line(runs[1])
        out.line()
    for m in res.metrics:
        table = _compare_text_table(res, m)
        narrow = width is not None and width < DEFAULT_WIDTH and natural_width(shown(table)) > width
        line, tables = _compare_narrow(res, m, table) if narrow else ("", [table])
        if narrow and max(natural_width(shown(t)) for t in tables) > width:  # still too wide: the records
            line, tables = "", [table]
        if line:
            out.line(line)
        for t in tables:
            out.table(t)
        if res.clusters.get(m):
            ranks = "  >  ".join("{" + ", ".join(cl) + "}" for cl in res.clusters.get(m) or [])
            out.line(f"clusters (best first, by {res.settings.cluster_test}): {ranks}")
        out.line()
    for n in notes:
        out.line(n)
    return out.getvalue()


def render_compare(res: CompareResult, fmt: str = "text", width: int | None = None) -> str:
    FORMATS.get(fmt)  # an unknown format is refused (plugins loaded first)
    if fmt == "json":
        return to_json(res)
    if fmt == "csv":
        return _compare_csv(res)
    notes = compare_notes(res)
    runs = _runs_table(res) or _systems_table(res)  # MultEval's runs table, or the systems' intervals (--ci)
    if fmt == "markdown":
        return _compare_markdown(res, runs, notes)
    if fmt == "latex":
        return _compare_latex(res, runs, notes)
    return _compare_text(res, runs, notes, width)


def _systems_table(res: CompareResult) -> tuple[Table, str] | None:
    """``compare --ci``: each system's score with its percentile interval, and what the interval is."""
    if not any(sc.ci is not None for s in res.systems for sc in s.scores.values()):
        return None
    t = _score_table(res)
    arrows = [f"{m} {_arrow_of(res, m)}" for m in res.metrics]
    st = res.settings
    caption = f"[low, high]: {st.confidence:.0%} percentile interval of {st.n_bootstrap} bootstrap resamples."
    return Table([t.header[0], *arrows], t.rows), caption


def _runs_of(e: SystemScore) -> RunStats:
    """A score's optimizer-run statistics (every system has them when any system has runs)."""
    if e.runs is None:
        raise ValueError("a table of optimizer runs with a system that has none")
    return e.runs


def _runs_table(res: CompareResult) -> tuple[Table, str] | None:
    """MultEval's table: one row per system, per metric ``mean (s_sel/s_test/p)``; None without runs."""
    scores = [e for s in res.systems for e in s.scores.values()]
    if not any(e.runs is not None for e in scores):
        return None
    st, fmt = res.settings, _Fmt(res.decimals)
    metrics = list(res.systems[0].scores)
    dev = any(_runs_of(e).s_dev is not None for e in scores)
    first = st.tests[0]
    pmap = {(c.metric, c.result.b): c.result.extra["gate_p"] if first == "aso" else c.result.p_value
            for c in res.comparisons if c.test == first and c.result.a == st.baseline}  # fmt: skip
    inner = ("s_sel/s_dev/s_test" if dev else "s_sel/s_test") + ("/p" if st.baseline else "")

    def cell(m: str, name: str, r: RunStats) -> str:
        parts = [_sd(r.s_sel)] + ([_sd(r.s_dev)] if dev else []) + [_sd(r.s_test)]
        if st.baseline:
            p = pmap.get((m, name))
            parts.append("-" if p is None else f"{p:.2f}")
        return f"{fmt(m, r.mean)} ({'/'.join(parts)})"

    header = ["system", *(f"{m.upper()} {_arrow_of(res, m)} ({inner})" for m in metrics)]
    rows = [[s.name, *(cell(m, s.name, _runs_of(s.scores[m])) for m in metrics)] for s in res.systems]
    n_runs = sorted({len(_runs_of(s.scores[metrics[0]]).runs) for s in res.systems})
    caption = (
        f"Mean over optimizer runs (n = {'/'.join(map(str, n_runs))}); s_sel: standard deviation of the score over "
        f"{st.n_bootstrap} bootstrap resamples of the test set, averaged over runs; "
        + ("s_dev: standard deviation of the runs' development-set scores; " if dev else "")
        + "s_test: standard deviation of the runs' test-set scores"
        + (
            f"; p: {_RUNS_P[first]} against {st.baseline} ({_runs_p_count(res, first)}, seed {st.seed}), unadjusted"
            if st.baseline
            else ""
        )
        + ". Arrows: whether higher or lower is better."
    )
    return Table(header, rows), caption


def _runs_p_count(res: CompareResult, test: str) -> str:
    """How many shuffles (or, for ASO's gate, splits of the pooled runs) are behind the runs table's p."""
    if test != "aso":
        return f"{res.settings.n_resamples.get(test, '-')} shuffles"
    r = next(c.result for c in res.comparisons if c.test == "aso")
    return f"{'every split, ' if r.extra['gate_exact'] else ''}{r.extra['gate_splits']} splits of the pooled runs"


_RUNS_P = {
    "ar": "randomization of the pooled runs with their run-level variance",
    "stratified-ar": "stratified approximate randomization (Clark et al.)",
    "aso": "ASO's permutation gate (the runs exchangeable)",
}


def compare_notes(res: CompareResult) -> list[str]:
    """The lines under a comparison's tables: what * means, the interval and resamples, then each note that
    applies (resolution of the p-values, sentence-level tests, the human-agreement column, optimizer runs, ASO,
    metrics best at a target) and the warnings."""
    st = res.settings
    nres = ", ".join(f"{t}: {n}" for t, n in st.n_resamples.items())
    extra = [*_resolution_note(res), *_sentence_note(res), *_agreement_notes(res), *_runs_note(res), *_aso_note(res)]
    if st.cluster_test:
        extra += [
            f"No clusters for {m}: its best value is the one {d}, and the tests compare values, not their distance "
            "to it."
            for m, d in res.directions.items()
            if d.startswith("closest") and res.clusters.get(m) is None
        ]
    extra += [f"Warning: {w}" for w in res.warnings]
    return [
        f"* = significant at alpha = {st.alpha} after {st.correction} correction over "
        f"{st.n_comparisons} comparison(s) per metric and test (unadjusted, the experimentwise error "
        f"would be 1-(1-alpha)^k = {st.experimentwise_error_unadjusted:.3f}).",
        f"Δ CI: {st.confidence:.0%} percentile interval of {st.n_bootstrap} paired bootstrap "
        f"resamples. Resamples: {nres or '-'}; seed {st.seed}; {st.alternative}; "
        f"{st.n_segments} segments{units_note(st.resample_unit, st.n_units)}.",
        *extra,
    ]


def _resolution_note(res: CompareResult) -> list[str]:
    """The smallest p-value R resamples can give."""
    st = res.settings
    if not st.n_resamples:
        return []
    # tests whose smallest p-value is 2/(R+1) (the two-sided paired bootstrap)
    doubled = [t for t, R in st.n_resamples.items() if PAIRED_TESTS[t].smallest_p(R, st.alternative) * (R + 1) > 1.5]
    return [
        "R resamples give p-values of at least 1/(R+1)"
        + (f" ({', '.join(doubled)}: 2/(R+1))" if doubled else "")
        + (" (chosen automatically: at most a tenth of the corrected threshold)." if st.n_resamples_auto else ".")
    ]


def _sentence_note(res: CompareResult) -> list[str]:
    """What the rows of tests on sentence-level scores show."""
    sentence = [c for c in res.comparisons if c.result.extra.get("quantity")]
    if not sentence:
        return []
    labels = sorted({f"{c.metric}: {c.result.extra['sentence_score']}" for c in sentence})
    return [
        "ttest/wilcoxon rows test sentence-level scores: their A, B and Δ are mean sentence-level scores and "
        f"the interval is the t-interval of the mean difference ({'; '.join(labels)})."
    ]


def _agreement_notes(res: CompareResult) -> list[str]:
    """What the human-agreement column means, and what a share below one half says."""
    fits = sorted({c.human_agreement["fit"] for c in res.comparisons if c.human_agreement})
    if not fits:
        return []
    out = [
        "humans agree: the share of human judgments expected to agree that the system the metric scores higher is "
        f"better, at this |Δ| (Kocmi et al. 2024's fit accuracy(Δ) = a / (1 + exp(-b Δ)); fits: {', '.join(fits)})."
    ]
    if any(c.human_agreement and c.human_agreement["accuracy"] < 0.5 for c in res.comparisons):
        from mtsig.fits import FITS

        halves = sorted({round(FITS[f][0] / 2) for f in fits if f in FITS})
        floor = f"{halves[0]}%" if len(halves) == 1 else f"{halves[0]}-{halves[-1]}%"
        out.append(
            f"humans agree below 50%: at Δ = 0 the fit gives a/2 ({floor} here), no better than a coin flip: "
            "humans would not tell those systems apart."
        )
    return out


def _runs_note(res: CompareResult) -> list[str]:
    """How systems with several optimizer runs are compared."""
    if not any(sc.runs is not None and len(sc.runs.runs) > 1 for s in res.systems for sc in s.scores.values()):
        return []
    return [
        "Systems with several runs: score A, score B and Δ are pooled scores (every run's statistics summed per "
        "segment: the quantity the test compares), which can differ from the mean over runs in the runs table. "
        "Their Δ CI is Δ ± the runs test's threshold (the segment-level bootstrap variance with the normal "
        "quantile and each system's run mean square with the t quantile of its runs - 1 degrees of freedom, "
        "added term by term); none with fewer than 3 runs on a side. The runs test's p-value assumes roughly "
        "normal run effects: with a handful of runs no test can hold its level whatever their shape (runs "
        "bimodal in quality: 7-10% rejected at alpha = 0.05 with 3-5 runs; docs/runs.md)."
    ]


def _aso_note(res: CompareResult) -> list[str]:
    """What ε_min of almost stochastic order is, the gate beside it, and what the family can claim."""
    rows = [c.result for c in res.comparisons if c.result.p_value is None and "eps_min" in c.result.extra]
    if not rows:
        return []
    from mtsig.stats.aso import smallest_p

    aso, st = rows[0], res.settings
    k = st.n_comparisons
    corr = aso.extra["gate_correction"]
    lines = [
        f"ASO (almost stochastic order, Dror et al. 2019, as deepsig computes it) over the runs' scores: ε_min is "
        f"an upper {aso.extra['aso_confidence']:.4g} confidence bound of the share of the two run-score "
        f"distributions' distance where the favoured system is worse (Bonferroni over the {k} comparison(s) inside "
        f"the bound). * where ε_min < {aso.extra['tau']:g} and the runs also differ beyond chance: 'gate' is a "
        f"permutation test of the two systems' runs ({'every split' if aso.extra['gate_exact'] else 'random splits'}"
        f", {aso.extra['gate_splits']}; Welch's t of the runs' mean scores), "
        f"{'unadjusted' if corr == 'none' else corr + '-adjusted'} over the {k} comparison(s), at most alpha "
        f"{st.alpha:g}. No clusters from ASO.",
        "ε_min < τ alone (deepsig's rule) does not hold a family's level with few seeds: under identical run "
        "distributions it declared some pair of 5 systems × 5 seeds better in 0.367 [0.337, 0.398] of 1,000 families "
        "at alpha 0.05 (Bonferroni inside the bound; docs/guide/runs.md has the table by systems, seeds and null, "
        "from benchmarks/aso_family.py); with the gate at most 0.041 at alpha 0.05 and 0.009 at 0.01 in every cell "
        "measured.",
    ]
    sizes = sorted(len(_runs_of(s.scores[res.metrics[0]]).runs) for s in res.systems)
    n, m = sizes[0], sizes[1] if len(sizes) > 1 else sizes[0]
    low = smallest_p(n, m)
    level = st.alpha / (1 if corr == "none" else k)
    if low > level:
        lines.append(f"With {n} and {m} runs the gate's smallest p-value is {low:.3g}, above alpha"
                     f"{'' if corr == 'none' else '/k'} = {level:.3g}: no system can be declared better than another "
                     "here; more runs are needed.")  # fmt: skip
    return lines


# ------------------------------------------------------------------------------------------- studies
def _study_cell(x: Any, decimals: int | None) -> str:
    if x is None:
        return "-"
    if isinstance(x, (float, np.floating)) and decimals is not None:
        return f"{x:.{decimals}f}"
    return str(x)


def _study_layout(t: StudyTable, escape=lambda s: s) -> Table:
    dec = t.decimals or [None] * len(t.header)
    rows = [[escape(_study_cell(x, d)) for x, d in zip(r, dec)] for r in t.rows]
    align = ["left" if d is None and not any(isinstance(r[i], (int, float)) for r in t.rows) else "right"
             for i, d in enumerate(dec)]  # fmt: skip
    return Table([escape(h) for h in t.header], rows, align, t.title)


def render_study(res: StudyResult, fmt: str = "text", width: int | None = None) -> str:
    FORMATS.get(fmt)  # an unknown format is refused (plugins loaded first)
    settings = ", ".join(f"{k}: {v}" for k, v in res.settings.items())
    if fmt == "json":
        return json.dumps(strict(res.to_dict()), indent=1, default=float, allow_nan=False) + "\n"
    if fmt == "csv":
        return "".join(f"# {t.title}\n" + csv_text(t.header, t.rows) for t in res.tables)
    if fmt == "markdown":
        out = [f"**mtsig study {res.study}** ({settings})", ""]
        for t in res.tables:
            out += [f"*{t.title}*", "", *markdown(_study_layout(t, lambda x: x.replace("|", "\\|"))), ""]
        return "\n".join(out + [f"- {n}" for n in res.notes]) + "\n"
    if fmt == "latex":
        return "".join(
            latex(_study_layout(t, _tex), "l" + "r" * (len(t.header) - 1), _tex(f"{t.title} ({settings})"))
            for t in res.tables
        )
    con = console()
    con.print(printable(f"mtsig study {res.study}  ({settings})"))
    for t in res.tables:
        con.print()
        print_rich(con, shown(_study_layout(t)))
    for n in res.notes:
        con.print(printable(n))
    return con.file.getvalue()


# ------------------------------------------------------------------------------------------- the registry
def _qualified(t: type | str) -> str:
    return t if isinstance(t, str) else f"{t.__module__}.{t.__qualname__}"


def register_format(name: str, result_type: type | str, renderer: Callable[[Any, str, int | None], str]) -> None:
    """Render results of ``result_type`` (a class, or its qualified name) in format ``name`` with
    ``renderer(result, name, width)``: a new format, or a new result type for a format; the command line offers
    every registered format."""
    FORMATS.setdefault(name, {})[_qualified(result_type)] = renderer


def register_formats(
    result_type: type,
    *,
    text: Callable[[Any, int | None], str],
    csv: Callable[[Any], str],
    markdown: Callable[[Any], str],
    latex: Callable[[Any], str],
) -> Callable[[Any, str, int | None], str]:
    """Register a result type's five built-in formats, each from its own function (JSON is the result's
    ``to_dict()``, non-finite numbers as null); returns its ``render(result, fmt, width)``."""

    def render_json(res: Any, width: int | None) -> str:
        return json.dumps(strict(res.to_dict()), indent=1, ensure_ascii=False, allow_nan=False) + "\n"

    by_format: dict[str, Callable[[Any, int | None], str]] = {
        "text": text,
        "json": render_json,
        "csv": lambda res, width: csv(res),
        "markdown": lambda res, width: markdown(res),
        "latex": lambda res, width: latex(res),
    }

    def render_result(res: Any, fmt: str = "text", width: int | None = None) -> str:
        return by_format.get(fmt, text)(res, width)

    for name in by_format:
        register_format(name, result_type, render_result)
    return render_result


#: result types whose formats a report module registers when it is imported: imported when such a result is first
#: rendered (the domain packages never import ``report``, which imports their results)
LAZY_FORMATS = {
    "mtsig.analysis.result.AnalyzeResult": "mtsig.report.analyze",
    "mtsig.humaneval.result.HumanResult": "mtsig.report.human",
    "mtsig.metaeval.core.MetaResult": "mtsig.report.meta",
    "mtsig.metaeval.tasks.TaskSetResult": "mtsig.report.tasks",
    "mtsig.thresholds.ThresholdsResult": "mtsig.report.thresholds",
}


def _study_decimals(t: StudyTable, d: int) -> list[int | None]:
    """A study table's decimals under ``-w d``: d for each column with decimals of its own or holding a
    fractional number; None (shown as it is) for names and counts."""
    own = list(t.decimals) + [None] * (len(t.header) - len(t.decimals))
    return [d if x is not None or any(isinstance(r[i], (float, np.floating)) for r in t.rows) else None
            for i, x in enumerate(own)]  # fmt: skip


def with_decimals(result: Any, decimals: int) -> Any:
    """The result shown with ``decimals`` decimals in every number it shows with its own (scores, differences,
    correlations); the numbers themselves unchanged. A result that shows no such numbers is returned as it is."""
    from dataclasses import replace

    from mtsig.checks import decimals as check_decimals
    from mtsig.studies.result import StudyResult

    d = check_decimals(decimals, "decimals")
    if isinstance(result, StudyResult):  # every column of fractional numbers shown with d decimals
        return replace(result, tables=tuple(replace(t, decimals=_study_decimals(t, d)) for t in result.tables))
    if hasattr(result, "analyses"):
        return replace(result, analyses=tuple(replace(x, decimals=d) for x in result.analyses))
    shown_as = getattr(result, "decimals", None)
    if isinstance(shown_as, dict):
        return replace(result, decimals=dict.fromkeys(shown_as, d))
    if hasattr(result, "decimals"):
        return replace(result, decimals=d)
    return result


def render(result: Any, fmt: str = "text", width: int | None = None, decimals: int | None = None) -> str:
    """Any result (score, compare, study, or a registered type) in a registered format; ``decimals`` (``-w``):
    every score shown with that many decimals, and in JSON and CSV rounded to them (p-values keep every digit)."""
    if decimals is not None:
        result = with_decimals(result, decimals)
        with decimals_of_output(decimals if fmt in ("json", "csv") else None):
            return render(result, fmt, width)
    for kind in type(result).__mro__:
        module = LAZY_FORMATS.get(_qualified(kind))
        if module is not None:
            import importlib

            importlib.import_module(module)
    renderers = FORMATS.get(fmt)
    for kind in type(result).__mro__:
        if _qualified(kind) in renderers:
            return renderers[_qualified(kind)](result, fmt, width)
    names = tuple(k.rsplit(".", 1)[-1] for k in renderers)
    raise unknown_name(f"result type for format {fmt}", type(result).__name__, names)


for _f in ("text", "json", "csv", "markdown", "latex"):
    register_format(_f, "mtsig.results.ScoreResult", render_score)
    register_format(_f, "mtsig.results.CompareResult", render_compare)
    register_format(_f, "mtsig.studies.result.StudyResult", render_study)
