"""NIST mteval SGML and XML readers.

What the NIST scorer (mteval-v13a) accepts, read the same way:
- ``srcset``, ``refset`` and ``tstset`` elements (case-insensitive), each with ``doc`` elements
  holding ``seg`` elements with an ``id``; several sets in one file and sets spread across files.
- In SGML the system (or reference) a document belongs to is the ``sysid`` of its ``doc`` tag,
  falling back to the set's ``sysid``/``refid``; a ``refset`` may therefore hold several references.
- Whitespace inside a document (newlines included) collapses to one space, as the scorer does.
- Entities are *not* replaced here for the mteval tokenizers (their tokenizer replaces
  ``&quot; &amp; &lt; &gt;``, exactly as the scorer does); :func:`unescape_entities` is applied for the
  other tokenizers.
- Files ending in ``.xml`` (or starting with ``<?xml``) are parsed as XML, as the scorer does.

Segments are aligned across sets by (docid, segid), never by position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mtsig.errors import InputError
from mtsig.io.text import read_text

_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][\w.:-]*)([^>]*)>", re.S)
_ATTR = re.compile(r"""([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.S)
_WS_CHARS = r"\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_WS = re.compile(f"[{_WS_CHARS}]+")
_WS_NOT_SPACE = re.compile(f"[{_WS_CHARS.replace(' ', '')}]")
_SETS = ("srcset", "refset", "tstset")


@dataclass
class SgmlSet:
    """All documents of one system or reference (one ``sysid``) of one kind of set."""

    kind: str  # "srcset" | "refset" | "tstset"
    name: str  # sysid / refid
    path: str
    setid: str = ""
    srclang: str = ""
    trglang: str = ""
    docs: dict[str, dict[str, str]] = field(default_factory=dict)

    def keys(self) -> list[tuple[str, str]]:
        return [(d, s) for d, segs in self.docs.items() for s in segs]

    def n_segments(self) -> int:
        return sum(len(s) for s in self.docs.values())


def unescape_entities(text: str) -> str:
    """Replace SGML/XML character entities (named and numeric) once."""
    if "&" not in text:
        return text
    import html

    return html.unescape(text)


def _attrs(raw: str) -> dict[str, str]:
    out = {}
    for m in _ATTR.finditer(raw):
        val = next(v for v in m.groups()[1:] if v is not None)
        out[m.group(1).lower()] = val
    return out


def _collapse(text: str) -> str:
    """Whitespace runs (Perl's \\s) to one space, ends stripped. Every such character but the space is
    non-printable to Python, so printable text without double spaces skips the regular expression."""
    if "  " in text or not text.isprintable():
        text = _WS.sub(" ", text)
    return text.strip(" ")


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


class _Where:
    """ "PATH: line N" of a tag, its line counted only when an error message is formatted (counting for
    every tag made reading quadratic in the file's size)."""

    __slots__ = ("path", "text", "pos")

    def __init__(self, path, text: str, pos: int):
        self.path, self.text, self.pos = path, text, pos

    def __str__(self) -> str:
        return f"{self.path}: line {_line_of(self.text, self.pos)}"


def read_sgml(path: str, text: str | None = None) -> list[SgmlSet]:
    """Read every set of a NIST SGML/XML file; returns one :class:`SgmlSet` per (kind, sysid)."""
    if text is None:
        text = read_text(path)
    if str(path).lower().endswith(".xml") or text.lstrip().startswith("<?xml"):
        return _read_xml(path, text)
    return _read_sgml_text(path, text)


_SEG_END = re.compile(r"<\s*/\s*seg\s*>", re.I)
_SEG_START = re.compile(r"<\s*seg[\s>]", re.I)
# a segment's text holding no "<" and its closing tag: the first "<" is then the first </seg> (no <seg> before)
_SEG_TAIL = re.compile(r"([^<]*)<\s*/\s*seg\s*>", re.I)


# a document's segments in the form the NIST tools write (one exact tag shape, text without "<"), up to its
# exact closing tag: split out in one pass of the regular expression engine, not read tag by tag
_PLAIN_SEG = re.compile(r'<seg id="([^"<>]*)">([^<]*)</seg>')


def _collapse_all(texts: list[str]) -> list[str]:
    """:func:`_collapse` of every text: one check of them all when none has a whitespace run to collapse,
    otherwise the substitution only in the texts that have one (two double spaces in a reference document
    made a substitution over all its text cost as much as reading it)."""
    flat = "".join(texts)
    if "  " not in flat and (flat.isprintable() or not _WS_NOT_SPACE.search(flat)):  # nothing to collapse
        return [t.strip(" ") for t in texts]
    return [_collapse(t) for t in texts]


class _SgmlReader:
    """A pass over the tags of a NIST SGML file, one method per element (set, doc, seg)."""

    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.sets: dict[tuple[str, str], SgmlSet] = {}
        self.cur_set: tuple[str, dict[str, str], int] | None = None  # kind, attrs, pos
        self.cur_doc: tuple[SgmlSet, str, int] | None = None  # owner set, docid, pos
        self.n_sets = 0

    def read(self) -> list[SgmlSet]:
        pos = 0
        while (m := _TAG.search(self.text, pos)) is not None:
            closing, tag, rest = m.group(1) == "/", m.group(2).lower(), m.group(3)
            pos = m.end()
            where = _Where(self.path, self.text, m.start())
            if tag in _SETS:
                self._set_tag(tag, closing, rest, m.start(), where)
            elif tag == "doc":
                self._doc_tag(closing, rest, m.start(), where)
                if not closing:
                    pos = self.plain_segments(pos)
            elif tag == "seg":
                pos = self._seg(closing, rest, pos, where)
        return self._finish()

    def _set_tag(self, tag: str, closing: bool, rest: str, start: int, where: _Where) -> None:
        if not closing:
            if self.cur_set is not None:
                raise InputError(f"{where}: <{tag}> opened inside <{self.cur_set[0]}> (missing </{self.cur_set[0]}>?)")
            self.cur_set = (tag, _attrs(rest), start)
            self.n_sets += 1
            return
        if self.cur_set is None or self.cur_set[0] != tag:
            raise InputError(f"{where}: </{tag}> without a matching <{tag}>")
        if self.cur_doc is not None:
            raise InputError(f"{where}: </{tag}> closes the set while <doc> is still open")
        self.cur_set = None

    def _owner(self, kind: str, set_attrs: dict[str, str], sysid: str) -> SgmlSet:
        key = (kind, sysid)
        if key not in self.sets:
            self.sets[key] = SgmlSet(
                kind, sysid, str(self.path), set_attrs.get("setid", ""), set_attrs.get("srclang", ""),
                set_attrs.get("trglang", ""),
            )  # fmt: skip
        return self.sets[key]

    def _doc_tag(self, closing: bool, rest: str, start: int, where: _Where) -> None:
        if closing:
            if self.cur_doc is None:
                raise InputError(f"{where}: </doc> without a matching <doc>")
            if not self.cur_doc[0].docs[self.cur_doc[1]]:
                raise InputError(f"{where}: document {self.cur_doc[1]!r} has no segments")
            self.cur_doc = None
            return
        if self.cur_set is None:
            raise InputError(f"{where}: <doc> outside of a srcset/refset/tstset")
        if self.cur_doc is not None:
            raise InputError(f"{where}: <doc> opened inside another <doc> (missing </doc>?)")
        kind, set_attrs, _ = self.cur_set
        a = _attrs(rest)
        docid = a.get("docid")
        if not docid:
            raise InputError(f"{where}: <doc> without a docid attribute")
        sysid = (
            a.get("sysid") or set_attrs.get("sysid") or set_attrs.get("refid") or ("source" if kind == "srcset" else "")
        )
        if not sysid:
            raise InputError(f"{where}: <doc docid={docid!r}> has no sysid (on the doc or its set)")
        owner = self._owner(kind, set_attrs, sysid)
        if docid in owner.docs:
            raise InputError(f"{where}: document {docid!r} appears twice for {sysid!r}")
        owner.docs[docid] = {}
        self.cur_doc = (owner, docid, start)

    def plain_segments(self, pos: int) -> int:
        """At ``pos``, just inside a document: read its segments at once when they all have the plain form
        (distinct, non-empty ids) and return the position of its ``</doc>``; otherwise read nothing and
        return ``pos`` (the tag-by-tag reading then finds the same segments, or says what is wrong)."""
        end = self.text.find("</doc>", pos)
        if end < 0:
            return pos
        parts = _PLAIN_SEG.split(self.text[pos:end])  # between, id, text, between, id, text, ..., between
        between, ids = parts[0::3], parts[1::3]
        gaps = "".join(between)
        if (gaps and not gaps.isspace()) or not all(ids) or len(set(ids)) != len(ids):
            return pos
        texts = _collapse_all(parts[2::3])
        assert self.cur_doc is not None  # called just inside a document
        owner, docid, _ = self.cur_doc
        owner.docs[docid] = dict(zip(ids, texts))
        return end

    def _seg(self, closing: bool, rest: str, pos: int, where: _Where) -> int:
        """Read one segment's text; returns the position after its ``</seg>``."""
        if closing:
            raise InputError(f"{where}: </seg> without a matching <seg>")
        if self.cur_doc is None:
            raise InputError(f"{where}: <seg> outside of a <doc>")
        segid = _attrs(rest).get("id")
        if segid is None or segid == "":
            raise InputError(f"{where}: <seg> without an id attribute")
        plain = _SEG_TAIL.match(self.text, pos)  # text without any "<", then </seg>: the usual case
        if plain is not None:
            text, after = plain.group(1), plain.end()
        else:
            end = _SEG_END.search(self.text, pos)
            nxt = _SEG_START.search(self.text, pos)
            if end is None or (nxt is not None and nxt.start() < end.start()):
                raise InputError(f"{where}: <seg id={segid!r}> is not closed by </seg>")
            text, after = self.text[pos : end.start()], end.end()
        owner, docid, _ = self.cur_doc
        segs = owner.docs[docid]
        if segid in segs:
            raise InputError(f"{where}: segment id {segid!r} appears twice in document {docid!r}")
        segs[segid] = _collapse(text)
        return after

    def _finish(self) -> list[SgmlSet]:
        if self.cur_doc is not None:
            raise InputError(
                f"{self.path}: line {_line_of(self.text, self.cur_doc[2])}: <doc> is never closed by </doc>"
            )
        if self.cur_set is not None:
            line = _line_of(self.text, self.cur_set[2])
            raise InputError(f"{self.path}: line {line}: <{self.cur_set[0]}> is never closed")
        if self.n_sets == 0:
            raise InputError(f"{self.path}: no srcset, refset or tstset element: not a NIST SGML file")
        if not self.sets:
            raise InputError(f"{self.path}: the file has sets but no documents")
        return list(self.sets.values())


def _read_sgml_text(path: str, text: str) -> list[SgmlSet]:
    return _SgmlReader(path, text).read()


def _lower_attrs(e) -> dict[str, str]:
    return {k.lower(): v for k, v in e.attrib.items()}


def _xml_doc(path: str, d, kind: str, name: str) -> tuple[str, dict[str, str]]:
    """One ``<doc>`` of an XML set: its id and segments."""
    docid = _lower_attrs(d).get("docid")
    if not docid:
        raise InputError(f"{path}: <doc> without a docid attribute in {kind} {name!r}")
    segs: dict[str, str] = {}
    for g in d.iter():
        if g.tag.lower() != "seg":
            continue
        segid = _lower_attrs(g).get("id")
        if not segid:
            raise InputError(f"{path}: <seg> without an id in document {docid!r}")
        if segid in segs:
            raise InputError(f"{path}: segment id {segid!r} appears twice in document {docid!r}")
        segs[segid] = _WS.sub(" ", "".join(g.itertext())).strip(" ")
    if not segs:
        raise InputError(f"{path}: document {docid!r} has no segments")
    return docid, segs


def _xml_set(path: str, s) -> SgmlSet:
    kind = s.tag.lower()
    a = _lower_attrs(s)
    name = a.get("sysid") or a.get("refid") or ("source" if kind == "srcset" else "")
    if not name:
        raise InputError(f"{path}: <{s.tag}> without a {'sysid' if kind == 'tstset' else 'refid'} attribute")
    st = SgmlSet(kind, name, str(path), a.get("setid", ""), a.get("srclang", ""), a.get("trglang", ""))
    for d in s.iter():
        if d.tag.lower() == "doc":
            docid, segs = _xml_doc(path, d, kind, name)
            if docid in st.docs:
                raise InputError(f"{path}: document {docid!r} appears twice in {kind} {name!r}")
            st.docs[docid] = segs
    return st


def _read_xml(path: str, text: str) -> list[SgmlSet]:
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise InputError(f"{path}: malformed XML: {exc}") from None
    out: list[SgmlSet] = []
    set_elems = [root] if root.tag.lower() in _SETS else [e for e in root if e.tag.lower() in _SETS]
    if not set_elems:
        raise InputError(f"{path}: no srcset, refset or tstset element: not a NIST mteval XML file")
    for s in set_elems:
        st = _xml_set(path, s)
        existing = next((o for o in out if o.kind == st.kind and o.name == st.name), None)
        if existing is None:
            out.append(st)
            continue
        dup = set(existing.docs) & set(st.docs)
        if dup:
            raise InputError(f"{path}: document {sorted(dup)[0]!r} appears twice for {st.name!r}")
        existing.docs.update(st.docs)
    return out


def sgml_files_sets(paths: list[str], kind: str | None = None) -> list[SgmlSet]:
    """Read several SGML/XML files and merge the sets of the same (kind, sysid) across files."""
    merged: dict[tuple[str, str], SgmlSet] = {}
    for p in paths:
        for st in read_sgml(p):
            if kind is not None and st.kind != kind:
                continue
            key = (st.kind, st.name)
            if key in merged:
                dup = set(merged[key].docs) & set(st.docs)
                if dup:
                    raise InputError(
                        f"{p}: document {sorted(dup)[0]!r} of {st.name!r} was already read from {merged[key].path}"
                    )
                merged[key].docs.update(st.docs)
            else:
                merged[key] = st
    return list(merged.values())


def align(
    sets: list[SgmlSet], order: list[tuple[str, str]] | None = None
) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """Align sets by (docid, segid): returns the key order and each set's segments in that order.

    The order is the first set's document and segment order (or ``order`` when given). Any document or
    segment missing from a set, or extra in it, is an error naming both sides.
    """
    if not sets:
        return [], []
    first = sets[0]
    keys = list(order) if order is not None else first.keys()
    doc_order = list(first.docs) if order is None else list(dict.fromkeys(d for d, _ in keys))
    keyset = None
    out = []
    for st in sets:
        if st.keys() == keys and all(d in st.docs for d in doc_order):  # the same segments in the same order
            out.append([text for segs in st.docs.values() for text in segs.values()])
            continue
        keyset = set(keys) if keyset is None else keyset
        for docid in doc_order:
            if docid not in st.docs:
                raise InputError(
                    f"{st.path}: document {docid!r} is missing from {_label(st)} "
                    f"(it is in {_label(first)}, {first.path})"
                )
        for docid, segs in st.docs.items():
            for segid in segs:
                if (docid, segid) not in keyset:
                    raise InputError(
                        f"{st.path}: {_label(st)} has segment {segid!r} of document {docid!r}, "
                        f"which {_label(first)} ({first.path}) does not have"
                    )
        try:
            out.append([st.docs[d][s] for d, s in keys])
        except KeyError as exc:  # a segment missing from a document present on both sides
            d, s = next((d, s) for d, s in keys if s not in st.docs.get(d, {}))
            raise InputError(
                f"{st.path}: segment {s!r} of document {d!r} is missing from {_label(st)} "
                f"(it is in {_label(first)}, {first.path})"
            ) from exc
    return list(keys), out


def _label(st: SgmlSet) -> str:
    return {"srcset": "source", "refset": "reference", "tstset": "system"}[st.kind] + f" {st.name!r}"
