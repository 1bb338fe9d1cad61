"""``mtsig meta`` results as text, JSON, CSV, Markdown and LaTeX (registered in the formats' registry)."""

from __future__ import annotations

from mtsig.metaeval.core import MetaResult
from mtsig.report.render import _md, _tex, register_formats
from mtsig.report.table import Table, TextOut, csv_text, format_p, latex, markdown

SYSTEM_COLUMNS = ("pearson", "spearman", "kendall", "pairwise_accuracy", "spa")
SEGMENT_COLUMNS = ("pearson", "spearman", "kendall", "kendall_c", "tau23", "acc23")
LABELS = {"pairwise_accuracy": "pairwise acc.", "kendall_c": "tau-c", "kendall": "tau-b", "tau23": "tau-23",
          "spa": "SPA", "acc23": "acc23"}  # fmt: skip


def _n(x, d: int = 3) -> str:
    return "-" if x is None else f"{x:.{d}f}"


def metrics_table(res: MetaResult) -> Table:
    d = 3 if res.decimals is None else res.decimals
    cols = SYSTEM_COLUMNS if res.level == "system" else SEGMENT_COLUMNS
    head = ["metric", *(LABELS.get(c, c) for c in cols)] + (["epsilon"] if res.level == "segment" else [])
    head += ["cluster", "cluster (corr.)"]
    rows = []
    for m in res.metrics:
        cells = [m.name]
        for c in cols:
            ci = m.ci.get(c)
            cells.append(_n(m.values.get(c), d) + (f" [{ci[0]:.{d}f}, {ci[1]:.{d}f}]" if ci and c == res.statistic
                                                   else ""))  # fmt: skip
        if res.level == "segment":
            cells.append("-" if m.epsilon is None else f"{m.epsilon:.4g}")
        rows.append([*cells, str(m.cluster), str(m.cluster_corrected)])
    avg = f", averaged by {res.settings['average_by']}" if res.level == "segment" else ""
    conf = f"{res.settings['confidence']:.0%}"
    return Table(head, rows, ["left"] + ["right"] * (len(head) - 1),
                 title=f"{res.level}-level agreement with humans{avg} (ranked by {res.statistic}, with its {conf} "
                 "interval)")  # fmt: skip


def tests_table(res: MetaResult) -> Table:
    d = 4 if res.decimals is None else res.decimals
    rows = [[c.a, c.b, "-" if c.delta is None else f"{c.delta:+.{d}f}", format_p(c.p_value), format_p(c.p_two_sided),
             format_p(c.p_adjusted) + ("*" if c.significant else "")] for c in res.comparisons]  # fmt: skip
    st = res.settings
    head = ["A", "B", f"Δ {res.statistic} (B − A)", "p (A better)", "p (differ)", f"p ({st['correction']})"]
    return Table(head, rows,
                 title=f"{st['test']} ({st['n_resamples']} resamples, seed {st['seed']}; * significant at "
                 f"{st['alpha']} after {st['correction']})")  # fmt: skip


def _clusters(res: MetaResult) -> list[str]:
    return [f"clusters (WMT's greedy rule): {' > '.join('{' + ', '.join(c) + '}' for c in res.clusters)}",
            f"clusters ({res.settings['correction']}): "
            f"{' > '.join('{' + ', '.join(c) + '}' for c in res.clusters_corrected)}"]  # fmt: skip


def _text(res: MetaResult, width: int | None) -> str:
    out = TextOut(width)
    out.table(metrics_table(res))
    if res.comparisons:
        out.line()
        out.table(tests_table(res))
    for line in _clusters(res):
        out.line(line)
    for n in res.notes:
        out.line(f"note: {n}")
    return out.getvalue()


def _csv(res: MetaResult) -> str:
    cols = SYSTEM_COLUMNS if res.level == "system" else SEGMENT_COLUMNS
    head = ["row", "metric", *cols, "ci_low", "ci_high", "epsilon", "cluster", "cluster_corrected", "a", "b", "delta",
            "p_value", "p_two_sided", "p_adjusted", "significant"]  # fmt: skip
    rows = []
    for m in res.metrics:
        ci = m.ci.get(res.statistic) or (None, None)
        rows.append(["metric", m.name, *(m.values.get(c) for c in cols), *ci, m.epsilon, m.cluster,
                     m.cluster_corrected, None, None, None, None, None, None, None])  # fmt: skip
    for c in res.comparisons:
        rows.append(["comparison", None, *([None] * len(cols)), None, None, None, None, None, c.a, c.b, c.delta,
                     c.p_value, c.p_two_sided, c.p_adjusted, c.significant])  # fmt: skip
    return csv_text(head, [["" if x is None else x for x in r] for r in rows])


def _markdown(res: MetaResult) -> str:
    out = []
    for t in (metrics_table(res), tests_table(res)):
        esc = Table([_md(h) for h in t.header], [[_md(x) for x in r] for r in t.rows], title=t.title)
        out += [f"*{_md(t.title or '')}*", "", *markdown(esc), ""]
    out += [_md(x) for x in _clusters(res)] + [""] + [f"- {_md(n)}" for n in res.notes]
    return "\n".join(out) + "\n"


def _latex(res: MetaResult) -> str:
    parts = []
    for t in (metrics_table(res), tests_table(res)):
        esc = Table([_tex(h) for h in t.header], [[_tex(x) for x in r] for r in t.rows])
        parts.append(latex(esc, "l" + "r" * (len(t.header) - 1), _tex(f"{t.title}. {' '.join(_clusters(res))}")))
    return "".join(parts)


