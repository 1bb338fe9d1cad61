"""Statistics computed chunk by chunk (large test sets) equal those of the whole corpus."""

from __future__ import annotations

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.io.load import System
from mtsig.io.segments import RefSet, Segments
from mtsig.io.text import read_lines
from mtsig.metrics import get_metric
from mtsig.pipeline import compute_stats
from tests.data import wmt_hyp, wmt_ref

METRICS = ["bleu", "nist", "ter", "chrf", "length", "mbleu"]


def _inputs(d):
    refs = RefSet([Segments(read_lines(wmt_ref(d, r)), name=f"ref{r}") for r in "AB"])
    systems = [System(s, [Segments(read_lines(wmt_hyp(d, s)))], [wmt_hyp(d, s)]) for s in ("LT22", "PROMT")]
    return refs, systems


@pytest.mark.parametrize(
    "options", [{}, {"nist_order": 3, "bleu_order": 6, "lowercase": True}, {"tokenize": "mteval-13a"}]
)
def test_chunked_statistics_equal_the_whole_corpus(wmt, options):
    refs, systems = _inputs(wmt)
    whole = compute_stats(refs, systems, [get_metric(m, **_for(m, options)) for m in METRICS])
    part = compute_stats(refs, systems, [get_metric(m, **_for(m, options)) for m in METRICS], chunk=333)
    for m in METRICS:
        for s in ("LT22", "PROMT"):
            a, b = whole.stats[m][s], part.stats[m][s]
            assert a.shape == b.shape and a.dtype == b.dtype == np.float64
            if m == "nist":  # same weights; the sums of weights inside a segment add in another order
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
                assert float(get_metric("nist").score(b[0].sum(axis=0))) == pytest.approx(
                    float(get_metric("nist").score(a[0].sum(axis=0))), abs=1e-10)  # fmt: skip
            else:
                assert np.array_equal(a, b), m


def _for(metric: str, options: dict) -> dict:
    declared = get_metric(metric).declared_options()
    return {k: v for k, v in options.items() if k in declared}


def test_errors_in_a_chunk_name_the_segment_of_the_whole_file():
    long = " ".join(f"w{i}" for i in range(12_000))
    lines = ["a b"] * 25 + [long]
    refs = RefSet([Segments([*lines[:-1], long + " x"], name="ref")])
    systems = [System("A", [Segments(lines, name="hyp", source="hyp.txt")], ["hyp.txt"])]
    with pytest.raises(InputError, match="segment 26 of hyp.txt"):
        compute_stats(refs, systems, [get_metric("ter")], chunk=10)


def test_chunked_nist_weights_on_small_corner_cases():
    """Words and n-grams seen once (forgotten after counting), the scorer's "0" quirk on them, an empty
    reference line, a reference of one word: chunks of one segment give the whole corpus' weights."""
    refs = RefSet([Segments(["0 a b", "a 0 c d", "x", "", "a b a b a b", "0 0 0"], name="r1"),
                   Segments(["0 z", "a b c d e f", "y y", "q", "b a", "0 a b"], name="r2")])  # fmt: skip
    hyp = Segments(["0 a b c", "a 0 c d e", "x y", "q", "a b a b", "0 0 a b"], name="h")
    systems = [System("H", [hyp], ["h"])]
    whole = compute_stats(refs, systems, [get_metric("nist")])
    for chunk in (1, 2, 4):
        part = compute_stats(refs, systems, [get_metric("nist")], chunk=chunk)
        np.testing.assert_allclose(part.stats["nist"]["H"], whole.stats["nist"]["H"], rtol=1e-12, atol=1e-12)
    assert whole.stats["nist"]["H"][0, :, 2].sum() > 0
