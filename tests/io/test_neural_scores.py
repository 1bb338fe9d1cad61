"""Segment scores straight from the files neural metrics write: COMET's ``--to_json`` and printed output, MetricX's
JSONL, BLEURT's score file (one number per line); recognised by content, the metric's name and direction carried
over, and clear errors when a file is ambiguous."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mtsig
from mtsig.errors import InputError

EX = Path(__file__).resolve().parents[2] / "examples"
REF = str(EX / "ref.A.en")
SYS = {"base": str(EX / "base.en"), "new": str(EX / "new.en")}
N = 40


def _scores(k: float) -> list[float]:
    return [round(0.5 + k + 0.01 * (i % 7), 6) for i in range(N)]


def _comet_json(tmp: Path) -> str:
    data = {p: [{"src": "s", "mt": "m", "ref": "r", "COMET": x} for x in _scores(0.1 * j)]
            for j, p in enumerate(SYS.values())}  # fmt: skip
    path = tmp / "comet.json"
    path.write_text(json.dumps(data, indent=4))
    return str(path)


def test_comet_json_for_every_system_names_the_metric(tmp_path):
    res = mtsig.score(REF, SYS, ["seg"], seg_scores=[_comet_json(tmp_path)])
    assert res.metrics == ["COMET"]
    assert res.score("base", "COMET") == pytest.approx(sum(_scores(0.0)) / N)
    assert res.score("new", "COMET") == pytest.approx(sum(_scores(0.1)) / N)
    assert res.directions["COMET"] == "higher"


def test_comet_printed_output(tmp_path):
    lines = []
    for j, p in enumerate(SYS.values()):
        lines += [f"{p}\tSegment {i}\tscore: {x:.4f}" for i, x in enumerate(_scores(0.1 * j))]
    lines += [f"{p}\tscore: 0.6000" for p in SYS.values()]
    path = tmp_path / "comet.out"
    path.write_text("\n".join(lines) + "\n")
    res = mtsig.score(REF, SYS, ["seg"], seg_scores=[str(path)])
    assert res.score("new", "COMET") == pytest.approx(sum(round(x, 4) for x in _scores(0.1)) / N)


def test_metricx_jsonl_is_lower_is_better(tmp_path):
    specs = []
    for j, name in enumerate(SYS):
        path = tmp_path / f"{name}.metricx.jsonl"
        path.write_text("".join(json.dumps({"source": "s", "hypothesis": "h", "reference": "r", "prediction": 5 - x})
                                + "\n" for x in _scores(0.1 * j)))  # fmt: skip
        specs.append(f"{name}={path}")
    res = mtsig.score(REF, SYS, ["seg"], seg_scores=specs)
    assert res.metrics == ["MetricX"] and res.directions["MetricX"] == "lower"
    cmp = mtsig.compare(REF, SYS, ["seg"], seg_scores=specs, n_resamples=200, alternative="greater")
    assert cmp.comparisons[0].result.extra["h1"] == "delta < 0"  # better = a lower MetricX


def test_bleurt_scores_file_and_user_naming_wins(tmp_path):
    specs = []
    for j, name in enumerate(SYS):
        path = tmp_path / f"{name}.bleurt"
        path.write_text("".join(f"{x}\n" for x in _scores(0.1 * j)))
        specs.append(f"{name}={path}")
    res = mtsig.score(REF, SYS, ["bleurt"], seg_scores=specs, seg_name="bleurt")
    assert res.metrics == ["bleurt"] and res.score("base", "bleurt") == pytest.approx(sum(_scores(0)) / N)
    named = mtsig.score(REF, SYS, ["seg"], seg_scores=[_comet_json(tmp_path)], seg_name="comet22")
    assert named.metrics == ["comet22"]


def test_ambiguous_and_wrong_files(tmp_path):
    both = _comet_json(tmp_path)
    with pytest.raises(InputError, match=r"comet scores of 2 systems .*: give the file without base="):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[f"base={both}", f"new={both}"])
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"a": 1}))
    with pytest.raises(InputError, match="not COMET's --to_json output"):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[str(other)])
    col = tmp_path / "col.txt"
    col.write_text("".join(f"{x}\n" for x in _scores(0)))
    with pytest.raises(InputError, match="the scores of one system: give NAME="):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[str(col)])
    data = json.loads(Path(both).read_text())
    data["elsewhere/unknown.txt"] = data.pop(SYS["new"])
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(data))
    with pytest.raises(InputError, match="'elsewhere/unknown.txt': matches no system's name or file"):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[str(odd)])
    mixed = tmp_path / "base.mx.jsonl"
    mixed.write_text("".join(json.dumps({"hypothesis": "h", "prediction": x}) + "\n" for x in _scores(0)))
    one = tmp_path / "new.comet.json"
    one.write_text(json.dumps({SYS["new"]: json.loads(Path(both).read_text())[SYS["new"]]}))
    with pytest.raises(InputError, match="different metrics"):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[f"base={mixed}", f"new={one}"])
