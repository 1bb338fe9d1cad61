"""Figures for a paper: the width asked for (one column, two, or inches), no text under 7 pt, text kept as text in
SVG and PDF, the Okabe-Ito palette, one figure per analysis with its caption, documents as points."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mtsig
from mtsig.cli import main
from mtsig.engine import CompareOptions, compare_table
from mtsig.errors import InputError
from mtsig.report.style import COLUMN, DOUBLE, PALETTE, width_inches
from mtsig.resample import Resampling

pytest.importorskip("matplotlib")

EX = Path(__file__).resolve().parents[2] / "examples"
EX_ARGS = ["-r", str(EX / "ref.A.en"), "-s", f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"]


def _small_text(fig) -> list[tuple[str, float]]:
    """Every visible, non-empty text of a drawn figure smaller than 7 pt (ticks, labels, legends, titles)."""
    from matplotlib.text import Text

    return [(t.get_text(), t.get_fontsize()) for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and t.get_fontsize() < 7]  # fmt: skip


def _drawn(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    return fig


def test_compare_and_score_figures_at_column_width_with_no_small_text(wmt_bleu_stats):
    table = wmt_bleu_stats.select(["bleu"])
    forest = compare_table(table, CompareOptions(tests=("ar",), baseline="PROMT"), Resampling(500, 3))
    matrix = compare_table(table, CompareOptions(tests=("ar",)), Resampling(500, 3))
    for fig in (mtsig.plot(forest), mtsig.plot(matrix)):
        _drawn(fig)
        assert _small_text(fig) == []
    fig = mtsig.plot(forest)
    assert fig.get_size_inches()[0] == pytest.approx(COLUMN)  # one metric: one column
    from mtsig.report.plots import plot_compare

    assert plot_compare(forest, DOUBLE).get_size_inches()[0] == pytest.approx(DOUBLE)


def test_colours_are_the_okabe_ito_palette_and_text_stays_text(wmt_bleu_stats, tmp_path):
    table = wmt_bleu_stats.select(["bleu"])
    res = compare_table(table, CompareOptions(tests=("ar",), baseline="PROMT"), Resampling(500, 3))
    svg_path, pdf_path = tmp_path / "f.svg", tmp_path / "f.pdf"
    from mtsig.report.plots import save

    save(mtsig.plot(res), str(svg_path))
    save(mtsig.plot(res), str(pdf_path))
    svg = svg_path.read_text()
    assert "<text" in svg and "BLEU (higher is better)" in svg  # text as text, the metric as papers write it
    assert PALETTE[0].lower() in svg.lower()
    assert "#1f77b4" not in svg.lower()  # not matplotlib's default blue
    pdf = pdf_path.read_bytes()
    assert b"/FontFile2" in pdf and b"/Type3" not in pdf  # TrueType fonts embedded: text, not glyph drawings


def test_analyze_writes_one_figure_per_analysis_with_its_caption(tmp_path, capsys):
    out = tmp_path / "fig.svg"
    assert main(["analyze", *EX_ARGS, "--by", "ref-length", "length-diff", "--n-resamples", "300",
                 "--plot", str(out), "-o", str(tmp_path / "a.txt")]) == 0  # fmt: skip
    files = sorted(p.name for p in tmp_path.glob("fig-*.svg"))
    assert files == ["fig-corpus-bleu.svg", "fig-length-diff.svg", "fig-ref-length-bleu.svg"]
    assert not out.exists()
    assert "3 figure(s)" in capsys.readouterr().err
    svg = (tmp_path / "fig-ref-length-bleu.svg").read_text()
    assert re.search(r'width="237\.6pt"', svg)  # 3.3 in at 72 pt per inch
    shown = " ".join(" ".join(re.findall(r">([^<>]+)</(?:text|tspan)>", svg)).split())  # every line, as read
    for words in ("reference length (words)", "BLEU (higher is better)", "holm over buckets and pairs"):
        assert words in shown
    assert main(["analyze", *EX_ARGS, "--by", "ref-length", "--n-resamples", "300", "--plot", str(out),
                 "--plot-width", "double", "-q", "-o", str(tmp_path / "a.txt")]) == 0  # fmt: skip
    assert re.search(r'width="496\.8pt"', (tmp_path / "fig-ref-length-bleu.svg").read_text())


def test_every_analysis_figure_has_no_small_text_and_many_buckets_become_points(wmt):
    from mtsig.report.analyze_plots import MAX_BARS, plot_analysis
    from tests.data import WMT_SYSTEMS, wmt_hyp, wmt_ref

    ref = wmt_ref(wmt, "A")
    docs = [f"d{i // 8}" for i in range(len(Path(ref).read_text(encoding="utf-8").splitlines()))]
    res = mtsig.analyze([ref], {s: wmt_hyp(wmt, s) for s in WMT_SYSTEMS[:3]}, docids=docs,
                        by=["ref-length", "length-diff", "sentence-score", "word-frequency", "documents"],
                        n_resamples=300, n_bootstrap=100)  # fmt: skip
    for a in res.analyses:
        if not a.buckets:
            continue
        fig = _drawn(plot_analysis(res, a))
        assert _small_text(fig) == [], a.kind
        assert fig.get_size_inches()[0] == pytest.approx(COLUMN)
        if a.kind == "documents":
            assert len(a.buckets) > MAX_BARS
            assert not fig.axes[0].patches  # points, not bars
            assert fig.axes[0].get_xlabel().startswith("documents (")


def test_plot_width_values():
    assert width_inches("column") == COLUMN and width_inches("double") == DOUBLE and width_inches("5") == 5.0
    assert width_inches(None, 4.0) == 4.0
    for bad in ("wide", "1", "50"):
        with pytest.raises(InputError, match="--plot-width"):
            width_inches(bad)
