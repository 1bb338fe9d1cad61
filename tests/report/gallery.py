"""Every figure kind mtsig draws, built from the shared data at a given width: what the figure test audits
(:func:`mtsig.report.figcheck.audit`) and ``benchmarks/figures.py`` saves for a person to look at.

Each builder returns ``(name, figure)`` pairs; results are computed once per process and cached."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from tests.data import (
    MULTEVAL,
    MULTEVAL_SYSTEMS,
    WMT,
    WMT_SYSTEMS,
    WMT_XML,
    multeval_ref,
    multeval_runs,
    need,
    wmt_hyp,  # fmt: skip
    wmt_ref,
)


@functools.cache
def _wmt(metrics: tuple[str, ...] = ("bleu",)):
    import mtsig

    d = need(WMT)
    return mtsig.compute([wmt_ref(d, "A")], {s: wmt_hyp(d, s) for s in WMT_SYSTEMS}, list(metrics))


@functools.cache
def _runs():
    import mtsig

    d = need(MULTEVAL)
    return mtsig.compute([multeval_ref(d)], [multeval_runs(d, s) for s in MULTEVAL_SYSTEMS], ["bleu"])


@functools.cache
def _xml():
    import mtsig

    x = str(need(WMT_XML))
    return mtsig.compute(x, x, ["bleu", "chrf"])


def score_and_compare(width: float) -> Iterator[tuple[str, object]]:
    import mtsig
    from mtsig.report.plots import plot_compare, plot_score

    one, three = _wmt(), _wmt(("bleu", "chrf", "ter"))
    yield "score-ci", plot_score(mtsig.score(stats=one, ci=True, n_bootstrap=200), width)
    yield "score-3-metrics", plot_score(mtsig.score(stats=three, ci=True, n_bootstrap=200), width)
    yield "score-runs", plot_score(mtsig.score(stats=_runs()), width)
    yield (
        "compare-forest",
        plot_compare(mtsig.compare(stats=one, baseline="LT22", n_resamples=500, system_ci=True), width),
    )
    yield "compare-matrix", plot_compare(mtsig.compare(stats=one, n_resamples=500), width)
    yield "compare-matrix-3-metrics", plot_compare(mtsig.compare(stats=three, n_resamples=500), width)
    pair = _wmt().select(systems=["LT22", "PROMT"])
    yield "compare-distribution", plot_compare(mtsig.compare(stats=pair, n_resamples=500, keep_distributions=True),
                                               width)  # fmt: skip
    pair3 = three.select(systems=["LT22", "PROMT"])
    yield "compare-distribution-3-metrics", plot_compare(mtsig.compare(stats=pair3, n_resamples=500, baseline="LT22",
                                                                       keep_distributions=True), width)  # fmt: skip
    yield "compare-forest-3-metrics", plot_compare(mtsig.compare(stats=three, baseline="LT22", n_resamples=500),
                                                   width)  # fmt: skip


def analyze(width: float) -> Iterator[tuple[str, object]]:
    import mtsig
    from mtsig.report.analyze_plots import plot_analysis

    d = need(WMT)
    res = mtsig.analyze([wmt_ref(d, "A")], {s: wmt_hyp(d, s) for s in WMT_SYSTEMS[:2]}, n_resamples=300,
                        n_bootstrap=100)  # fmt: skip
    for a in res.analyses:
        if a.buckets and a.kind != "corpus":
            yield f"analyze-{a.kind}", plot_analysis(res, a, width)
    xml = mtsig.analyze(stats=_xml().select(systems=["Online-A", "Online-B"]), by=["documents"], n_resamples=300,
                        n_bootstrap=100)  # fmt: skip
    yield "analyze-documents", plot_analysis(xml, xml.analyses[-1], width)


def studies(width: float) -> Iterator[tuple[str, object]]:
    from mtsig.report.study_plots import plot_study
    from mtsig.studies.design import design_from
    from mtsig.studies.registry import get_study, run_study

    small = {"type1": {"replicates": 20, "n_resamples": 300, "n_bootstrap": 100},
             "multiplicity": {"replicates": 20, "null_systems": 4}, "sensitivity": {"n_resamples": 300},
             "runs": {"n_resamples": 300}, "coverage": {"samples": 10}, "sampling": {},
             "levels": {"samples": 10}, "testsize": {"samples": 10, "sizes": (100, 400)},
             "power": {"replicates": 10, "sizes": (200, 800), "n_resamples": 200},
             "units": {"replicates": 10}}  # fmt: skip
    tables = {"runs": _runs(), "units": _xml(), "sensitivity": _wmt(("bleu", "chrf"))}
    for name, opts in small.items():
        study = get_study(name)
        res = run_study(name, tables.get(name, _wmt()), design_from(study.design, opts))
        yield f"study-{name}", plot_study(res, width)


def human_and_meta(width: float) -> Iterator[tuple[str, object]]:
    import mtsig
    from mtsig.report.paper import plot_human, plot_meta
    from tests.data import DATA

    esa = DATA / "wmt24-esa"
    h = mtsig.human(str(need(esa / "esa_generalMT2024_wave3.csv")), lp="en-ja", docs=str(esa / "en-ja.docs"),
                    n_resamples=300, n_bootstrap=100)  # fmt: skip
    yield "human", plot_human(h, width)
    mt = DATA / "mtme-wmt23-ende" / "wmt23"
    from mtsig.metaeval import MetaOptions, run_meta
    from mtsig.metaeval.mtme import meta_data, read_evalset

    data = meta_data(read_evalset(need(mt), "en-de"))
    m = run_meta(data, MetaOptions(n_resamples=200, n_bootstrap=100))
    yield "meta", plot_meta(m, width)


BUILDERS: dict[str, Callable[[float], Iterator[tuple[str, object]]]] = {
    "score-compare": score_and_compare, "analyze": analyze, "studies": studies,
    "human-meta": human_and_meta}  # fmt: skip
