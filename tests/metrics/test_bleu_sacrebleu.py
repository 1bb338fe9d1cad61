"""BLEU equals sacreBLEU (tokenize 13a) to 1e-9 on every WMT22 system, cased and lowercased, 1 and 2 refs."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

import mtsig
from mtsig.io.text import read_lines
from tests.data import WMT_SYSTEMS, wmt_hyp, wmt_ref


@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("refs", [("A",), ("B",), ("A", "B")])
def test_corpus_bleu_equals_sacrebleu(wmt, lowercase, refs):
    ref_lines = [read_lines(wmt_ref(wmt, r)) for r in refs]
    sb = sacrebleu.BLEU(lowercase=lowercase, tokenize="13a")
    res = mtsig.score(
        [wmt_ref(wmt, r) for r in refs], {s: wmt_hyp(wmt, s) for s in WMT_SYSTEMS}, ["bleu"], lowercase=lowercase
    )
    for s in res.to_dict()["systems"]:
        expected = sb.corpus_score(read_lines(wmt_hyp(wmt, s["name"])), ref_lines)
        assert s["scores"]["bleu"]["score"] == pytest.approx(expected.score, abs=1e-9)
        d = s["scores"]["bleu"]["details"]
        assert (d["hyp_len"], d["ref_len"]) == (expected.sys_len, expected.ref_len)
        np.testing.assert_allclose(d["precisions"], expected.precisions, atol=1e-9)


@pytest.mark.parametrize("tokenize", ["intl", "char", "none"])
def test_other_sacrebleu_tokenizers(wmt, tokenize):
    ref_lines = [read_lines(wmt_ref(wmt, "A"))]
    hyp = read_lines(wmt_hyp(wmt, "LT22"))
    expected = sacrebleu.BLEU(tokenize=tokenize).corpus_score(hyp, ref_lines).score
    got = mtsig.score([wmt_ref(wmt, "A")], {"LT22": hyp}, ["bleu"], tokenize=tokenize).score("LT22", "bleu")
    assert got == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("smooth", ["floor", "add-k", "none"])
def test_smoothing_variants_equal_sacrebleu(wmt, smooth):
    refs = [read_lines(wmt_ref(wmt, "A"))]
    hyp = read_lines(wmt_hyp(wmt, "PROMT"))[:300]
    refs = [r[:300] for r in refs]
    m = mtsig.get_metric("bleu", smooth=smooth)
    stats = m.stats(hyp, refs)
    sb = sacrebleu.BLEU(smooth_method=smooth)
    assert m.corpus_score(stats) == pytest.approx(sb.corpus_score(hyp, refs).score, abs=1e-9)


def test_sentence_bleu_equals_sacrebleu(wmt):
    refs = [read_lines(wmt_ref(wmt, r))[:400] for r in "AB"]
    hyp = read_lines(wmt_hyp(wmt, "LT22"))[:400]
    m = mtsig.get_metric("bleu")
    sent = m.sentence_scores(m.stats(hyp, refs))
    expected = [sacrebleu.sentence_bleu(h, [r[i] for r in refs]).score for i, h in enumerate(hyp)]
    np.testing.assert_allclose(sent, expected, atol=1e-9)


@pytest.mark.parametrize(
    ("refs", "hyps"),
    [
        (["the cat sat on the mat today"], ["dog runs fast now yes no"]),  # no match at any order
        (["a b c", "d e"], ["a b c", "d e"]),  # no 4-grams in the whole corpus
        (["a b c d e", "x y"], ["a b q d e", "z"]),  # matches at some orders only
    ],
)
def test_zero_match_corners_exp_is_sacrebleus_and_nist_is_the_scripts(refs, hyps):
    """Issue 28: a corpus with no match gave 0.018 where sacreBLEU gives 0.0, both signed smooth:exp. Now exp is
    sacreBLEU's in every corner; nist keeps the NIST scorer's rule (no early stop) under its own signature."""
    import sacrebleu

    import mtsig

    exp = mtsig.score([refs], {"h": hyps}).systems[0].scores["bleu"]
    nist = mtsig.score([refs], {"h": hyps}, smooth="nist").systems[0].scores["bleu"]
    assert exp.score == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-9)
    assert "smooth:exp" in exp.signature and "smooth:nist" in nist.signature
    if not any(w in r.split() for h, r in zip(hyps, refs) for w in h.split()):
        assert exp.score == 0.0 < nist.score
