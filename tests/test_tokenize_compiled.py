"""The compiled 13a rules and word coding (mtsig._tok) against the regular-expression rules they replace.

The Python rules (``mtsig.tokenize._13a_rules`` plus a whitespace split) stay the reference; the compiled
scan must give the same tokens on every input: real data, generated text over the characters the rules look
at, and arbitrary Unicode. The per-word fallback used without a compiler is held to the same reference.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mtsig import tokenize as tk
from mtsig.io.text import read_lines
from tests.data import WMT_SYSTEMS, wmt_hyp, wmt_ref

# Characters the rules treat specially, whitespace Python and Perl disagree on, and some non-ASCII
RULE_CHARS = list("ab0 19.,-&;:'\"/()[]{}<>~`@#$%^*+=?!|\\_\t\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u2028\u3000ÜßΣ€٣")


def reference(line: str, perl: bool) -> list[str]:
    """The regular-expression rules on one line framed by spaces, then a whitespace split."""
    split = tk._split_perl if perl else str.split
    return split(tk._13a_rules(f" {line} "))


def test_compiled_tokenizer_is_built():
    assert tk._tok is not None, "mtsig._tok was not built: install with a C compiler available"


def _check(lines: list[str]) -> None:
    for perl in (False, True):
        want = [reference(x, perl) for x in lines]
        assert tk._tok.rules_13a(lines, perl) == want, perl
        split = tk._split_perl if perl else str.split
        assert tk._rules_by_word("\n".join(lines), split) == want, perl


def test_compiled_rules_equal_regex_rules_on_real_data(wmt, multeval):
    lines = read_lines(wmt_ref(wmt, "A")) + read_lines(wmt_ref(wmt, "B"))
    for s in WMT_SYSTEMS:
        lines += read_lines(wmt_hyp(wmt, s))
    lines += read_lines(wmt / "generaltest2022.de-en.src.de")
    lines += read_lines(multeval / "refs.test2010.lc.tok.en.0")
    lines += read_lines(multeval / "hyps.lc.tok.en.sys1.opt0")
    _check(lines)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.lists(st.sampled_from(RULE_CHARS), max_size=30).map("".join), min_size=1, max_size=4))
def test_compiled_rules_equal_regex_rules_on_rule_characters(lines):
    _check(lines)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_characters="\n"), max_size=30), min_size=1, max_size=3))
def test_compiled_rules_equal_regex_rules_on_any_unicode(lines):
    _check(lines)


def test_compiled_rules_on_known_cases():
    got = tk._tok.rules_13a(["It costs $3.50, (approx.) 1,000-2,000.", "a.,b", "x..", "3-4-5", "", " "], False)
    assert got == [
        ["It", "costs", "$", "3.50", ",", "(", "approx", ".", ")", "1,000", "-", "2,000", "."],
        ["a", ".", ",", "b"],
        ["x", ".", "."],
        ["3", "-", "4", "-", "5"],
        [],
        [],
    ]
    assert tk._tok.rules_13a(["c\x1fd"], True) == [["c\x1fd"]]
    assert tk._tok.rules_13a(["c\x1fd"], False) == [["c", "d"]]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["a", "b", "ab", "Ü", "0", "", " "]), max_size=6), max_size=6),
    st.lists(st.sampled_from(["a", "b", "z"]), max_size=3, unique=True),
    st.booleans(),
)
def test_code_words_compiled_equals_python(lists, known, grow):
    v1 = {w: i for i, w in enumerate(known)}
    v2 = dict(v1)
    ids, lens = tk.code_words(lists, v1, grow)
    saved, tk._tok = tk._tok, None
    try:
        ids2, lens2 = tk.code_words(lists, v2, grow)
    finally:
        tk._tok = saved
    assert ids.dtype == ids2.dtype == np.int64
    assert ids.tolist() == ids2.tolist() and lens.tolist() == lens2.tolist()
    assert v1 == v2
    if not grow:
        assert all((i == -1) == (w not in known) for i, w in zip(ids.tolist(), [w for t in lists for w in t]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(RULE_CHARS), max_size=40), max_size=30), st.booleans())
def test_compiled_split_equals_str_split(lines, lowercase):
    """The "none" tokenizer (each line split on whitespace, repeated tokens interned) equals str.split."""
    from mtsig.io.segments import Segments

    want = [(ln.lower() if lowercase else ln).split() for ln in lines]
    assert tk.Tokenizer("none", lowercase).tokenize_all(Segments.of(lines)) == want
    assert tk._tok.rules_13a(lines, False, False) == [ln.split() for ln in lines]


def test_pair_codes_equal_a_search_of_the_whole_table():
    """The n-gram lookup within one prefix's entries finds what a search of the whole sorted table finds."""
    rng = np.random.default_rng(0)
    for V, C in [(5, 3), (50, 40), (1000, 3000), (1, 1)]:
        table = np.unique(rng.integers(0, C, 5000) * V + rng.integers(0, V, 5000))
        starts = np.searchsorted(table, np.arange(C + 1) * V)
        prev, nxt = rng.integers(-1, C, 20_000), rng.integers(-1, V, 20_000)
        out = np.empty(20_000, np.int64)
        tk._tok.pair_codes(table, starts, prev, nxt, V, out)
        q = prev * V + nxt
        pos = np.searchsorted(table, q)
        pos[pos == table.size] = 0
        want = np.where((table[pos] == q) & (prev >= 0) & (nxt >= 0), pos, -1)
        assert np.array_equal(out, want) and (out >= 0).any()
