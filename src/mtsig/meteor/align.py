"""METEOR 1.5's matching stages and alignment search, as ``meteor-1.5.jar`` runs them.

Reproduced as the jar has them (each changes numbers, so none is "fixed" here):

- words (and stems) are compared by Java's ``String.hashCode``: two different words with the same hash
  match exactly (``"Aa"`` and ``"BB"``), as in the jar;
- the search scores a partial alignment by ``matches1 + matches2`` kept in Java ``int``: every match adds
  ``(int)(count + length x weight)`` with the search weights 1.0 (exact) and 0.5 (the other stages), so a
  one-word stem/synonym/paraphrase match adds nothing to the search score, only to the final statistics;
- when a position has several candidate matches, the distance of each new candidate is added to the
  *parent* path (the one that skips the position) and to the candidates built after it;
- a position whose single candidate overlaps no other match is fixed before the search;
- identical word sequences use the first stage only;
- candidate order: stage by stage, then as each matcher finds them (hypothesis position ascending for one
  word; table order for paraphrases, reference side first); sorting is stable.

``test`` is the hypothesis (the jar's line 1), ``ref`` the reference (line 2).
"""

from __future__ import annotations

from array import array
from typing import Any

from mtsig._compiled import load
from mtsig.meteor.params import EXACT, PARAPHRASE, STEM, SYNONYM

_meteor = load("_meteor")
COMPILED = _meteor is not None

#: weights the jar's search uses per stage (exact first; any other stage 0.5)
SEARCH_WEIGHT = {EXACT: 1.0, STEM: 0.5, SYNONYM: 0.5, PARAPHRASE: 0.5}


def java_hash(word: str, _cache: dict = {}) -> int:  # noqa: B006 - a deliberate process-wide memo
    """Java's ``String.hashCode`` (over UTF-16 code units, 32-bit signed wrap-around); compiled in
    ``mtsig._meteor`` when it is built, :func:`java_hash_python` its reference."""
    h = _cache.get(word)
    if h is None:
        h = _cache[word] = _meteor.java_hash(word) if _meteor is not None else java_hash_python(word)
    return h


def java_hash_python(word: str) -> int:
    """:func:`java_hash` in Python."""
    data = word.encode("utf-16-be", "surrogatepass")
    v = 0
    for k in range(0, len(data), 2):
        v = (31 * v + (data[k] << 8 | data[k + 1])) & 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


class Candidates:
    """All matches found by the stages: per reference position, a list of
    ``(ref_start, ref_len, test_start, test_len, stage)`` in the jar's order, and coverage counts."""

    __slots__ = ("by_start", "cov1", "cov2")

    def __init__(self, n1: int, n2: int):
        self.by_start: list[list[tuple[int, int, int, int, int]]] = [[] for _ in range(n2)]
        self.cov1 = [0] * n1
        self.cov2 = [0] * n2

    def add(self, j: int, length: int, i: int, mlen: int, stage: int) -> None:
        self.by_start[j].append((j, length, i, mlen, stage))
        for k in range(i, i + mlen):
            self.cov1[k] += 1
        for k in range(j, j + length):
            self.cov2[k] += 1


def match_keys(cands: Candidates, stage: int, keys1: list[int], keys2: list[int], words1, words2) -> None:
    """One-word matches where ``keys`` are equal and the words' own hashes are not (all pairs if ``words``
    are None: the exact stage)."""
    pos: dict[int, list[int]] = {}
    for i, k in enumerate(keys1):
        pos.setdefault(k, []).append(i)
    for j, k in enumerate(keys2):
        for i in pos.get(k, ()):
            if words1 is None or words1[i] != words2[j]:
                cands.add(j, 1, i, 1, stage)


def match_synonyms(cands: Candidates, stage: int, sets1: list, sets2: list, words1, words2) -> None:
    where: dict[int, list[int]] = {}
    for i, s1 in enumerate(sets1):
        for x in s1:
            where.setdefault(x, []).append(i)
    for j, s2 in enumerate(sets2):
        found: set[int] = set()
        for x in s2:
            found.update(where.get(x, ()))
        for i in sorted(found):
            if words1[i] != words2[j]:
                cands.add(j, 1, i, 1, stage)


def match_paraphrases(cands: Candidates, stage: int, table, ids1: list[int], ids2: list[int]) -> None:
    """Paraphrases of reference phrases found in the hypothesis, then of hypothesis phrases found in the
    reference (both are stored at their reference position)."""
    for j, i, length, plen in table.find(ids2, ids1):
        cands.add(j, length, i, plen, stage)
    for i, j, length, plen in table.find(ids1, ids2):
        cands.add(j, plen, i, length, stage)


class _Path:
    __slots__ = ("m1", "m2", "chunks", "idx", "last", "dist", "used1", "used2", "chain")
    m1: int
    m2: int
    chunks: int
    idx: int
    last: int
    dist: int
    #: bit masks of the words of each side already matched
    used1: int
    used2: int
    #: the matches taken, newest first: (match, the rest) or None
    chain: Any

    def copy(self) -> _Path:
        p = _Path()
        p.m1, p.m2, p.chunks, p.idx, p.last = self.m1, self.m2, self.chunks, self.idx, self.last
        p.dist, p.used1, p.used2, p.chain = self.dist, self.used1, self.used2, self.chain
        return p


