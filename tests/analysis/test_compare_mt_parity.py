"""`mtsig analyze` against compare-mt 0.2.10 run as an oracle on the four WMT22 de-en systems.

Both read the same files: the outputs and reference tokenized by sacreBLEU's 13a tokenizer (compare-mt splits on
whitespace; mtsig reads them with ``tokenize="none"``). Where the numbers differ, the test shows why:
- BLEU per reference-length bucket: compare-mt's own BLEU counts at least one n-gram of every order in every
  segment (``denom = max(1, denom)``), so segments shorter than 4 words add phantom n-grams to the denominators.
  Its values equal BLEU computed from mtsig's statistics with that floor applied, and equal mtsig's own BLEU
  in every bucket without such short segments.
- Segment-level BLEU buckets: compare-mt scores segments with NLTK's BLEU (Chen & Cherry's method 2), mtsig with
  sacreBLEU's sentence BLEU. Given compare-mt's segment scores (mtsig's ``seg`` metric), the counts are equal.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mtsig
from tests.data import WMT_SYSTEMS, unavailable, wmt_hyp, wmt_ref

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cmt():
    try:
        import compare_mt.bucketers as bucketers
        import compare_mt.ngram_utils as ngram_utils
        import compare_mt.scorers as scorers
        import compare_mt.stat_utils as stat_utils
    except ImportError as exc:  # the test extra installs it
        unavailable(f"compare-mt is not installed ({exc}): pip install -e '.[test]'")
    return bucketers, scorers, ngram_utils, stat_utils


@pytest.fixture(scope="module")
def tokenized(wmt, tmp_path_factory):
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    d = tmp_path_factory.mktemp("tok")
    files = {}
    for name, path in [("ref", wmt_ref(wmt, "A")), *((s, wmt_hyp(wmt, s)) for s in WMT_SYSTEMS)]:
        lines = open(path, encoding="utf-8").read().splitlines()
        out = d / f"{name}.tok"
        out.write_text("".join(tok(x) + "\n" for x in lines), encoding="utf-8")
        files[name] = str(out)
    words = {k: [x.split() for x in open(v, encoding="utf-8").read().splitlines()] for k, v in files.items()}
    return files, words


@pytest.fixture(scope="module")
def result(tokenized):
    files, _ = tokenized
    return mtsig.analyze(
        [files["ref"]],
        {s: files[s] for s in WMT_SYSTEMS},
        by=["word-frequency", "ref-length", "length-diff", "ngrams"],
        tokenize="none",
        top=50,
        n_resamples=500,
        n_bootstrap=200,
    )


def test_word_accuracy_by_frequency_equals_compare_mt(cmt, tokenized, result):
    bucketers = cmt[0]
    _, words = tokenized
    b = bucketers.FreqWordBucketer(freq_data=words["ref"])
    stats, *_ = b.calc_statistics(words["ref"], [words[s] for s in WMT_SYSTEMS])
    a = result.get("word-frequency")
    assert [x.label for x in a.buckets] == b.bucket_strs
    checked = 0
    for j, s in enumerate(WMT_SYSTEMS):
        for i, bucket in enumerate(a.buckets):
            mcnt, rcnt, ocnt, rec, prec, fmeas = stats[j][i]
            got = bucket.systems[s]
            assert (got.extra["matched"], got.extra["reference_words"], got.extra["output_words"]) == (mcnt, rcnt, ocnt)
            assert math.isclose(got.score, fmeas, rel_tol=1e-12, abs_tol=1e-15)
            assert math.isclose(got.extra["precision"], prec, rel_tol=1e-12, abs_tol=1e-15)
            assert math.isclose(got.extra["recall"], rec, rel_tol=1e-12, abs_tol=1e-15)
            checked += 1
    assert checked == 4 * 9


def _cmt_bleu_from_stats(S: np.ndarray) -> float:
    """compare-mt's BleuScorer from mtsig's BLEU statistics [hyp, ref, m1..m4, t1..t4] of a bucket's segments:
    every segment's n-gram totals floored at 1, zero precisions skipped in the log."""
    hyp, ref = S[:, 0].sum(), S[:, 1].sum()
    m = S[:, 2:6].sum(axis=0)
    t = np.maximum(S[:, 6:10], 1).sum(axis=0)
    if m[0] == 0:
        return 0.0
    logp = sum(0.25 * math.log(mi / ti) for mi, ti in zip(m, t) if mi > 0)
    bp = min(1.0, math.exp(1 - ref / hyp)) if hyp else 0.0
    return 100 * bp * math.exp(logp)


