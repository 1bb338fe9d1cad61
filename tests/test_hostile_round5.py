"""Issue 49's hostile inputs (human, meta, thresholds, -w, WMT XML) and its statistics, each a test: a correct
result, or one ``mtsig: error:`` line and exit 2, never a traceback or a silent NaN."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mtsig.cli import main
from mtsig.errors import InputError
from tests.data import need

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DA = SHARED / "wmt22-humaneval-toen"


def _one_error(capsys, argv: list[str], words: str) -> None:
    assert main(argv) == 2
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert cap.out == "" and len(lines) == 1 and lines[0].startswith("mtsig: error:"), cap.err
    assert words in lines[0], lines[0]


def _tsv(path: Path, rows, header=("system", "segment", "score")) -> str:
    path.write_text("\t".join(header) + "\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _scores(path: Path, values: dict[str, list]) -> str:
    path.write_text("".join(f"{s} {v}\n" for s, vs in values.items() for v in vs), encoding="utf-8")
    return str(path)


def _human_tsv(tmp_path: Path, systems: int = 4, segments: int = 30, seed: int = 0, docs: int | None = None) -> str:
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(systems):
        for i in range(segments):
            row = [f"S{k}", i + 1, round(float(rng.normal(0.2 * k)), 4)]
            rows.append(row + ([f"d{i * docs // segments}"] if docs else []))
    header = ("system", "segment", "score") + (("doc",) if docs else ())
    return _tsv(tmp_path / "h.tsv", rows, header)


# ------------------------------------------------------------------------------------------ WMT DA documents
@pytest.mark.slow
def test_wmt_da_documents_come_from_the_hits_and_are_the_default_unit():
    import mtsig
    from mtsig.io.human import read_human

    path = str(need(DA / "de-en" / "ad-deen-good-stnd.csv"))
    h = read_human(path)
    assert h.documents_from == "the HITs" and h.n_documents == 271
    seg_doc = dict(zip(h.segments, h.documents))
    for a, b in set(h.runs):  # every run a HIT scored is whole documents (one, or two of one system back to back)
        for doc in {seg_doc.get(str(s)) for s in range(a, b + 1)} - {None}:
            first, last = map(int, doc.split("-"))
            assert a <= first <= last <= b
    res = mtsig.human(h, n_bootstrap=200, n_resamples=500)
    assert res.settings["resample_unit"] == "document" and res.settings["n_units"] == 271
    assert any(n.startswith("resampling unit: the 271 documents") for n in res.notes)
    seg = mtsig.human(h, n_bootstrap=200, n_resamples=500, resample_unit="segment")
    wide = [s.ci[1] - s.ci[0] for s in res.systems]  # whole documents: wider intervals, the honest answer
    assert np.mean(wide) > 1.3 * np.mean([s.ci[1] - s.ci[0] for s in seg.systems])


def test_sids_are_placed_in_doc_sorted_order(tmp_path):
    """WMT DA's SID s is the s-th segment with the documents sorted by id: a test set whose documents are not in id
    order gets its human scores back on the right lines (and meta pairs them with the right metric scores)."""
    import mtsig
    from mtsig.io.documents import Documents, doc_sorted_lines

    docs = Documents(ids=("b", "b", "a", "b", "a"), domains=None, source="t.docs")
    from mtsig.io.human import HumanScores, read_human

    with pytest.raises(InputError, match="document 'b' appears at line 1 and again at line 4"):
        HumanScores(systems=("x",), segments=("1",), scores=np.zeros((1, 1)), judgments=np.ones((1, 1), int),
                    input_format="wmt-da-seg").with_documents(docs)  # fmt: skip
    docs = Documents(ids=("n2", "n2", "n2", "e1", "e1", "s9"), domains=("news",) * 3 + ("ecom",) * 2 + ("soc",),
                     source="t.docs")  # fmt: skip
    assert doc_sorted_lines(docs).tolist() == [3, 4, 0, 1, 2, 5]  # e1, n2, s9
    rng = np.random.default_rng(1)
    quality = rng.normal(size=(5, 6))  # per system and test-set line
    lines = doc_sorted_lines(docs)
    seg = tmp_path / "ad-seg-scores-x-en.csv"
    seg.write_text("SYS SID RAW.SCR Z.SCR N\n" + "".join(
        f"S{k} {s} 50 {quality[k, lines[s - 1]]:.6f} 1\n" for k in range(5) for s in range(1, 7)))  # fmt: skip
    metric = {f"S{k}": [round(float(q), 6) for q in quality[k]] for k in range(5)}  # the truth, in line order
    m = _scores(tmp_path / "m.seg.score", metric)
    d = tmp_path / "t.docs"
    d.write_text("".join(f"{dom} {i}\n" for dom, i in zip(docs.domains, docs.ids)))
    res = mtsig.meta(str(seg), {"M": m}, level="segment", statistic="pearson", average_by="none", docs=str(d),
                     n_resamples=100, n_bootstrap=50)  # fmt: skip
    assert res.metric("M").values["pearson"] == pytest.approx(1.0)
    h = read_human(str(seg), docs=str(d))
    assert h.domains[h.segments.index("1")] == "ecom" and h.lines[h.segments.index("3")] == 0


def test_a_documents_file_that_cuts_a_hit_run_is_refused(tmp_path):
    from mtsig.io.human import read_human

    head = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n"
    rows = [f"H1\tW1\tde\ten\tad\t1\tA\t1\tSYSTEM\t{s}\t{0.1 * s}\t1.0\n" for s in (1, 2, 3)]
    rows += [f"H1\tW1\tde\ten\tad\t1\tB\t1\tSYSTEM\t{s}\t{0.2 * s}\t1.0\n" for s in (1, 2, 3)]
    j = tmp_path / "ad-xxen-good-stnd.csv"
    j.write_text(head + "".join(rows))
    h = read_human(str(j))
    assert h.runs and h.n_documents == 1 and h.documents_from == "the HITs"
    d = tmp_path / "t.docs"
    d.write_text("news a\nnews a\nnews b\n")  # splits the run 1-3 in two
    with pytest.raises(InputError, match="a HIT scores segments 1-3 as one document, but .* puts them in 2"):
        read_human(str(j), docs=str(d))


def test_segment_level_meta_of_wmt_da_without_documents_is_refused(tmp_path, capsys):
    seg = tmp_path / "ad-seg-scores-x-en.csv"
    seg.write_text("SYS SID RAW.SCR Z.SCR N\n" + "".join(f"S{k} {s} 50 {0.1 * k * s:.3f} 1\n" for k in range(4)
                                                          for s in range(1, 8)))  # fmt: skip
    m = _scores(tmp_path / "m.seg.score", {f"S{k}": [0.1 * k * s for s in range(1, 8)] for k in range(4)})
    _one_error(capsys, ["meta", "--human", str(seg), "--metric", f"M={m}", "--level", "segment"],
               "WMT DA segment ids are not test-set line numbers")  # fmt: skip


# ------------------------------------------------------------------------------------------ too few resamples
def test_many_systems_get_enough_resamples_and_one_better_system_is_found(tmp_path):
    """35 equally good systems and one clearly better: 630 pairs under Holm need 1/(R+1) far below 0.05/630."""
    import mtsig

    rng = np.random.default_rng(3)
    rows = [(f"S{k:02d}", i + 1, round(float(rng.normal(1.0 if k == 35 else 0.0)), 4)) for k in range(36)
            for i in range(120)]  # fmt: skip
    res = mtsig.human(_tsv(tmp_path / "h.tsv", rows), n_bootstrap=200)
    assert res.settings["n_resamples"] >= 120_000 and any("chosen so that" in n for n in res.notes)
    found = [c for c in res.comparisons if "S35" in (c.a, c.b) and c.significant]
    assert len(found) == 35 and sum(c.significant for c in res.comparisons) == 35
    few = mtsig.human(_tsv(tmp_path / "h.tsv", rows), n_bootstrap=200, n_resamples=500)
    assert not any(c.significant for c in few.comparisons)
    assert any("no pair can be significant; give --n-resamples" in n for n in few.notes)


def test_meta_says_when_no_pair_of_metrics_can_be_significant(tmp_path):
    import mtsig

    rng = np.random.default_rng(2)
    h = {f"S{k}": float(k) for k in range(8)}
    hum = _scores(tmp_path / "h.sys", {s: [v] for s, v in h.items()})
    metrics = {f"M{j}": _scores(tmp_path / f"m{j}.sys", {s: [v + float(rng.normal(0, 0.5 + j))] for s, v in h.items()})
               for j in range(4)}  # fmt: skip
    res = mtsig.meta(hum, metrics, n_resamples=1)
    assert any("no pair of metrics can be significantly different" in n for n in res.notes)
    auto = mtsig.meta(hum, metrics)
    assert auto.settings["n_resamples"] >= 2400  # 6 pairs, Holm: 2/(R+1) at most a tenth of 0.05/6


# ------------------------------------------------------------------------------------------ NaN, None, constants
@pytest.mark.parametrize("bad", ["None", "nan", "constant", "-0.0"])
def test_meta_undefined_metric_is_never_significant(tmp_path, bad):
    import mtsig

    h = {f"S{k}": float(k) for k in range(6)}
    hum = _scores(tmp_path / "h.sys", {s: [v] for s, v in h.items()})
    good = _scores(tmp_path / "good.sys", {s: [v + 0.1 * (k % 2)] for k, (s, v) in enumerate(h.items())})
    if bad in ("constant", "-0.0"):
        vals = {s: ["-0.0" if bad == "-0.0" and k % 2 else "0.0" if bad == "-0.0" else "1.5"]
                for k, s in enumerate(h)}  # fmt: skip
    else:
        vals = {s: [bad if k == 0 else str(h[s])] for k, s in enumerate(h)}
    x = _scores(tmp_path / "x.sys", vals)
    res = mtsig.meta(hum, {"good": good, "X": x}, n_resamples=200)
    out = json.loads(json.dumps(res.to_dict(), allow_nan=False))  # valid JSON: no NaN anywhere
    c = out["comparisons"][0]
    if bad in ("None", "nan"):  # one system left out of everything, the rest compared
        assert any("no score (None/NaN) for S0: left out" in n for n in res.notes)
        assert res.settings["systems"] == [f"S{k}" for k in range(1, 6)]
        assert res.metric("X").values["spearman"] == pytest.approx(1.0)
    else:
        assert res.metric("X").values["pearson"] is None and c["p_value"] is None and not c["significant"]
        assert "undefined" in c["note"]


def test_meta_segment_level_constant_metric_shows_undefined_not_zero(tmp_path, capsys):
    hum = _tsv(tmp_path / "h.tsv", [(f"S{k}", i + 1, (k * 7 + i * 3) % 5) for k in range(4) for i in range(12)])
    const = _scores(tmp_path / "c.seg", {f"S{k}": [1.0] * 12 for k in range(4)})
    good = _scores(tmp_path / "g.seg", {f"S{k}": [(k * 7 + i * 3) % 5 + 0.1 * i for i in range(12)] for k in range(4)})
    assert main(["meta", "--human", hum, "--metric", f"C={const}", f"G={good}", "--level", "segment", "-f", "json",
                 "--n-resamples", "100", "-q"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    c = next(m for m in out["metrics"] if m["name"] == "C")
    assert c["pearson"] is None and c["spearman"] is None and c["kendall"] is None  # undefined: null, not 0.000
    assert c["acc23"] == 0.0  # defined: every metric pair tied, no human pair tied
    assert main(["meta", "--human", hum, "--metric", f"C={const}", f"G={good}", "--level", "segment", "-f", "json",
                 "--n-resamples", "100", "-q", "--statistic", "pearson"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["comparisons"][0]["p_value"] is None and not out["comparisons"][0]["significant"]


def test_huge_scores_are_refused(tmp_path, capsys):
    hum = _tsv(tmp_path / "h.tsv", [("A", 1, "1e300"), ("B", 1, "2")])
    _one_error(capsys, ["human", hum], "too large")
    m = _scores(tmp_path / "m.sys", {"A": ["1e308"], "B": ["1"], "C": ["2"]})
    h = _scores(tmp_path / "h.sys", {"A": ["1"], "B": ["2"], "C": ["3"]})
    _one_error(capsys, ["meta", "--human", h, "--metric", f"M={m}"], "too large")


# ------------------------------------------------------------------------------------------ degenerate bootstraps
@pytest.mark.parametrize("segments", [1, 2])
def test_one_or_two_segments_give_no_interval_and_trivial_rank_ranges(tmp_path, segments):
    import mtsig

    res = mtsig.human(_tsv(tmp_path / "h.tsv", [(s, i + 1, v + i) for s, v in (("A", 1.0), ("B", 0.0), ("C", 0.5))
                                               for i in range(segments)]), min_common=1)  # fmt: skip
    assert all(s.ci is None and s.rank_range == (1, 3) for s in res.systems)
    assert any("only" in n and "no bootstrap intervals and no rank sets" in n for n in res.notes)


def test_one_document_or_two_domains_are_too_few_units(tmp_path):
    import mtsig

    path = _human_tsv(tmp_path, docs=1)
    res = mtsig.human(path, resample_unit="document")
    assert all(s.ci is None for s in res.systems) and any("only 1 document(s)" in n for n in res.notes)
    auto = mtsig.human(path)  # one document: too few to be the default unit, and said so
    assert auto.settings["resample_unit"] == "segment" and any("too few to resample" in n for n in auto.notes)
    rows = [(f"S{k}", i + 1, float(k + i % 3), "news" if i < 15 else "chat") for k in range(3) for i in range(30)]
    dom = _tsv(tmp_path / "d.tsv", rows, ("system", "segment", "score", "domain"))
    res = mtsig.human(dom, resample_unit="domain")
    assert all(s.ci is None and s.rank_range == (1, 3) for s in res.systems)
    with pytest.raises(InputError, match="the paired bootstrap needs at least 10 domains"):
        mtsig.human(dom, resample_unit="domain", test="paired-bootstrap")


# ------------------------------------------------------------------------------------------ flags
@pytest.mark.parametrize("w", ["-1", "13", "1000"])
@pytest.mark.parametrize("command", ["human", "meta", "thresholds"])
def test_width_out_of_range_is_refused(tmp_path, capsys, command, w):
    hum = _human_tsv(tmp_path)
    args = {"human": ["human", hum], "thresholds": ["thresholds", "-m", "bleu"],
            "meta": ["meta", "--human", _scores(tmp_path / "h.sys", {"A": [1], "B": [2], "C": [3]}), "--metric",
                     "M=" + _scores(tmp_path / "m.sys", {"A": [1], "B": [3], "C": [2]})]}[command]  # fmt: skip
    _one_error(capsys, [*args, "-w", w], "width must be")


def test_width_takes_effect_in_human_meta_and_thresholds(tmp_path, capsys):
    hum = _human_tsv(tmp_path)
    assert main(["human", hum, "-w", "5", "-q", "--n-bootstrap", "100"]) == 0
    out = capsys.readouterr().out
    assert any(len(tok.split(".")[-1].strip("[],")) == 5 for tok in out.split() if tok.count(".") == 1)
    h = _scores(tmp_path / "h.sys", {"A": [1], "B": [2], "C": [3], "D": [5]})
    m = _scores(tmp_path / "m.sys", {"A": [1], "B": [3], "C": [2], "D": [4]})
    assert main(["meta", "--human", h, "--metric", f"M={m}", "-w", "1", "-q"]) == 0
    assert " 0.8 " in capsys.readouterr().out  # pearson 0.8315... at one decimal
    assert main(["thresholds", "-m", "bleu", "-w", "1", "-f", "json"]) == 0
    t = json.loads(capsys.readouterr().out)["thresholds"]["bleu"]
    assert t["90"] is None and t["80"] == round(t["80"], 1)


# ------------------------------------------------------------------------------------------ silent merging
def test_a_metric_name_given_twice_is_refused(tmp_path, capsys):
    h = _scores(tmp_path / "h.sys", {"A": [1], "B": [2], "C": [3]})
    a = _scores(tmp_path / "a.sys", {"A": [1], "B": [2], "C": [3]})
    b = _scores(tmp_path / "b.sys", {"A": [3], "B": [2], "C": [1]})
    argv = ["meta", "--human", h, "--metric", f"BLEU={a}", f"BLEU={b}"]
    _one_error(capsys, argv, "metric name 'BLEU' is given twice")


def test_one_metric_system_matched_to_two_human_systems_is_refused(tmp_path, capsys):
    hum = _tsv(tmp_path / "h.tsv", [(s, i + 1, float(i + k)) for k, s in enumerate(("X.1", "X.2", "Y", "Z"))
                                    for i in range(5)])  # fmt: skip
    m = _scores(tmp_path / "m.sys", {"X": [1], "Y": [2], "Z": [3]})
    _one_error(capsys, ["meta", "--human", hum, "--metric", f"M={m}"], "matches two human systems, 'X.1' and 'X.2'")


def test_conflicting_duplicate_judgments_and_weights_are_refused(tmp_path, capsys):
    rows = [("A", 1, "ann1", 0.5), ("B", 1, "ann1", 0.1), ("A", 1, "ann1", 0.9)]
    hum = _tsv(tmp_path / "h.tsv", rows, ("system", "segment", "annotator", "score"))
    _one_error(capsys, ["human", hum], "annotator ann1 judged system A segment 1 with another score (line 2)")
    head = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n"
    row = "H1\tW1\tde\ten\tad\t1\tA\t1\tSYSTEM\t5\t{}\t1.0\n"
    j = tmp_path / "ad-xxen-good-stnd.csv"
    j.write_text(head + row.format(0.5) + row.format(0.7))
    _one_error(capsys, ["human", str(j)], "judged SYSTEM A segment 5 in HIT H1 again with another score")
    w = tmp_path / "w.tsv"
    w.write_text("major\t5\nminor\t1\nmajor\t10\n")
    mqm = _tsv(tmp_path / "m.tsv", [("A", "d", 1, 1, "r1", "s", "t", "Accuracy", "Major")],
               ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity"))  # fmt: skip
    _one_error(capsys, ["human", mqm, "--mqm-weights", str(w)], "a second weight for severity major (5, then 10)")


@pytest.mark.parametrize("other", ["A\u200b", "A\ufeff", "Cafe\u0301"])
def test_names_that_print_alike_are_refused(tmp_path, capsys, other):
    base = "Café" if other.startswith("Cafe") else "A"
    rows = [(s, i + 1, float(i + k)) for k, s in enumerate((base, other, "C")) for i in range(5)]
    hum = _tsv(tmp_path / "h.tsv", rows)
    _one_error(capsys, ["human", hum], "print alike")


# ------------------------------------------------------------------------------------------ tracebacks
def test_huge_bootstrap_counts_and_bootstrap_without_segments_are_refused(tmp_path, capsys):
    hum = _human_tsv(tmp_path)
    _one_error(capsys, ["human", hum, "--n-bootstrap", "1000000000000"], "at most 10,000,000")
    h = _scores(tmp_path / "h.sys", {"A": [1], "B": [2], "C": [3]})
    a = _scores(tmp_path / "a.sys", {"A": [1], "B": [2], "C": [3]})
    b = _scores(tmp_path / "b.sys", {"A": [3], "B": [2], "C": [1]})
    # (issue 60: the segment bootstrap is no longer offered at all: argparse's choices say so, in one line)
    with pytest.raises(SystemExit) as e:
        main(["meta", "--human", h, "--metric", f"a={a}", f"b={b}", "--test", "bootstrap"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(lines) == 1 and "invalid choice: 'bootstrap'" in lines[0], lines


def test_api_values_of_the_wrong_type_name_their_parameter(tmp_path):
    import mtsig

    hum = _human_tsv(tmp_path)
    for kw, words in (({"alpha": "0.05"}, "alpha must be a number"), ({"n_bootstrap": 1000.5}, "n_bootstrap must be "
                      "a whole number"), ({"n_resamples": "100"}, "n_resamples must be a whole number")):  # fmt: skip
        with pytest.raises(InputError, match=words):
            mtsig.human(hum, **kw)


# ------------------------------------------------------------------------------------------ thresholds
@pytest.mark.parametrize(("fits", "words"), [
    ('{"x": [90, 0]}', "b > 0"), ('{"x": [90, -1]}', "b > 0"), ('{"x": [150, 1]}', "0 < a <= 100"),
    ('{"x": [NaN, 1]}', "not JSON"), ('{"x": [90, Infinity]}', "not JSON"), ('{"x": [true, 1]}', "not [a, b]"),
])  # fmt: skip
def test_bad_fits_are_refused(tmp_path, capsys, fits, words):
    f = tmp_path / "fits.json"
    f.write_text(fits)
    _one_error(capsys, ["thresholds", "--fits", str(f), "-f", "json"], words)


def test_an_accuracy_given_as_a_fraction_is_refused_and_none_below_the_fit_at_zero(capsys):
    _one_error(capsys, ["thresholds", "-m", "bleu", "--accuracy", "0.9"], "did you mean 90?")
    from mtsig.thresholds import delta_for

    assert delta_for(40, "bleu") is None and delta_for(50, "bleu") > 0  # a/2 = 44.2: no positive Δ below it


# ------------------------------------------------------------------------------------------ analyze
def test_the_empty_frequency_bucket_is_not_tested():
    import mtsig

    ex = Path(__file__).resolve().parents[1] / "examples"
    res = mtsig.analyze(str(ex / "ref.A.en"), [str(ex / "base.en"), str(ex / "new.en")], by=["word-frequency"],
                        n_resamples=200)  # fmt: skip
    first = res.get("word-frequency").buckets[0]
    assert first.label == "<1" and first.n_words == 0 and all(c.p_value is None for c in first.comparisons)


# ------------------------------------------------------------------------------------------ what the output says
def test_the_runs_assumption_is_in_json_and_csv_too():
    import mtsig
    from mtsig.report.render import render

    ref = [f"w{i} x{i % 7} y z{i % 3} v" for i in range(40)]
    runs_a = [[f"w{i} x{i % 7} y z{i % 3} q" if (i + r) % 4 else s for i, s in enumerate(ref)] for r in range(3)]
    runs_b = [[f"w{i} k y z{i % 3} v" if (i + r) % 3 else s for i, s in enumerate(ref)] for r in range(3)]
    res = mtsig.compare([ref], {"A": runs_a, "B": runs_b}, n_resamples=200)
    row = json.loads(render(res, "json"))["comparisons"][0]
    assert "roughly normal run effects" in row["assumption"] and "docs/runs.md" in row["assumption"]
    head, first = render(res, "csv").splitlines()[:2]
    assert head.endswith(",assumption") and "roughly normal run effects" in first


def test_meta_defaults_to_perm_both_and_its_help_says_so(tmp_path, capsys):
    import mtsig

    h = _scores(tmp_path / "h.sys", {f"S{k}": [k] for k in range(6)})
    a = _scores(tmp_path / "a.sys", {f"S{k}": [k + 0.3 * (k % 2)] for k in range(6)})
    b = _scores(tmp_path / "b.sys", {f"S{k}": [(k * 5) % 6] for k in range(6)})
    assert mtsig.meta(h, {"a": a, "b": b}).settings["test"] == "PERM-BOTH"
    with pytest.raises(SystemExit):
        main(["meta", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "perm-both (the default at both levels)" in text and "pairwise (the segment-level" not in text


def test_human_says_which_procedure_gives_wins_and_which_rank_sets(tmp_path):
    import mtsig

    res = mtsig.human(_human_tsv(tmp_path), n_bootstrap=200)
    assert any("wins count the pairs a system wins in the pairwise tests" in n and "separate procedure" in n
               for n in res.notes)  # fmt: skip