def _sort_key(p: _Path):
    return (-(p.m1 + p.m2), p.chunks, p.dist)


def _take(p: _Path, m, weight: float) -> None:
    j, length, i, mlen, _ = m
    p.m1 = int(p.m1 + mlen * weight)
    p.m2 = int(p.m2 + length * weight)
    if p.last != -1 and i != p.last:
        p.chunks += 1
    p.idx = j + length
    p.last = i + mlen


def _masks(m) -> tuple[int, int]:
    j, length, i, mlen, _ = m
    return ((1 << mlen) - 1) << i, ((1 << length) - 1) << j


def search(cands: Candidates, n2: int, stage_modules: tuple[int, ...], beam: int) -> list:
    """The jar's beam search; returns the chosen matches (each ``(j, len, i, mlen, stage)``), sorted.
    Runs in the compiled ``mtsig._meteor`` when it is built, else in :func:`search_python`."""
    if _meteor is None:  # pragma: no cover
        return search_python(cands, n2, stage_modules, beam)
    flat = [m for ms in cands.by_start for m in ms]
    if not flat:
        return []
    off = array("i", [0])
    for ms in cands.by_start:
        off.append(off[-1] + len(ms))
    rows = array("i", [x for m in flat for x in m])
    weights = [SEARCH_WEIGHT[mod] for mod in stage_modules]
    chosen = _meteor.search(rows, off, len(cands.cov1), n2, weights, beam)
    return sorted(flat[k] for k in chosen)


def _fixed_matches(cands: Candidates, n2: int) -> tuple[list, _Path]:
    """The one-to-one matches that overlap no other candidate (fixed before the search), and the start path
    with their words marked used."""
    fixed: list = [None] * n2
    start = _Path()
    start.m1 = start.m2 = start.chunks = start.idx = start.dist = 0
    start.last, start.used1, start.used2, start.chain = -1, 0, 0, None
    cov1, cov2 = cands.cov1, cands.cov2
    for j, ms in enumerate(cands.by_start):
        if len(ms) == 1:
            m = ms[0]
            _, length, i, mlen, _ = m
            if all(cov2[k] == 1 for k in range(j, j + length)) and all(cov1[k] == 1 for k in range(i, i + mlen)):
                fixed[j] = m
                a, b = _masks(m)
                start.used1 |= a
                start.used2 |= b
    return fixed, start


def search_python(  # noqa: C901 - a literal port of the jar's loop, kept as the reference
    cands: Candidates, n2: int, stage_modules: tuple[int, ...], beam: int
) -> list:
    """The jar's beam search in Python (the reference the compiled search is tested against)."""
    weights = [SEARCH_WEIGHT[mod] for mod in stage_modules]
    fixed, start = _fixed_matches(cands, n2)
    paths = [start]
    for cur in range(n2 + 1):
        paths.sort(key=_sort_key)
        nxt: list[_Path] = []
        for path in paths[:beam]:
            if cur == n2:
                if path.last != -1:
                    path.chunks += 1
                nxt.append(path)
                continue
            if path.used2 >> cur & 1:
                if cur < path.idx:
                    nxt.append(path)
                elif fixed[path.idx] is not None:
                    m = fixed[path.idx]
                    _take(path, m, weights[m[4]])
                    path.dist += abs(m[0] - m[2])
                    nxt.append(path)
                continue
            for m in cands.by_start[cur]:
                a, b = _masks(m)
                if path.used1 & a or path.used2 & b:
                    continue
                new = path.copy()
                new.used1 |= a
                new.used2 |= b
                _take(new, m, weights[m[4]])
                new.chain = (m, path.chain)
                path.dist += abs(m[0] - m[2])  # the jar adds it to the parent (see the module notes)
                nxt.append(new)
            if path.last != -1:
                path.chunks += 1
                path.last = -1
            path.idx += 1
            nxt.append(path)
        if not nxt:  # pragma: no cover - the jar's fallback; unreachable with consistent candidates
            nxt.append(paths[0])
        paths = nxt
    paths.sort(key=_sort_key)
    out = [m for m in fixed if m is not None]
    chain = paths[0].chain
    while chain is not None:
        out.append(chain[0])
        chain = chain[1]
    out.sort()
    return out


def count_chunks(matches: list) -> int:
    """Chunks of the final alignment, counted as the jar counts them (matches ordered by reference position)."""
    chunks, last = 0, -1
    idx = 0
    for j, length, i, mlen, _ in sorted(matches):
        if j > idx and last != -1:  # a gap in the reference ends the chunk
            chunks += 1
            last = -1
        if last != -1 and i != last:
            chunks += 1
        idx = j + length
        last = i + mlen
    return chunks + (1 if last != -1 else 0)
