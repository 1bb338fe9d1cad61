"""Tokenizers: the fast 13a equals sacreBLEU's token for token; mteval modes follow the NIST scorer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from mtsig.io.text import read_lines
from mtsig.tokenize import Tokenizer, mteval_13a, mteval_intl, sacrebleu_13a
from tests.data import WMT_SYSTEMS, wmt_hyp, wmt_ref

SB = Tokenizer13a()


def test_fast_13a_equals_sacrebleu_on_real_data(wmt):
    lines = read_lines(wmt_ref(wmt, "A")) + read_lines(wmt_ref(wmt, "B"))
    for s in WMT_SYSTEMS:
        lines += read_lines(wmt_hyp(wmt, s))
    for ln in lines:
        assert sacrebleu_13a(ln) == SB(ln).split()


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            list("ab0 1.,-&;:'\"/()[]{}<>~`@#$%^*+=?!|\\_\n\tÜß€") + ["&quot;", "&amp;", "<skipped>", "-\n"]
        ),
        max_size=40,
    ).map("".join)
)
def test_fast_13a_equals_sacrebleu_on_generated_text(text):
    assert sacrebleu_13a(text) == SB(text).split()


def test_mteval_13a_lowercases_ascii_only():
    assert mteval_13a("Über ALLES", lowercase=True) == ["Über", "alles"]
    assert mteval_13a("Über ALLES", lowercase=False) == ["Über", "ALLES"]
    assert Tokenizer("13a", lowercase=True)("Über ALLES") == ["über", "alles"]


def test_mteval_13a_rules():
    assert mteval_13a("It costs $3.50, (approx.) 1,000-2,000 &quot;units&quot;.", False) == [
        "It",
        "costs",
        "$",
        "3.50",
        ",",
        "(",
        "approx",
        ".",
        ")",
        "1,000",
        "-",
        "2,000",
        '"',
        "units",
        '"',
        ".",
    ]
    # Perl's \\s: a no-break space separates words, U+001F does not
    assert mteval_13a("a\u00a0b c\x1fd", False) == ["a", "b", "c\x1fd"]


def test_mteval_intl_rules():
    assert mteval_intl("ΟΔΟΣ €5 a.b 3.5 &apos;x&apos;", lowercase=True) == [
        "οδοσ",
        "€",
        "5",
        "a",
        ".",
        "b",
        "3.5",
        "'",
        "x",
        "'",
    ]


def test_batch_tokenization_equals_per_line(wmt):
    from mtsig.io.segments import Segments

    lines = read_lines(wmt_ref(wmt, "A")) + read_lines(wmt_hyp(wmt, "LT22"))
    lines += ["", "  ", "a.,b", ".x", "x.", "3-4", "&amp;lt; <skipped> ΟΔΟΣ Über", "a\x1fb \u2028 c\xa0d"]
    for name in ("13a", "mteval-13a"):
        for lc in (False, True):
            tok = Tokenizer(name, lc)
            f = tok.function()
            assert tok.tokenize_all(Segments(list(lines))) == [f(x) for x in lines], (name, lc)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(list("ab0 1.,-&;:/()\x1f\xa0") + ["&quot;", "&amp;", "<skipped>"]), max_size=12).map(
            "".join
        ),
        min_size=1,
        max_size=5,
    )
)
def test_batch_tokenization_equals_per_line_generated(lines):
    from mtsig.io.segments import Segments

    for name in ("13a", "mteval-13a"):
        tok = Tokenizer(name, False)
        f = tok.function()
        assert tok.tokenize_all(Segments(list(lines))) == [f(x) for x in lines]


@settings(max_examples=500, deadline=None)
@given(st.text(st.characters(blacklist_characters="\n"), max_size=30), st.booleans())
def test_none_tokenizer_equals_sacrebleus_without_importing_it(text, lc):
    from sacrebleu.tokenizers.tokenizer_none import NoneTokenizer

    ref = NoneTokenizer()((text.lower() if lc else text).rstrip()).split()
    assert Tokenizer("none", lc)(text) == ref
    assert "none" in tk_names()


def tk_names():
    from mtsig.tokenize import available_tokenizers

    return available_tokenizers()


def test_multeval_split_keeps_unicode_spaces_inside_tokens():
    """MultEval (Java's \\s) and the Perl scorers split pre-tokenized text on ASCII whitespace only; sacreBLEU's
    "none" (str.split) also splits on U+00A0 (issue 29)."""
    from mtsig.tokenize import Tokenizer

    line = "les 10\u00a0000 euros\u2009!\tfin \x1c x"
    assert Tokenizer("none")(line) == ["les", "10", "000", "euros", "!", "fin", "x"]
    assert Tokenizer("multeval")(line) == ["les", "10\u00a0000", "euros\u2009!", "fin", "\x1c", "x"]
    assert Tokenizer("multeval", lowercase=True)("A\u00a0B  C") == ["a\u00a0b", "c"]
    import mtsig

    refs, hyp = ["a\u00a0b c d e f"], ["a\u00a0b c d e f"]
    assert (
        mtsig.score([refs], {"h": hyp}, tokenize="multeval").systems[0].scores["bleu"].signature.count("tok:multeval")
    )
