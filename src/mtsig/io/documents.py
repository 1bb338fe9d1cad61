"""The documents (and domains) of a test set's segments, in test-set order, for human judgments and their
meta-evaluation (``--docs FILE``).

Two formats, told apart by their first element:

- mt-metrics-eval's ``.docs`` (and WMT24/25's ``txt/documents/PAIR.docs``): one line per test-set segment,
  ``DOMAIN DOCID`` (whitespace-separated); a line of one field is a document id without a domain;
- a WMT XML test set (``<dataset><collection><doc id=.. domain=..>``): the segments mtsig reads from it, each with
  its document and domain.

WMT's DA campaigns number segments differently from the test set. In WMT22's DA files (judgments and segment
scores alike), segment id (SID) s is the s-th segment when the test set's documents are sorted by their ids (as
strings) and each document keeps its segments in order: checked on WMT22's ru-en, ja-en and uk-en (every one of
the 227, 321 and 886 documents is a run of consecutive SIDs in that order, and every HIT scores such runs).
:func:`doc_sorted_lines` is that order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError


@dataclass(frozen=True, kw_only=True)
class Documents:
    """Per test-set segment (line), its document id and domain (None: the file gives no domains)."""

    ids: tuple[str, ...]
    domains: tuple[str, ...] | None
    source: str

    def __len__(self) -> int:
        return len(self.ids)


def read_documents(path: str) -> Documents:
    """The documents of a test set from a ``.docs`` file or a WMT XML test set (see the module's docstring)."""
    from mtsig.io.text import read_text, split_lines

    path = str(path)
    text = read_text(path)
    if not text.strip():
        raise InputError(f"{path}: empty documents file")
    from mtsig.io.wmtxml import looks_like_wmt_xml

    if looks_like_wmt_xml(text):
        from mtsig.io.wmtxml import read_wmt_xml

        ts = read_wmt_xml(path)
        return Documents(ids=tuple(ts.documents), domains=tuple(ts.domains) if ts.domains else None, source=path)
    if text.lstrip().startswith("<"):
        raise InputError(f"{path}: markup that is not a WMT XML test set: give a .docs file (DOMAIN DOCID per line)"
                         " or the WMT XML test set")  # fmt: skip
    ids: list[str] = []
    domains: list[str] = []
    widths: set[int] = set()
    for i, ln in enumerate(split_lines(text), start=1):
        cells = ln.split()
        if not cells:
            raise InputError(f"{path}: line {i}: empty line (one line per test-set segment: DOMAIN DOCID)")
        if len(cells) > 2:
            raise InputError(f"{path}: line {i}: {len(cells)} fields; a .docs line is DOMAIN DOCID (or DOCID)")
        widths.add(len(cells))
        if len(widths) > 1:
            raise InputError(f"{path}: line {i}: {len(cells)} field(s) where earlier lines have {widths - {len(cells)}}"
                             " (DOMAIN DOCID on every line, or DOCID on every line)")  # fmt: skip
        ids.append(cells[-1])
        domains.append(cells[0])
    return Documents(ids=tuple(ids), domains=tuple(domains) if widths == {2} else None, source=path)


def doc_sorted_lines(docs: Documents) -> np.ndarray:
    """The test-set lines (0-based) in WMT's DA order: documents sorted by id (as strings), each document's
    segments in test-set order. SID s (1-based) is line ``doc_sorted_lines(docs)[s - 1]``."""
    ids = np.asarray(docs.ids, dtype=object)
    return np.array(sorted(range(len(ids)), key=lambda i: (ids[i], i)), dtype=np.int64)


def check_contiguous(docs: Documents) -> None:
    """Each document's segments must be consecutive lines (a document split in two is a wrong file)."""
    seen: dict[str, int] = {}
    prev = None
    for i, d in enumerate(docs.ids):
        if d != prev and d in seen:
            raise InputError(f"{docs.source}: document {d!r} appears at line {seen[d] + 1} and again at line {i + 1} "
                             "after another document: a document's segments must be consecutive lines")  # fmt: skip
        seen.setdefault(d, i)
        prev = d
