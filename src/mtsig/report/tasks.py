"""WMT metrics task sets (``mtsig meta --mtme DIR --task ...``) as text, JSON, CSV, Markdown and LaTeX: one row per
metric, laid out as the WMT metrics task's Findings tables lay it out (the average correlation and its cluster,
then every task's value and rank)."""

from __future__ import annotations

from mtsig.metaeval.tasks import TaskSetResult
from mtsig.report.render import _md, _tex, register_formats
from mtsig.report.table import Table, TextOut, csv_text, latex, markdown

#: how the Findings name each task's statistic
NICKNAMES = {"accuracy": "acc", "pearson": "r", "KendallWithTiesOpt": "acc-eq", "pce": "SPA"}


def _label(t) -> str:
    lp = "all" if len(t.task.lps) > 1 else t.task.lp
    return f"{lp} {t.task.level} {NICKNAMES.get(t.task.statistic, t.task.statistic)}"


def _cluster_of(res: TaskSetResult) -> dict[str, int]:
    return {m: i + 1 for i, c in enumerate(res.clusters or []) for m in c}


def table(res: TaskSetResult) -> Table:
    d = 3 if res.decimals is None else res.decimals
    cl = _cluster_of(res)
    head = ["metric", "avg corr", "cluster" if res.k else "rank", "avg rank"]
    head += [_label(t) for t in res.tasks]
    ranks_by_avg = {m: i + 1 for i, m in enumerate(res.average)}
    rows = []
    for m, v in res.average.items():
        row = [m, f"{v:.{d}f}", str(cl.get(m, ranks_by_avg[m])), f"{res.average_ranks[m]:.2f}"]
        for t in res.tasks:
            row.append(f"{t.values[m]:.{d}f} ({t.ranks[m]})" if m in t.values else "-")
        rows.append(row)
    others = sorted({m for t in res.tasks for m in t.values} - set(res.average))
    for m in others:  # in some tasks only: no average
        rows.append([m, "-", "-", "-"] + [f"{t.values[m]:.{d}f} ({t.ranks[m]})" if m in t.values else "-"
                                          for t in res.tasks])  # fmt: skip
    weights = ", ".join(f"{t.weight:.3g}" for t in res.tasks)
    test = (f"clusters and ranks from PERM-BOTH, k = {res.k:,} per task, seed {res.seed}" if res.k
            else "k = 0: ranks by value, no test")  # fmt: skip
    title = (f"{res.name.upper()} metrics task on {res.test_set} ({', '.join(res.lps)}): {test}; task weights "
             f"{weights}")  # fmt: skip
    return Table(head, rows, ["left"] + ["right"] * (len(head) - 1), title=title)


def _text(res: TaskSetResult, width: int | None) -> str:
    out = TextOut(width)
    out.table(table(res))
    if res.clusters:
        out.line(f"clusters across tasks: {' > '.join('{' + ', '.join(c) + '}' for c in res.clusters)}")
    for n in res.notes:
        out.line(f"note: {n}")
    return out.getvalue()


def _csv(res: TaskSetResult) -> str:
    head = ["lp", "level", "statistic", "weight", "metric", "value", "rank"]
    rows = [[t.task.lp, t.task.level, t.task.statistic, t.weight, m, v, t.ranks[m]]
            for t in res.tasks for m, v in t.values.items()]  # fmt: skip
    cl = _cluster_of(res)
    rows += [["average", "", "average", 1.0, m, v, cl.get(m, "")] for m, v in res.average.items()]
    rows += [["average", "", "average_rank", 1.0, m, v, ""] for m, v in res.average_ranks.items()]
    return csv_text(head, rows)


def _markdown(res: TaskSetResult) -> str:
    t = table(res)
    esc = Table([_md(h) for h in t.header], [[_md(x) for x in r] for r in t.rows], title=t.title)
    out = [f"*{_md(t.title or '')}*", "", *markdown(esc), ""]
    out += [f"- {_md(n)}" for n in res.notes]
    return "\n".join(out) + "\n"


def _latex(res: TaskSetResult) -> str:
    t = table(res)
    esc = Table([_tex(h) for h in t.header], [[_tex(x) for x in r] for r in t.rows])
    return latex(esc, "l" + "r" * (len(t.header) - 1), _tex(t.title or ""))


render_tasks = register_formats(TaskSetResult, text=_text, csv=_csv, markdown=_markdown, latex=_latex)
