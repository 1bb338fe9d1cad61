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
