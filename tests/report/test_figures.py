"""Every figure kind at one column (3.3 in) and two (6.9 in) passes the paper audit (``report/figcheck.py``): as
wide as asked, no text under 7 pt, every text inside the figure, no two texts overlapping, a legend off its data.
``python benchmarks/figures.py OUT`` saves the same figures as PNG for a person to look at."""

from __future__ import annotations

import pytest

from mtsig.report.figcheck import audit
from mtsig.report.style import COLUMN, DOUBLE

pytest.importorskip("matplotlib")


def test_the_audit_finds_what_it_checks():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3.3, 2.0), layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 1, 2], [0, 0.5, 1], "o", label="a series")  # the middle point under the legend
    ax.legend(loc="center")
    ax.text(0.2, 0.9, "tiny", fontsize=5)
    ax.text(0.2, 0.92, "over it", fontsize=8)
    fig.text(0.95, 0.5, "a text that runs far beyond the right edge of the figure")
    got = audit(fig, 3.0)
    assert any("3.30 in wide, 3.00 asked" in p for p in got.problems)
    assert any("'tiny' at 5.0 pt" in p for p in got.problems)
    assert any("runs off the figure" in p for p in got.problems)
    assert any("'tiny' and 'over it' overlap" in p for p in got.problems)
    assert any("covers 1 data point" in p for p in got.problems)
    clean = Figure(figsize=(3.3, 2.0), layout="constrained")
    clean.subplots().plot([0, 1], [0, 1])
    assert audit(clean, 3.3).ok


@pytest.mark.slow
@pytest.mark.parametrize("group", ["score-compare", "analyze", "studies", "human-meta"])
@pytest.mark.parametrize("width", [COLUMN, DOUBLE], ids=["column", "double"])
def test_every_figure_kind_passes_the_audit(group, width):
    from tests.report.gallery import BUILDERS

    seen = 0
    for name, fig in BUILDERS[group](width):
        got = audit(fig, width)
        assert got.ok, (name, got.problems)
        seen += 1
    assert seen >= {"score-compare": 7, "analyze": 5, "studies": 10, "human-meta": 2}[group]


def _shown(svg: str) -> str:
    import re

    return " ".join(" ".join(re.findall(r">([^<>]+)</(?:text|tspan)>", svg)).split())


