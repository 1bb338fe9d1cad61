"""The WMT XML format of the WMT test sets since 2021 (and of the test sets sacreBLEU downloads).

``<dataset><collection><doc id=... domain=... origlang=...><src lang=..><p><seg id=..>``, then one
``<ref translator=..>`` per reference translation and one ``<hyp system=..>`` per system, each with the same
``<p><seg id=..>`` structure. Read as sacreBLEU reads it, so that scores agree:

- documents marked ``testsuite`` are left out;
- a segment no reference translates is left out (of the source, the references and every system); a reference
  segment of whitespace alone counts as a translation (sacreBLEU tests the raw text), and becomes empty;
- a segment's text has its whitespace runs collapsed to one space and its ends stripped;
- a comment inside a segment is refused: sacreBLEU (lxml) reads only the text before it, which silently cuts the
  segment, and joining the text on either side is a guess;
- markup inside a segment (``<seg>a <b>b</b></seg>``) is refused: sacreBLEU reads only the text before the first
  element (``"a "``), which silently cuts the segment; mtsig does not guess;
- a document without a ``domain`` (when others have one) is in the domain :data:`NO_DOMAIN`, which analyses show
  as such and by which nothing is resampled.

Each segment keeps its (document id, segment id), its document and the document's domain (resampling units,
analyses), and the source.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from mtsig.errors import InputError
from mtsig.io.text import read_text

_WS = re.compile(r"\s+")
#: the domain of a document that has no domain attribute (in a file whose other documents have one)
NO_DOMAIN = "(no domain)"


@dataclass
class WmtTestSet:
    """The segments of one WMT XML file, aligned: source, references by translator, outputs by system."""

    path: str
    keys: list[tuple[str, str]] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    domains: list[str] | None = None
    source: list[str] = field(default_factory=list)
    refs: dict[str, list[str]] = field(default_factory=dict)
    hyps: dict[str, list[str]] = field(default_factory=dict)
    #: documents without any reference of a translator (translator -> document ids), for a clear error
    missing_refs: dict[str, list[str]] = field(default_factory=dict)

    def units(self) -> dict[str, list[str]]:
        out = {"document": list(self.documents)}
        if self.domains is not None:
            out["domain"] = list(self.domains)
        return out


def looks_like_wmt_xml(text: str) -> bool:
    """True when the first element (after an XML declaration, comments or a DOCTYPE) is ``<dataset``."""
    from mtsig.io.text import first_element

    return first_element(text) == "dataset"


def _clean(text: str | None) -> str:
    return _WS.sub(" ", (text or "").strip())


def _segs(path: str, el, docid: str, what: str) -> dict[str, str]:
    """Each segment's raw text by id (cleaned when it is used: whether a reference is there is decided on the raw
    text, as sacreBLEU decides it)."""
    out: dict[str, str] = {}
    for seg in el.iter("seg"):
        sid = seg.get("id")
        if sid is None:
            raise InputError(f"{path}: a <seg> without an id in the {what} of document {docid!r}")
        if sid in out:
            raise InputError(f"{path}: segment id {sid!r} appears twice in the {what} of document {docid!r}")
        if len(seg):
            import xml.etree.ElementTree as ET

            if seg[0].tag is ET.Comment:
                raise InputError(
                    f"{path}: segment {sid!r} of document {docid!r} ({what}) holds an XML comment (<!--...-->): "
                    f"sacreBLEU reads only the text before it ({_clean(seg.text)!r}); mtsig does not guess which text "
                    "is meant: remove the comment"
                )
            raise InputError(
                f"{path}: segment {sid!r} of document {docid!r} ({what}) holds markup (<{seg[0].tag}>): sacreBLEU "
                f"would read only the text before it ({_clean(seg.text)!r}); mtsig does not guess: remove the markup "
                "or escape it (&lt;)"
            )
        out[sid] = seg.text or ""
    return out


def _seg_order(ids) -> list[str]:
    """Segment ids in numeric order when they are numbers (as sacreBLEU sorts them), else as they appear."""
    ids = list(ids)
    try:
        return sorted(ids, key=int)
    except ValueError:
        return ids


def _parser():
    """An XML parser that keeps comments inside elements (a comment inside a segment is refused, not dropped)."""
    import xml.etree.ElementTree as ET

    return ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))


def _parse(path: str, text: str):
    import xml.etree.ElementTree as ET

    try:
        return ET.fromstring(text, parser=_parser())
    except ET.ParseError as exc:
        raise _malformed(path, exc) from None


def _malformed(path: str, exc) -> InputError:
    line = getattr(exc, "position", (None,))[0]
    where = f": line {line}" if line else ""
    msg = str(exc).split(":")[0]
    return InputError(f"{path}{where}: malformed WMT XML ({msg}); it is not read as plain text")


def _sides(path: str, doc, docid: str, tag: str, attr: str) -> dict[str, dict[str, str]]:
    """A document's references (by translator) or outputs (by system): their segments by id."""
    out: dict[str, dict[str, str]] = {}
    for el in doc.findall(tag):
        who = el.get(attr) or ""
        if not who and tag == "hyp":
            raise InputError(f"{path}: a <hyp> without a system attribute in document {docid!r}")
        if who in out:
            raise InputError(f"{path}: document {docid!r} has two <{tag}> of {attr} {who!r}")
        out[who] = _segs(path, el, docid, f"<{tag} {attr}={who!r}>")
    return out


