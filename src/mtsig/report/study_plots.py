"""The figure of each study, drawn from the numbers its result carries (``StudyResult.data``): :func:`plot_study`
lays out the figure and calls the study's registered ``draw`` (the built-in ones are the ``draw_*`` below)."""

from __future__ import annotations

import textwrap

import numpy as np

from mtsig.report.style import HATCHES, LINESTYLES, MARKERS, display_name, legend_below
from mtsig.report.table import format_p
from mtsig.studies.result import StudyResult


def _integer_axis(axis) -> None:
    """Ticks at whole numbers only (counts, runs)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def draw_sampling(fig, res: StudyResult) -> None:
    ax1, ax2 = fig.subplots(1, 2)
    for k, (name, v) in enumerate(res.data["scores"].items()):
        x = np.arange(len(v["blocks"]))
        ax1.plot(x, v["blocks"], "o", color=f"C{k}", ms=4, label=f"{name}: blocks")
        ax1.plot(x, v["broad"], "x", color=f"C{k}", ms=5, label=f"{name}: broad")
        ax1.axhline(v["full"], color=f"C{k}", lw=0.8, ls="--")
    ax1.set(xlabel="sample", ylabel=res.settings["metric"], title="per-sample scores (dashed: full set)")
    _integer_axis(ax1.xaxis)
    for k, v in enumerate(res.data["differences"].values()):
        ax2.plot([k - 0.15] * len(v["blocks"]), v["blocks"], "o", color="C0", ms=3, label="blocks" if k == 0 else None)
        ax2.plot([k + 0.15] * len(v["broad"]), v["broad"], "x", color="C1", ms=4, label="broad" if k == 0 else None)
        ax2.plot([k - 0.3, k + 0.3], [v["full"]] * 2, color="k", lw=1)
    pairs = list(res.data["differences"])
    ax2.set_xticks(range(len(pairs)), pairs, rotation=30, ha="right", fontsize=7)
    ax2.axhline(0, color="grey", lw=0.6)
    ax2.set(ylabel="Δ (B - A)", title="per-sample differences (bar: full set)")
    ax2.legend(fontsize=7, loc="best")
    legend_below(ax1, fontsize=7, frameon=False)


def draw_coverage(fig, res: StudyResult) -> None:
    axes = fig.subplots(1, len(res.data["full"]), sharey=False, squeeze=False)[0]
    for ax, (name, full) in zip(axes, res.data["full"].items()):
        b = np.asarray(res.data["percentile_bounds"][name])
        hit = (b[:, 0] <= full) & (full <= b[:, 1])
        x = np.arange(len(b))
        ax.vlines(x[hit], b[hit, 0], b[hit, 1], color="C0", lw=0.8)
        ax.vlines(x[~hit], b[~hit, 0], b[~hit, 1], color="C3", lw=1.4, linestyles=(0, (2, 1)))  # dashed: in grey
        ax.axhline(full, color="k", lw=0.8)
        ax.set_title(f"{name}: {int((~hit).sum())} of {len(b)} miss (dashed)", fontsize=8)
        ax.set_xlabel("sample", fontsize=7)
    axes[0].set_ylabel(f"{res.settings['metric']} (percentile intervals)")


def draw_testsize(fig, res: StudyResult) -> None:
    ax = fig.subplots()
    for k, (pair, pts) in enumerate(res.data["curves"].items()):
        p = np.asarray(pts, dtype=float)
        ax.plot(p[:, 0], p[:, 1], "-", marker=MARKERS[k % len(MARKERS)], ms=4, color=f"C{k % 8}", label=pair)
        if p[:, 2].any():
            ax.plot(p[:, 0], p[:, 2], "x:", color=f"C{k % 8}")
    ax.set(xlabel="sample size (segments); n: samples of that size", ylabel="conclusions %", ylim=(-2, 102),
           title=f"{res.settings['test']} at α = {res.settings['alpha']:g}: correct (o) and wrong (x)")  # fmt: skip
    samples = {int(r[2]): int(r[3]) for r in res.tables[0].rows}  # how many samples each point rests on
    sizes = sorted(samples)
    ax.set_xticks(sizes, [f"{s}\nn={samples[s]}" for s in sizes], fontsize=7)
    legend_below(ax, fontsize=7, frameon=False)  # under the axis: the data keeps the figure's width


def draw_levels(fig, res: StudyResult) -> None:
    ax = fig.subplots()
    bins = res.data["bins"]
    labels = [b[0] for b in bins]
    correct = [b[2] if b[2] is not None else 0.0 for b in bins]
    ax.bar(range(len(bins)), correct, color="C0")
    for k, b in enumerate(bins):
        ax.text(k, correct[k] + 1, f"n={b[1]}", ha="center", fontsize=7)
    ax.set_xticks(range(len(bins)), labels, rotation=30, ha="right", fontsize=7)
    ax.set(ylabel="correct conclusions %", ylim=(0, 110), title="conclusions by the significance level they reach")


def draw_type1(fig, res: StudyResult) -> None:
    ax1, ax2 = fig.subplots(1, 2)
    labels = res.data["labels"]
    for k, (test, ps) in enumerate(res.data["pvalues"].items()):
        p = np.asarray(ps)
        ax1.plot(
            p,
            np.arange(1, p.size + 1) / p.size,
            color=f"C{k}",
            lw=1.2,
            label=labels[test],
            ls=LINESTYLES[k % len(LINESTYLES)],
        )  # fmt: skip  (a style beside each colour: readable in grey)
    ax1.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    ax1.set(xlabel="p-value", ylabel="share of null pairs with a smaller p-value", xlim=(0, 1), ylim=(0, 1),
            title="P-P plot under exact nulls (dashed: calibrated)")  # fmt: skip
    rates = [r for r in res.data["rates"] if abs(r[1] - 0.05) < 1e-12] or res.data["rates"]
    alpha = rates[0][1]
    y = np.arange(len(rates))
    ax2.errorbar([r[2] for r in rates], y, xerr=[[r[2] - r[3] for r in rates], [r[4] - r[2] for r in rates]],
                 fmt="o", color="C0", capsize=3)  # fmt: skip
    ax2.axvline(100 * alpha, color="C3", lw=1, ls="--")
    ax2.set_yticks(y, [textwrap.fill(r[0], 24) for r in rates], fontsize=7)
    ax2.set(xlabel="rejection % (95% interval)", title=f"rejections at α = {alpha:g} (dashed: α)")
    legend_below(ax1, fontsize=7, frameon=False)


def draw_multiplicity(fig, res: StudyResult) -> None:
    ax = fig.subplots()
    rows = [r for r in res.data["rates"] if r[0].startswith("any")]
    alphas = sorted({r[1] for r in rows})
    short = [r[0].removeprefix("any of the pairs, ").removeprefix("any of ").replace(" comparisons", "") for r in rows]
    methods = list(dict.fromkeys(short))
    width = 0.8 / len(alphas)
    for i, al in enumerate(alphas):
        sel = [r for r in rows if r[1] == al]
        x = np.arange(len(sel)) + (i - (len(alphas) - 1) / 2) * width
        ax.bar(x, [r[2] for r in sel], width, yerr=[[r[2] - r[3] for r in sel], [r[4] - r[2] for r in sel]],
               color=f"C{i}", capsize=2, label=f"α = {al:g}")  # fmt: skip
        ax.hlines([100 * al, sel[0][5]], x.min() - width, x.max() + width, colors=f"C{i}", lw=0.8, ls=["--", ":"])
    ax.set_xticks(range(len(methods)), methods, rotation=30, ha="right", fontsize=7)
    ax.set(ylabel="experimentwise error % (95% interval)",
           title=f"{res.data['pairs']} pairs of exact-null systems (dashed: α; dotted: 1-(1-α)^K)")  # fmt: skip
    ax.legend(fontsize=7)


def draw_sensitivity(fig, res: StudyResult) -> None:
    """Adjusted p-values as compare's matrix shows them: viridis on a log scale from 10^-4 to 1, small p dark."""
    from matplotlib.colors import LogNorm

    ax = fig.subplots()
    p = np.asarray(res.data["p_adjusted"], dtype=float)
    norm = LogNorm(vmin=1e-4, vmax=1.0)
    im = ax.imshow(np.clip(p, 1e-4, 1.0), aspect="auto", cmap="viridis", norm=norm)
    light = norm(np.clip(p, 1e-4, 1.0)) > 0.5  # viridis is light towards p = 1: dark text there
    for (i, j), v in np.ndenumerate(p):
        star = " *" if v <= res.data["alpha"] else ""
        ax.text(j, i, format_p(v) + star, ha="center", va="center", fontsize=7, color="k" if light[i, j] else "w")
    ax.set_xticks(range(len(res.data["metrics"])), res.data["metrics"])
    ax.set_yticks(range(len(res.data["pairs"])), res.data["pairs"], fontsize=7)
    bar = fig.colorbar(im, ax=ax, label="adjusted p-value")
    bar.ax.minorticks_off()
    ax.set_title(f"adjusted p-values by metric (* significant at α = {res.data['alpha']:g})")


