"""TER and chrF/chrF++ against sacreBLEU on WMT22 de-en; TER on MultEval's example against tercom 0.8.0."""

from __future__ import annotations

import re
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
from sacrebleu.metrics import CHRF as SB_CHRF
from sacrebleu.metrics import TER as SB_TER

import mtsig
from mtsig.io.text import read_lines
from mtsig.metrics import get_metric
from tests.data import WMT_SYSTEMS, wmt_hyp, wmt_ref

TER_OPTIONS = {
    "default": {},
    "case": {"ter_case": True},
    "normalize": {"ter_normalize": True},
    "no-punct": {"ter_no_punct": True},
    "asian": {"ter_asian_support": True, "ter_normalize": True, "ter_no_punct": True},
}
_SB_KW = {
    "ter_case": "case_sensitive",
    "ter_normalize": "normalized",
    "ter_no_punct": "no_punct",
    "ter_asian_support": "asian_support",
}


def _sacrebleu_edits(args):
    """Per-segment (edits, reference length) from sacreBLEU's own TER code, one reference."""
    from sacrebleu.metrics.lib_ter import translation_edit_rate

    hyps, ref, opts = args
    sb = SB_TER(**{_SB_KW[k]: v for k, v in opts.items()})
    return [
        translation_edit_rate(sb._preprocess_segment(h).split(), sb._preprocess_segment(r).split())
        for h, r in zip(hyps, ref)
    ]


@pytest.fixture(scope="module")
def wmt_text(wmt):
    refs = {r: read_lines(wmt_ref(wmt, r)) for r in "AB"}
    hyps = {s: read_lines(wmt_hyp(wmt, s)) for s in WMT_SYSTEMS}
    return refs, hyps


@pytest.mark.slow
@pytest.mark.parametrize("option", list(TER_OPTIONS))
def test_ter_per_segment_and_corpus_equal_sacrebleu(wmt_text, option):
    refs, hyps = wmt_text
    opts = TER_OPTIONS[option]
    n = 600 if option == "default" else 300  # 600 segments per system for the defaults, 300 otherwise (CI time)
    jobs = [(hyps[s][:n], refs[r][:n], opts) for s in WMT_SYSTEMS for r in "AB"]
    with ProcessPoolExecutor(2) as ex:
        sb = dict(zip([(s, r) for s in WMT_SYSTEMS for r in "AB"], ex.map(_sacrebleu_edits, jobs)))
    for s in WMT_SYSTEMS:
        e = {r: np.array([x[0] for x in sb[(s, r)]], dtype=float) for r in "AB"}
        L = {r: np.array([x[1] for x in sb[(s, r)]], dtype=float) for r in "AB"}
        one = mtsig.get_metric("ter", **opts).stats(hyps[s][:n], [refs["A"][:n]])
        two = mtsig.get_metric("ter", **opts).stats(hyps[s][:n], [refs["A"][:n], refs["B"][:n]])
        np.testing.assert_array_equal(one[:, 0], e["A"])
        np.testing.assert_array_equal(one[:, 1], L["A"])
        np.testing.assert_array_equal(two[:, 0], np.minimum(e["A"], e["B"]))
        np.testing.assert_array_equal(two[:, 1], (L["A"] + L["B"]) / 2)  # a float, never truncated
        m = mtsig.get_metric("ter", **opts)
        sbm = SB_TER(**{_SB_KW[k]: v for k, v in opts.items()})
        for stats in (one, two):
            tot = stats.sum(axis=0)
            assert m.score(tot) == pytest.approx(sbm._compute_score_from_stats(list(tot)).score, abs=1e-9)
        if option == "default":  # and sacreBLEU's own corpus_score with two references
            assert m.corpus_score(two) == pytest.approx(
                SB_TER().corpus_score(hyps[s][:n], [refs["A"][:n], refs["B"][:n]]).score, abs=1e-9
            )


def test_ter_small_cases():
    m = mtsig.get_metric("ter")
    refs = [["a b c d e", "the cat sat", "", "x y"]]
    hyps = ["a b c d e", "sat the cat", "some words", ""]
    S = m.stats(hyps, refs)
    assert list(S[:, 0]) == [0, 1, 2, 2]  # exact; one shift; empty reference: all words; empty hypothesis
    assert list(S[:, 1]) == [5, 3, 0, 2]
    assert m.sentence_scores(S)[2] == 100.0  # empty reference, non-empty hypothesis
    assert m.score(np.array([0.0, 0.0])) == 0.0
    assert m.higher_is_better is False


