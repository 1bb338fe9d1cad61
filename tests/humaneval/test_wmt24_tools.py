"""``--protocol wmt24`` decides as WMT24's own script (humeval/tools.py and calculate_clusters.py of
wmt-conference/wmt24-news-systems) on the shared ESA wave 3: every p-value, decision, score, rank range, win count and
cluster. The script's results are in ``data/wmt24_tools_wave3.json``, written by ``python
benchmarks/wmt24_oracle.py --tools WMT24_REPO/humeval --json ...`` (pandas 2, SciPy 1.17). And the Appraise ESA
reader's rules, and why ``wmt24-signed`` is kept beside it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.errors import InputError
from tests.data import DATA, need

ESA = DATA / "wmt24-esa"
ORACLE = json.loads((Path(__file__).parent / "data" / "wmt24_tools_wave3.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("lp", ["en-ja", "en-zh"])
def test_wmt24_equals_its_script_on_every_pair(lp):
    wave = str(need(ESA / "esa_generalMT2024_wave3.csv"))
    res = mtsig.human(wave, lp=lp, docs=str(need(ESA / f"{lp}.docs")), protocol="wmt24", n_bootstrap=50)
    o = ORACLE[lp]
    assert len(res.comparisons) == len(o["pvalues"]) // 2 == 78
    for c in res.comparisons:
        p = o["pvalues"][f"{c.a}\t{c.b}"]
        assert c.p_value == pytest.approx(p, rel=1e-9, abs=1e-300) and c.significant == (p < 0.05), (c.a, c.b)
    for s in res.systems:
        assert s.score == pytest.approx(o["scores"][s.name], rel=1e-12)
        assert list(s.rank_range) == o["ranks"][s.name] and s.wins == o["wins"][s.name]
        assert s.cluster == o["clusters"][s.name]
    order = sorted(o["scores"], key=lambda n: -o["scores"][n])  # the script's order, by domain-averaged score
    assert [s.name for s in res.systems] == order


def test_signed_combination_keeps_a_domain_split_from_looking_like_a_winner():
    """Two systems equally good overall, one better in one domain and worse in the other: WMT24's unsigned Stouffer
    adds the two domains' evidence and calls a winner almost always (0.98 of 1,000 replicates of 120 segments); the
    signed combination lets them cancel (0.027)."""
    from mtsig.humaneval.protocols import _stouffer, wmt24_pvalue
    from mtsig.io.human import HumanScores

    rng = np.random.default_rng(0)
    unsigned = signed = 0
    reps = 200
    dom = np.array(["a"] * 60 + ["b"] * 60, dtype=object)
    for _ in range(reps):
        x = rng.normal(size=120)
        y = x + np.where(dom == "a", 0.4, -0.4) + rng.normal(size=120)
        h = HumanScores(systems=("x", "y"), segments=tuple(map(str, range(120))), scores=np.vstack([x, y]),
                        judgments=np.ones((2, 120), dtype=np.int64), domains=tuple(dom))  # fmt: skip
        unsigned += wmt24_pvalue(x, y, dom) < 0.05
        signed += _stouffer(h, 0, 1, 10)[0] < 0.05
    assert unsigned / reps > 0.9 and signed / reps < 0.08


def _esa(tmp_path: Path, rows: list[list]) -> str:
    p = tmp_path / "wave.csv"
    p.write_text("".join(",".join(map(str, r)) + "\n" for r in rows), encoding="utf-8")
    return str(p)


def test_appraise_rows_are_read_as_wmt24_reads_them(tmp_path):
    from mtsig.io.human import read_human

    def row(user, system, seg, kind="TGT", score=50, doc="d1", end=1.0, tgt="jpn"):  # noqa: PLR0913
        return [user, system, seg, kind, "eng", tgt, score, doc, "False", "[]", 0.5, end]

    rows = [row("u1", "A", 1, score=40, end=1.0), row("u1", "A", 1, score=60, end=2.0),  # the later rating counts
            row("u2", "A", 1, score=80), row("u1", "B", 1, score=30), row("u1", "A", 2, kind="BAD", score=0),
            row("u1", "ende-tutorial1", 1), row("u1", "B", 2, doc="d1#dup"), row("u1", "A", 3, tgt="zho")]  # fmt: skip
    path = _esa(tmp_path, rows)
    with pytest.raises(InputError, match="2 language pairs \\(en-ja, en-zh\\): pick one with lp"):
        read_human(path)
    h = read_human(path, lp="en-ja")
    assert h.input_format == "appraise-esa" and h.systems == ("A", "B") and h.segments == ("1",)
    assert h.scores[:, 0].tolist() == [70.0, 30.0]  # (60 + 80) / 2: u1's latest rating and u2's
    assert "1 quality control" in h.notes[0] and "1 tutorial" in h.notes[0] and "1 filler document" in h.notes[0]
    with pytest.raises(InputError, match="no judgments of language pair 'en-de'; the file has en-ja, en-zh"):
        read_human(path, lp="en-de")


def _wmt25_file(tmp_path: Path, seed: int = 3) -> tuple[str, dict]:
    """A WMT25-shaped humeval jsonl: 3 documents x 30 paragraphs, 5 systems, two waves (some missing)."""
    rng = np.random.default_rng(seed)
    quality = {"A": 80.0, "B": 79.0, "C": 74.0, "D": 73.5, "refA": 86.0}
    lines, truth = [], {s: {"1": [], "2": []} for s in quality}
    for d in range(3):
        for i in range(30):
            base = rng.normal(0, 8)
            scores = {}
            for s, q in quality.items():
                v = {}
                for w in ("1", "2"):
                    x = float(np.clip(round(q + base + rng.normal(0, 6)), 0, 100))
                    if rng.random() < 0.9:
                        v[f"human{w}"] = x
                        truth[s][w].append(x)
                    else:
                        truth[s][w].append(np.nan)
                scores[s] = v
            lines.append(json.dumps({"doc_id": f"en-cs_CZ_#_news_#_doc{d}_#_{i}", "scores": scores}))
    p = tmp_path / "wmt25-genmt-humeval.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(p), truth


def test_wmt25_cross_pairs_its_waves_and_scans_for_rank_ranges(tmp_path):
    """WMT25's 08-compute_clusters.py, restated independently: vectors wave by wave; a pair's test pairs a's
    (wave 1, wave 2, wave 1, wave 2) with b's (wave 1, wave 2, wave 2, wave 1); one-sided Wilcoxon at 0.025; ranges
    by scanning to the first significant test; boundaries where no range crosses."""
    from scipy.stats import wilcoxon

    path, truth = _wmt25_file(tmp_path)
    res = mtsig.human(path, protocol="wmt25", n_bootstrap=50)
    vec = {s: np.array(v["1"] + v["2"]) for s, v in truth.items()}
    order = sorted(vec, key=lambda s: -np.nanmean(vec[s]))
    assert [s.name for s in res.systems] == order

    def sig(a, b):
        n = len(a) // 2
        x, y = np.r_[a, a], np.r_[b, b[n:], b[:n]]
        ok = ~(np.isnan(x) | np.isnan(y))
        return wilcoxon(x[ok] - y[ok], alternative="greater").pvalue < 0.025

    for i, s in enumerate(order):
        start = i + 1
        for b in order[:i][::-1]:
            if sig(vec[b], vec[s]):
                break
            start -= 1
        end = i + 1
        for b in order[i + 1 :]:
            if sig(vec[s], vec[b]):
                break
            end += 1
        assert res.system(s).rank_range == (start, end), s
    assert res.system("A").score == pytest.approx(np.nanmean(vec["A"]))
    h = __import__("mtsig").io.human.read_human(path)
    assert h.input_format == "wmt25-humeval" and h.n_documents == 3 and set(h.domains) == {"news"}
    assert set(h.waves) == {"1", "2"} and len(h.segments) == 180


@pytest.mark.slow
def test_wmt24_jsonl_decides_as_the_appraise_export(tmp_path):
    """WMT24's ``jsonl/wmt24_esa.jsonl`` (one object per judged segment: langs, doc_id, line_id, domain, system,
    annotator, esa_score, texts and spans) read as ``wmt24-esa-jsonl``: the shared wave's judgments written in that
    shape give WMT24's decisions exactly as the Appraise export and its documents file do."""
    from mtsig.io.human import _read_appraise, read_human

    wave = need(ESA / "esa_generalMT2024_wave3.csv")
    lp = "en-ja"
    docs = str(need(ESA / f"{lp}.docs"))
    placed = read_human(str(wave), lp=lp, docs=docs)
    domain_of = dict(zip(placed.segments, placed.domains))
    judgments, _ = _read_appraise(str(wave), wave.read_text(encoding="utf-8"))
    rows = [{"langs": j.lp, "line_id": int(j.segment), "src": "…", "tgt": "…", "doc_id": j.doc,
             "domain": domain_of[j.segment], "esa_spans": [], "esa_score": j.score, "system": j.system,
             "annotator": j.annotator, "speech_info": None} for j in judgments if j.lp == lp]  # fmt: skip
    rows.append({**rows[0], "esa_score": None})  # an unscored row: left out, said
    path = tmp_path / "wmt24_esa.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    a = mtsig.human(str(wave), lp=lp, docs=docs, protocol="wmt24", n_bootstrap=50)
    b = mtsig.human(str(path), lp=lp, protocol="wmt24", n_bootstrap=50)
    assert b.settings["input_format"] == "wmt24-esa-jsonl"
    assert any("1 row(s) without an esa_score left out" in n for n in b.notes)
    pa = {(c.a, c.b): c for c in a.comparisons}
    assert len(pa) == 78 and {(c.a, c.b) for c in b.comparisons} == set(pa)
    for c in b.comparisons:
        want = pa[(c.a, c.b)]
        assert c.p_value == pytest.approx(want.p_value, rel=1e-12) and c.significant == want.significant
    assert [(s.name, s.score, tuple(s.rank_range), s.cluster) for s in b.systems] == [
        (s.name, pytest.approx(s.score, rel=1e-12), tuple(s.rank_range), s.cluster) for s in a.systems]  # fmt: skip


