"""Hypothesis property tests of the statistics and of the tests built on them."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mtsig
from mtsig.metrics.ngrams import NgramIndex
from mtsig.stats.paired import approximate_randomization, paired_bootstrap

WORDS = ["a", "b", "c", "0", "d", "e"]
seg = st.lists(st.sampled_from(WORDS), min_size=0, max_size=9).map(" ".join)
nonempty = st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(" ".join)


@st.composite
def corpus(draw, n_refs=None):
    n = draw(st.integers(1, 8))
    k = n_refs or draw(st.integers(1, 3))
    refs = [[draw(nonempty) for _ in range(n)] for _ in range(k)]
    hyps = [[draw(seg) for _ in range(n)] for _ in range(2)]
    return refs, hyps


def naive_bleu_stats(hyp: str, refs: list[str], order: int):
    """Textbook per-segment counts with dictionaries, to check the vectorized engine."""
    h = hyp.split()
    row = [len(h)]
    lens = [len(r.split()) for r in refs]
    row.append(min(lens, key=lambda L: (abs(L - len(h)), L)))
    matches, totals = [], []
    for n in range(1, order + 1):
        hc = Counter(tuple(h[i : i + n]) for i in range(len(h) - n + 1))
        mx: Counter = Counter()
        for r in refs:
            rt = r.split()
            for g, c in Counter(tuple(rt[i : i + n]) for i in range(len(rt) - n + 1)).items():
                mx[g] = max(mx[g], c)
        matches.append(sum(min(c, mx[g]) for g, c in hc.items()))
        totals.append(max(len(h) - n + 1, 0))
    return row + matches + totals


def naive_corpus_score(name: str, hyps: list[str], refs: list[list[str]]) -> float:
    """BLEU (sacreBLEU's exp smoothing) or the length ratio from naive counts, one scalar at a time."""
    rows = [naive_bleu_stats(h, [r[i] for r in refs], 4) for i, h in enumerate(hyps)]
    hyp_len, ref_len = sum(r[0] for r in rows), sum(r[1] for r in rows)
    if name == "length":
        return 100.0 * hyp_len / ref_len if ref_len else (math.inf if hyp_len else math.nan)
    if hyp_len == 0:
        return 0.0
    logs, k = 0.0, 0
    if all(sum(r[2 + n] for r in rows) == 0 for n in range(4)):
        return 0.0  # no match at any order: sacreBLEU stops early with 0
    for n in range(4):
        m, t = sum(r[2 + n] for r in rows), sum(r[6 + n] for r in rows)
        if t == 0:
            return 0.0  # no hypothesis n-gram of this order: precision 0, so BLEU 0 (sacreBLEU)
        if m == 0:
            k += 1
            logs += math.log(1 / (2**k * t))
        else:
            logs += math.log(m / t)
    bp = math.exp(min(0.0, 1 - ref_len / hyp_len))
    return 100.0 * bp * math.exp(logs / 4)


@settings(max_examples=60, deadline=None)
@given(corpus())
def test_vectorized_counts_equal_naive_counts(data):
    refs, hyps = data
    m = mtsig.get_metric("bleu", tokenize="none")
    S = m.stats(hyps[0], refs)
    for i, h in enumerate(hyps[0]):
        assert list(S[i]) == naive_bleu_stats(h, [r[i] for r in refs], 4)


@settings(max_examples=40, deadline=None)
@given(corpus())
def test_nist_weights_equal_naive_definition(data):
    refs, _ = data
    toks = [[s.split() for s in r] for r in refs]
    idx = NgramIndex(toks, 3)
    counts: Counter = Counter()
    total = 0
    for r in toks:
        for t in r:
            total += len(t)
            for n in range(1, 4):
                for i in range(len(t) - n + 1):
                    counts[tuple(t[i : i + n])] += 1
    info = idx.nist_info()
    inv_vocab = {v: k for k, v in idx.vocab.items()}
    for n in range(1, 4):
        for code in range(len(info[n - 1])):
            # rebuild the n-gram of this code
            g = []
            c = code
            for k in range(n, 1, -1):
                g.append(inv_vocab[int(idx.tables[k - 1][c] % idx.V)])
                c = int(idx.tables[k - 1][c] // idx.V)
            g.append(inv_vocab[c])
            g = tuple(reversed(g))
            prefix = g[:-1]
            denom = total if (n == 1 or prefix == ("0",)) else counts[prefix]
            assert math.isclose(info[n - 1][code], math.log2(denom / counts[g]), rel_tol=1e-12)


@settings(max_examples=40, deadline=None)
@given(corpus(), st.randoms(use_true_random=False))
def test_order_of_segments_does_not_change_corpus_scores(data, rnd):
    refs, hyps = data
    perm = list(range(len(hyps[0])))
    rnd.shuffle(perm)
    for name in ("bleu", "nist", "mbleu", "length"):
        m1, m2 = mtsig.get_metric(name, tokenize="none"), mtsig.get_metric(name, tokenize="none")
        a = m1.corpus_score(m1.stats(hyps[0], refs))
        b = m2.corpus_score(m2.stats([hyps[0][i] for i in perm], [[r[i] for i in perm] for r in refs]))
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b))


