"""WMT25's automatic scores (``data/automatic_scores/<SYSTEM>.jsonl``) as metric scores of ``meta``, placed on the
items of WMT25's humeval file: paragraph i of a document is item ``LP_#_DOMAIN_#_DOC_#_i``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.errors import InputError
from mtsig.io.wmt25scores import read_wmt25_scores

SYSTEMS = {"A": 80.0, "B": 76.0, "C": 72.0, "D": 65.0, "E": 60.0}
DOCS = [("en-cs_CZ", "news", "n1", 6), ("en-cs_CZ", "social", "s1", 5), ("en-cs_CZ", "speech", "p1", 4),
        ("en-ja_JP", "news", "j1", 5)]  # fmt: skip


def make(tmp_path: Path, seed: int = 3):
    """A humeval file (two waves, equal scores in both: each item's human score is one number) and automatic-score
    files: ``exact`` equal to the human score, ``negx`` its negation plus a constant (stored as MetricX is: higher
    is better, negative), ``noise`` unrelated; paragraphs an item was not judged on are scored too."""
    rng = np.random.default_rng(seed)
    human: dict[str, dict[str, float]] = {}
    lines = []
    for lp, dom, doc, n in DOCS:
        for i in range(n):
            item = f"{lp}_#_{dom}_#_{doc}_#_{i}"
            base = rng.normal(0, 8)
            scores = {}
            for s, q in SYSTEMS.items():
                x = float(round(q + base + rng.normal(0, 5)))
                human.setdefault(s, {})[item] = x
                scores[s] = {"human1": x, "human2": x}
            if i < n - 1:  # the last paragraph of every document is scored by the metrics only
                lines.append(json.dumps({"doc_id": item, "scores": scores}))
    hp = tmp_path / "wmt25-genmt-humeval.jsonl"
    hp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    auto = tmp_path / "automatic_scores"
    auto.mkdir()
    for s in SYSTEMS:
        recs = []
        for lp, dom, doc, n in DOCS:
            items = [f"{lp}_#_{dom}_#_{doc}_#_{i}" for i in range(n)]
            exact = [human[s][it] for it in items]
            recs.append(json.dumps({"language_pair": lp, "domain": dom, "document_id": doc, "metric_scores": {
                "exact": exact, "negx": [x / 10 - 12 for x in exact],
                "noise": [float(v) for v in rng.normal(0, 1, n)]}}))  # fmt: skip
        (auto / f"{s}.jsonl").write_text("\n".join(recs) + "\n", encoding="utf-8")
    return hp, auto, human


def test_reader_places_paragraphs_on_items(tmp_path):
    _, auto, human = make(tmp_path)
    got = read_wmt25_scores(str(auto))
    assert set(got) == {"exact", "negx", "noise"} and set(got["exact"]) == set(SYSTEMS)
    assert got["exact"]["C"] == human["C"]
    only = read_wmt25_scores([str(auto / "A.jsonl")], lps=["en-ja_JP"])
    assert set(only["exact"]["A"]) == {f"en-ja_JP_#_news_#_j1_#_{i}" for i in range(5)}


def test_meta_on_wmt25_items_segment_and_system_level(tmp_path):
    hp, auto, _ = make(tmp_path)
    seg = mtsig.meta(str(hp), wmt25_scores=str(auto), lp="en-cs_CZ", level="segment", statistic="pearson",
                     average_by="none", n_resamples=200, n_bootstrap=100)  # fmt: skip
    # every judged (item, wave) segment is paired with its item's metric score: the exact metric agrees perfectly
    assert seg.metric("exact").values["pearson"] == pytest.approx(1.0, abs=1e-12)
    assert seg.metric("negx").values["pearson"] == pytest.approx(1.0, abs=1e-12)
    assert abs(seg.metric("noise").values["pearson"]) < 0.5
    sys_level = mtsig.meta(str(hp), wmt25_scores=str(auto), wmt25_metrics=["exact", "noise"], lp="en-cs_CZ",
                           n_resamples=200, n_bootstrap=100)  # fmt: skip
    assert {m.name for m in sys_level.metrics} == {"exact", "noise"}
    assert sys_level.metric("exact").values["pearson"] == pytest.approx(1.0, abs=1e-12)
    one = mtsig.meta(str(hp), wmt25_scores=str(auto), lp="en-ja_JP", level="segment", statistic="pearson",
                     average_by="none", n_resamples=200, n_bootstrap=100)  # fmt: skip
    assert one.metric("exact").values["pearson"] == pytest.approx(1.0, abs=1e-12)


def test_null_scores_are_missing_and_said(tmp_path):
    hp, auto, _ = make(tmp_path)
    f = auto / "B.jsonl"
    recs = [json.loads(x) for x in f.read_text().splitlines()]
    recs[0]["metric_scores"]["noise"][1] = None
    f.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    res = mtsig.meta(str(hp), wmt25_scores=str(auto), lp="en-cs_CZ", level="segment", statistic="pearson",
                     average_by="none", n_resamples=200, n_bootstrap=100)  # fmt: skip
    assert any("noise: B's file has no score (absent or null) of 2 judged item(s)" in n for n in res.notes)
    # at system level the missing scores are left out of the resampled system scores too: an interval, not none
    sys_level = mtsig.meta(str(hp), wmt25_scores=str(auto), lp="en-cs_CZ", n_resamples=200, n_bootstrap=200)
    lo, hi = sys_level.metric("noise").ci["pearson"]
    assert lo <= sys_level.metric("noise").values["pearson"] <= hi


def _edit(auto: Path, fn) -> None:
    f = auto / "C.jsonl"
    recs = [json.loads(x) for x in f.read_text().splitlines()]
    fn(recs)
    f.write_text("\n".join(json.dumps(r) for r in recs) + "\n")


@pytest.mark.parametrize(
    "case, message",
    [
        ("short", "noise scores 5 paragraphs of en-cs_CZ_#_news_#_n1, the other metrics 6"),
        ("string", 'paragraph 2 of en-cs_CZ_#_news_#_n1 is "0.5", not a finite number'),
        ("fields", "expected WMT25's automatic scores"),
        ("twice", "document en-cs_CZ_#_news_#_n1 appears twice"),
        ("unknown-metric", "unknown WMT25 metric 'XCOMET'"),
        ("system-level-human", "give segment-level human judgments"),
        ("empty-dir", "a directory without .jsonl files"),
    ],
)
def test_bad_wmt25_scores_one_error_line(tmp_path, case, message, capsys):
    from mtsig.cli import main

    hp, auto, _ = make(tmp_path)
    extra: list[str] = ["--lp", "en-cs_CZ"]
    human = str(hp)
    if case == "short":
        _edit(auto, lambda r: r[0]["metric_scores"]["noise"].pop())
    elif case == "string":
        _edit(auto, lambda r: r[0]["metric_scores"]["noise"].__setitem__(2, "0.5"))
    elif case == "fields":
        _edit(auto, lambda r: r[1].pop("domain"))
    elif case == "twice":
        _edit(auto, lambda r: r.append(r[0]))
    elif case == "unknown-metric":
        extra += ["--wmt25-metrics", "XCOMET"]
    elif case == "system-level-human":
        human, extra = str(tmp_path / "sys.score"), []
        Path(human).write_text("".join(f"{s}\t{q}\n" for s, q in SYSTEMS.items()))
    elif case == "empty-dir":
        auto = tmp_path / "nothing"
        auto.mkdir()
    rc = main(["meta", "--human", human, "--wmt25-scores", str(auto), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("mtsig: error:") and message in err[0], err


def test_cli_json(tmp_path, capsys):
    from mtsig.cli import main

    hp, auto, _ = make(tmp_path)
    files = [str(f) for f in sorted(auto.iterdir())]
    assert main(["meta", "--human", str(hp), "--lp", "en-ja_JP", "--wmt25-scores", *files, "--level", "segment",
                 "--n-resamples", "200", "--n-bootstrap", "100", "-f", "json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert [m["name"] for m in out["metrics"]][0] in ("exact", "negx")
    assert out["statistic"] == "acc23" and any("acc23 under PERM-BOTH" in n and "liberal" in n for n in out["notes"])
    with pytest.raises(InputError, match="judgments of 2 language pairs"):
        mtsig.meta(str(hp), wmt25_scores=str(auto))
    with pytest.raises(InputError, match="give the WMT25 score files too"):
        mtsig.meta(str(hp), wmt25_metrics=["exact"], lp="en-cs_CZ")


# ---------------------------------------------------------------- the same files as scores for score/compare/analyze
def test_wmt25_table_rows_units_and_scores(tmp_path):
    from mtsig.io.wmt25scores import wmt25_table

    _, auto, human = make(tmp_path)
    table, notes = wmt25_table(str(auto), "en-cs")  # the locale may be left out when unambiguous
    assert notes == [] and table.system_names == sorted(SYSTEMS) and list(table.metrics) == ["exact", "negx", "noise"]
    assert table.n_segments == 15 and table.keys[:2] == [("news_#_n1", "0"), ("news_#_n1", "1")]
    assert len(set(table.units["document"])) == 3 and sorted(set(table.units["domain"])) == ["news", "social", "speech"]
    for s in SYSTEMS:  # a system's score is the mean of its paragraphs' scores, as WMT25's report computes it
        want = np.mean([x for it, x in human[s].items() if it.startswith("en-cs_CZ")])
        assert table.corpus_scores("exact", s)[0] == pytest.approx(want, abs=1e-12)
    one, _ = wmt25_table([str(auto / "A.jsonl"), str(auto / "B.jsonl")], "en-ja_JP", metrics=["noise"])
    assert one.system_names == ["A", "B"] and list(one.metrics) == ["noise"] and one.n_segments == 5


def test_compare_score_analyze_read_wmt25_scores(tmp_path, capsys):
    from mtsig.cli import main

    _, auto, human = make(tmp_path)
    _edit(auto, lambda r: r[0]["metric_scores"]["noise"].__setitem__(1, None))
    args = ["--wmt25-scores", str(auto), "-l", "en-cs_CZ", "-m", "exact", "noise", "-s", "A", "C", "E"]
    assert main(["compare", *args, "--n-resamples", "999", "-f", "json"]) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert "mtsig: note: noise: C has 1 null score(s) of 15: missing, left out of its mean" in cap.err
    assert [s["name"] for s in out["systems"]] == ["A", "C", "E"] and len(out["comparisons"]) == 6
    a_c = next(c for c in out["comparisons"] if c["metric"] == "exact" and {c["a"], c["b"]} == {"A", "C"})
    # the systems are 8 points apart on 15 paragraphs: a difference the test finds (on the 3 documents AR could not
    # go below 1/8, there being 2^3 ways to swap them)
    assert a_c["p_value"] < 0.05
    assert main(["compare", *args, "--resample-unit", "document", "--n-resamples", "999", "-f", "json", "-q"]) == 0
    by_doc = json.loads(capsys.readouterr().out)
    assert by_doc["settings"]["resample_unit"] == "document" and by_doc["comparisons"][0]["p_value"] >= 0.125
    mean = {s: np.mean([x for it, x in human[s].items() if it.startswith("en-cs_CZ")]) for s in ("A", "C")}
    assert abs(a_c["delta"]) == pytest.approx(abs(mean["C"] - mean["A"]), abs=1e-9)
    assert main(["score", *args, "-f", "json", "-q"]) == 0
    cap = capsys.readouterr()
    assert cap.err == ""  # -q: no notes
    got = json.loads(cap.out)
    assert got["systems"][0]["scores"]["exact"]["score"] == pytest.approx(mean["A"], abs=1e-9)
    by = ["--by", "documents", "--n-resamples", "999", "-f", "json", "-q"]
    assert main(["analyze", *args[:6], "-s", "A", "B", *by]) == 0
    assert "documents" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["-l", "xx-yy"], "no scores of xx-yy; it has en-cs_CZ, en-ja_JP"),
        ([], "holds 2 language pairs (en-cs_CZ, en-ja_JP): pick one with -l LP"),
        (["-l", "en-cs", "-m", "COMET"], "unknown WMT25 metric of en-cs_CZ 'COMET'"),
        (["-l", "en-cs", "-s", "Z"], "unknown system of en-cs_CZ in the WMT25 scores 'Z'"),
        (["-l", "en-cs", "-s", "A=a.txt"], "-s picks systems by name"),
        (["-l", "en-cs", "-r", "ref.txt"], "give -r or --wmt25-scores (scores without texts), not both"),
        (
            ["-l", "en-cs", "--tokenize", "intl"],
            "--tokenize: options of the texts do not apply to statistics read with --wmt25-scores",
        ),  # fmt: skip
        (["-l", "en-cs", "incomplete"], "C's exact scores lack 5 of the 15 paragraphs of en-cs_CZ"),
    ],
)
def test_bad_wmt25_scores_for_compare_one_error_line(tmp_path, capsys, extra, message):
    from mtsig.cli import main

    _, auto, _ = make(tmp_path)
    if "incomplete" in extra:
        extra = [x for x in extra if x != "incomplete"]
        _edit(auto, lambda r: r.pop(1))
    rc = main(["compare", "--wmt25-scores", str(auto), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("mtsig: error:") and message in err[0], err


def test_locale_left_out_must_be_unambiguous(tmp_path):
    from mtsig.io.wmt25scores import wmt25_table

    f = tmp_path / "S.jsonl"
    recs = [{"language_pair": lp, "domain": "news", "document_id": "d", "metric_scores": {"m": [1.0, 2.0]}}
            for lp in ("en-sr_Cyrl_RS", "en-sr_Latn_RS")]  # fmt: skip
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(InputError, match="-l en-sr is en-sr_Cyrl_RS or en-sr_Latn_RS"):
        wmt25_table(str(f), "en-sr")
    table, _ = wmt25_table(str(f), "en-sr_Latn_RS")
    assert table.n_segments == 2
