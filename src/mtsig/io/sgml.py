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
_WS = re.compile(r"[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
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


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def read_sgml(path: str, text: str | None = None) -> list[SgmlSet]:
    """Read every set of a NIST SGML/XML file; returns one :class:`SgmlSet` per (kind, sysid)."""
    if text is None:
        text = read_text(path)
    if str(path).lower().endswith(".xml") or text.lstrip().startswith("<?xml"):
        return _read_xml(path, text)
    return _read_sgml_text(path, text)


def _read_sgml_text(path: str, text: str) -> list[SgmlSet]:
    sets: dict[tuple[str, str], SgmlSet] = {}
    cur_set: tuple[str, dict[str, str], int] | None = None  # kind, attrs, pos
    cur_doc: tuple[SgmlSet, str, int] | None = None  # owner set, docid, pos
    pos = 0
    n_sets = 0
    while True:
        m = _TAG.search(text, pos)
        if m is None:
            break
        closing, tag, rest = m.group(1) == "/", m.group(2).lower(), m.group(3)
        pos = m.end()
        where = f"{path}: line {_line_of(text, m.start())}"
        if tag in _SETS:
            if not closing:
                if cur_set is not None:
                    raise InputError(f"{where}: <{tag}> opened inside <{cur_set[0]}> (missing </{cur_set[0]}>?)")
                cur_set = (tag, _attrs(rest), m.start())
                n_sets += 1
            else:
                if cur_set is None or cur_set[0] != tag:
                    raise InputError(f"{where}: </{tag}> without a matching <{tag}>")
                if cur_doc is not None:
                    raise InputError(f"{where}: </{tag}> closes the set while <doc> is still open")
                cur_set = None
        elif tag == "doc":
            if not closing:
                if cur_set is None:
                    raise InputError(f"{where}: <doc> outside of a srcset/refset/tstset")
                if cur_doc is not None:
                    raise InputError(f"{where}: <doc> opened inside another <doc> (missing </doc>?)")
                kind, set_attrs, _ = cur_set
                a = _attrs(rest)
                docid = a.get("docid")
                if not docid:
                    raise InputError(f"{where}: <doc> without a docid attribute")
                sysid = a.get("sysid") or set_attrs.get("sysid") or set_attrs.get("refid")
                if not sysid:
                    sysid = "source" if kind == "srcset" else ""
                if not sysid:
                    raise InputError(f"{where}: <doc docid={docid!r}> has no sysid (on the doc or its set)")
                key = (kind, sysid)
                owner = sets.get(key)
                if owner is None:
                    owner = sets[key] = SgmlSet(
                        kind,
                        sysid,
                        str(path),
                        set_attrs.get("setid", ""),
                        set_attrs.get("srclang", ""),
                        set_attrs.get("trglang", ""),
                    )
                if docid in owner.docs:
                    raise InputError(f"{where}: document {docid!r} appears twice for {sysid!r}")
                owner.docs[docid] = {}
                cur_doc = (owner, docid, m.start())
            else:
                if cur_doc is None:
                    raise InputError(f"{where}: </doc> without a matching <doc>")
                if not cur_doc[0].docs[cur_doc[1]]:
                    raise InputError(f"{where}: document {cur_doc[1]!r} has no segments")
                cur_doc = None
        elif tag == "seg":
            if closing:
                raise InputError(f"{where}: </seg> without a matching <seg>")
            if cur_doc is None:
                raise InputError(f"{where}: <seg> outside of a <doc>")
            a = _attrs(rest)
            segid = a.get("id")
            if segid is None or segid == "":
                raise InputError(f"{where}: <seg> without an id attribute")
            end = re.compile(r"<\s*/\s*seg\s*>", re.I).search(text, pos)
            nxt = re.compile(r"<\s*seg[\s>]", re.I).search(text, pos)
            if end is None or (nxt is not None and nxt.start() < end.start()):
                raise InputError(f"{where}: <seg id={segid!r}> is not closed by </seg>")
            owner, docid, _ = cur_doc
            segs = owner.docs[docid]
            if segid in segs:
                raise InputError(f"{where}: segment id {segid!r} appears twice in document {docid!r}")
            segs[segid] = _WS.sub(" ", text[pos : end.start()]).strip(" ")
            pos = end.end()
    if cur_doc is not None:
        raise InputError(f"{path}: line {_line_of(text, cur_doc[2])}: <doc> is never closed by </doc>")
    if cur_set is not None:
        raise InputError(f"{path}: line {_line_of(text, cur_set[2])}: <{cur_set[0]}> is never closed")
    if n_sets == 0:
        raise InputError(f"{path}: no srcset, refset or tstset element: not a NIST SGML file")
    if not sets:
        raise InputError(f"{path}: the file has sets but no documents")
    return list(sets.values())


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
        kind = s.tag.lower()
        a = {k.lower(): v for k, v in s.attrib.items()}
        name = a.get("sysid") or a.get("refid") or ("source" if kind == "srcset" else "")
        if not name:
            raise InputError(f"{path}: <{s.tag}> without a {'sysid' if kind == 'tstset' else 'refid'} attribute")
        st = SgmlSet(kind, name, str(path), a.get("setid", ""), a.get("srclang", ""), a.get("trglang", ""))
        for d in s.iter():
            if d.tag.lower() != "doc":
                continue
            docid = {k.lower(): v for k, v in d.attrib.items()}.get("docid")
            if not docid:
                raise InputError(f"{path}: <doc> without a docid attribute in {kind} {name!r}")
            if docid in st.docs:
                raise InputError(f"{path}: document {docid!r} appears twice in {kind} {name!r}")
            segs: dict[str, str] = {}
            for g in d.iter():
                if g.tag.lower() != "seg":
                    continue
                segid = {k.lower(): v for k, v in g.attrib.items()}.get("id")
                if not segid:
                    raise InputError(f"{path}: <seg> without an id in document {docid!r}")
                if segid in segs:
                    raise InputError(f"{path}: segment id {segid!r} appears twice in document {docid!r}")
                segs[segid] = _WS.sub(" ", "".join(g.itertext())).strip(" ")
            if not segs:
                raise InputError(f"{path}: document {docid!r} has no segments")
            st.docs[docid] = segs
        existing = next((o for o in out if o.kind == kind and o.name == name), None)
        if existing is not None:
            dup = set(existing.docs) & set(st.docs)
            if dup:
                raise InputError(f"{path}: document {sorted(dup)[0]!r} appears twice for {name!r}")
            existing.docs.update(st.docs)
        else:
            out.append(st)
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
    keys = order if order is not None else first.keys()
    keyset = set(keys)
    out = []
    for st in sets:
        for docid in first.docs if order is None else dict.fromkeys(d for d, _ in keys):
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
