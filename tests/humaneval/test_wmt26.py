"""``--protocol wmt26`` equals WMT26's own script (humeval/02-analyze_results.py of wmt-conference/wmt26-general-mt,
the commit recorded in ``data/wmt26_script.json``, written by ``python benchmarks/wmt26_oracle.py --repo REPO --json
...``) on a Pearmut log built from the shared WMT24 ESA wave: every mean, every boundary mark, the global ranking.
And the Pearmut reader's rules: resets, attention checks, tutorials, campaign keys."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.errors import InputError
from mtsig.humaneval.wmt26 import boundaries, campaign_scores, global_ranking
from tests.humaneval.pearmut_log import write_log

ORACLE = json.loads((Path(__file__).parent / "data" / "wmt26_script.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    return write_log(tmp_path_factory.mktemp("pearmut") / "annotations.json")


def test_the_oracle_is_the_named_commit():
    assert ORACLE["commit"].startswith("1fa5211") and len(ORACLE["commit"]) == 40


def test_wmt26_equals_its_script_on_every_campaign(log):
    marks = set()
    for key, rows in ORACLE["campaigns"].items():
        res = mtsig.human(str(log), lp=key, protocol="wmt26", n_bootstrap=50)  # the key without its version
        assert [s.name for s in res.systems] == [r["model"] for r in rows]
        for s, r in zip(res.systems, rows):
            assert s.score == pytest.approx(r["mean"], rel=1e-12, abs=1e-9)
            assert s.wmt26_boundary == r["boundary"], (key, s.name)
            marks.add(r["boundary"])
        d = res.to_dict()
        assert all("wmt26_boundary" in s for s in d["systems"]) and len(d["comparisons"]) == 13 * 12 // 2
        # a cluster line: every system above differs from every system below
        for i, s in enumerate(res.systems[:-1]):
            if s.wmt26_boundary == "yes_cluster":
                above, below = res.systems[: i + 1], res.systems[i + 1 :]
                assert all(res.get(a.name, b.name).significant for a in above for b in below)
    assert marks >= {"yes_cluster", "nothing"}
    per_lp = campaign_scores(str(log))
    ours = global_ranking(per_lp)
    assert [m for m, _ in ours] == [g[0] for g in ORACLE["global"]]
    assert [r["system"] for r in res.global_ranking] == [g[0] for g in ORACLE["global"]]  # in every result too
    for model, langs in ORACLE["global"]:  # the script's table: the system's mean in each pair (-100: absent)
        got = [per_lp[k].get(model, -100) for k in per_lp]
        assert got == pytest.approx(list(langs.values()), rel=1e-12)


def test_boundaries_mark_a_local_line_where_the_tests_are_not_transitive():
    differ = np.zeros((5, 5), dtype=bool)
    for i, j in ((0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (2, 3), (1, 3), (3, 4), (2, 4)):  # 1 and 4 do not differ
        differ[i, j] = differ[j, i] = True
    assert boundaries(5, differ) == ["yes_cluster", "yes_local", "yes_local", "yes_local", "nothing"]
    differ[1, 2] = differ[2, 1] = False
    assert boundaries(5, differ) == ["yes_cluster", "nothing", "yes_local", "yes_local", "nothing"]


def _screen(user, doc, scores, n=2, domain="news"):
    item = [{"item_id": f"{domain}_###_{doc}_###_{j}"} for j in range(n)]
    return {
        "user_id": user,
        "item_i": 0,
        "item": item,
        "annotation": [{m: {"score": x + j, "spans": []} for m, x in scores.items()} for j in range(n)],
    }


def _log(tmp_path, lines, key="eng_Latn---ces_Latn v3", name="a.json"):
    p = tmp_path / name
    p.write_text(json.dumps({key: lines}), encoding="utf-8")
    return str(p)


def test_campaign_keys_with_or_without_version_or_as_a_pair(tmp_path):
    lines = [_screen("u", f"d{i}", {"A": 60 + i, "B": 50}) for i in range(12)]
    p = tmp_path / "two.json"
    p.write_text(json.dumps({"eng_Latn---ces_Latn v3": lines, "eng_Latn---deu_Latn v3": lines[:6]}), encoding="utf-8")
    for lp in ("eng_Latn---ces_Latn v3", "eng_Latn---ces_Latn", "en-cs"):
        assert mtsig.human(str(p), lp=lp, protocol="wmt26").systems[0].n_segments == 24
    assert mtsig.human(str(p), lp="en-de", protocol="wmt26").systems[0].n_segments == 12
    with pytest.raises(InputError, match="2 campaigns"):
        mtsig.human(str(p), protocol="wmt26")
    with pytest.raises(InputError, match="no campaign 'en-fr'"):
        mtsig.human(str(p), lp="en-fr")
    q = tmp_path / "versions.json"
    q.write_text(json.dumps({"eng_Latn---ces_Latn v2": lines, "eng_Latn---ces_Latn v3": lines}), encoding="utf-8")
    with pytest.raises(InputError, match="names 2 campaigns"):
        mtsig.human(str(q), lp="en-cs")


def test_reset_empties_the_campaign_or_only_its_annotator(tmp_path):
    lines = [_screen("u1", "d0", {"A": 0, "B": 0}), _screen("u2", "d1", {"A": 70, "B": 40}),
             {"user_id": "u1", "annotation": "__RESET__"}] + [_screen("u3", f"e{i}", {"A": 60, "B": 50 + i % 3})
                                                             for i in range(10)]  # fmt: skip
    p = _log(tmp_path, lines)
    wmt = mtsig.human(p, protocol="wmt26")
    assert wmt.systems[0].n_segments == 20 and any("empties the whole campaign" in n for n in wmt.notes)
    own = mtsig.human(p, protocol="wmt26", reset="annotator")  # Pearmut's own rule keeps u2's screen
    assert own.systems[0].n_segments == 22 and any("masks its annotator" in n for n in own.notes)
    with pytest.raises(InputError, match="reset is a rule of Pearmut logs"):
        tsv = tmp_path / "x.tsv"
        tsv.write_text("system\tsegment\tscore\nA\t1\t1\nB\t1\t2\n", encoding="utf-8")
        mtsig.human(str(tsv), reset="annotator")


def test_attention_checks_tutorials_and_skipped_segments_are_left_out_with_a_note(tmp_path):
    lines = [_screen("u", f"d{i}", {"A": 60, "B": 50 + i}) for i in range(10)]
    lines.insert(2, {"user_id": "u", "item": [{"src": "x"}], "annotation": [{"A": {"score": 0}}]})
    lines.insert(3, {"user_id": "u", "item": [{"item_id": "attention_check_1"}], "annotation": [{"A": {"score": 0}}]})
    lines.insert(4, {"user_id": "u", "item": [{"item_id": "x_#_tutorial_#_0"}], "annotation": [{"B": {"score": 0}}]})
    skipped = _screen("u", "d99", {"A": 70, "B": 20})
    skipped["annotation"][1] = None
    lines.append(skipped)
    res = mtsig.human(_log(tmp_path, lines), protocol="wmt26")
    assert res.system("A").n_segments == 21 and res.system("A").score == pytest.approx((60.5 * 20 + 70) / 21)
    note = next(n for n in res.notes if n.startswith("left out"))
    assert "2 attention-check screen(s)" in note and "1 tutorial screen(s)" in note and "1 skipped segment(s)" in note


@pytest.mark.parametrize(("bad", "message"), [
    ({"annotation": [{"A": {"score": "high"}}, {"A": {"score": 1}}]}, "score \"high\" is not a finite number"),
    ({"annotation": [{"A": {"score": 1}}]}, "one entry per segment"),
    ({"item": [{"item_id": "news_###_d1_###_0"}, {"item_id": "news_###_d2_###_1"}]},
     "documents 'news_###_d1' and 'news_###_d2'"),
    ({"item": [{"item_id": "news_###_d1_###_0"}, {"item_id": "nodoc"}]}, "without an item_id"),
])  # fmt: skip
def test_malformed_screens_are_one_clear_error(tmp_path, bad, message):
    line = {**_screen("u", "d1", {"A": 1}), **bad}
    with pytest.raises(InputError, match=message):
        mtsig.human(_log(tmp_path, [line, _screen("u", "d2", {"A": 1, "B": 2})]), protocol="wmt26")


def test_an_empty_or_reset_campaign_is_one_clear_error_and_the_format_is_recognised(tmp_path):
    for lines in ([], [{"user_id": "u", "annotation": "__RESET__"}]):
        p = _log(tmp_path, lines)
        with pytest.raises(InputError, match="no scored annotation after the resets"):
            mtsig.human(p)  # recognised as Pearmut's from its first line: the campaign key


def test_a_campaign_jsonl_log_and_the_command_line(tmp_path):
    from mtsig.cli import main

    lines = [_screen("u", f"d{i}", {"A": 70 + i % 4, "B": 50 + i % 5}) for i in range(15)]
    p = tmp_path / "eng_Latn---ces_Latn v3.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["human", str(p), "--protocol", "wmt26", "--format", "json", "-o", str(out)]) == 0
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["settings"]["input_format"] == "pearmut"
    assert [s["wmt26_boundary"] for s in d["systems"]] == ["yes_cluster", "nothing"]
    assert d["comparisons"][0]["significant"] is True
