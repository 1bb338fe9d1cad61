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


def _lines(path: str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def _comet_json(tmp: Path) -> str:
    data = {p: [{"src": "s", "mt": t, "ref": "r", "COMET": x} for t, x in zip(_lines(p), _scores(0.1 * j))]
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
        path.write_text("".join(json.dumps({"source": "s", "hypothesis": t, "reference": "r", "prediction": 5 - x})
                                + "\n" for t, x in zip(_lines(SYS[name]), _scores(0.1 * j))))  # fmt: skip
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
    mixed.write_text("".join(json.dumps({"hypothesis": t, "prediction": x}) + "\n"
                             for t, x in zip(_lines(SYS["base"]), _scores(0))))  # fmt: skip
    one = tmp_path / "new.comet.json"
    one.write_text(json.dumps({SYS["new"]: json.loads(Path(both).read_text())[SYS["new"]]}))
    with pytest.raises(InputError, match="different metrics"):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[f"base={mixed}", f"new={one}"])


# ----------------------------------------------------------------------------- hostile score files (issue 40)
def _metricx_file(tmp: Path, name: str, texts: list[str], k: float = 0.0) -> str:
    path = tmp / f"{name}.metricx.jsonl"
    path.write_text("".join(json.dumps({"source": "s", "hypothesis": t, "reference": "r", "prediction": 5 - x}) + "\n"
                            for t, x in zip(texts, _scores(k))))  # fmt: skip
    return str(path)


def _column(tmp: Path, name: str, values: list[str]) -> str:
    path = tmp / f"{name}.txt"
    path.write_text("".join(v + "\n" for v in values), encoding="utf-8")
    return str(path)


def test_a_metric_output_mixed_with_plain_numbers_needs_the_metric_named(tmp_path):
    mx = _metricx_file(tmp_path, "base", _lines(SYS["base"]))
    col = _column(tmp_path, "new", [str(x) for x in _scores(0.1)])
    with pytest.raises(InputError, match="mix a metric's own output .* with files of plain numbers"):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[f"base={mx}", f"new={col}"])
    res = mtsig.score(REF, SYS, ["seg"], seg_scores=[f"base={mx}", f"new={col}"], seg_name="MetricX",
                      seg_lower_is_better=True)  # fmt: skip
    assert res.directions["MetricX"] == "lower"
    comet = json.loads(Path(_comet_json(tmp_path)).read_text())
    one = tmp_path / "base.comet.json"
    one.write_text(json.dumps({SYS["base"]: comet[SYS["base"]]}))
    with pytest.raises(InputError, match="mix a metric's own output"):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[f"base={one}", f"new={col}"])


def test_scores_of_another_output_are_refused(tmp_path):
    swapped = [_metricx_file(tmp_path, "base", _lines(SYS["new"])), _metricx_file(tmp_path, "new", _lines(SYS["base"]))]
    with pytest.raises(InputError, match=r"segment scores for .base.: segment 1 scored .* \(files swapped\?\)"):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[f"base={swapped[0]}", f"new={swapped[1]}"])
    comet = json.loads(Path(_comet_json(tmp_path)).read_text())
    comet[SYS["base"]], comet[SYS["new"]] = comet[SYS["new"]], comet[SYS["base"]]
    path = tmp_path / "swapped.json"
    path.write_text(json.dumps(comet))
    with pytest.raises(InputError, match="the scores belong to another output"):
        mtsig.score(REF, SYS, ["seg"], seg_scores=[str(path)])


def test_comet_printed_output_with_a_repeated_or_negative_segment_is_refused(tmp_path):
    rows = [f"{SYS['base']}\tSegment {i}\tscore: 0.5" for i in range(N)]
    for extra, words in (
        (f"{SYS['base']}\tSegment 3\tscore: 0.9", "segment 3 of .* appears twice"),
        (f"{SYS['base']}\tSegment -1\tscore: 0.9", "segment -1: COMET numbers segments from 0"),
    ):
        path = tmp_path / "comet.out"
        path.write_text("\n".join([*rows, extra]) + "\n")
        with pytest.raises(InputError, match=words):
            mtsig.score(REF, {"base": SYS["base"]}, ["seg"], seg_scores=[str(path)])


@pytest.mark.parametrize(("value", "words"), [
    ("1_000", "'1_000' is not a number"),
    ("\uff11", "'\uff11' is not a number"),
    ("0x10", "'0x10' is not a number"),
])  # fmt: skip
def test_numbers_python_accepts_but_no_metric_writes_are_refused(tmp_path, value, words):
    col = _column(tmp_path, "base", [value] + ["0.5"] * (N - 1))
    with pytest.raises(InputError, match=words):
        mtsig.score(REF, {"base": SYS["base"]}, ["seg"], seg_scores=[f"base={col}"])


def test_a_json_string_is_not_a_score(tmp_path):
    mx = tmp_path / "base.metricx.jsonl"
    mx.write_text("".join(json.dumps({"hypothesis": t, "source": "s", "prediction": "0.5"}) + "\n"
                          for t in _lines(SYS["base"])))  # fmt: skip
    with pytest.raises(InputError, match='line 1: "0.5" is not a JSON number'):
        mtsig.score(REF, {"base": SYS["base"]}, ["seg"], seg_scores=[f"base={mx}"])
    table = tmp_path / "t.jsonl"
    table.write_text("".join(json.dumps({"base": "0.5"}) + "\n" for _ in range(N)))
    with pytest.raises(InputError, match='"0.5" is not a JSON number'):
        mtsig.score(REF, {"base": SYS["base"]}, ["seg"], seg_scores=[str(table)])
