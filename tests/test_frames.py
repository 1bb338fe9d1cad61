"""``to_pandas()`` on every result: the rows and numbers of the result objects, and a one-line error without pandas."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import mtsig
from mtsig.errors import InputError

EX = Path(__file__).resolve().parents[1] / "examples"
REFS = [str(EX / "ref.A.en"), str(EX / "ref.B.en")]
SYSTEMS = {"base": str(EX / "base.en"), "new": str(EX / "new.en")}


def test_score_and_compare_frames():
    sc = mtsig.score(REFS, SYSTEMS, ["bleu", "chrf"], ci=True, n_bootstrap=200)
    df = sc.to_pandas()
    assert list(df["system"]) == ["base", "base", "new", "new"] and list(df["metric"]) == ["bleu", "chrf"] * 2
    assert df.loc[3, "score"] == sc.score("new", "chrf")
    assert df.loc[3, "ci_low"] == sc.systems[1].scores["chrf"].ci.low
    cmp = mtsig.compare(REFS, SYSTEMS, ["bleu", "chrf"], test=["ar", "ttest"], n_resamples=500)
    df = cmp.to_pandas()
    assert len(df) == len(cmp.comparisons) == 4
    c = cmp.get("base", "new", metric="chrf", test="ttest")
    row = df[(df.metric == "chrf") & (df.test == "ttest")].iloc[0]
    assert row.p_value == c.result.p_value and row.p_adjusted == c.p_adjusted and row.delta == c.result.delta


def test_analyze_and_study_frames():
    res = mtsig.analyze(REFS, SYSTEMS, by=["ref-length", "ngrams"], cutoffs={"ref-length": [12]}, n_resamples=300,
                        n_bootstrap=100, top=2)  # fmt: skip
    df = res.to_pandas()
    a = res.get("ref-length")
    assert len(df) == (len(a.buckets) + 1) * (2 + 1)  # the corpus section's one bucket first
    assert list(df.kind.unique()) == ["corpus", "ref-length"]
    diff = df[(df.row == "difference") & (df.kind == "ref-length")].iloc[0]
    assert diff.value == a.buckets[0].comparisons[0].delta
    items = res.to_pandas(items=True)
    assert len(items) == 4 and set(items.columns) >= {"ngram", "ratio", "count_a", "count_b"}
    table = mtsig.compute(REFS, SYSTEMS)
    from mtsig.studies.design import design_from
    from mtsig.studies.registry import get_study, run_study

    st = run_study("levels", table, design_from(get_study("levels").design, {}))
    df = st.to_pandas()  # one frame: a row per table row, its table's title first
    assert list(dict.fromkeys(df["table"])) == [t.title for t in st.tables] and df.columns[0] == "table"
    assert len(df) == sum(len(t.rows) for t in st.tables)
    first = st.tables[0]
    one = st.to_pandas(first.title)
    assert list(one.columns) == list(first.header) and len(one) == len(first.rows)
    with pytest.raises(InputError, match="unknown table of study levels"):
        st.to_pandas("no such table")


def test_without_pandas_a_one_line_error(monkeypatch):
    res = mtsig.score(REFS, SYSTEMS)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(InputError, match=r"^to_pandas\(\) needs pandas: pip install pandas$"):
        res.to_pandas()