def test_ter_multeval_within_005(multeval):
    """MultEval used tercom 0.8.0 (beam 20, shift distance 50); report and bound the gaps."""
    text = (multeval / "EXPECTED-multeval.txt").read_text()
    exp = {
        m.group(1): [float(x) for x in m.group(2).split()[:3]]
        for m in re.finditer(r"^\s+TER\s+(baseline|sys1)\s+([\d.\s]+)$", text, re.M)
    }
    refs = [str(multeval / "refs.test2010.lc.tok.en.0")]
    res = mtsig.score(refs, [f"{s}={multeval}/hyps.lc.tok.en.{s}.opt*" for s in exp], ["ter"], tokenize="none")
    for s in res.to_dict()["systems"]:
        gaps = [abs(a - b) for a, b in zip(s["scores"]["ter"]["runs"], exp[s["name"]])]
        print(s["name"], "TER gaps to MultEval:", [f"{g:.4f}" for g in gaps])
        assert max(gaps) <= 0.05


@pytest.mark.parametrize("name, word_order", [("chrf", 0), ("chrf++", 2)])
@pytest.mark.parametrize("n_refs", [1, 2])
def test_chrf_equal_sacrebleu_every_system(wmt_text, name, word_order, n_refs):
    refs, hyps = wmt_text
    rs = [refs["A"], refs["B"]][:n_refs]
    sb = SB_CHRF(word_order=word_order)
    for s in WMT_SYSTEMS:
        m = mtsig.get_metric(name)
        S = m.stats(hyps[s], rs)
        assert m.corpus_score(S) == pytest.approx(sb.corpus_score(hyps[s], rs).score, abs=1e-9)
    sent = m.sentence_scores(S)
    for i in range(0, len(sent), 7):
        assert sent[i] == pytest.approx(sb.sentence_score(hyps[s][i], [r[i] for r in rs]).score, abs=1e-9)


@pytest.mark.parametrize(
    "opts, sb_opts",
    [
        ({"lowercase": True}, {"lowercase": True}),
        ({"chrf_whitespace": True}, {"whitespace": True}),
        ({"chrf_eps_smoothing": True}, {"eps_smoothing": True}),
        ({"chrf_beta": 1, "chrf_char_order": 4}, {"beta": 1, "char_order": 4}),
    ],
)
def test_chrf_options(wmt_text, opts, sb_opts):
    refs, hyps = wmt_text
    rs = [refs["A"][:400], refs["B"][:400]]
    h = hyps["PROMT"][:400]
    m = mtsig.get_metric("chrf", **opts)
    S = m.stats(h, rs)
    sb = SB_CHRF(**sb_opts)
    assert m.corpus_score(S) == pytest.approx(sb.corpus_score(h, rs).score, abs=1e-9)
    np.testing.assert_allclose(
        m.sentence_scores(S)[:50],
        [sb.sentence_score(x, [r[i] for r in rs]).score for i, x in enumerate(h[:50])],
        atol=1e-9,
    )


def test_ter_and_chrf_in_compare_identical_systems_p_one(wmt_text):
    refs, hyps = wmt_text
    res = mtsig.compare(
        [refs["A"][:300]],
        {"x": hyps["LT22"][:300], "y": list(hyps["LT22"][:300])},
        ["ter", "chrf", "chrf++"],
        n_resamples=500,
    )
    assert all(c.result.p_value == 1.0 for c in res.comparisons)


def test_ter_search_is_compiled():
    """The C search must be what runs (the Python fallback exists only for machines without a compiler)."""
    import os

    from mtsig.metrics import ter

    if os.environ.get("MTSIG_ALLOW_PURE_TER") == "1":
        pytest.skip("pure-Python TER explicitly allowed")
    assert ter.COMPILED, "mtsig._ter was not built: install with a C compiler available"


