"""Word- and n-gram-level counts per segment, as compare-mt defines them (Neubig et al. 2019).

Word accuracy: in each segment, the k-th occurrence of a word in the output matches the k-th occurrence of that
word in the reference, if there is one (so a word matches ``min(count in output, count in reference)`` times).
A reference word falls in the bucket of its frequency (or of its label); an output word that matches falls in
the bucket of the reference word it matches, one that does not in its own bucket. Per bucket, with ``m`` matched
words, ``o`` output words and ``r`` reference words: precision ``m / o``, recall ``m / r`` and F-measure
``2 m / (o + r)`` (the harmonic mean of the two; 0 when nothing matches).

Characteristic n-grams: per n-gram (orders 1 to 4), the number of times a system's output matches it in the
reference (clipped per segment as in BLEU); for two systems with counts ``m_a`` and ``m_b``, compare-mt's smoothed
ratio ``(m_a + alpha) / (m_a + m_b + 2 alpha)`` ranks the n-grams A matches more often than B (near 1) and those
B matches more often (near 0).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from mtsig.errors import InputError

#: segments tokenized, coded and counted at a time: memory for tokens and per-chunk tables stays bounded
CHUNK = 50_000
#: segments per chunk of the n-gram table: its per-position arrays (three texts, all orders) are the largest
NGRAM_CHUNK = 10_000


def frequency_counts(segments, tokenizer, chunk: int = CHUNK) -> Counter:
    """How often each word occurs in a corpus (a :class:`~mtsig.io.segments.Segments`), tokenized ``chunk``
    segments at a time."""
    c: Counter = Counter()
    for i in range(0, len(segments), chunk):
        for t in tokenizer.tokenize_all(segments.slice(i, i + chunk)):
            c.update(t)
    return c


class Coded(NamedTuple):
    """A text as word ids: ``ids`` (int32, every segment's words one after another) and ``lens`` (the number of
    words of each segment)."""

    ids: np.ndarray
    lens: np.ndarray

    @property
    def n_segments(self) -> int:
        return len(self.lens)

    def segments(self) -> np.ndarray:
        """The segment of each id (int64)."""
        return np.repeat(np.arange(len(self.lens), dtype=np.int64), self.lens)

    def rows(self, start: int, stop: int) -> Coded:
        """Segments ``start:stop`` (views)."""
        ends = np.cumsum(self.lens[:stop])
        lo = int(ends[start - 1]) if start > 0 else 0
        hi = int(ends[-1]) if stop > 0 else 0
        return Coded(self.ids[lo:hi], self.lens[start:stop])


class Coder:
    """Words as integer ids, one vocabulary for the reference and every output (compiled coding when built).
    A text is tokenized and coded :data:`CHUNK` segments at a time and kept as ids only (:class:`Coded`), so
    memory grows with the number of words, not with their Python strings; each text is coded once."""

    def __init__(self):
        self.vocab: dict[str, int] = {}
        self._memo: dict[int, tuple[Any, Coded]] = {}

    def code_tokens(self, token_lists: Sequence[Sequence[str]]) -> Coded:
        from mtsig.tokenize import code_words

        ids, lens = code_words(list(token_lists), self.vocab, True)
        return Coded(ids.astype(np.int32) if len(self.vocab) < 2**31 else ids, lens)

    def code_text(self, segments, tokenizer, chunk: int = CHUNK) -> Coded:
        """The ids of ``segments`` (a :class:`~mtsig.io.segments.Segments`) as ``tokenizer`` splits them."""
        hit = self._memo.get(id(segments))
        if hit is not None and hit[0] is segments:
            return hit[1]
        whole = segments.peek(("tokens", tokenizer.key))  # tokenized already (a small text): coded at once
        if whole is not None:
            parts = [self.code_tokens(whole)]
        else:
            parts = [self.code_tokens(tokenizer.tokenize_all(segments.slice(i, i + chunk)))
                     for i in range(0, max(len(segments), 1), chunk)]  # fmt: skip
        coded = Coded(np.concatenate([p.ids for p in parts]), np.concatenate([p.lens for p in parts]))
        self._memo[id(segments)] = (segments, coded)
        return coded

    @property
    def words(self) -> list[str]:
        return list(self.vocab)

    def rank(self) -> np.ndarray:
        """Each id's position in the sorted vocabulary (ties between n-grams sort by their words)."""
        order = np.argsort(np.array(self.words, dtype=object), kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank


def _clipped(rk: np.ndarray, rc: np.ndarray, ok: np.ndarray, oc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The output's keys ``ok`` (counts ``oc``) that the reference has (``rk``, counts ``rc``; both sorted and
    unique), and each one's count clipped by the reference's."""
    i_ref = np.minimum(np.searchsorted(rk, ok), max(len(rk) - 1, 0))
    hit = np.flatnonzero(rk[i_ref] == ok) if len(rk) else np.zeros(0, dtype=np.int64)
    return ok[hit], np.minimum(oc[hit], rc[i_ref[hit]])


def word_counts_by_frequency(ref: Coded, out: Coded, bucket: np.ndarray, n_buckets: int, chunk: int = CHUNK):
    """Per segment and bucket, ``[matched, output words, reference words]`` (int32): shape ``(N, n_buckets, 3)``;
    ``bucket``: the bucket of each word id (both texts coded with one vocabulary). Vectorized, ``chunk`` segments
    at a time: per-segment word counts are counts of ``segment * V + word id``."""
    N = ref.n_segments
    V = max(len(bucket), 1)
    X = np.zeros((N, n_buckets, 3), dtype=np.int32)  # whole numbers: int32 holds any segment's counts
    for lo in range(0, N, chunk):
        r, o = ref.rows(lo, min(N, lo + chunk)), out.rows(lo, min(N, lo + chunk))
        n, cells = r.n_segments, r.n_segments * n_buckets
        rseg, oseg = r.segments(), o.segments()
        for col, (ids, seg) in ((2, (r.ids, rseg)), (1, (o.ids, oseg))):  # counts per (segment, bucket): exact
            X[lo : lo + n, :, col] = np.bincount(seg * n_buckets + bucket[ids], minlength=cells).reshape(n, n_buckets)
        k, matched = _clipped(*np.unique(rseg * V + r.ids, return_counts=True),
                              *np.unique(oseg * V + o.ids, return_counts=True))  # fmt: skip
        X[lo : lo + n, :, 0] = np.bincount(k // V * n_buckets + bucket[k % V], weights=matched,
                                           minlength=cells).reshape(n, n_buckets)  # fmt: skip
    return X


def word_counts_by_label(
    ref: Sequence[Sequence[str]],
    ref_labels: Sequence[Sequence[str]],
    out: Sequence[Sequence[str]],
    out_labels: Sequence[Sequence[str]],
    index: dict[str, int],
) -> np.ndarray:
    """As :func:`word_counts_by_frequency` with a label per word: a matched output word takes the label of the
    reference word it matches. ``index`` maps each label to its bucket."""
    X = np.zeros((len(ref), len(index), 3), dtype=np.float64)
    for i, (r, lr, o, lo) in enumerate(zip(ref, ref_labels, out, out_labels)):
        pos: dict[str, list[int]] = defaultdict(list)
        for j, w in enumerate(r):
            pos[w].append(j)
            X[i, index[lr[j]], 2] += 1
        seen: Counter = Counter()
        for j, w in enumerate(o):
            k = seen[w]
            seen[w] += 1
            p = pos.get(w)
            if p is not None and k < len(p):
                b = index[lr[p[k]]]
                X[i, b, 0] += 1
                X[i, b, 1] += 1
            else:
                X[i, index[lo[j]], 1] += 1
    return X


def read_word_labels(path: str, tokens: Sequence[Sequence[str]], what: str) -> list[list[str]]:
    """A file of one label per word (space-separated, one line per segment), checked against the tokens."""
    from mtsig.io.text import read_lines

    lines = read_lines(path)
    if len(lines) != len(tokens):
        raise InputError(f"{path}: {len(lines)} lines of word labels, but {what} has {len(tokens)} segments")
    out = []
    for i, (line, t) in enumerate(zip(lines, tokens)):
        labels = line.split()
        if len(labels) != len(t):
            raise InputError(
                f"{path}: line {i + 1}: {len(labels)} labels for the {len(t)} words of {what} "
                "(one label per word, after tokenization)"
            )
        out.append(labels)
    return out


def ngram_match_table(
    coder: Coder, ref: Coded, outs: Sequence[Coded], max_order: int = 4, chunk: int = NGRAM_CHUNK
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Per n-gram (orders 1..max_order) that some output matches, how often each output matches it in the
    reference (clipped per segment, as BLEU clips). Returns the vocabulary, the n-grams as rows of word ids
    padded with -1 (``(G, max_order)``, in the order of their words' ids, order by order) and the
    ``(G, outputs)`` counts.

    Counted ``chunk`` segments at a time (:func:`_chunk_matches`); the tables of the chunks are merged by
    n-gram as they come, one table per order (each holding only its order's words), so memory grows with the
    number of distinct matched n-grams, not with the corpus, and a merge sorts one order's rows at a time."""
    if ref.n_segments == 0:
        return coder.words, np.zeros((0, max_order), dtype=np.int64), np.zeros((0, len(outs)), dtype=np.int64)
    merged: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    pending: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {k: [] for k in range(1, max_order + 1)}
    N, V = ref.n_segments, max(len(coder.vocab), 1)
    for lo in range(0, N, chunk):
        hi = min(N, lo + chunk)
        grams, counts = _chunk_matches(ref.rows(lo, hi), [o.rows(lo, hi) for o in outs], V, max_order)
        order = (grams >= 0).sum(axis=1)
        for k in pending:
            sel = np.flatnonzero(order == k)
            if len(sel):
                pending[k].append((np.ascontiguousarray(grams[sel, :k]), counts[sel]))
        del grams, counts, order
        for k in pending:
            if sum(len(g) for g, _ in pending[k]) > max(len(merged[k][0]) if k in merged else 0, 250_000):
                merged[k] = _merge_tables(_take(merged, pending, k))
    for k in pending:
        merged[k] = _merge_tables(_take(merged, pending, k))
    G = sum(len(g) for g, _ in merged.values())
    out_grams = np.full((G, max_order), -1, dtype=np.int64)
    out_counts = np.zeros((G, len(outs)), dtype=np.int32)
    at = 0
    for k in range(1, max_order + 1):  # order by order, each in the order of its words' ids
        g, c = merged.pop(k)
        if not len(g):
            continue
        out_grams[at : at + len(g), :k] = g
        out_counts[at : at + len(g)] = c
        at += len(g)
    return coder.words, out_grams, out_counts


def _take(merged: dict, pending: dict, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Order ``k``'s merged table and pending chunk tables, handed over (nothing else keeps them)."""
    tables = ([merged.pop(k)] if k in merged else []) + pending[k]
    pending[k] = []
    return tables


def _merge_tables(tables: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """One table of n-grams of one order (rows of word ids) and counts from several, handed over in ``tables``
    (emptied here, so that the pieces are freed before the sort): equal rows summed, rows in the order of their
    words' ids."""
    if not tables:
        return np.zeros((0, 0), dtype=np.int32), np.zeros((0, 0), dtype=np.int32)
    grams = np.concatenate([g for g, _ in tables])
    counts = np.concatenate([c for _, c in tables])
    tables.clear()
    if len(grams) == 0:
        return grams, counts
    idx = np.lexsort(tuple(grams[:, j] for j in range(grams.shape[1] - 1, -1, -1)))
    grams = grams[idx]
    counts = counts[idx]
    del idx
    new = np.ones(len(grams), dtype=bool)
    new[1:] = (grams[1:] != grams[:-1]).any(axis=1)
    starts = np.flatnonzero(new)
    return grams[starts], np.add.reduceat(counts, starts, axis=0)


def _chunk_matches(ref: Coded, outs: Sequence[Coded], V: int, max_order: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ngram_match_table` of some segments: the matched n-grams as rows of word ids (int32, -1 padded) and
    their ``(G, outputs)`` counts.

    Vectorized: every n-gram gets one integer code, built order by order with ``np.unique`` from the code of its
    first n - 1 words and its last word, and per-segment counts are counts of ``segment * G + code``. Only
    n-grams the reference contains can match, so an order keeps only the positions whose n-gram the reference
    has, and the next order starts only where both of its (n - 1)-grams were kept (every part of a reference
    n-gram is in the reference too)."""
    corpora = [ref, *outs]
    ids = np.concatenate([c.ids for c in corpora]).astype(np.int64)
    local = np.concatenate([c.segments() for c in corpora])  # each position's segment within its corpus
    n = ref.n_segments
    seg = local + np.repeat(np.arange(len(corpora)) * n, [len(c.ids) for c in corpora])  # apart per corpus
    n_ref = len(ref.ids)
    bounds = np.cumsum([0, *(len(c.ids) for c in corpora)])
    kept, first, orders = _reference_ngrams(ids, seg, n_ref, V, max_order)
    G = sum(len(f) for f in first)
    if G == 0:  # no words at all
        return np.zeros((0, max_order), dtype=np.int32), np.zeros((0, len(outs)), dtype=np.int64)
    first_all = np.concatenate(first)
    order_all = np.concatenate(orders)
    keys = []
    for j in range(len(corpora)):  # positions are sorted: each corpus' are one slice of every order's
        parts = []
        for pos, code in kept:
            lo, hi = np.searchsorted(pos, bounds[j : j + 2])
            parts.append(local[pos[lo:hi]] * G + code[lo:hi])
        keys.append(np.concatenate(parts))
    matched = _clipped_matches(keys, G)
    keep = np.flatnonzero(matched.sum(axis=1) > 0)
    grams = np.full((len(keep), max_order), -1, dtype=np.int32)
    for j in range(max_order):
        has = order_all[keep] > j
        grams[has, j] = ids[first_all[keep][has] + j]
    return grams, matched[keep].astype(np.int32)  # counts of one chunk's words: far below 2**31


def _reference_ngrams(ids: np.ndarray, seg: np.ndarray, n_ref: int, V: int, max_order: int):
    """Order by order, the positions (sorted) whose n-gram the reference (positions ``< n_ref``) contains, with
    each one's code (codes numbered on across orders, in the order of the n-grams' word ids); per order, a
    position of each code and the code's order. An order starts only where both (n - 1)-grams were kept."""
    L = len(ids)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    first, orders = [], []
    cur = np.full(L, -1, dtype=np.int64)  # the code of the (k-1)-gram at each position, -1 where not kept
    offset = 0
    for k in range(1, max_order + 1):
        if L < k:
            break
        if k == 1:  # word ids are compact codes already
            pos, inv, n_codes = np.arange(L), ids, V
        else:
            p = np.flatnonzero((cur[: L - k + 1] >= 0) & (cur[1 : L - k + 2] >= 0))
            pos = p[seg[p] == seg[p + k - 1]]
            raw = cur[pos] * V + ids[pos + k - 1]
            uniq, inv = np.unique(raw, return_inverse=True)  # (without return_index: a faster sort)
            inv, n_codes = inv.ravel(), len(uniq)
        in_ref = np.zeros(n_codes, dtype=bool)
        in_ref[inv[pos < n_ref]] = True
        ok = in_ref[inv]
        pos, inv = pos[ok], inv[ok]
        first_pos = np.zeros(n_codes, dtype=np.int64)
        first_pos[inv] = pos  # a position of each kept k-gram (any one: every occurrence has the same words)
        cur = np.full(L, -1, dtype=np.int64)
        cur[pos] = inv  # compact codes, < L: the next product stays far below 2**63
        kept.append((pos, inv + offset))
        first.append(first_pos)
        orders.append(np.full(n_codes, k))
        offset += n_codes
    return kept, first, orders


def _clipped_matches(keys: list[np.ndarray], G: int) -> np.ndarray:
    """``(G, outputs)``: per n-gram code (``key % G``), how often each output (``keys[1:]``; ``keys[0]`` is the
    reference) matches it, clipped per segment by the reference's count (``key``: segment * G + code)."""
    rk, rc = np.unique(keys[0], return_counts=True)
    matched = np.zeros((G, len(keys) - 1), dtype=np.int64)
    for j, key in enumerate(keys[1:]):
        k, clipped = _clipped(rk, rc, *np.unique(key, return_counts=True))
        np.add.at(matched[:, j], k % G, clipped)
    return matched


def salient_ngrams(
    grams: np.ndarray, rank: np.ndarray, ma: np.ndarray, mb: np.ndarray, alpha: float, top: int
) -> tuple[list, list]:
    """The ``top`` n-grams A matches more often than B and the ``top`` B matches more often than A, by the
    smoothed ratio ``(m_a + alpha) / (m_a + m_b + 2 alpha)``; ties broken by the larger count, then by the
    n-gram's words (``rank``: each word id's place in the sorted vocabulary). Returns ``[(ratio, row)]`` each
    way."""
    ma, mb = np.asarray(ma, dtype=np.float64), np.asarray(mb, dtype=np.float64)
    idx = np.flatnonzero(ma + mb > 0)
    ratio = (ma[idx] + alpha) / (ma[idx] + mb[idx] + 2 * alpha)

    def best(sign: float) -> np.ndarray:
        r = sign * ratio
        if len(r) > top:  # only the n-grams at or beyond the top-th ratio can be among the top
            cut = np.partition(r, len(r) - top)[len(r) - top]
            sel = np.flatnonzero(r >= cut)
        else:
            sel = np.arange(len(r))
        cand = idx[sel]
        tot = ma[cand] + mb[cand]
        words = tuple(
            np.where(grams[cand, j] >= 0, rank[grams[cand, j]], -1) for j in range(grams.shape[1] - 1, -1, -1)
        )
        return cand[np.lexsort((*words, -tot, -r[sel]))][:top]

    def r(i):
        return (float(ma[i]) + alpha) / (float(ma[i]) + float(mb[i]) + 2 * alpha)

    return [(r(i), int(i)) for i in best(1.0)], [(r(i), int(i)) for i in best(-1.0)]