@dataclass
class _Keyed:
    """What a file's documents give while it is read: references and outputs by (document, segment id), and
    each segment's domain ("" until the end says otherwise); placed in the test set's order at the end."""

    refs: dict[str, dict[tuple[str, str], str]] = field(default_factory=dict)
    hyps: dict[str, dict[tuple[str, str], str]] = field(default_factory=dict)
    domains: list[str] = field(default_factory=list)


def _read_doc(path: str, doc, ts: WmtTestSet, got: _Keyed, seen: tuple[set[str], set[str]]) -> set[str]:
    """Add one document's segments; returns the translators of its references."""
    docid = doc.get("id")
    if not docid:
        raise InputError(f"{path}: a <doc> without an id attribute")
    src_el = doc.find("src")
    if src_el is None:
        raise InputError(f"{path}: document {docid!r} has no <src>")
    src = _segs(path, src_el, docid, "source")
    refs = _sides(path, doc, docid, "ref", "translator")
    hyps = _sides(path, doc, docid, "hyp", "system")
    seen[0].update(refs)  # translators and systems of the file
    seen[1].update(hyps)
    for sid in _seg_order(src):
        if not any(r.get(sid, "") for r in refs.values()):
            continue  # no reference translates it: sacreBLEU leaves it out too
        ts.keys.append((docid, sid))
        ts.documents.append(docid)
        ts.source.append(_clean(src[sid]))
        for t, r in refs.items():
            got.refs.setdefault(t, {})[(docid, sid)] = _clean(r.get(sid, ""))
        for s, h in hyps.items():
            if sid not in h:
                raise InputError(f"{path}: system {s!r} has no segment {sid!r} in document {docid!r}")
            got.hyps.setdefault(s, {})[(docid, sid)] = _clean(h[sid])
        got.domains.append(doc.get("domain") or "")
    return set(refs)


def _documents(path: str, text: str | None) -> Iterator:
    """The ``<doc>`` elements of the file, one at a time: from ``text`` when given (standard input), else streamed
    from the file (each document's tree is freed once it has been read: a 200 MB test set never sits in memory as
    one tree)."""
    import xml.etree.ElementTree as ET

    if text is not None:
        root = _parse(path, text)
        _check_root(path, root.tag)
        yield from root.iter("doc")
        return
    root = None
    try:
        for event, el in ET.iterparse(path, events=("start", "end"), parser=_parser()):
            if root is None:
                root = el
                _check_root(path, el.tag)
            if event == "end" and el.tag == "doc":
                yield el
                el.clear()
    except ET.ParseError as exc:
        raise _malformed(path, exc) from None


