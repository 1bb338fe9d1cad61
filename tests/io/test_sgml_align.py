"""Aligning SGML sets by (document, segment): sets in the reference's order take the direct path, any other
order is looked up key by key, and both give the segments in the reference's order (or the same error)."""

from __future__ import annotations

import itertools

import pytest

from mtsig.errors import InputError
from mtsig.io.sgml import SgmlSet, align


def _set(name: str, docs: dict[str, dict[str, str]], kind: str = "tstset") -> SgmlSet:
    st = SgmlSet(kind, name, f"{name}.sgm")
    st.docs = {d: dict(segs) for d, segs in docs.items()}
    return st


REF = {"d1": {"1": "a", "2": "b"}, "d2": {"1": "c"}, "d3": {"7": "d", "3": "e"}}


def test_any_document_and_segment_order_gives_the_reference_order():
    ref = _set("ref", REF, "refset")
    want = ["a", "b", "c", "d", "e"]
    for docs in itertools.permutations(REF):
        for flip in (False, True):  # segments of each document in their order or reversed
            sys_docs = {d: dict(reversed(REF[d].items())) if flip else REF[d] for d in docs}
            sys_docs = {d: {s: t.upper() for s, t in segs.items()} for d, segs in sys_docs.items()}
            for order in (None, ref.keys()):
                keys, out = align([ref, _set("S", sys_docs)], order=order)
                assert keys == ref.keys() and out == [want, [t.upper() for t in want]]


def test_the_direct_path_keeps_every_error():
    ref = _set("ref", {**REF, "d4": {}}, "refset")  # a document without segments must still be present
    with pytest.raises(InputError, match="document 'd4' is missing from system 'S'"):
        align([ref, _set("S", REF)])
    extra = {**REF, "d2": {"1": "c", "2": "x"}}
    with pytest.raises(InputError, match="has segment '2' of document 'd2'"):
        align([_set("ref", REF, "refset"), _set("S", extra)])
    short = {**REF, "d3": {"7": "d"}}
    with pytest.raises(InputError, match="segment '3' of document 'd3' is missing"):
        align([_set("ref", REF, "refset"), _set("S", short)])
