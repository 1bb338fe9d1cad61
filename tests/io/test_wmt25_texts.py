"""WMT25's general-MT release as texts (``--wmt25 DIR``): the test set's documents and references split into
paragraphs, the outputs in ``systems/`` likewise, documents and domains as units; the shapes are those WMT25's own
``humeval/01-prepare_waves.py`` reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sacrebleu

import mtsig
from mtsig.io.wmt25texts import wmt25_texts

DOCS = [("en-cs_CZ", "news", "n1", ["The cat sat on the mat.", "It was warm.\nThe sun shone."]),
        ("en-cs_CZ", "social", "s1", ["Hello world.", "See you soon.", "Bye now."]),
        ("en-ja_JP", "news", "j1", ["One line."])]  # fmt: skip
REFS = {"n1": ["Kočka seděla na rohožce.", "Bylo teplo.\nSvítilo slunce."],
        "s1": ["Ahoj světe.", "Brzy na viděnou.", "Zatím ahoj."], "j1": ["一行。"]}  # fmt: skip
OUT = {"A": {"n1": ["Kočka seděla na rohožce.", "Bylo teplo. Slunce svítilo."],
             "s1": ["Ahoj světe.", "Uvidíme se brzy.", "Ahoj."], "j1": ["一行"]},
       "B": {"n1": ["Kočka sedí na koberci.", "Teplo bylo."], "s1": ["Ahoj, světe.", "Brzy.", "Nashle."]},
       "C": {"j1": ["一つの行。"]}}  # fmt: skip


def release(tmp_path: Path) -> Path:
    data = tmp_path / "wmt25-general-mt" / "data"
    (data / "systems").mkdir(parents=True)
    lines = []
    for lp, dom, doc, src in DOCS:
        s, t = lp.split("-", 1)
        lines.append(json.dumps({"doc_id": f"{lp}_#_{dom}_#_{doc}", "domain": dom, "src_lang": s, "tgt_lang": t,
                                 "src_text": "\n\n".join(src), "video": None, "screenshot": None,
                                 "refs": {"refA": {"ref": "\n\n".join(REFS[doc])}}}, ensure_ascii=False))  # fmt: skip
    (data / "wmt25-genmt.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ids = {doc: f"{lp}_#_{dom}_#_{doc}" for lp, dom, doc, _ in DOCS}
    for name, by_doc in OUT.items():
        recs = [json.dumps({"doc_id": ids[d], "hypothesis": "\n\n".join(p)}, ensure_ascii=False)
                for d, p in by_doc.items()]  # fmt: skip
        (data / "systems" / f"{name}.jsonl").write_text("\n".join(recs) + "\n", encoding="utf-8")
    return data


def test_paragraphs_documents_and_the_systems_of_a_pair(tmp_path):
    data = release(tmp_path)
    refs, systems = wmt25_texts(str(data.parent), "en-cs")  # the repository's root, the locale left out
    assert list(refs[0]) == REFS["n1"] + REFS["s1"] and refs.source is not None and len(refs.source) == 5
    assert refs.units["document"] == ["news_#_n1"] * 2 + ["social_#_s1"] * 3
    assert refs.units["domain"] == ["news", "news", "social", "social", "social"]
    assert sorted(systems) == ["A", "B"]  # C translated en-ja only
    assert systems["B"] == OUT["B"]["n1"] + OUT["B"]["s1"]


def test_compare_on_wmt25_texts_equals_sacrebleu(tmp_path, capsys):
    from mtsig.cli import main

    data = release(tmp_path)
    res = mtsig.score(wmt25=str(data), langpair="en-cs_CZ", metrics=["bleu", "chrf"])
    for s in res.systems:
        hyp = OUT[s.name]["n1"] + OUT[s.name]["s1"]
        ref = REFS["n1"] + REFS["s1"]
        assert s.scores["bleu"].score == pytest.approx(sacrebleu.corpus_bleu(hyp, [ref]).score, abs=1e-9)
        assert s.scores["chrf"].score == pytest.approx(sacrebleu.corpus_chrf(hyp, [ref]).score, abs=1e-9)
    assert main(["compare", "--wmt25", str(data), "-l", "en-cs", "--resample-unit", "document", "-f", "json",
                 "--n-resamples", "99"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in out["systems"]] == ["A", "B"] and out["settings"]["resample_unit"] == "document"
    own = tmp_path / "mine.txt"
    own.write_text("Kočka.\nTeplo.\nAhoj.\nBrzy.\nAhoj.\n", encoding="utf-8")
    assert main(["score", "--wmt25", str(data), "-l", "en-cs", "-s", "A", f"mine={own}", "-f", "json"]) == 0
    assert [s["name"] for s in json.loads(capsys.readouterr().out)["systems"]] == ["A", "mine"]


def _edit(path: Path, fn) -> None:
    recs = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    fn(recs)
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    "case, message",
    [
        ("no-lp", "give the language pair (-l; one of en-cs_CZ, en-ja_JP)"),
        ("unknown-lp", "language pair xx-yy is not in it; it has en-cs_CZ, en-ja_JP"),
        ("paragraphs", "B's document en-cs_CZ_#_social_#_s1 has 2 paragraphs, its source 3"),
        ("missing-doc", "B has no output of 1 of the 2 documents of en-cs_CZ"),
        ("no-ref", "no reference refA of en-cs_CZ (WMT25 has no reference for it"),
        ("empty-ref", "refA of document en-cs_CZ_#_news_#_n1, paragraph 1, is empty"),
        ("unknown-system", "unknown system in"),
        ("not-a-release", "no wmt25-genmt.jsonl in it or in its data/ folder"),
        ("with-refs", "give -r or --wmt25"),
        ("bad-line", "expected a WMT25 test-set document"),
    ],
)
def test_bad_wmt25_release_one_error_line(tmp_path, capsys, case, message):
    from mtsig.cli import main

    data = release(tmp_path)
    args = ["score", "--wmt25", str(data), "-l", "en-cs"]
    test_set, b = data / "wmt25-genmt.jsonl", data / "systems" / "B.jsonl"
    if case == "no-lp":
        args = args[:3]
    elif case == "unknown-lp":
        args[-1] = "xx-yy"
    elif case == "paragraphs":
        _edit(b, lambda r: r[1].__setitem__("hypothesis", "a\n\nb"))
    elif case == "missing-doc":
        _edit(b, lambda r: r.pop(0))
    elif case == "no-ref":
        _edit(test_set, lambda r: [d.__setitem__("refs", {}) for d in r])
    elif case == "empty-ref":
        _edit(test_set, lambda r: r[0]["refs"]["refA"].__setitem__("ref", "Kočka.\n\n "))
    elif case == "unknown-system":
        args += ["-s", "Z"]
    elif case == "not-a-release":
        args[2] = str(tmp_path)
    elif case == "with-refs":
        args += ["-r", str(test_set)]
    elif case == "bad-line":
        test_set.write_text(test_set.read_text(encoding="utf-8") + '{"doc_id": "x"}\n', encoding="utf-8")
    rc = main(args)
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("mtsig: error:") and message in err[0], err
