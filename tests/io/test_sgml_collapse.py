"""The SGML reader's whitespace collapse skips its regular expression only where that changes nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mtsig.io import sgml


def test_every_collapsed_character_but_the_space_is_non_printable():
    chars = [chr(c) for c in range(0x110000) if sgml._WS.match(chr(c))]
    assert " " in chars and "\xa0" in chars and "\u3000" in chars
    assert [c for c in chars if c != " " and c.isprintable()] == []


@settings(max_examples=1000, deadline=None)
@given(st.text(st.sampled_from(list("ab .\t\n\r\xa0\u2028\u3000\x1c\x85Ü")), max_size=20))
def test_collapse_equals_the_regular_expression(text):
    assert sgml._collapse(text) == sgml._WS.sub(" ", text).strip(" ")
