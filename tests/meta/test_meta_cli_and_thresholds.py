"""``mtsig thresholds`` against Kocmi et al. 2024's fits (../shared/data/mt-thresholds) and the paper's tool
(``mt-thresholds`` on PyPI, the oracle); ``compare``'s humans-agree column; ``mtsig meta`` on WMT22's system-level
scores and on bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mtsig.cli import main
from mtsig.thresholds import ACCURACIES, FITS, accuracy, delta_for, fit_for, human_agreement
from tests.data import DATA, need

THRESHOLDS = DATA / "mt-thresholds" / "thresholds.json"
HE = DATA / "wmt22-humaneval-toen"


def test_the_fits_are_the_papers_and_every_threshold_follows_them(capsys):
    shared = json.loads(need(THRESHOLDS).read_text(encoding="utf-8"))
    assert {k: tuple(v) for k, v in shared.items()} == FITS
    assert main(["thresholds", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)["thresholds"]
    assert set(out) == set(shared)
    for fit, (a, b) in shared.items():
        for acc in ACCURACIES:
            got = out[fit][str(acc)]
            if acc >= a:
                assert got is None
            else:
                assert got == pytest.approx(-math.log(a / acc - 1) / b, rel=1e-12)
                assert accuracy(got, fit) * 100 == pytest.approx(acc, rel=1e-12)


def test_equal_to_the_papers_own_tool():
    import mt_thresholds  # the paper's tool (the test extra installs it)

    for fit in FITS:
        theirs = fit if fit in mt_thresholds.METRICS else fit.lower().replace("-", "")
        for d in (0.1, 0.5, 1.0, 2.0, 5.0):
            assert accuracy(d, fit) * 100 == pytest.approx(mt_thresholds.accuracy(d, theirs), rel=1e-12)
        for t in (0.5, 0.6, 0.7, 0.8, 0.9):
            ref, ours = mt_thresholds.delta(t, theirs), delta_for(t * 100, fit)
            assert (ours is None and ref != ref) or ours == pytest.approx(ref, rel=1e-12)


def test_names_map_to_fits_and_unknown_ones_say_so(capsys):
    assert fit_for("bleu") == "bleu" and fit_for("Unbabel/wmt22-comet-da") == "comet22"
    assert fit_for("MetricX-23") == "metricx-23-large" and fit_for("chrf++") is None and fit_for("ter") is None
    assert human_agreement("ter", -3.0) is None
    agree = human_agreement("comet22", 0.01)  # 1 COMET point on the paper's x100 scale
    assert agree["scale"] == 100 and agree["accuracy"] == pytest.approx(accuracy(1.0, "comet22"))
    assert main(["thresholds", "-m", "rouge"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtsig: error: no threshold fit for metric 'rouge'") and err.count("\n") == 1


def test_compare_shows_what_delta_means_to_humans(capsys):
    from pathlib import Path

    ex = Path(__file__).resolve().parents[2] / "examples"
    args = ["compare", "-r", str(ex / "ref.A.en"), "-s", f"base={ex / 'base.en'}", f"new={ex / 'new.en'}", "-m",
            "bleu", "ter"]  # fmt: skip
    assert main([*args, "-f", "json"]) == 0
    rows = {c["metric"]: c for c in json.loads(capsys.readouterr().out)["comparisons"]}
    b = rows["bleu"]
    assert b["human_agreement"]["fit"] == "bleu"
    assert b["human_agreement"]["accuracy"] == pytest.approx(accuracy(abs(b["delta"]), "bleu"), rel=1e-12)
    assert rows["ter"]["human_agreement"] is None
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "humans agree" in text and f"{accuracy(abs(b['delta']), 'bleu'):.0%}" in text


def _sys_file(tmp_path, name: str, scores: dict) -> str:
    p = tmp_path / name
    p.write_text("".join(f"{k}\t{v}\n" for k, v in scores.items()), encoding="utf-8")
    return str(p)


def _automatic(pair: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in need(HE / "automatic-scores.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        p, system, _, _, metric, score = line.split("\t")
        if p == pair:
            out.setdefault(metric, {})[system] = float(score)
    return out


def test_system_level_meta_evaluation_of_wmt22_de_en(tmp_path, capsys):
    auto = _automatic("de-en")
    metrics = [f"{m}={_sys_file(tmp_path, m, auto[k])}" for m, k in (("bleu", "bleu-A"), ("chrf", "chrf-A"),
                                                                      ("comet", "COMET-A"))]  # fmt: skip
    seg = str(need(HE / "de-en" / "ad-seg-scores-de-en.csv"))
    assert main(["meta", "--human", seg, "--metric", *metrics, "-f", "json", "--n-resamples", "500"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["level"] == "system" and out["statistic"] == "pearson"
    names = {m["name"] for m in out["metrics"]}
    assert names == {"bleu", "chrf", "comet"}
    assert len(out["comparisons"]) == 3 and all(0 < c["p_value"] <= 1 for c in out["comparisons"])
    assert any("HUMAN-B" in n for n in out["notes"])  # the human reference has no metric scores: said
    # the values against a direct computation
    from scipy.stats import pearsonr

    from mtsig.io.human import read_human

    h = read_human(seg)
    hs = dict(zip(h.systems, h.system_means()))
    comet = auto["COMET-A"]
    common = [s for s in h.systems if s.rsplit(".", 1)[0] in comet]
    r = pearsonr([hs[s] for s in common], [comet[s.rsplit(".", 1)[0]] for s in common])[0]
    got = next(m for m in out["metrics"] if m["name"] == "comet")
    assert got["pearson"] == pytest.approx(r, rel=1e-12)


@pytest.mark.parametrize(("content", "words"), [
    ({"A": 1.0, "B": 2.0}, "only 2 system(s)"),
    ({"A": "x", "B": 1.0, "C": 2.0}, "is not a number"),
])  # fmt: skip
def test_bad_metric_files(tmp_path, capsys, content, words):
    human = _sys_file(tmp_path, "h.txt", {"A": 0.1, "B": 0.2, "C": 0.3, "D": 0.4})
    m = _sys_file(tmp_path, "m.txt", content)
    assert main(["meta", "--human", human, "--metric", f"x={m}"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_segment_counts_that_differ_name_both_metrics(tmp_path, capsys):
    human = _sys_file(tmp_path, "h.txt", {"A": 0.1, "B": 0.2, "C": 0.3})
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(f"{s}\t{i}\n" for s in "ABC" for i in range(5)), encoding="utf-8")
    b.write_text("".join(f"{s}\t{i}\n" for s in "ABC" for i in range(6)), encoding="utf-8")
    assert main(["meta", "--human", human, "--metric", f"a={a}", f"b={b}"]) == 2
    err = capsys.readouterr().err
    assert "segment counts differ" in err and "a.txt" in err and "b.txt" in err


def test_none_scores_are_left_out_and_counted(tmp_path, capsys):
    rng = np.random.default_rng(0)
    hum = tmp_path / "h.tsv"
    hum.write_text("system\tsegment\tscore\n" + "".join(f"{s}\t{i + 1}\t{rng.normal():.4f}\n" for s in "ABCD"
                                                        for i in range(30)), encoding="utf-8")  # fmt: skip
    m = tmp_path / "m.txt"
    m.write_text("".join(f"{s}\t{'None' if (s, i) in (('A', 3), ('B', 7)) else f'{rng.normal():.4f}'}\n"
                         for s in "ABCD" for i in range(30)), encoding="utf-8")  # fmt: skip
    m2 = tmp_path / "m2.txt"
    m2.write_text("".join(f"{s}\t{rng.normal():.4f}\n" for s in "ABCD" for i in range(30)), encoding="utf-8")
    assert main(["meta", "--human", str(hum), "--metric", f"m={m}", f"m2={m2}", "--level", "segment", "-f", "json",
                 "--n-resamples", "200", "--n-bootstrap", "100"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert any("2 missing (None/NaN) segment score(s)" in n for n in out["notes"])
    assert out["statistic"] == "acc23" and out["settings"]["test"] == "PERM-BOTH"


def test_constant_metric_scores_give_null_with_a_note(tmp_path, capsys):
    human = _sys_file(tmp_path, "h.txt", {"A": 0.1, "B": 0.2, "C": 0.3, "D": 0.5})
    m = _sys_file(tmp_path, "m.txt", {"A": 1.0, "B": 1.0, "C": 1.0, "D": 1.0})
    assert main(["meta", "--human", human, "--metric", f"flat={m}", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"][0]["pearson"] is None and any("undefined" in n for n in out["notes"])


def test_humans_agree_below_half_is_called_a_coin_flip(capsys):
    """Issue 47: "humans agree" at Δ ≈ 0 is a/2 (44-46%), which reads like a finding; the output says it is a coin
    flip, and says nothing of the kind when every pair is far apart."""
    from pathlib import Path

    from mtsig.cli import main

    ex = Path(__file__).resolve().parents[2] / "examples"
    base = ["compare", "-r", str(ex / "ref.A.en"), "-m", "bleu", "--n-resamples", "200"]
    assert main([*base, "-s", f"base={ex / 'base.en'}", f"new={ex / 'new.en'}"]) == 0
    assert "coin flip" not in capsys.readouterr().out
    assert main([*base, "-s", f"base={ex / 'base.en'}", f"copy={ex / 'base.en'}"]) == 0
    out = capsys.readouterr().out
    assert "humans agree below 50%: at Δ = 0 the fit gives a/2 (44% here), no better than a coin flip" in out
