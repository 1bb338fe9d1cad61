"""Every result type displays in a notebook as its ``to_pandas()``: the same rows and the columns that hold a value
(issue 47: no empty run or interval columns, each signature once under the table), numbers rounded for reading, p-values
as every output writes them, and exact in each cell's title (issue 41)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mtsig

EX = Path(__file__).resolve().parents[2] / "examples"
REFS, SYSTEMS = [str(EX / "ref.A.en")], {"base": str(EX / "base.en"), "new": str(EX / "new.en")}


def _shape(html: str) -> tuple[int, list[str]]:
    head = re.findall(r"<th>(.*?)</th>", html.split("</thead>")[0])
    return html.count("<tr>") - 1, head


def _filled(df) -> list[str]:
    return [c for c in df.columns if c != "signature" and df[c].notna().any()]


def test_score_compare_analyze_show_their_frames():
    pytest.importorskip("pandas")
    for res in (mtsig.score(REFS, SYSTEMS, ci=True, n_bootstrap=100), mtsig.compare(REFS, SYSTEMS, n_resamples=200),
                mtsig.analyze(REFS, SYSTEMS, by=["ref-length"], n_resamples=200, n_bootstrap=50)):  # fmt: skip
        df, html = res.to_pandas(), res._repr_html_()
        rows, cols = _shape(html)
        assert rows == len(df) and cols == _filled(df), type(res).__name__
        assert "e-05" not in re.sub(r'title="[^"]*"', "", html)  # p-values read 0.0001-style, exact in the title


def test_no_empty_columns_signatures_once_and_one_p_format():
    res = mtsig.score(REFS, SYSTEMS, metrics=["bleu", "chrf"])
    html = res._repr_html_()
    _, cols = _shape(html)
    assert not {"mean", "s_sel", "s_test", "s_dev", "ci_low", "ci_high", "signature"} & set(cols)  # no runs, no CI
    assert html.count("mtsig:bleu|") == 1 and html.count("mtsig:chrf|") == 1  # once each, not once per system
    cmp = mtsig.compare(REFS, SYSTEMS, test=("ar", "paired-bootstrap"), n_resamples=10_000, seed=1)
    shown = re.findall(r'<span title="([^"]+)">([^<]+)</span>', cmp._repr_html_())
    from mtsig.report.table import format_p

    ps = {c.result.p_value for c in cmp.comparisons}
    assert {text for exact, text in shown if float(exact) in ps} == {format_p(p) for p in ps}


def test_analyze_display_shows_its_ngrams_and_examples():
    res = mtsig.analyze(REFS, SYSTEMS, by=["ngrams", "examples"], n_resamples=200, n_bootstrap=50)
    html = res._repr_html_()
    items = [i for a in res.analyses for i in a.items]
    assert items and "n-grams and example segments" in html
    assert html.count("<tr>") >= len(items) + 3  # the corpus rows, then every n-gram and example


def test_human_meta_and_study_results_display_their_frames(tmp_path):
    pytest.importorskip("pandas")
    tsv = tmp_path / "h.tsv"
    rows = ["system\tsegment\tscore"] + [f"{s}\t{i}\t{(i * 7 + k * 13) % 100}" for k, s in enumerate("ABC")
                                        for i in range(30)]  # fmt: skip
    tsv.write_text("\n".join(rows) + "\n")
    human = mtsig.human(str(tsv), n_resamples=200)
    rows_html, cols = _shape(human._repr_html_())
    df = human.to_pandas()
    assert rows_html == len(df) == 3 and cols == list(df.columns)
    from mtsig.studies.design import design_from
    from mtsig.studies.registry import get_study, run_study

    study = run_study("levels", mtsig.compute(REFS, SYSTEMS), design_from(get_study("levels").design, {}))
    html = study._repr_html_()
    df = study.to_pandas()
    assert html.count("<h4>") == len(study.tables) == df["table"].nunique()
    assert len(df) == sum(len(t.rows) for t in study.tables)


def test_displays_include_the_figure():
    pytest.importorskip("matplotlib")
    res = mtsig.compare(REFS, SYSTEMS, n_resamples=200)
    html = res._repr_html_()
    assert html.count("<svg") == 1 and html.index("<table") < html.index("<svg")  # the table, then its figure
    assert "<svg" in mtsig.score(REFS, SYSTEMS, ci=True, n_bootstrap=100)._repr_html_()