def test_bleu_by_reference_length_equals_compare_mt_where_it_counts_the_same(cmt, tokenized, result):
    bucketers, scorers, _, _ = cmt
    files, words = tokenized
    bucketer = bucketers.LengthSentenceBucketer()
    scorer = scorers.BleuScorer()
    table = mtsig.compute([files["ref"]], {s: files[s] for s in WMT_SYSTEMS}, tokenize="none")
    lengths = np.array([len(r) for r in words["ref"]])
    groups = np.searchsorted([10, 20, 30, 40, 50, 60], lengths, side="right")
    a = result.get("ref-length")
    assert [x.label for x in a.buckets] == bucketer.bucket_strs
    same = floored = 0
    for s in WMT_SYSTEMS:
        corpus = bucketer.create_bucketed_corpus(words[s], ref=words["ref"])
        S = table.stats["bleu"][s][0]
        for i, (outs, refs, _) in enumerate(corpus):
            theirs = scorer.score_corpus(refs, outs)[0]
            rows = S[groups == i]
            assert len(rows) == len(outs) == a.buckets[i].n_segments
            # compare-mt's number is BLEU of mtsig's statistics with its floor of one n-gram per order
            assert math.isclose(theirs, _cmt_bleu_from_stats(rows), rel_tol=1e-12)
            short = bool((rows[:, 6:10] == 0).any())  # a segment with no n-gram of some order
            ours = a.buckets[i].systems[s].score
            if not short:
                assert math.isclose(ours, theirs, rel_tol=1e-12)
                same += 1
            else:
                assert not math.isclose(ours, theirs, rel_tol=1e-9)
                floored += 1
    assert same >= 20 and floored >= 1  # most buckets agree exactly; the shortest segments' bucket differs


def test_length_difference_counts_equal_compare_mt(cmt, tokenized, result):
    bucketers = cmt[0]
    _, words = tokenized
    bucketer = bucketers.LengthDiffSentenceBucketer()
    a = result.get("length-diff")
    assert [x.label for x in a.buckets] == bucketer.bucket_strs
    for s in WMT_SYSTEMS:
        corpus = bucketer.create_bucketed_corpus(words[s], ref=words["ref"])
        assert [a.buckets[i].systems[s].n_segments for i in range(len(corpus))] == [len(c[0]) for c in corpus]
        assert sum(len(c[0]) for c in corpus) == 1984


def test_sentence_bleu_bucket_counts_equal_compare_mt_given_its_segment_scores(cmt, tokenized, tmp_path):
    bucketers, scorers, _, _ = cmt
    files, words = tokenized
    scorer = scorers.SentBleuScorer()
    bucketer = bucketers.ScoreSentenceBucketer("sentbleu")
    scores = {s: [scorer.score_sentence(r, o)[0] for r, o in zip(words["ref"], words[s])] for s in WMT_SYSTEMS}
    table = tmp_path / "nltk_sentbleu.tsv"
    table.write_text(
        "\t".join(WMT_SYSTEMS) + "\n" + "".join("\t".join(repr(scores[s][i]) for s in WMT_SYSTEMS) + "\n"
                                                for i in range(1984)),
        encoding="utf-8",
    )  # fmt: skip
    res = mtsig.analyze([files["ref"]], {s: files[s] for s in WMT_SYSTEMS}, ["seg"], by=["sentence-score"],
                        seg_scores=[str(table)], cutoffs={"sentence-score": [10, 20, 30, 40, 50, 60, 70, 80, 90]},
                        n_resamples=200, n_bootstrap=100)  # fmt: skip
    a = res.analyses[1]
    assert [x.label for x in a.buckets] == [x.replace(".0", "") for x in bucketer.bucket_strs]
    for s in WMT_SYSTEMS:
        corpus = bucketer.create_bucketed_corpus(words[s], ref=words["ref"])
        assert [a.buckets[i].systems[s].n_segments for i in range(len(corpus))] == [len(c[0]) for c in corpus]


def test_characteristic_ngrams_equal_compare_mt(cmt, tokenized, result):
    _, _, ngram_utils, stat_utils = cmt
    _, words = tokenized
    matches = {s: ngram_utils.compare_ngrams(words["ref"], words[s])[1] for s in WMT_SYSTEMS}
    items = result.get("ngrams").items
    pairs = {(i["a"], i["b"]) for i in items}
    assert len(pairs) == 6
    for a, b in pairs:
        scores = stat_utils.extract_salient_features(matches[a], matches[b], alpha=1.0)
        ranked = sorted(scores.values(), reverse=True)
        ours_a = [i for i in items if (i["a"], i["b"]) == (a, b) and i["favours"] == a]
        ours_b = [i for i in items if (i["a"], i["b"]) == (a, b) and i["favours"] == b]
        assert len(ours_a) == len(ours_b) == 50
        # the same top-50 ratios each way (which n-grams among equal ratios is compare-mt's hash order)
        assert [i["ratio"] for i in ours_a] == pytest.approx(ranked[:50], rel=1e-12)
        assert [i["ratio"] for i in ours_b] == pytest.approx(sorted(scores.values())[:50], rel=1e-12)
        for i in ours_a + ours_b:
            ng = tuple(i["ngram"].split(" "))
            assert (i["count_a"], i["count_b"]) == (matches[a][ng], matches[b][ng])
            assert math.isclose(scores[ng], i["ratio"], rel_tol=1e-12)
