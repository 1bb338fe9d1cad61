"""The compiled n-gram lookup and clipping give the numpy path's matches and NIST information bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from mtsig.io.segments import Segments
from mtsig.io.text import read_lines
from mtsig.metrics import ngrams
from mtsig.tokenize import Tokenizer
from tests.data import WMT_SYSTEMS, wmt_hyp, wmt_ref


@pytest.mark.parametrize("tokenizer", ["mteval-13a", "13a", "none"])
def test_compiled_matching_equals_numpy_on_real_data(wmt, tokenizer, monkeypatch):
    tok = Tokenizer(tokenizer, tokenizer == "none")
    refs = [tok.tokenize_all(Segments.of(read_lines(wmt_ref(wmt, r)))) for r in "AB"]
    hyps = [tok.tokenize_all(Segments.of(read_lines(wmt_hyp(wmt, s)))) for s in WMT_SYSTEMS]
    idx = ngrams.NgramIndex(refs, 5)
    compiled = [idx.match(h, info=True) for h in hyps]
    monkeypatch.setattr(ngrams, "_tok", None)
    plain = ngrams.NgramIndex(refs, 5)
    for h, got in zip(hyps, compiled):
        want = plain.match(h, info=True)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and np.array_equal(g, w)  # the information weights too, bit for bit
    assert sum(float(c[1].sum()) for c in compiled) > 10_000


def test_compiled_matching_equals_numpy_on_generated_text(monkeypatch):
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(12)]

    def text(n):
        return [[words[j] for j in rng.integers(0, 12, rng.integers(0, 30))] for _ in range(n)]

    refs, hyps = [text(400), text(400)], [text(400) for _ in range(3)]
    compiled = ngrams.NgramIndex(refs, 6)
    got = [compiled.match(h, info=True) for h in hyps]
    monkeypatch.setattr(ngrams, "_tok", None)
    plain = ngrams.NgramIndex(refs, 6)
    for h, g in zip(hyps, got):
        assert all(np.array_equal(a, b) for a, b in zip(g, plain.match(h, info=True)))
    assert sum(float(g[1].sum()) for g in got) > 1000