@settings(max_examples=40, deadline=None)
@given(corpus(), corpus())
def test_stats_of_concatenation_are_concatenated_stats(d1, d2):
    (r1, h1), (r2, h2) = d1, d2
    k = min(len(r1), len(r2))
    r1, r2 = r1[:k], r2[:k]
    for name in ("bleu", "length"):
        m = mtsig.get_metric(name, tokenize="none")
        whole = m.stats(h1[0] + h2[0], [a + b for a, b in zip(r1, r2)])
        parts = np.vstack(
            [
                mtsig.get_metric(name, tokenize="none").stats(h1[0], r1),
                mtsig.get_metric(name, tokenize="none").stats(h2[0], r2),
            ]
        )
        np.testing.assert_array_equal(whole, parts)
        # and the corpus score equals the textbook formula on the naive counts of the whole corpus
        want = naive_corpus_score(name, h1[0] + h2[0], [a + b for a, b in zip(r1, r2)])
        got = m.corpus_score(whole)
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12) or (math.isnan(got) and math.isnan(want))


@settings(max_examples=25, deadline=None)
@given(corpus(n_refs=1), st.integers(0, 2**31 - 1))
def test_swapping_systems_flips_delta_and_keeps_p(data, seed):
    refs, hyps = data
    m = mtsig.get_metric("bleu", tokenize="none")
    m.prepare(refs)
    a, b = m.stats(hyps[0]), m.stats(hyps[1])
    r1 = approximate_randomization(a, b, m, 200, seed=seed)
    r2 = approximate_randomization(b, a, m, 200, seed=seed)
    assert r1.delta == -r2.delta
    assert r1.p_value == r2.p_value
    # as compare, no bootstrap test on fewer than 10 segments: the corpus repeated to 10 or more
    with pytest.raises(mtsig.InputError, match="at least 10 segments"):
        paired_bootstrap(a, b, m, 200, seed=seed)
    k = -(-10 // a.shape[0])
    a, b = np.tile(a, (k, 1)), np.tile(b, (k, 1))
    s1, s2 = paired_bootstrap(a, b, m, 200, seed=seed), paired_bootstrap(b, a, m, 200, seed=seed)
    assert s1.p_value == s2.p_value


@settings(max_examples=25, deadline=None)
@given(corpus(), st.integers(0, 2**31 - 1))
def test_identical_systems_get_p_one(data, seed):
    refs, hyps = data
    for name in ("bleu", "nist", "mbleu", "length"):
        m = mtsig.get_metric(name, tokenize="none")
        s = m.stats(hyps[0], refs)
        assert approximate_randomization(s, s.copy(), m, 100, seed=seed).p_value == 1.0