def test_caption_in_the_figure_left_out_or_in_a_file(tmp_path, capsys):
    from pathlib import Path

    from mtsig.cli import main

    ex = Path(__file__).resolve().parents[2] / "examples"
    args = ["compare", "-r", str(ex / "ref.A.en"), "-s", f"base={ex / 'base.en'}", f"new={ex / 'new.en'}",
            f"x={ex / 'ref.B.en'}", "-q", "-o", str(tmp_path / "out.txt")]  # fmt: skip
    drawn, bare, cap = tmp_path / "drawn.svg", tmp_path / "bare.svg", tmp_path / "cap.txt"
    assert main([*args, "--plot", str(drawn)]) == 0
    assert main([*args, "--plot", str(bare), "--caption", str(cap)]) == 0
    caption = cap.read_text(encoding="utf-8")
    assert "adjusted p-values" in caption and "seed 12345" in caption
    assert "seed 12345" in _shown(drawn.read_text()) and "seed 12345" not in _shown(bare.read_text())
    assert "BLEU (higher is better)" in _shown(bare.read_text())  # the figure itself stays
    assert main([*args, "--plot", str(tmp_path / "none.svg"), "--caption", "none"]) == 0
    assert not (tmp_path / "none").exists() and "seed" not in _shown((tmp_path / "none.svg").read_text())
    a_args = ["analyze", "-r", str(ex / "ref.A.en"), "-s", f"base={ex / 'base.en'}", f"new={ex / 'new.en'}", "--by",
              "ref-length", "--n-resamples", "300", "-q", "-o", str(tmp_path / "a.txt")]  # fmt: skip
    assert main([*a_args, "--plot", str(tmp_path / "f.svg"), "--caption", str(tmp_path / "c.txt")]) == 0
    assert "holm over buckets and pairs" in (tmp_path / "c-ref-length-bleu.txt").read_text()
    assert "holm over buckets" not in _shown((tmp_path / "f-ref-length-bleu.svg").read_text())
    assert main([*args, "--plot", str(tmp_path / "x.svg"), "--caption", str(tmp_path / "no" / "dir.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mtsig: error: --caption") and not (tmp_path / "x.svg").exists()
    assert main([*args, "--caption", str(cap)]) == 2  # no figure: no caption to write
    assert "give --plot too" in capsys.readouterr().err


@pytest.mark.slow
def test_meta_figure_names_metrics_as_papers_do_and_marks_negated_ones():
    """TER is lower-is-better: meta negates it so that every statistic reads higher-is-better, and the figure says
    so ("TER (negated)"), with the names papers use (chrF, not chrf); the JSON lists what was negated."""
    import re

    import mtsig
    from mtsig.report.paper import plot_meta
    from mtsig.report.plots import svg_text
    from tests.data import DATA, WMT, WMT_SYSTEMS, need, wmt_hyp, wmt_ref

    human = str(need(DATA / "wmt22-humaneval-toen" / "de-en" / "ad-seg-scores-de-en.csv"))
    res = mtsig.meta(human, refs=[wmt_ref(need(WMT), "A")], systems={s: wmt_hyp(WMT, s) for s in WMT_SYSTEMS},
                     compute=["ter", "chrf"], n_resamples=200, n_bootstrap=100)  # fmt: skip
    assert res.settings["negated"] == ["ter"]
    shown = " ".join(re.findall(r">([^<>]+)</(?:text|tspan)>", svg_text(plot_meta(res))))
    assert "TER (negated)" in shown and "chrF" in shown and "chrf" not in shown


def test_an_outlier_gets_its_own_stretch_of_a_broken_axis():
    """One system far below 13 close ones would squeeze them into a sliver: the x axis is broken, the outlier drawn
    on its own short part, named in the title; without an outlier, one axis."""
    from types import SimpleNamespace as NS

    import numpy as np

    from mtsig.report.paper import outliers, plot_human

    rng = np.random.default_rng(0)
    vals = [*np.sort(rng.normal(0.0, 0.05, 13))[::-1], -1.5]
    names = [f"sys{i}" for i in range(13)] + ["broken-system"]

    def result(values):
        systems = [NS(name=n, score=float(v), ci=(float(v) - 0.03, float(v) + 0.03), rank_range=(i + 1, i + 1))
                   for i, (n, v) in enumerate(zip(names, values))]  # fmt: skip
        return NS(systems=systems, settings={"confidence": 0.95, "input_format": "tsv"}, protocol="mtsig",
                  clusters=[[n] for n in names])  # fmt: skip

    assert outliers(vals, [None] * 14) == ([13], "low")
    for width in (COLUMN, DOUBLE):
        fig = plot_human(result(vals), width)
        assert audit(fig, width).ok
        out, main = fig.axes[:2]
        assert main.get_xlim()[0] > -0.5 and out.get_xlim()[0] < -1.5 < out.get_xlim()[1]
        assert "broken-system far from the rest" in fig._suptitle.get_text().replace("\n", " ")
    close = [*vals[:13], -0.2]
    assert outliers(close, [None] * 14) is None and len(plot_human(result(close), COLUMN).axes) == 1


@pytest.mark.slow
def test_forest_caption_names_the_interval_it_draws():
    """With optimizer runs Δ's interval is the runs test's (bootstrap and run variance combined), not the paired
    bootstrap's: the caption says which."""
    import mtsig
    from mtsig.report.plots import plot_compare, take_caption
    from tests.data import (
        MULTEVAL,
        MULTEVAL_SYSTEMS,
        WMT,
        WMT_SYSTEMS,
        multeval_ref,
        multeval_runs,
        need,
        wmt_hyp,
        wmt_ref,
    )

    d = need(MULTEVAL)
    runs = mtsig.compare([multeval_ref(d)], [multeval_runs(d, s) for s in MULTEVAL_SYSTEMS], ["bleu"],
                         baseline="baseline", n_resamples=300)  # fmt: skip
    assert "the runs test's threshold" in take_caption(plot_compare(runs))
    w = need(WMT)
    one = mtsig.compare([wmt_ref(w, "A")], {s: wmt_hyp(w, s) for s in WMT_SYSTEMS[:3]}, ["bleu"],
                        baseline=WMT_SYSTEMS[0], n_resamples=300)  # fmt: skip
    assert "paired-bootstrap interval" in take_caption(plot_compare(one))
