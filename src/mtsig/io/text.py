"""Plain-text readers: one segment per line, UTF-8.

Rules (each has a test):
- lines end at ``\\n`` only; a ``\\r`` before it (CRLF files) is dropped. Other Unicode line
  separators (U+2028, U+0085, form feed, ...) stay inside the segment, as in the NIST scorer and
  sacreBLEU, so they can never shift the alignment of two files.
- a final newline does not start an extra segment; an empty line in the middle is an (empty) segment.
- a UTF-8 byte-order mark at the start of the file is dropped.
- invalid UTF-8 is an error that names the file, the line and the byte offset.
- ``-`` reads standard input.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence

import numpy as np

from mtsig.errors import InputError


def _read_bytes(path: str | os.PathLike) -> bytes:
    if str(path) == "-":
        return sys.stdin.buffer.read()
    if not os.path.exists(path):  # os.path rather than pathlib: pathlib's import is a short command's 1-2%
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a file")
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _guess_encoding(data: bytes) -> str:
    """The likeliest encoding of bytes that are not UTF-8, for the hint of the error: UTF-16 (a byte-order mark,
    or a NUL in every other byte of the start) or, failing that, Latin-1."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    head = data[:200]
    if len(head) >= 8 and (head[1::2].count(0) > len(head) // 3 or head[0::2].count(0) > len(head) // 3):
        return "utf-16le" if head[1::2].count(0) > head[0::2].count(0) else "utf-16be"
    return "latin1"


def decode_utf8(data: bytes, name: str) -> str:
    """Decode ``data`` as UTF-8, dropping a leading BOM; errors name the line and byte offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 4]
        raise InputError(
            f"{name}: line {line}: invalid UTF-8 (byte offset {exc.start}, bytes {bad!r}); "
            f"mtsig reads UTF-8 only (convert with e.g. `iconv -f {_guess_encoding(data)} -t utf-8`)"
        ) from None
    if "\0" in text:  # valid UTF-8, but no text has NUL characters: UTF-16 without a byte-order mark
        at = text.index("\0")
        line = text.count("\n", 0, at) + 1
        raise InputError(
            f"{name}: line {line}: a NUL character (byte offset {len(text[:at].encode())}); mtsig reads UTF-8 text "
            f"only (convert with e.g. `iconv -f {_guess_encoding(data)} -t utf-8`)"
        )
    if text.startswith("\ufeff"):
        import warnings

        from mtsig.errors import MtsigWarning

        warnings.warn(
            f"{name}: starts with a UTF-8 byte-order mark, which mtsig drops (sacreBLEU and the NIST scorer keep it "
            "in the first token, so their scores of this file can differ)",
            MtsigWarning,
            stacklevel=2,
        )
        text = text[1:]
    return text


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only; drop one trailing newline and any ``\\r`` before each newline."""
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [_drop_cr(ln) for ln in lines] if "\r" in text else lines


def _drop_cr(line: str) -> str:
    """A line without the ``\r`` of a CRLF ending."""
    return line[:-1] if line.endswith("\r") else line


class PackedLines(Sequence[str]):
    """The lines of a large text kept as one UTF-8 buffer and the offsets of each line: a fraction of the memory
    of a list of strings (no object per line); an item or a slice is decoded when asked for. Same lines as
    :func:`split_lines` (``\n`` ends a line, one ``\r`` before it is dropped)."""

    __slots__ = ("_data", "_starts", "_ends")

    def __init__(self, text: str):
        data = text.encode("utf-8")
        nl = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        starts = np.concatenate([[0], nl + 1])
        ends = np.concatenate([nl, [len(data)]])
        if data.endswith(b"\n") or not data:  # a final newline does not start a segment
            starts, ends = starts[:-1], ends[:-1]
        self._data, self._starts, self._ends = data, starts.astype(np.int64), ends.astype(np.int64)

    def __len__(self) -> int:
        return int(self._starts.size)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return [self[k] for k in range(start, stop, step)]
            if start >= stop:
                return []
            span = self._data[self._starts[start] : self._ends[stop - 1]].decode("utf-8")
            return [_drop_cr(ln) for ln in span.split("\n")]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        return _drop_cr(self._data[self._starts[i] : self._ends[i]].decode("utf-8"))

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), 10_000):
            yield from self[start : start + 10_000]

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]


