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
import sys
from pathlib import Path

from mtsig.errors import InputError


def _read_bytes(path: str | os.PathLike) -> bytes:
    if str(path) == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file")
    if p.is_dir():
        raise InputError(f"{path}: is a directory, not a file")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def decode_utf8(data: bytes, name: str) -> str:
    """Decode ``data`` as UTF-8, dropping a leading BOM; errors name the line and byte offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 4]
        raise InputError(
            f"{name}: line {line}: invalid UTF-8 (byte offset {exc.start}, bytes {bad!r}); "
            "mtsig reads UTF-8 only (convert with e.g. `iconv -f latin1 -t utf-8`)"
        ) from None
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
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def read_text(path: str | os.PathLike) -> str:
    """Read a whole file (or ``-``) as UTF-8 text."""
    return decode_utf8(_read_bytes(path), str(path))


def read_lines(path: str | os.PathLike) -> list[str]:
    """Read a plain-text file of segments, one per line."""
    return split_lines(read_text(path))


def looks_like_sgml(text: str) -> bool:
    """True when ``text`` is a NIST mteval SGML/XML document (a srcset, refset or tstset element)."""
    head = text.lstrip()[:4096].lower()
    if not head.startswith("<"):
        return False
    return any(f"<{tag}" in head for tag in ("srcset", "refset", "tstset", "mteval"))
