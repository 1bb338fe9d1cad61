"""Analyze's tables when a bucket is empty, and metric scales (issue 37's two rendering bugs and chrF++'s buckets)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mtsig.cli import main

EX = Path(__file__).resolve().parents[2] / "examples"
REFS = [str(EX / "ref.A.en")]
SYSTEMS = [f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"]
EMPTY_FIRST = ["--by", "ref-length", "--bucket-cutoffs", "ref-length=2:11:12", "-j", "1", "--seed", "3"]


def _run(capsys, *args: str) -> str:
    assert main(["analyze", "-r", *REFS, "-s", *SYSTEMS, *args]) == 0
    return capsys.readouterr().out


def test_an_empty_first_bucket_keeps_the_differences_table_in_every_format(capsys):
    data = json.loads(_run(capsys, *EMPTY_FIRST, "-f", "json"))
    buckets = data["analyses"][1]["buckets"]
    assert buckets[0]["n_segments"] == 0 and buckets[0]["comparisons"] == []
    assert all(b["comparisons"] for b in buckets[1:]) and len(buckets) == 4  # the other buckets are tested
    text = _run(capsys, *EMPTY_FIRST)
    assert "ref-length: Δ (adjusted p)" in text and "new − base" in text
    md = _run(capsys, *EMPTY_FIRST, "-f", "markdown")
    assert "ref-length: Δ (adjusted p)" in md
    for block in md.split("\n\n"):  # every row of a table has as many cells as its header
        rows = [r for r in block.splitlines() if r.startswith("|")]
        assert len({r.count("|") for r in rows}) <= 1, block
    assert r"ref-length: $\Delta$ (adjusted p)" in _run(capsys, *EMPTY_FIRST, "-f", "latex")
    csv = _run(capsys, *EMPTY_FIRST, "-f", "csv")
    assert sum(1 for r in csv.splitlines() if r.startswith("ref-length,") and ",difference," in r) == len(buckets) - 1


def test_the_empty_buckets_row_is_dashes_under_every_pair(capsys):
    md = _run(capsys, *EMPTY_FIRST, "-f", "markdown")
    table = md[md.index("ref-length: Δ (adjusted p)") :].split("\n\n")[1]
    first = next(r for r in table.splitlines() if r.startswith("| <2"))
    assert [c.strip() for c in first.strip("|").split("|")] == ["<2", "-"]


@pytest.mark.parametrize("metric", ["chrf", "chrf++", "bleu", "ter"])
def test_metrics_on_a_0_100_scale_get_compare_mts_sentence_score_cutoffs(capsys, metric):
    from mtsig.analysis.buckets import DEFAULT_CUTOFFS, Cutoffs

    data = json.loads(_run(capsys, "--by", "sentence-score", "-m", metric, "-f", "json", "-j", "1"))
    labels = [b["label"] for b in data["analyses"][1]["buckets"]]
    assert labels == Cutoffs(tuple(DEFAULT_CUTOFFS["sentence-score"])).labels()


def test_a_metric_without_a_scale_gets_deciles(capsys, tmp_path):
    import numpy as np

    n = len(Path(REFS[0]).read_text(encoding="utf-8").splitlines())
    rng = np.random.default_rng(1)
    seg = tmp_path / "seg.tsv"
    seg.write_text("base\tnew\n" + "".join(f"{x:.4f}\t{y:.4f}\n" for x, y in rng.random((n, 2))), encoding="utf-8")
    data = json.loads(_run(capsys, "--by", "sentence-score", "-m", "seg", "--seg-scores", str(seg), "-f", "json",
                           "-j", "1"))  # fmt: skip
    assert len(data["analyses"][1]["buckets"]) == 10  # nine decile cutoffs of scores in [0, 1]