#: texts of at least this many characters keep their lines packed (:class:`PackedLines`)
PACK_CHARS = 4_000_000


def lines_of(text: str) -> list[str] | PackedLines:
    """The segments of a decoded text: a list, or for a large text the same lines packed."""
    return PackedLines(text) if len(text) >= PACK_CHARS else split_lines(text)


def read_text(path: str | os.PathLike) -> str:
    """Read a whole file (or ``-``) as UTF-8 text."""
    return decode_utf8(_read_bytes(path), str(path))


def read_lines(path: str | os.PathLike) -> list[str]:
    """Read a plain-text file of segments, one per line."""
    return split_lines(read_text(path))


_SET_TAGS = ("srcset", "refset", "tstset", "mteval")
#: what may come before a document's first element: an XML declaration or processing instruction, comments, a
#: DOCTYPE (each of any length)
_PROLOG = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->|<!doctype(?:[^>\[]|\[.*?\])*>)", re.S | re.I)


def json_line(path: str, i: int, line: str):
    """Line ``i`` of a JSON-lines file as its value: an empty line or one that is not JSON is an error naming both."""
    import json

    if not line.strip():
        raise InputError(f"{path}: line {i}: empty line")
    try:
        return json.loads(line)
    except ValueError as exc:
        raise InputError(f"{path}: line {i}: not JSON ({exc})") from None


def looks_like_sgml(text: str) -> bool:
    """True when ``text`` is a NIST mteval SGML/XML document: its first element, after any prolog of any length
    (declaration, comments, DOCTYPE), is a srcset, refset, tstset or mteval element, or one of them appears in
    its first 4,096 characters."""
    head = text.lstrip()[:4096].lower()
    if not head.startswith("<"):
        return False
    if any(f"<{tag}" in head for tag in _SET_TAGS):
        return True
    pos = 0
    while (m := _PROLOG.match(text, pos)) and m.end() > pos:
        pos = m.end()
    first = text[pos : pos + 64].lstrip().lower()
    return any(first.startswith(f"<{tag}") for tag in _SET_TAGS)


def first_element(text: str) -> str | None:
    """The lower-cased name of a markup document's first element (after any XML declaration, processing
    instructions, comments and DOCTYPE), or None when the text does not start with markup."""
    if not text.lstrip()[:1] == "<":
        return None
    pos = 0
    while (m := _PROLOG.match(text, pos)) and m.end() > pos:
        pos = m.end()
    m = re.match(r"\s*<([A-Za-z_][\w.:-]*)", text[pos : pos + 256])
    return m.group(1).lower() if m else None


def looks_like_xml(text: str) -> bool:
    """True when the text starts with an XML declaration or a DOCTYPE, or is a well-formed XML document as a whole
    (one root element): markup, never segments of plain text."""
    head = text.lstrip()[:64].lower()
    if head.startswith("<?xml") or head.startswith("<!doctype"):
        return True
    if not head.startswith("<") or not text.rstrip().endswith(">"):
        return False
    import xml.etree.ElementTree as ET

    try:
        ET.fromstring(text)
    except ET.ParseError:  # text that happens to start with "<" (a tag-like token): plain text
        return False
    return True


def sha256_file(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's contents, read in blocks."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def looks_like_conllu(path: str, text: str) -> bool:
    """A CoNLL-U file: by its extension, or its first word line of ten tab-separated columns with a head (here,
    not in :mod:`mtsig.io.conllu`: every text read asks, and most are plain)."""
    if str(path).lower().endswith((".conllu", ".conll")):
        return True
    for line in text.split("\n", 50)[:50]:
        if line.startswith("#") or not line.strip():
            continue
        cols = line.rstrip("\r").split("\t")
        return len(cols) == 10 and cols[0].replace("-", "").replace(".", "").isdigit() and cols[6].strip() != ""
    return False
