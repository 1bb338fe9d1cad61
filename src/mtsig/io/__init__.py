"""Readers for plain text, NIST SGML/XML, CoNLL-U and segment scores, with input validation."""

from mtsig.io.segments import Segments
from mtsig.io.text import looks_like_sgml, read_lines

__all__ = ["Segments", "SgmlSet", "read_sgml", "read_lines", "looks_like_sgml"]


def __getattr__(name: str):  # the SGML reader is imported only when SGML is read
    if name in ("SgmlSet", "read_sgml"):
        from mtsig.io import sgml

        return getattr(sgml, name)
    raise AttributeError(name)
