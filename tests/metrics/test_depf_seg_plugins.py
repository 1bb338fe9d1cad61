"""Dependency F-score (hand-checked CoNLL-U cases), user segment scores and metric plugins."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import mtsig
from mtsig.cli import main
from mtsig.io.conllu import parse_conllu


def conllu(*sents):
    """Build CoNLL-U text from sentences given as [(form, head, deprel), ...]."""
    blocks = []
    for words in sents:
        lines = [f"# text = {' '.join(w[0] for w in words)}"]
        for i, (form, head, rel) in enumerate(words, 1):
            lines.append("\t".join([str(i), form, "_", "_", "_", "_", str(head), rel, "_", "_"]))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n\n"


REF1 = conllu(
    [("the", 2, "det"), ("cat", 3, "nsubj"), ("sat", 0, "root")],
    [("the", 2, "det"), ("dog", 3, "nsubj"), ("barked", 0, "root")],
)
REF2 = conllu([("the", 2, "det"), ("cat", 3, "nsubj"), ("sat", 0, "root")], [("a", 2, "det"), ("dog", 0, "root")])
HYP = conllu([("the", 2, "det"), ("cat", 3, "obj"), ("sat", 0, "root")], [("a", 2, "det"), ("dog", 0, "root")])


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_depf_hand_checked_counts(tmp_path):
    r1, r2, h = write(tmp_path, "r1.conllu", REF1), write(tmp_path, "r2.conllu", REF2), write(tmp_path, "h.conllu", HYP)
    t = mtsig.compute([r1], {"h": h}, ["depf"])
    S = t.stats["depf"]["h"][0]
    # seg 1: (cat det the) ok, (sat obj cat) vs (sat nsubj cat) wrong, (ROOT root sat) ok; seg 2: nothing matches
    assert S.tolist() == [[2, 3, 3], [0, 2, 3]]
    assert t.corpus_scores("depf", "h")[0] == pytest.approx(100 * 2 * 0.4 * (1 / 3) / (0.4 + 1 / 3))
    # unlabeled: all of segment 1 matches
    u = mtsig.compute([r1], {"h": h}, ["depf"], depf_labeled=False)
    assert u.stats["depf"]["h"][0].tolist() == [[3, 3, 3], [0, 2, 3]]
    # two references: segment 2 takes the second (F 100 against 0); segment 1 ties, takes the first
    two = mtsig.compute([r1, r2], {"h": h}, ["depf"])
    assert two.stats["depf"]["h"][0].tolist() == [[2, 3, 3], [2, 2, 2]]
    assert two.corpus_scores("depf", "h")[0] == pytest.approx(80.0)
    # the text of a CoNLL-U file is its "# text" lines: other metrics work on the same files
    both = mtsig.compute([r1], {"h": h}, ["bleu", "depf"], tokenize="none")
    assert both.stats["bleu"]["h"][0][0, 0] == 3  # hypothesis length of "the cat sat"


def test_depf_with_plain_text_and_parse_files(tmp_path):
    ref_txt = write(tmp_path, "ref.txt", "the cat sat\nthe dog barked\n")
    hyp_txt = write(tmp_path, "hyp.txt", "the cat sat\na dog\n")
    r1, h = write(tmp_path, "r1.conllu", REF1), write(tmp_path, "h.conllu", HYP)
    t = mtsig.compute([ref_txt], {"h": hyp_txt}, ["depf"], parses_ref=[r1], parses_hyp=[f"h={h}"])
    assert t.stats["depf"]["h"][0].tolist() == [[2, 3, 3], [0, 2, 3]]
    rc = main(
        [
            "score",
            "-r",
            ref_txt,
            "-s",
            f"h={hyp_txt}",
            "-m",
            "depf",
            "--parses-ref",
            r1,
            "--parses-hyp",
            h,
            "-f",
            "json",
            "-o",
            str(tmp_path / "o.json"),
        ]
    )
    assert rc == 0
    with pytest.raises(mtsig.InputError, match="needs parses"):
        mtsig.compute([ref_txt], {"h": hyp_txt}, ["depf"])
    short = write(tmp_path, "short.conllu", conllu([("a", 0, "root")]))
    with pytest.raises(mtsig.InputError, match="has 1 sentences but .*ref.txt has 2 segments"):
        mtsig.compute([ref_txt], {"h": hyp_txt}, ["depf"], parses_ref=[short], parses_hyp=[h])


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("1\tthe\t_\t_\t_\t_\t0\troot\t_\n", r"line 1: a CoNLL-U word line has 10 tab-separated columns, this one 9"),
        ("1\tthe\t_\t_\t_\t_\t5\troot\t_\t_\n\n", r"word 1 has head 5, outside 0..1"),
        ("2\tthe\t_\t_\t_\t_\t0\troot\t_\t_\n\n", r"line 1: word id '2', expected 1"),
        ("1\tthe\t_\t_\t_\t_\tx\troot\t_\t_\n\n", r"line 1: head 'x' is not a number"),
    ],
)
def test_conllu_errors(text, pattern):
    with pytest.raises(mtsig.InputError, match=pattern):
        parse_conllu(text, "f.conllu")


def test_conllu_skips_multiword_tokens_and_empty_nodes():
    text = (
        "# text = vámonos ya\n1-2\tvámonos\t_\t_\t_\t_\t_\t_\t_\t_\n1\tvamos\t_\t_\t_\t_\t0\troot\t_\t_\n"
        "2\tnos\t_\t_\t_\t_\t1\tobj\t_\t_\n2.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n3\tya\t_\t_\t_\t_\t1\tadvmod\t_\t_\n\n"
    )
    (p,) = parse_conllu(text, "f")
    assert p.forms == ("vamos", "nos", "ya") and p.heads == (0, 1, 1) and p.text == "vámonos ya"


def test_spacy_parser_path(tmp_path, monkeypatch):
    ref = write(tmp_path, "ref.txt", "the cat sat\n")
    r1 = write(tmp_path, "r1.conllu", conllu([("the", 2, "det"), ("cat", 3, "nsubj"), ("sat", 0, "root")]))
    monkeypatch.setitem(sys.modules, "spacy", None)  # not installed
    with pytest.raises(mtsig.InputError, match="needs spaCy"):
        mtsig.compute([ref], {"h": ["the cat sat"]}, ["depf"], parses_ref=[r1], parser="spacy:en_core_web_sm")

    class Tok:
        def __init__(self, doc, i, text, head, dep):
            self.doc, self.i, self.text, self._head, self.dep_ = doc, i, text, head, dep

        @property
        def head(self):
            return self.doc[self._head]

    class Doc(list):
        def __init__(self, text):
            super().__init__()
            self.text = text
            for i, (w, h, d) in enumerate([("the", 1, "det"), ("cat", 2, "obj"), ("sat", 2, "ROOT")]):
                self.append(Tok(self, i, w, h, d))

    class NLP:
        pipe_names = ["tagger", "parser"]

        def pipe(self, lines):
            return [Doc(x) for x in lines]

    fake = types.SimpleNamespace(load=lambda name: NLP())
    monkeypatch.setitem(sys.modules, "spacy", fake)
    t = mtsig.compute([ref], {"h": ["the cat sat"]}, ["depf"], parses_ref=[r1], parser="spacy:fake")
    # spaCy labels the root "ROOT", the reference "root": only (cat det the) matches
    assert t.stats["depf"]["h"][0].tolist() == [[1, 3, 3]]


def test_segment_scores_identical_columns_p_one_and_known_mean(tmp_path):
    ref = write(tmp_path, "ref.txt", "".join(f"seg {i}\n" for i in range(100)))
    a = write(tmp_path, "a.txt", "".join(f"out {i}\n" for i in range(100)))
    b = write(tmp_path, "b.txt", "".join(f"out {i}\n" for i in range(100)))
    scores = write(tmp_path, "scores.tsv", "a\tb\n" + "".join(f"{i}\t{i}\n" for i in range(100)))
    res = mtsig.compare([ref], {"a": a, "b": b}, ["seg"], seg_scores=[scores], n_resamples=2000)
    assert res.comparisons[0].result.p_value == 1.0
    s = mtsig.score(
        [ref], {"a": a, "b": b}, ["comet"], seg_scores=[scores], seg_name="comet", ci=True, n_bootstrap=4000, seed=1
    )
    e = s.to_dict()["systems"][0]["scores"]["comet"]
    assert e["score"] == pytest.approx(49.5)
    half = e["ci"][1] - e["ci"][0]
    expected = 2 * 1.96 * np.std(np.arange(100), ddof=1) / 10  # normal approximation of the mean's interval
    assert abs(half - expected) / expected < 0.12
    assert e["ci"][0] < 49.5 < e["ci"][1]


def test_segment_scores_forms_and_errors(tmp_path):
    ref = write(tmp_path, "ref.txt", "x\ny\nz\n")
    a = write(tmp_path, "a.txt", "x\ny\nz\n")
    col = write(tmp_path, "a.scores", "0.1\n0.2\n0.6\n")
    jl = write(tmp_path, "s.jsonl", '{"a": 1}\n{"a": 2}\n{"a": 6}\n')
    assert mtsig.score([ref], {"a": a}, ["seg"], seg_scores=[f"a={col}"]).score("a", "seg") == pytest.approx(0.3)
    assert mtsig.score([ref], {"a": a}, ["seg"], seg_scores=[jl]).score("a", "seg") == pytest.approx(3.0)
    lower = mtsig.compute([ref], {"a": a}, ["seg"], seg_scores=[jl], seg_lower_is_better=True)
    assert lower.metrics["seg"].higher_is_better is False
    bad = write(tmp_path, "bad.scores", "0.1\nabc\n0.3\n")
    with pytest.raises(mtsig.InputError, match=r"bad.scores: line 2: 'abc' is not a number"):
        mtsig.score([ref], {"a": a}, ["seg"], seg_scores=[f"a={bad}"])
    short = write(tmp_path, "short.scores", "0.1\n")
    with pytest.raises(mtsig.InputError, match="1 segment scores for"):
        mtsig.score([ref], {"a": a}, ["seg"], seg_scores=[f"a={short}"])
    with pytest.raises(mtsig.InputError, match="no segment scores for"):
        mtsig.score([ref], {"a": a}, ["seg"])
    with pytest.raises(mtsig.InputError, match="not one of the systems"):
        mtsig.score([ref], {"a": a}, ["seg"], seg_scores=[f"zz={col}"])


def test_segment_scores_with_runs(tmp_path):
    ref = write(tmp_path, "ref.txt", "x\ny\n")
    r0, r1 = write(tmp_path, "a0.txt", "x\ny\n"), write(tmp_path, "a1.txt", "x\ny\n")
    s0, s1 = write(tmp_path, "a0.s", "1\n2\n"), write(tmp_path, "a1.s", "3\n4\n")
    res = mtsig.score([ref], [f"a={r0},{r1}"], ["seg"], seg_scores=[f"a={s0},{s1}"])
    e = res.to_dict()["systems"][0]["scores"]["seg"]
    assert e["runs"] == [1.5, 3.5] and e["mean"] == 2.5


def test_plugin_entry_point(monkeypatch):
    import importlib.metadata

    import mtsig.metrics as reg
    import mtsig.registry

    class Const(mtsig.metrics.Metric):
        name = "const"
        options = {}

        @property
        def stat_names(self):
            return ["one"]

        def _stats(self, hyp):
            return np.ones((len(hyp), 1))

        def score(self, totals):
            return np.asarray(totals, dtype=float)[..., 0] * 0 + 42.0

    class EP:
        name, value = "const", "plugin_mod:Const"

        def load(self):
            return Const

    class BrokenEP:
        name, value = "broken", "nowhere:X"

        def load(self):
            raise ImportError("no module nowhere")

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [EP(), BrokenEP()])
    monkeypatch.setattr(mtsig.registry, "_LOADED", set())
    monkeypatch.delitem(reg.REGISTRY, "const", raising=False)
    with pytest.warns(UserWarning, match="'broken'"):
        m = mtsig.get_metric("const")
    assert m.corpus_score(m.stats(["a", "b"], [["a", "b"]])) == 42.0
    reg.REGISTRY.pop("const", None)
