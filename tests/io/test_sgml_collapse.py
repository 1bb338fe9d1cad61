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


SEG_PARTS = [*"ab .&;\t\r\xa0\u2028\u3000\x1c\x85\u200b\x00Ü\n", "  ", "&amp;"]
SEGMENT = st.lists(st.sampled_from(SEG_PARTS), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(SEGMENT, min_size=1, max_size=6), min_size=1, max_size=3),
    st.sampled_from(["\n", "", "\n\n  ", "<p>"]),
    st.booleans(),
)
def test_documents_read_at_once_equal_the_tag_by_tag_reading(docs, between, dup):
    """A document's plain segments read in one pass give what the tag-by-tag reader gives (which the reader
    falls back to for anything else: other tags between segments, a repeated id)."""
    body = []
    for d, segs in enumerate(docs):
        ids = [str(i + 1) for i in range(len(segs))]
        if dup and len(ids) > 1:
            ids[-1] = ids[0]
        body.append(f'<doc docid="d{d}" sysid="s">')
        body += [f'{between}<seg id="{i}">{t}</seg>' for i, t in zip(ids, segs)]
        body.append("</doc>")
    text = '<tstset setid="x" srclang="de" trglang="en">\n' + "\n".join(body) + "\n</tstset>\n"

    def read(fast: bool):
        r = sgml._SgmlReader("t.sgm", text)
        if not fast:
            r.plain_segments = lambda pos: pos
        try:
            return [(s.kind, s.name, s.docs) for s in r.read()]
        except Exception as exc:  # noqa: BLE001 - both readers must fail alike
            return (type(exc), str(exc))

    assert read(True) == read(False)
