"""Segment scores alone, without texts (a leaderboard's precomputed COMET, MetricX ...): systems named by the
scores, the same numbers as with the texts, picks by name, and clear errors for what needs texts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.cli import main
from mtsig.errors import InputError

EX = Path(__file__).resolve().parents[2] / "examples"
REF = str(EX / "ref.A.en")
SYS = {"base": str(EX / "base.en"), "new": str(EX / "new.en")}
N = 40


def _table(tmp: Path, k: int = 3, n: int = N) -> str:
    rng = np.random.default_rng(1)
    x = rng.normal(0.8, 0.1, (n, 1)) + rng.normal(0, 0.05, (n, k)) + np.arange(k) * 0.02
    path = tmp / "scores.tsv"
    path.write_text("\t".join(f"s{j}" for j in range(k)) + "\n" + "".join("\t".join(f"{v:.4f}" for v in r) + "\n"
                    for r in x), encoding="utf-8")  # fmt: skip
    return str(path)


def test_the_numbers_are_those_computed_beside_the_texts(tmp_path):
    cols = {name: [0.5 + 0.01 * ((i * (j + 3)) % 11) for i in range(N)] for j, name in enumerate(SYS)}
    specs = []
    for name, col in cols.items():
        p = tmp_path / f"{name}.scores"
        p.write_text("".join(f"{v}\n" for v in col))
        specs.append(f"{name}={p}")
    alone = mtsig.compare(None, None, ["seg"], seg_scores=specs, seed=3, n_resamples=2000).to_dict()
    texts = mtsig.compare(REF, SYS, ["seg"], seg_scores=specs, seed=3, n_resamples=2000).to_dict()
    for d in (alone, texts):  # the files differ (scores only; texts and scores), nothing else does
        for s in d["systems"]:
            s.pop("files")
    assert alone == texts


def test_a_table_names_its_systems_and_s_picks_some(tmp_path, capsys):
    table = _table(tmp_path, k=4)
    res = mtsig.compare(None, None, ["seg"], seg_scores=[table], seg_name="COMET", seed=1, n_resamples=1000)
    assert [s.name for s in res.systems] == ["s0", "s1", "s2", "s3"] and res.metrics == ["COMET"]
    assert len(res.comparisons) == 6
    assert main(["compare", "--seg-scores", table, "-s", "s1", "s3", "-f", "json", "-q", "--n-resamples",
                 "1000"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in out["systems"]] == ["s1", "s3"]
    assert out["systems"][0]["scores"]["seg"]["score"] == pytest.approx(
        next(s.scores["COMET"].score for s in res.systems if s.name == "s1")
    )


def test_comet_s_json_names_systems_after_the_scored_files(tmp_path):
    data = {f"out/{n}.txt": [{"src": "s", "mt": "m", "ref": "r", "COMET": 0.5 + 0.01 * j + 0.001 * (i % 5)}
                             for i in range(N)] for j, n in enumerate(("alpha", "beta"))}  # fmt: skip
    path = tmp_path / "comet.json"
    path.write_text(json.dumps(data))
    res = mtsig.score(None, None, ["seg"], seg_scores=[str(path)])
    assert [s.name for s in res.systems] == ["alpha", "beta"] and res.metrics == ["COMET"]
    assert res.score("beta", "COMET") == pytest.approx(0.51 + 0.001 * sum(i % 5 for i in range(N)) / N)


def test_documents_are_units_to_resample(tmp_path):
    table = _table(tmp_path)
    docs = tmp_path / "docs.txt"
    docs.write_text("".join(f"d{i // 5}\n" for i in range(N)))
    res = mtsig.compare(None, None, ["seg"], seg_scores=[table], docids=str(docs), resample_unit="document",
                        n_resamples=1000)  # fmt: skip
    assert res.settings.n_units == N // 5
    docs.write_text("d1\n")
    with pytest.raises(InputError, match="1 document ids for 40 scored segments"):
        mtsig.compare(None, None, ["seg"], seg_scores=[table], docids=str(docs))


def test_what_needs_texts_is_refused_by_name(tmp_path, capsys):
    table = _table(tmp_path)
    with pytest.raises(InputError, match="bleu need.* the texts"):
        mtsig.compare(None, None, ["bleu", "seg"], seg_scores=[table])
    with pytest.raises(InputError, match="lowercase: options of the texts"):
        mtsig.compare(None, None, ["seg"], seg_scores=[table], lowercase=True)
    with pytest.raises(InputError, match="unknown system of the segment scores 'zz'"):
        mtsig.compare(None, ["zz"], ["seg"], seg_scores=[table])
    assert main(["compare", "--seg-scores", table, "-s", "s0=x.txt"]) == 2
    assert "picked by name" in capsys.readouterr().err


def test_scores_of_different_lengths_are_refused(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("0.1\n0.2\n0.3\n")
    b.write_text("0.1\n0.2\n")
    with pytest.raises(InputError, match=r"differ in length \(a 3, b 2\)"):
        mtsig.compare(None, None, ["seg"], seg_scores=[f"a={a}", f"b={b}"])
