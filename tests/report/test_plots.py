"""Figures and the HTML report: the numbers they show are the JSON's (read back from the SVG's marks and the
table cells' data-value attributes), files are self-contained, errors are one line."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.cli import main
from mtsig.engine import CompareOptions, ScoreOptions, compare_table, score_table
from mtsig.report.plots import plot_compare, svg_marks
from mtsig.resample import Resampling
from tests.data import WMT_SYSTEMS

pytest.importorskip("matplotlib")  # the plot extra is part of the test extra

EX = Path(__file__).resolve().parents[2] / "examples"
EX_ARGS = ["-r", str(EX / "ref.A.en"), str(EX / "ref.B.en"), "-s", f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"]


def _svg(fig) -> str:
    from mtsig.report.plots import svg_text

    return svg_text(fig)


def _marks(fig, kind: str) -> list[list[str]]:
    return [m[1:] for m in svg_marks(_svg(fig)) if m[0] == kind]


def test_forest_plot_shows_the_json_numbers(wmt_bleu_stats):
    table = wmt_bleu_stats.select(["bleu", "nist"])
    res = compare_table(table, CompareOptions(tests=("ar",), baseline="PROMT"), Resampling(2000, 3))
    marks = _marks(mtsig.plot(res), "delta")
    assert len(marks) == 2 * 3
    rows = {(c["metric"], c["a"], c["b"]): c for c in res.to_dict()["comparisons"]}
    for m, a, b, delta, low, high, padj, sig in marks:
        c = rows[(m, a, b)]
        assert float(delta) == c["delta"] and [float(low), float(high)] == c["delta_ci"]
        assert float(padj) == c["p_adjusted"] and bool(int(sig)) == c["significant"]


def test_matrix_plot_of_all_pairs_shows_adjusted_p_and_sign(wmt_bleu_stats):
    table = wmt_bleu_stats.select(["bleu", "ter"] if "ter" in wmt_bleu_stats.metrics else ["bleu"])
    res = compare_table(table, CompareOptions(tests=("ar",)), Resampling(2000, 3))
    marks = _marks(mtsig.plot(res), "pair")
    rows = {(c["metric"], c["a"], c["b"]): c for c in res.to_dict()["comparisons"]}
    assert len(marks) == len(rows)  # one mark per pair (its cell; the mirrored cell shows the opposite sign)
    for m, a, b, d, padj, sig in marks:
        c = rows[(m, a, b)]
        assert float(d) == c["delta"] and float(padj) == c["p_adjusted"] and bool(int(sig)) == c["significant"]


def test_one_pair_plot_is_the_null_distribution(wmt_bleu_stats):
    table = wmt_bleu_stats.select(["bleu"], WMT_SYSTEMS[:2])
    res = compare_table(table, CompareOptions(tests=("ar",), keep_distributions=True), Resampling(1000, 3))
    ((m, a, b, delta, p),) = _marks(mtsig.plot(res), "observed")
    c = res.comparisons[0].result
    assert (m, a, b) == ("bleu", c.a, c.b) and float(delta) == c.delta and float(p) == c.p_value
    (hist,) = _marks(mtsig.plot(res), "hist")
    assert int(hist[-1]) == c.null_distribution.size == 1000


def test_score_plot_with_intervals_and_with_runs(wmt_bleu_stats, multeval):
    res = score_table(wmt_bleu_stats.select(["bleu"]), ScoreOptions(ci=True), Resampling(500, 1))
    marks = _marks(mtsig.plot(res), "score")
    by = {s["name"]: s["scores"]["bleu"] for s in res.to_dict()["systems"]}
    assert len(marks) == 4
    for _m, name, score, low, high in marks:
        assert float(score) == by[name]["score"] and [float(low), float(high)] == by[name]["ci"]
    runs = mtsig.score([str(multeval / "refs.test2010.lc.tok.en.0")],
                       [f"{s}={multeval}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1")],
                       ["bleu"], tokenize="none")  # fmt: skip
    fig = mtsig.plot(runs)
    d = {s["name"]: s["scores"]["bleu"] for s in runs.to_dict()["systems"]}
    for _m, name, mean, s_sel in _marks(fig, "mean"):
        assert float(mean) == d[name]["mean"] and float(s_sel) == d[name]["s_sel"]
    for _m, name, *scores in _marks(fig, "runs"):
        assert [float(x) for x in scores] == d[name]["runs"]


def test_plot_files_and_errors(tmp_path, capsys, monkeypatch):
    for ext in ("png", "svg", "pdf"):
        out = tmp_path / f"c.{ext}"
        assert main(["compare", *EX_ARGS, "-m", "bleu", "--plot", str(out), "-q"]) == 0
        assert out.stat().st_size > 1000
    first = (tmp_path / "c.svg").read_bytes()
    assert main(["compare", *EX_ARGS, "-m", "bleu", "--plot", str(tmp_path / "c.svg"), "-q"]) == 0
    assert (tmp_path / "c.svg").read_bytes() == first  # no date inside, fixed ids: same result, same bytes
    capsys.readouterr()
    assert main(["score", *EX_ARGS, "--plot", str(tmp_path / "x.gif")]) == 2
    assert (
        capsys.readouterr().err
        == f"mtsig: error: --plot {tmp_path / 'x.gif'}: the file must end in .png, .svg or .pdf\n"
    )
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # as if the extra were not installed
    assert main(["score", *EX_ARGS, "--plot", str(tmp_path / "x.png")]) == 2
    assert capsys.readouterr().err == "mtsig: error: plots need matplotlib: pip install 'mtsig[plot]'\n"


def _cells(html: str, table_id: str) -> list[list[str]]:
    body = re.search(rf'id="{table_id}"><thead>.*?</thead><tbody>(.*?)</tbody>', html, re.S).group(1)
    return [re.findall(r'data-value="([^"]*)"', row) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def test_html_report_numbers_equal_the_json_and_nothing_is_fetched(tmp_path, capsys):
    out = tmp_path / "r.html"
    args = ["compare", *EX_ARGS, "-m", "bleu", "chrf", "--test", "ar", "paired-bootstrap", "--format", "json"]
    assert main([*args, "--html", str(out), "-q"]) == 0
    data = json.loads(capsys.readouterr().out)
    html = out.read_text(encoding="utf-8")
    embedded = json.loads(re.search(r'id="mtsig-result">(.*?)</script>', html, re.S).group(1).replace("<\\/", "</"))
    assert embedded == data
    metrics = list(dict.fromkeys(c["metric"] for c in data["comparisons"]))
    rows = [r for m in metrics for r in _cells(html, f"mtsig-comparisons-{m}")]  # one table per metric
    ordered = [c for m in metrics for c in data["comparisons"] if c["metric"] == m]
    assert len(rows) == len(data["comparisons"])
    for cells, c in zip(rows, ordered):
        nums = [float(x) for x in cells[:7]]
        assert nums == [c["score_a"], c["score_b"], c["delta"], *c["delta_ci"], c["p_value"], c["p_adjusted"]]
        assert bool(int(cells[7])) == c["significant"]
    scores = _cells(html, "mtsig-scores")
    assert [float(r[0]) for r in scores] == [s["scores"]["bleu"]["score"] for s in data["systems"]]
    # self-contained: no element loads anything (the SVG namespace URI is a name, not a request)
    assert not re.search(r"<(link|img|iframe|object|embed)\b", html) and not re.search(r"<script[^>]+src=", html)
    assert not re.search(r'(src|href)="(https?:)?//', html) and "@import" not in html and "url(http" not in html
    assert html.count("<svg") == 2 and "mtsig compare -r" in html


def test_report_groups_comparisons_by_metric_and_names_the_better_system(tmp_path):
    """TER is lower-is-better: the report's TER table says the system with the lower TER is the better one."""
    out = tmp_path / "r.html"
    assert main(["compare", *EX_ARGS, "-m", "bleu", "ter", "--html", str(out), "-q", "-o", str(tmp_path / "o")]) == 0
    html = out.read_text(encoding="utf-8")
    assert "<h3>BLEU <span class=dir>↑ higher is better</span></h3>" in html
    assert "<h3>TER <span class=dir>↓ lower is better</span></h3>" in html
    ter = re.search(r'id="mtsig-comparisons-ter">.*?</table>', html, re.S).group(0)
    bleu = re.search(r'id="mtsig-comparisons-bleu">.*?</table>', html, re.S).group(0)
    assert ">new better *</td>" in ter and ">new better *</td>" in bleu  # new: higher BLEU and lower TER
    assert 'id="mtsig-comparisons"' not in html


def test_a_matrix_of_many_systems_widens_the_figure_instead_of_cutting_it_off():
    """60 systems at one column's width: every cell keeps its smallest size and the figure grows to hold them (it
    used to stay 3.3 in wide and cut the matrix off after 20 systems)."""
    rng = np.random.default_rng(0)
    scores = {f"sys{j:02d}": list(0.8 + 0.002 * j + rng.normal(0, 0.05, 200)) for j in range(60)}
    res = mtsig.compare(None, None, ["seg"], seg_scores=scores, test="ttest")
    fig = plot_compare(res)
    width = fig.get_size_inches()[0]
    assert width > 60 * 0.14
    for ax in fig.axes:
        x0, y0, w, h = ax.get_position().bounds
        assert x0 >= 0 and x0 + w <= 1 + 1e-9 and y0 >= 0 and y0 + h <= 1 + 1e-9