def _check_root(path: str, tag: str) -> None:
    if tag != "dataset":
        raise InputError(f"{path}: the root element is <{tag}>, not <dataset>: not a WMT XML test set")


def _check_unique(path: str, keys: list[tuple[str, str]]) -> None:
    seen: set[tuple[str, str]] = set()
    for key in keys:
        if key in seen:
            raise InputError(f"{path}: document {key[0]!r} appears twice")
        seen.add(key)


def read_wmt_xml(path: str, text: str | None = None) -> WmtTestSet:
    """Parse a WMT XML file (one-line errors naming the line of malformed XML); streamed from the file unless
    ``text`` is given."""
    if text is None and str(path) == "-":
        text = read_text(path)
    ts = WmtTestSet(str(path))
    got = _Keyed()
    translators: set[str] = set()
    systems: set[str] = set()
    per_doc = []
    n_docs = 0
    for d in _documents(path, text):
        if "testsuite" in d.attrib:
            continue
        n_docs += 1
        before = len(ts.keys)
        have = _read_doc(path, d, ts, got, (translators, systems))
        if len(ts.keys) > before:  # a document no reference translates is left out whole, as by sacreBLEU
            per_doc.append((d.get("id"), have))
    if not n_docs:
        raise InputError(f"{path}: no document (<doc>) in this WMT XML file")
    # domains: none when no document has one; else every document's, "(no domain)" where it has none
    ts.domains = [x or NO_DOMAIN for x in got.domains] if any(got.domains) else None
    for t in translators:
        missing = [docid for docid, have in per_doc if t not in have]
        if missing:
            ts.missing_refs[t] = missing
    if not ts.keys:
        raise InputError(f"{path}: no segment has a reference translation")
    _check_unique(path, ts.keys)
    # per translator / system: the segments in the test set's order ("" where a translator has no reference)
    ts.refs = {t: [r.get(k, "") for k in ts.keys] for t, r in sorted(got.refs.items())}
    for s, h in got.hyps.items():
        missing = [k for k in ts.keys if k not in h]
        if missing:
            raise InputError(f"{path}: system {s!r} has no output for document {missing[0][0]!r}")
    ts.hyps = {s: [h[k] for k in ts.keys] for s, h in got.hyps.items()}
    return ts


_CACHE: dict[tuple[str, int, float], WmtTestSet] = {}


def load_wmt_xml(path: str, text: str | None = None) -> WmtTestSet:
    """:func:`read_wmt_xml`, parsed once per file per process (references and systems often share one file)."""
    try:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_size, st.st_mtime)
    except OSError:
        return read_wmt_xml(path, text)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = read_wmt_xml(path, text)
    return _CACHE[key]


def select_translators(ts: WmtTestSet, wanted: list[str] | None) -> list[str]:
    """The translators whose references to use: all of the file's, or those asked for (names checked; a
    translator missing from some documents is an error naming one of them)."""
    have = list(ts.refs)
    if not have:
        raise InputError(f"{ts.path}: the file holds no reference (<ref>)")
    chosen = list(wanted) if wanted else have
    for t in chosen:
        if t not in ts.refs:
            raise InputError(
                f"{ts.path}: no reference by translator {t!r}; the file has: {', '.join(map(repr, have))}",
                param="ref_translator",
            )
        if ts.missing_refs.get(t):
            docs = ts.missing_refs[t]
            raise InputError(
                f"{ts.path}: translator {t!r} has no reference for {len(docs)} document(s), e.g. {docs[0]!r}: "
                f"choose translators that cover the test set with --ref-translator (the file has: {', '.join(have)})",
                param="ref_translator",
            )
    return chosen