def draw_runs(fig, res: StudyResult) -> None:
    ax1, ax2, ax3 = fig.subplots(1, 3)
    scores = res.data["run_scores"]
    every = np.concatenate([np.asarray(v, dtype=float) for v in scores.values()])
    edges = np.histogram_bin_edges(every, bins=max(3, min(20, len(every) // 2)))  # one set of bins for all
    names = list(scores)
    _, _, bars = ax1.hist(
        [np.asarray(scores[n], dtype=float) for n in names],
        bins=edges,
        histtype="bar",
        color=[f"C{k % 8}" for k in range(len(names))],
        label=names,
        edgecolor="white",
        linewidth=0.3,
    )  # fmt: skip  (side by side in each bin: no system hides another)
    for k, group in enumerate(bars):
        for patch in group:
            patch.set_hatch(HATCHES[k % len(HATCHES)])
    ax1.set(xlabel=f"{res.settings['metric']} of one run", ylabel="runs", title="run scores (Fig. 1)")
    _integer_axis(ax1.yaxis)
    ax1.legend(fontsize=7, loc="best")
    label, per_n = next(iter(res.data["deltas"].items()))
    ns = list(per_n)
    ax2.boxplot([per_n[n] for n in ns], tick_labels=ns)
    ax2.axhline(0, color="grey", lw=0.6)
    ax2.set(xlabel="runs per system", ylabel="Δ", title=f"{label}: Δ by runs (as Clark et al.'s Fig. 2)")
    for k, (lab, pts) in enumerate(res.data["p_intervals"].items()):
        p = np.asarray(pts, dtype=float)
        ax3.vlines(p[:, 0] + 0.05 * k, p[:, 1], p[:, 2], color=f"C{k}", lw=2, label=lab)
        ax3.plot(p[:, 0] + 0.05 * k, p[:, 3], "o", color=f"C{k}", ms=4)
    ax3.axhline(res.settings["alpha"], color="C3", lw=0.8, ls="--")
    ax3.set(yscale="log", xlabel="runs per system", ylabel="stratified AR p (95% interval, median)",
            title="p-values by runs (as Clark et al.'s Table 2)")  # fmt: skip
    _integer_axis(ax3.xaxis)
    legend_below(ax3, fontsize=7, frameon=False)  # off the α line and the intervals


def draw_power(fig, res: StudyResult) -> None:
    ax1, ax2 = fig.subplots(1, 2)
    for k, (test, pts) in enumerate(res.data["curves"].items()):
        p = np.asarray(pts, dtype=float)
        ax1.plot(p[:, 0], p[:, 1], "-", marker=MARKERS[k % len(MARKERS)], ms=4, color=f"C{k}", label=test)
    ax1.axhline(100 * res.settings["power"], color="0.4", lw=0.8, ls="--")
    metric = display_name(str(res.settings.get("metric", "")))
    ax1.set(xscale="log", xlabel="test-set size (segments)", ylabel="power (%)", ylim=(-2, 102),
            title=f"(a) power to find the pilot's Δ = {res.data['pilot']:.2f} {metric}")  # fmt: skip
    ax1.legend(fontsize=7)
    p = np.asarray(res.data["detectable"], dtype=float)
    ax2.plot(p[:, 0], p[:, 1], "o-", color="0.1", ms=3)
    ax2.axhline(abs(res.data["target"]), color="0.4", lw=0.8, ls="--")
    ax2.set(xscale="log", yscale="log", xlabel="test-set size (segments)", ylabel=f"detectable |Δ| ({metric} points)",
            title="(b) smallest detectable |Δ| (dashed: the target)")  # fmt: skip
    for ax in (ax1, ax2):
        _plain_log_ticks(ax.xaxis)
    _plain_log_ticks(ax2.yaxis)


def _plain_log_ticks(axis) -> None:
    """Ticks of a log axis written as plain numbers (500, 1000, 0.5), not powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def draw_units(fig, res: StudyResult) -> None:
    """(a) rejection rates of each test at each level with their binomial intervals against α; (b) coverage of
    the intervals by resampling unit against the nominal level."""
    ax1, ax2 = fig.subplots(1, 2, width_ratios=[2, 1])
    rates = res.data["rates"]
    alphas = sorted({r[2] for r in rates}, reverse=True)
    labels = list(dict.fromkeys(f"{r[0]}: {r[1]}" for r in rates))
    width = 0.8 / len(alphas)
    for k, al in enumerate(alphas):
        pts = [r for r in rates if r[2] == al]
        x = np.arange(len(pts)) + (k - (len(alphas) - 1) / 2) * width
        y = np.array([r[3] for r in pts])
        err = np.array([[r[3] - r[4] for r in pts], [r[5] - r[3] for r in pts]])
        ax1.bar(x, y, width * 0.9, color=f"C{k}", hatch=HATCHES[k % len(HATCHES)], edgecolor="white", lw=0.3,
                label=f"α = {al:g}")  # fmt: skip
        ax1.errorbar(x, y, yerr=err, fmt="none", color="k", lw=0.8, capsize=2)
        ax1.hlines([100 * al] * len(x), x - width / 2, x + width / 2, color=f"C{k}", lw=2, linestyles="--")
    ax1.set_xticks(range(len(labels)), labels, rotation=20, ha="right", fontsize=7)
    ax1.set(ylabel="rejections % (95% CI)", title=f"(a) under a {res.data['unit']}-level null (dashes: α)")
    ax1.legend(fontsize=7, loc="upper right")
    cov = res.data["coverage"]
    xc = np.arange(len(cov))
    y = np.array([c[1] for c in cov])
    err = np.array([[c[1] - c[2] for c in cov], [c[3] - c[1] for c in cov]])
    ax2.bar(xc, y, 0.6, color="C2", alpha=0.75)
    ax2.errorbar(xc, y, yerr=err, fmt="none", color="k", lw=0.8, capsize=3)
    nominal = 100 * float(res.design.get("confidence", 0.95))
    ax2.axhline(nominal, color="k", lw=1, ls="--")
    ax2.set_xticks(xc, [c[0] for c in cov])
    ax2.set_ylim(0, 102)  # from 0: bar heights compare as lengths
    ax2.set(ylabel="coverage % (95% CI)", title=f"(b) intervals (dashed: {nominal:g}%)")


def draw_adaptive(fig, res: StudyResult) -> None:
    """(a) joint coverage at every stopping time of each procedure under each policy, with binomial intervals, at
    each level (dashed: 1 - α); (b) the screens each policy needed before the anytime ranking had resolved what the
    full matrix resolves (box: replays that got there; dotted: the whole campaign)."""
    ax1, ax2 = fig.subplots(1, 2, width_ratios=[3, 2])
    cov = res.data["coverage"]
    procs = list(cov)
    short = {"mtsig anytime rank sets": "anytime", "fixed-sample rank sets, 10 looks": "fixed, 10 looks",
             "wmt26": "WMT26 lines"}  # fmt: skip
    abbrev = {"successive-rejects": "SR"}
    cells = [(p, c["policy"], c["alpha"], c) for p in procs for c in cov[p]]
    alphas = sorted({c[2] for c in cells}, reverse=True)
    groups = list(dict.fromkeys((p, pol) for p, pol, _, _ in cells))
    pos = np.array([i + 0.6 * procs.index(p) for i, (p, _) in enumerate(groups)])  # a gap between procedures
    step = 0.3 / max(len(alphas) - 1, 1)
    lows = []
    for k, al in enumerate(alphas):
        pts = [next(c for p, pol, a, c in cells if (p, pol) == g and a == al) for g in groups]
        x = pos + (k - (len(alphas) - 1) / 2) * step
        y = np.array([100 * c["coverage"] for c in pts])
        lo = np.array([100 * c["interval"][0] for c in pts])
        hi = np.array([100 * c["interval"][1] for c in pts])
        lows.append(lo.min())
        ax1.errorbar(x, y, yerr=[y - lo, hi - y], fmt=MARKERS[k % len(MARKERS)], color=f"C{k}", ms=4, lw=0.9,
                     capsize=2, label=f"α = {al:g}")  # fmt: skip
        ax1.axhline(100 * (1 - al), color=f"C{k}", lw=0.8, ls="--")
    ax1.set_xticks(pos, [abbrev.get(pol, pol) for _, pol in groups], fontsize=6, rotation=30, ha="right")
    top = 100.6
    bottom = max(0.0, min(min(lows), 100 * (1 - max(alphas))) - 1.5)
    for p in procs:
        xs = [x for x, (q, _) in zip(pos, groups) if q == p]
        ax1.text(float(np.mean(xs)), top + 0.1 * (top - bottom), short.get(p, p), ha="center", va="bottom",
                 fontsize=7)  # fmt: skip
    ax1.set_ylim(bottom, top + 0.25 * (top - bottom))
    ax1.set(ylabel="joint coverage % (95% CI)", title="(a) right at every stopping time (dashed: 1 - α)\n")
    ax1.legend(fontsize=7, loc="lower left")
    need = res.data["annotations_to_resolve"]
    pols = list(need)
    al = f"{alphas[0]!r}"
    data = [[x for x in need[p][al]["per_replay"] if x is not None] or [np.nan] for p in pols]
    ax2.boxplot(data, widths=0.5, showfliers=False)
    for i, p in enumerate(pols):
        ax2.hlines(need[p][al]["campaign_screens"], i + 0.6, i + 1.4, color="grey", lw=1, linestyles=":")
    ax2.set_xticks(range(1, len(pols) + 1), [f"{abbrev.get(p, p)}\n{need[p][al]['reached']:.0%}" for p in pols],
                   fontsize=7)  # fmt: skip
    ax2.set(ylabel="screens", title=f"(b) screens to resolve (α = {alphas[0]:g})\nbelow: replays that get there")


def plot_study(res: StudyResult, width: float | None = None):
    """The figure of a study's result (matplotlib ``Figure``), drawn by the study's registered figure function in the
    paper style: ``width`` inches wide (default: two columns, 6.9 in, for a study of two panels; one, 3.3 in,
    otherwise)."""
    import matplotlib

    from mtsig.report.plots import _figure_class
    from mtsig.report.style import COLUMN, DOUBLE, fit_texts, rc
    from mtsig.studies.registry import get_study

    study = get_study(res.study)
    Figure = _figure_class()
    width = width or (DOUBLE if study.wide else COLUMN)
    stacked = study.wide and width < 5  # side-by-side panels one above the other at one column's width
    with matplotlib.rc_context(rc()):
        fig = Figure(figsize=(width, 5.0 if stacked else 2.7 if width < 5 else 3.0), layout="constrained")
        if stacked:
            _stack_panels(fig)
        study.draw_fn(fig, res)
        fit_texts(fig)
    return fig


def _stack_panels(fig) -> None:
    """Make ``fig.subplots(1, n, ...)`` lay its panels out as one column (``width_ratios`` become heights)."""
    plain = fig.subplots

    def subplots(nrows=1, ncols=1, **kw):
        if nrows == 1 and ncols > 1:
            if "width_ratios" in kw:
                kw["height_ratios"] = kw.pop("width_ratios")
            kw.pop("sharey", None)
            axes = plain(ncols, 1, **kw)
            return axes.reshape(1, ncols) if kw.get("squeeze") is False else axes
        return plain(nrows, ncols, **kw)

    fig.subplots = subplots