def test_wmt24_jsonl_bad_rows_one_error_line(tmp_path, capsys):
    from mtsig.cli import main

    good = {"langs": "en-cs", "line_id": 3, "doc_id": "d1", "domain": "news", "system": "A", "annotator": "u",
            "esa_score": 70, "src": "s", "tgt": "t", "esa_spans": []}  # fmt: skip
    for bad, message in (({**good, "esa_score": "70"}, 'esa_score "70" is not a finite number'),
                         ({k: v for k, v in good.items() if k != "line_id"}, "expected WMT24's ESA jsonl"),
                         ({**good, "line_id": True}, "line_id true is not a segment number")):  # fmt: skip
        f = tmp_path / "esa.jsonl"
        f.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
        assert main(["human", str(f)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "line 2" in err[0] and message in err[0], err


WMT25_SCRIPT = json.loads((Path(__file__).parent / "data" / "wmt25_script_fake.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lp", ["en-cs_CZ", "en-ja_JP"])
def test_wmt25_equals_its_script(tmp_path, lp):
    """``--protocol wmt25`` against WMT25's humeval/08-compute_clusters.py, run unchanged by
    ``benchmarks/wmt25_oracle.py --json`` on judgments made from a seed (``tests/humaneval/wmt25_fake.py``: two
    waves, whole-point scores with ties, missing judgments, a system judged on half the items): the score order, the
    means as it prints them, every rank range and every cluster boundary."""
    from tests.humaneval.wmt25_fake import make_humeval

    path = make_humeval(tmp_path / "wmt25-genmt-humeval.jsonl")
    res = mtsig.human(str(path), lp=lp, protocol="wmt25", n_bootstrap=50)
    want = WMT25_SCRIPT[lp.split("_")[0]]
    assert [(s.name, f"{s.score:.1f}", list(s.rank_range)) for s in res.systems] == [tuple(r) for r in want["rows"]]
    sizes = [len(c) for c in res.clusters]
    assert [sum(sizes[: i + 1]) for i in range(len(sizes) - 1)] == want["cuts"] and len(sizes) >= 4