render_meta = register_formats(MetaResult, text=_text, csv=_csv, markdown=_markdown, latex=_latex)


# ------------------------------------------------------------------------------------------------ HTML
def render_meta_html(res: MetaResult, command: str) -> str:
    """``meta --html``: the same page as compare's report (sortable tables, full-precision ``data-value`` cells, the
    result's JSON embedded, the command that reproduces it): settings, each metric's agreement with its interval,
    the figure, every pair of metrics tested, the clusters and the notes."""
    from mtsig.report.html import _e, _settings, figure_or_note, html_page

    st = res.settings
    label = LABELS.get(res.statistic, res.statistic)
    parts = ["<h1>mtsig meta-evaluation: which metric agrees with humans</h1>", "<h2>Settings</h2>",
             _settings(_meta_settings(res)), "<h2>Command</h2>", f"<pre id=mtsig-command>{_e(command)}</pre>",
             "<h2>Agreement with humans</h2>",
             f"<p>Ranked by {_e(label)}; its interval is the {st['confidence']:.0%} percentile bootstrap interval. "
             "Click a header to sort.</p>", _metric_table(res)]  # fmt: skip

    def draw():  # at two columns' width: a screen's figure, its labels readable
        from mtsig.report.paper import plot_meta
        from mtsig.report.style import DOUBLE

        return plot_meta(res, DOUBLE)

    parts.append(figure_or_note(draw, f"Each metric's {label} with its interval; shaded bands are the corrected "
                                "clusters"))  # fmt: skip
    if res.comparisons:
        parts += ["<h2>Pairs of metrics</h2>",
                  f"<p>{_e(st['test'])}: p (A better) is one-sided, p (differ) two-sided, and the last p is corrected "
                  f"({_e(st['correction'])}) over every pair; significant rows are shaded.</p>",
                  _pair_table(res)]  # fmt: skip
    parts += ["<h2>Clusters</h2>", "<ul>" + "".join(f"<li>{_e(x)}</li>" for x in _clusters(res)) + "</ul>"]
    if res.notes:
        parts += ["<h2>Notes</h2>", "<ul>" + "".join(f"<li>{_e(n)}</li>" for n in res.notes) + "</ul>"]
    return html_page("mtsig meta-evaluation", parts, res.to_dict())


def _meta_settings(res: MetaResult) -> list[tuple[str, str]]:
    from mtsig._version import __version__
    from mtsig.report.html import _e

    st = res.settings
    avg = f", averaged by {st['average_by']}" if res.level == "segment" else ""
    items = [("mtsig", _e(__version__)), ("level", _e(f"{res.level}{avg}")),
             ("metrics compared on", _e(res.statistic)),
             ("test", _e(f"{st['test']}, {st['n_resamples']} resamples, seed {st['seed']}")),
             ("correction", _e(f"{st['correction']}, α = {st['alpha']}, {len(res.comparisons)} pair(s) of metrics")),
             ("intervals", _e(f"{st['confidence']:.0%} percentile, {st['n_bootstrap']} bootstrap resamples")),
             ("systems", _e(f"{len(st['systems'])}: {', '.join(st['systems'])}")),
             ("resampled by", _e(st["resample_unit"]))]  # fmt: skip
    if st.get("n_items") is not None:
        items.append(("items", _e(st["n_items"])))
    return items


def _metric_table(res: MetaResult) -> str:
    """Each metric's agreement (every statistic of the level), its interval, epsilon and clusters."""
    from mtsig.report.html import _e, _num, _table

    cols = SYSTEM_COLUMNS if res.level == "system" else SEGMENT_COLUMNS
    d = 3 if res.decimals is None else res.decimals
    head = ["metric", *(LABELS.get(c, c) for c in cols), f"{LABELS.get(res.statistic, res.statistic)} CI low",
            f"{LABELS.get(res.statistic, res.statistic)} CI high"]  # fmt: skip
    head += (["epsilon"] if res.level == "segment" else []) + ["cluster", "cluster (corrected)"]
    rows = []
    for m in res.metrics:
        ci = m.ci.get(res.statistic) or (None, None)
        cells = [f"<td>{_e(m.name)}</td>", *(_num(m.values.get(c), d) for c in cols), _num(ci[0], d), _num(ci[1], d)]
        if res.level == "segment":
            cells.append(_num(m.epsilon, 6))
        cells += [_num(m.cluster, 0), _num(m.cluster_corrected, 0)]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return _table(head, rows, "sortable", "mtsig-metrics")


def _pair_table(res: MetaResult) -> str:
    """Every pair of metrics tested."""
    from mtsig.report.html import _e, _num, _p, _table

    pd = 4 if res.decimals is None else res.decimals
    label = LABELS.get(res.statistic, res.statistic)
    test_rows = []
    for c in res.comparisons:
        cls = ' class="sig"' if c.significant else ""
        test_rows.append(f"<tr{cls}><td>{_e(c.a)}</td><td>{_e(c.b)}</td>{_num(c.delta, pd)}{_p(c.p_value)}"
                         f"{_p(c.p_two_sided)}{_p(c.p_adjusted)}<td>{'yes' if c.significant else 'no'}</td>"
                         "</tr>")  # fmt: skip
    st = res.settings
    return _table(["A", "B", f"Δ {label} (B − A)", "p (A better)", "p (differ)", f"p ({st['correction']})",
                   "significant"], test_rows, "sortable", "mtsig-pairs")  # fmt: skip