def test_ter_refuses_a_pair_beyond_its_memory_cap_naming_the_segment(tmp_path, capsys):
    """Issue 10: a 50,000-word pair took 12.3 GB; the search table grows with the product of the lengths."""
    from mtsig.cli import main
    from mtsig.errors import InputError
    from mtsig.metrics.ter import MAX_CELLS

    long = " ".join(f"w{i}" for i in range(12_000))
    with pytest.raises(InputError, match=r"segment 2 of hypothesis has 12,000 words and reference ref1 has 12,001"):
        get_metric("ter").stats(["a b", long], [["a b", long + " x"]])
    ok = " ".join(f"w{i}" for i in range(300))
    assert (301 * 302) < MAX_CELLS
    assert get_metric("ter").stats([ok], [[ok + " x"]])[0, 0] == 1.0  # one insertion
    (tmp_path / "r").write_text(f"a b\n{long} x\n")
    (tmp_path / "h").write_text(f"a b\n{long}\n")
    assert main(["score", "-r", str(tmp_path / "r"), "-s", str(tmp_path / "h"), "-m", "ter", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtsig: error: TER: segment 2 of ") and err.count("\n") == 1


def _random_pairs(rng: np.random.Generator, n: int, longest: int, vocab: int):
    """Hypotheses made from their references by moved blocks, substitutions, cuts and additions (shifts
    found), or drawn at random; word ids from a small vocabulary (many matches), -1 for unknown words."""
    hyps, refs = [], []
    for _ in range(n):
        r = rng.integers(0, vocab, rng.integers(0, longest)).astype(np.int32)
        h = r.copy() if r.size and rng.random() < 0.7 else rng.integers(-1, vocab, rng.integers(0, longest))
        if h.size:
            for _ in range(rng.integers(0, 4)):
                i, j = sorted(rng.integers(0, h.size, 2))
                h = np.concatenate([h[j:], h[i:j], h[:i]])
            h[rng.random(h.size) < 0.2] = rng.integers(-1, vocab)
            h = np.concatenate([h[: rng.integers(0, h.size + 1)], rng.integers(0, vocab, rng.integers(0, 8))])
        hyps.append(h.astype(np.int32))
        refs.append(r)

    def packed(xs):
        ids = np.concatenate(xs).astype(np.int32) if xs else np.zeros(0, np.int32)
        return ids, np.concatenate([[0], np.cumsum([x.size for x in xs])]).astype(np.int64)

    return (*packed(hyps), *packed(refs))


@pytest.mark.parametrize(
    "longest,vocab,n", [(8, 3, 1500), (30, 4, 1500), (66, 8, 1500), (70, 20, 1500), (40, 2, 1500), (140, 12, 600),
                        (200, 40, 300), (330, 25, 100), (560, 60, 20)]
)  # fmt: skip
def test_ter_bit_parallel_candidates_equal_the_beam(longest, vocab, n):
    """Candidates measured bit-parallel (references up to 8 blocks of 64 words, so one to eight blocks here,
    and beyond: the beam alone) give the edits of the beam search."""
    from mtsig import _ter

    args = _random_pairs(np.random.default_rng(longest * 100 + vocab), n, longest, vocab)
    fast, beam = np.empty(n, np.int64), np.empty(n, np.int64)
    _ter.edits(*args, fast)
    _ter.edits(*args, beam, False)
    assert np.array_equal(fast, beam)
    assert (beam > 0).mean() > 0.5


@pytest.mark.parametrize("bits", range(16))
def test_ter_words_equal_the_tercom_tokenizer_every_option(wmt_text, bits):
    """Without normalization or punctuation removal TER splits lines itself (lowercased unless case-sensitive,
    without importing sacreBLEU): the same words as sacreBLEU's tercom tokenizer, for every option set."""
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    opts = {k: bool(bits >> j & 1) for j, k in enumerate(_SB_KW)}
    tok = TercomTokenizer(**{_SB_KW[k]: v for k, v in opts.items()})
    m = get_metric("ter", **opts)
    assert (m._tok is None) == (not opts["ter_normalize"] and not opts["ter_no_punct"])
    refs, hyps = wmt_text
    odd = ["", " ", "A\u00a0B\u2028C\x1cD", "ÉCOLE ΣΟΦΟΣ İstanbul ß", "  lead\ttab  ", "x\r", "&amp; &lt;a&gt; -\nb"]
    for line in odd + hyps["LT22"][:300] + refs["B"][:300]:
        assert m._split(line) == tok(line.rstrip()).split(), line


def test_ter_defaults_do_not_import_sacrebleu():
    import subprocess
    import sys

    code = (
        "import sys, mtsig; print(mtsig.get_metric('ter').stats(['a b c'], [['a c b']]).tolist()); "
        "print('sacrebleu' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["[[1.0, 3.0]]", "False"]


def test_ter_distinct_outputs_searched_once_any_threads(wmt_text):
    """Runs sharing segments, searched on 1 or 2 threads, give the statistics of each run scored alone."""
    refs, hyps = wmt_text
    ref = refs["A"][:400]
    a, b = hyps["LT22"][:400], hyps["PROMT"][:400]
    mixed = [x if i % 3 else y for i, (x, y) in enumerate(zip(a, b))]
    alone = [get_metric("ter").stats(h, [ref]) for h in (a, b, mixed)]
    for threads in (1, 2):
        m = get_metric("ter")
        refset = m.prepare([ref])
        from mtsig.io.segments import Segments

        runs = [Segments.of(h) for h in (a, b, mixed)]
        m.warm()
        m.warm_runs(runs, threads)
        assert len(m._edits_cache()) == len({(i, tuple(x.split())) for h in (a, b, mixed) for i, x in enumerate(h)})
        assert all(np.array_equal(m.stats(r, refset), s) for r, s in zip(runs, alone))
