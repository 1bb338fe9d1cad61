"""Readers for plain text, NIST SGML/XML and statistics files, with input validation."""

from mtsig.io.segments import Segments
from mtsig.io.sgml import SgmlSet, read_sgml
from mtsig.io.text import looks_like_sgml, read_lines

__all__ = ["Segments", "SgmlSet", "read_sgml", "read_lines", "looks_like_sgml"]
