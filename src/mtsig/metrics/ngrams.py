"""Vectorized n-gram matching against a set of references.

Reference n-grams are coded once into integers: order-1 codes are vocabulary ids; an order-n code is
the rank of the pair (order-(n-1) code, last token id) among all such pairs in the references
(``np.unique``). Any n-gram then finds its code by binary search in that sorted table, and
clipped counts are computed for the whole corpus at once with ``np.unique``/``np.searchsorted``/
``np.bincount``: no Python loop over n-grams, no per-segment dictionaries.

The same tables give the NIST information weights (counts of each n-gram and of its prefix over all
reference segments of all references).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.io.segments import Segments
from mtsig.metrics.base import Metric
from mtsig.metrics.options import LOWERCASE, TOKENIZE
from mtsig.tokenize import Tokenizer, _tok, code_words

#: the placeholder of order 1 in the per-order lists that start at order 2
_NONE = np.empty(0, dtype=np.int64)


class NgramIndex:
    """Reference-side tables for orders 1..``max_n``, shared by BLEU, NIST and friends."""

    def __init__(self, ref_tokens: list[list[list[str]]], max_n: int):
        if max_n < 1:
            raise InputError(f"n-gram order must be at least 1, got {max_n}")
        self.max_n = max_n
        self.n_refs = len(ref_tokens)
        self.n_segments = len(ref_tokens[0])
        ids, unit = self._code_words(ref_tokens)
        self.tables: list[np.ndarray] = [_NONE]  # tables[n] sorted packed pairs; order 1 none
        self.n_codes: list[int] = [self.V]
        self.ref_keys: list[np.ndarray] = []  # per order: sorted seg*C+code present in some reference
        self.ref_max: list[np.ndarray] = []  # per order: max count over references for that key
        self.counts: list[np.ndarray] = []  # per order: count of each code over all references
        self.prefix: list[np.ndarray] = [_NONE]  # per order >= 2: code of the (n-1)-gram prefix
        self._starts: dict[int, np.ndarray] = {}  # per order >= 2: where each prefix's entries begin
        code = ids.copy()  # order-1 codes
        starts = np.arange(ids.size, dtype=np.int64)
        for n in range(1, max_n + 1):
            if n > 1:
                code, starts = self._extend(n, code, ids, unit)
            self._count(code[starts], unit[starts])
        self._info: list[np.ndarray] | None = None
        self._ref_starts: dict[int, np.ndarray] = {}
        #: counts over the whole corpus when this index holds one chunk of it (see :class:`CorpusNgramCounts`)
        self.corpus_counts: CorpusNgramCounts | None = None

    def _code_words(self, ref_tokens: list[list[list[str]]]) -> tuple[np.ndarray, np.ndarray]:
        """Vocabulary ids of all reference words, and the unit (reference k, segment i: k N + i) of each."""
        K, N = self.n_refs, self.n_segments
        vocab: dict[str, int] = {}
        self.vocab = vocab
        coded = [code_words(ref, vocab, grow=True) for ref in ref_tokens]
        lengths = np.stack([lens for _, lens in coded]) if coded else np.zeros((K, N), dtype=np.int64)
        self.ref_lengths = lengths.T.copy()  # (N, K)
        self.total_ref_words = int(lengths.sum())
        self.V = max(len(vocab), 1)
        flat = np.concatenate([ids for ids, _ in coded]) if coded else np.zeros(0, dtype=np.int64)
        return flat, np.repeat(np.arange(K * N, dtype=np.int64), lengths.ravel())

    def _extend(self, n: int, code: np.ndarray, ids: np.ndarray, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Codes of order ``n`` from those of order ``n - 1`` (the rank of the pair (prefix code, last word))."""
        T, V = ids.size, self.V
        m = T - n + 1
        if m <= 0:
            starts = np.zeros(0, dtype=np.int64)
            prev = nxt = packed = np.zeros(0, dtype=np.int64)
        else:
            starts = np.flatnonzero((code[:m] >= 0) & (unit[:m] == unit[n - 1 : n - 1 + m]))
            prev, nxt = code[starts], ids[starts + n - 1]
            packed = prev * V + nxt
        uniq = _sorted_unique(packed)
        self.tables.append(uniq)
        self.n_codes.append(max(uniq.size, 1))
        self.prefix.append(uniq // V)
        new = np.full(T, -1, dtype=np.int64)
        new[starts] = self._positions(n, prev, nxt)  # each pair's rank in the table (np.unique's inverse)
        return new, starts

    def _count(self, c: np.ndarray, unit: np.ndarray) -> None:
        """Counts of one order's codes over all references, and per segment the most any reference has."""
        N, K = self.n_segments, self.n_refs
        C = self.n_codes[len(self.counts)]
        self.counts.append(np.bincount(c, minlength=C).astype(np.float64))
        # (segment, code, reference) in one sorted key: the counts of each reference, grouped by (seg, code)
        uk, cnt = np.unique(((unit % N) * C + c) * K + unit // N, return_counts=True)
        key = uk // K
        if key.size:
            first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            self.ref_keys.append(key[first])
            self.ref_max.append(np.maximum.reduceat(cnt, first))
        else:
            self.ref_keys.append(key)
            self.ref_max.append(cnt)

    # ------------------------------------------------------------------ NIST weights
    def nist_info(self) -> list[np.ndarray]:
        """Information weight of every reference n-gram code, order by order, as mteval-v13a computes it.

        info(w1..wn) = log2(count(w1..wn-1) / count(w1..wn)); for unigrams the numerator is the number of
        reference words. The scorer tests "has a prefix" with a Perl truth test, so a bigram whose prefix
        is the single token "0" takes the total word count as numerator: reproduced here.
        """
        if self._info is None and self.corpus_counts is not None:  # a chunk of a larger corpus: its weights
            self._info = self.corpus_counts.info_for(self)
        if self._info is None:
            total = float(self.total_ref_words)
            info = []
            for n in range(1, self.max_n + 1):
                cnt = self.counts[n - 1]
                if n == 1:
                    denom = np.full_like(cnt, total)
                else:
                    denom = self.counts[n - 2][self.prefix[n - 1]]
                    if n == 2 and "0" in self.vocab:
                        denom = np.where(self.prefix[1] == self.vocab["0"], total, denom)
                info.append(_information(cnt, denom))
            self._info = info
        return self._info

    @property
    def has_info(self) -> bool:
        """True once the NIST weights have been computed (:meth:`nist_info`)."""
        return self._info is not None

    # ------------------------------------------------------------------ hypothesis side
    def match(self, hyp_tokens: list[list[str]], max_n: int | None = None, info: bool = False):
        """Clipped n-gram matches of each hypothesis segment.

        Returns ``(hyp_len (N,), matches (N, n), totals (N, n), info_matches (N, n) or None)``.
        """
        n_max = self.max_n if max_n is None else max_n
        if n_max > self.max_n:
            raise ValueError("index built for a smaller order")
        N = self.n_segments
        if len(hyp_tokens) != N:
            raise InputError(f"hypothesis has {len(hyp_tokens)} segments, references have {N}")
        ids, lens = code_words(hyp_tokens, self.vocab, grow=False)
        seg = np.repeat(np.arange(N, dtype=np.int64), lens)
        off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        T = ids.size
        matches = np.zeros((N, n_max))
        totals = np.maximum(lens[:, None] - np.arange(n_max)[None, :], 0).astype(np.float64)
        info_m = np.zeros((N, n_max)) if info else None
        weights = self.nist_info() if info else []
        code = ids
        for n in range(1, n_max + 1):
            if n > 1:
                m = T - n + 1
                new = np.full(T, -1, dtype=np.int64)
                if m > 0:
                    prev = code[:m]
                    nxt = ids[n - 1 : n - 1 + m]
                    ok = np.flatnonzero((prev >= 0) & (nxt >= 0) & (seg[:m] == seg[n - 1 : n - 1 + m]))
                    table = self.tables[n - 1]
                    if ok.size and table.size:
                        new[ok] = self._positions(n, prev[ok], nxt[ok])
                code = new
            if _tok is not None:
                self._clip_counts(n, off, code, matches, info_m, weights)
                continue
            valid = np.flatnonzero(code >= 0)
            if valid.size == 0:
                continue
            C = self.n_codes[n - 1]
            keys, cnt = np.unique(seg[valid] * C + code[valid], return_counts=True)
            rk = self.ref_keys[n - 1]
            if rk.size == 0:
                continue
            pos = np.searchsorted(rk, keys)
            pos[pos == rk.size] = 0
            hit = rk[pos] == keys
            clipped = np.minimum(cnt[hit], self.ref_max[n - 1][pos[hit]]).astype(np.float64)
            s = keys[hit] // C
            matches[:, n - 1] = np.bincount(s, weights=clipped, minlength=N)
            if info_m is not None:
                w = weights[n - 1][keys[hit] % C]
                info_m[:, n - 1] = np.bincount(s, weights=clipped * w, minlength=N)
        return lens, matches, totals, info_m

    def _clip_counts(self, n: int, off: np.ndarray, code: np.ndarray, matches, info_m, weights) -> None:
        """Order ``n``'s clipped matches (and information) per segment into column n - 1, in C: the numbers of
        the np.unique / np.searchsorted / np.bincount steps (same sums in the same order)."""
        assert _tok is not None  # called only where mtsig._tok is built
        rk = self.ref_keys[n - 1]
        C = self.n_codes[n - 1]
        starts = self._ref_starts.get(n)
        if starts is None:  # where each segment's reference keys begin (sorted by segment, then code)
            starts = self._ref_starts[n] = np.searchsorted(rk, np.arange(self.n_segments + 1) * C)
        m = np.zeros(self.n_segments)
        inf = np.zeros(self.n_segments) if info_m is not None else None
        w = weights[n - 1] if info_m is not None else None
        _tok.clip_counts(off, np.ascontiguousarray(code), C, rk, np.ascontiguousarray(self.ref_max[n - 1]), starts,
                         w, m, inf)  # fmt: skip
        matches[:, n - 1] = m
        if info_m is not None:
            info_m[:, n - 1] = inf

    def _positions(self, n: int, prev: np.ndarray, nxt: np.ndarray) -> np.ndarray:
        """Position in ``tables[n]`` of each pair (order n - 1 code, word), -1 for pairs no reference has."""
        table = self.tables[n - 1]
        if _tok is None:
            packed = prev * self.V + nxt
            pos = np.asarray(np.searchsorted(table, packed))
            pos[pos == table.size] = 0
            return np.where(table[pos] == packed, pos, -1)
        starts = self._starts.get(n)
        if starts is None:  # where each prefix code's entries begin (the table is sorted by prefix, then word)
            starts = np.zeros(self.n_codes[n - 2] + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.prefix[n - 1], minlength=self.n_codes[n - 2]), out=starts[1:])
            self._starts[n] = starts
        out = np.empty(prev.size, dtype=np.int64)
        _tok.pair_codes(table, starts, np.ascontiguousarray(prev), np.ascontiguousarray(nxt), self.V, out)
        return out

    def closest_ref_length(self, hyp_len: np.ndarray) -> np.ndarray:
        """Per segment, the reference length closest to the hypothesis length (ties: the shorter)."""
        L = self.ref_lengths
        dist = np.abs(L - hyp_len[:, None])
        key = dist * (int(L.max(initial=0)) + 1) + L
        return L[np.arange(L.shape[0]), np.argmin(key, axis=1)]


# ---------------------------------------------------------------------------------------------------
# n-gram metrics: the index is built once per reference set and tokenizer, matches once per hypothesis


def ngram_index(metric: Metric, tokenizer: Tokenizer, max_n: int) -> NgramIndex:
    """The references' n-gram index for ``tokenizer``, built once per RefSet (orders 1..4 at least;
    rebuilt only when a larger order is asked for: warm the largest order first to build it once)."""
    refs = metric.refs
    key = ("ngram-index", tokenizer.key)
    idx = refs.peek(key)
    if idx is None or idx.max_n < max_n:
        toks = [tokenizer.tokenize_all(r) for r in refs]
        idx = refs.store(key, NgramIndex(toks, max(max_n, 4)))
        idx.corpus_counts = refs.peek(corpus_counts_key(tokenizer))
    return idx


def corpus_counts_key(tokenizer: Tokenizer) -> tuple:
    """Where a chunk's RefSet holds the :class:`CorpusNgramCounts` of the whole corpus for ``tokenizer``."""
    return ("corpus-ngram-counts", tokenizer.key)


def ngram_match(metric: Metric, tokenizer: Tokenizer, hyp: Segments, max_n: int, info: bool = False):
    """Matches of ``hyp`` against the references for orders 1..``max_n``.

    One pass per hypothesis and tokenizer (all orders of the index; NIST information when asked),
    memoized on the hypothesis, so BLEU, NIST, Modified BLEU and the length ratio share it.
    """
    idx = ngram_index(metric, tokenizer, max_n)
    res = hyp.peek(("ngram-match", tokenizer.key, idx, True))
    if res is None:
        # once NIST's weights are there (NIST is among the metrics), the information is gathered in the same
        # pass, whichever metric asks first, so that BLEU and NIST share one pass
        info = info or idx.has_info
        res = hyp.memo(
            ("ngram-match", tokenizer.key, idx, info), lambda: idx.match(tokenizer.tokenize_all(hyp), info=info)
        )
    lens, matches, totals, info_m = res
    return idx, (lens, matches[:, :max_n], totals[:, :max_n], info_m[:, :max_n] if info else None)


def length_and_match_stats(metric: Metric, tokenizer: Tokenizer, order: int, hyp: Segments) -> np.ndarray:
    """``[hyp_len, closest_ref_len, match_1..match_order, total_1..total_order]`` per segment."""
    idx, (lens, matches, totals, _) = ngram_match(metric, tokenizer, hyp, order)
    ref_len = idx.closest_ref_length(lens)
    return np.column_stack([lens.astype(np.float64), ref_len.astype(np.float64), matches, totals])


class NgramMetric(Metric):
    """Base of the metrics on tokenized n-grams (BLEU, NIST, Modified BLEU, length): a tokenizer and case."""

    options = {"tokenize": TOKENIZE, "lowercase": LOWERCASE}
    chunkable = True
    integer_stats = True  # lengths and n-gram counts (NIST's information weights are not: it says so)

    def __init__(self, **opts: Any):
        super().__init__(**opts)
        self.tokenizer = Tokenizer(self.config["tokenize"], bool(self.config["lowercase"]))

    def signature_fields(self):
        return [("tok", self.tokenizer.name), ("case", "lc" if self.tokenizer.lowercase else "mixed")]

    @property
    def ngram_order(self) -> int:
        return int(self.config.get("bleu_order", 1))

    def warm(self) -> None:
        ngram_index(self, self.tokenizer, self.ngram_order)


# ---------------------------------------------------------------------------------------------------
# reference n-gram counts over a whole corpus, gathered chunk by chunk (NIST weights for chunked scoring)


class CorpusNgramCounts:
    """Counts of every reference n-gram (orders 1..``max_n``) over all segments of all references, added one
    chunk of segments at a time, so that a corpus too large to tokenize at once still gets the information
    weights of its whole reference side (exactly those of :meth:`NgramIndex.nist_info` on the whole corpus).

    Codes are global and exact: a word's code is its id in one vocabulary; an order-n code is an id given to
    the key ``(code of the (n-1)-gram prefix) << 32 | word id`` the first time it is seen. Per order, the
    sorted keys with the id of each, the count and the prefix code of each id.
    """

    def __init__(self, max_n: int):
        self.max_n = max_n
        self.vocab: dict[str, int] = {}
        self.total_words = 0
        self.keys: list[np.ndarray] = [np.zeros(0, np.int64) for _ in range(max_n + 1)]  # [n]: sorted keys, n >= 2
        self.ids: list[np.ndarray] = [np.zeros(0, np.int32) for _ in range(max_n + 1)]  # [n]: id of each key
        self.counts: list[np.ndarray] = [np.zeros(0, np.int32) for _ in range(max_n + 1)]  # [n]: count per id
        self._info: list[np.ndarray] | None = None

    def add(self, ref_tokens: list[list[list[str]]]) -> None:
        """Count the n-grams of one chunk: ``ref_tokens[k][i]`` the tokens of reference k, segment i."""
        if self._info is not None:
            raise RuntimeError("CorpusNgramCounts: all chunks must be added before the weights are read")
        ids, lens = code_words([t for ref in ref_tokens for t in ref], self.vocab, grow=True)
        unit = np.repeat(np.arange(lens.size, dtype=np.int64), lens)
        self.total_words += int(ids.size)
        code = ids
        for n in range(1, self.max_n + 1):
            if n > 1:
                m = ids.size - n + 1
                starts = np.flatnonzero(unit[: max(m, 0)] == unit[n - 1 : n - 1 + max(m, 0)])
                starts = starts[code[starts] >= 0]
                new = np.full(ids.size, -1, dtype=np.int64)
                new[starts] = self._code((code[starts] << 32) | ids[starts + n - 1], n)
                code = new
            valid = code[code >= 0]
            size = max(len(self.vocab) if n == 1 else self.ids[n].size, int(valid.max(initial=-1)) + 1)
            grown = np.zeros(size, dtype=np.int32)
            grown[: self.counts[n].size] = self.counts[n]
            grown += np.bincount(valid, minlength=size).astype(np.int32)
            self.counts[n] = grown
        if self.total_words >= 2**31 or max(x.size for x in self.ids) >= 2**31:
            raise InputError("the references hold more than 2^31 words or distinct n-grams of one order")

    def _code(self, packed: np.ndarray, n: int) -> np.ndarray:
        """Ids of order-``n`` keys, new keys getting the next ids (in sorted order of first sight)."""
        keys, ids = self.keys[n], self.ids[n]
        uniq, inv = np.unique(packed, return_inverse=True)
        pos, found = _find(keys, uniq)
        out = np.empty(uniq.size, dtype=np.int64)
        out[found] = ids[pos[found]]
        fresh = np.flatnonzero(~found)
        out[fresh] = ids.size + np.arange(fresh.size)
        if fresh.size:
            at = pos[fresh]  # both sorted: insert the new keys at their places
            self.keys[n] = np.insert(keys, at, uniq[fresh])
            self.ids[n] = np.insert(ids, at, out[fresh].astype(np.int32))
        return out[inv]

    def _lookup(self, packed: np.ndarray, n: int) -> np.ndarray:
        """Ids of order-``n`` keys; -1 for a key not kept (an n-gram seen once)."""
        pos, hit = _find(self.keys[n], packed)
        out = np.full(packed.size, -1, dtype=np.int64)
        out[hit] = self.ids[n][pos[hit]]
        return out

    def _prune(self) -> None:
        """Forget the n-grams seen once (most distinct n-grams of a large corpus): their weight follows from their
        prefix's count alone (:meth:`info_for`). Ids are renumbered densely, order by order, keys re-sorted."""
        keep1 = self.counts[1] >= 2
        new1 = np.cumsum(keep1) - 1
        self.vocab = {w: int(new1[i]) for w, i in self.vocab.items() if keep1[i]}
        self.counts[1] = self.counts[1][keep1]
        prev_new = new1
        for n in range(2, self.max_n + 1):
            keep = self.counts[n] >= 2
            new = np.cumsum(keep) - 1
            mask = keep[self.ids[n]]
            k, i = self.keys[n][mask], self.ids[n][mask]
            k = (prev_new[k >> 32] << 32) | new1[k & 0xFFFFFFFF]
            order = np.argsort(k, kind="stable")
            self.keys[n], self.ids[n] = k[order], new[i][order].astype(np.int32)
            self.counts[n] = self.counts[n][keep]
            prev_new = new

    def info(self) -> list[np.ndarray]:
        """Information weight per kept id, order by order (the formula and quirk of :meth:`NgramIndex.nist_info`).
        Computed once all chunks are added, after the n-grams seen once are forgotten."""
        if self._info is None:
            self._prune()
            total = float(self.total_words)
            out = []
            for n in range(1, self.max_n + 1):
                cnt = self.counts[n].astype(np.float64)
                if n == 1:
                    denom = np.full_like(cnt, total)
                else:
                    prefix = np.empty(self.ids[n].size, dtype=np.int64)
                    prefix[self.ids[n]] = self.keys[n] >> 32
                    denom = self.counts[n - 1][prefix].astype(np.float64)
                    if n == 2 and "0" in self.vocab:
                        denom = np.where(prefix == self.vocab["0"], total, denom)
                out.append(_information(cnt, denom))
            self._info = out
        return self._info

    def info_for(self, idx: NgramIndex) -> list[np.ndarray]:
        """The weights of a chunk's index ``idx`` (built on references already added), per local code.

        An n-gram that is not kept was seen once in the corpus: its weight is log2(count of its prefix / 1),
        the prefix's count being 1 too when the prefix is not kept (and the word count for unigrams and, by the
        scorer's quirk, for a bigram whose first word is "0")."""
        weights = self.info()
        total = float(self.total_words)
        words = np.empty(len(idx.vocab), dtype=object)
        for w, i in idx.vocab.items():
            words[i] = w
        glob1 = np.fromiter((self.vocab.get(w, -1) for w in words), dtype=np.int64, count=words.size)
        once = np.log2(total) if total > 0 else 0.0
        out = [np.where(glob1 >= 0, _take(weights[0], glob1), once) if glob1.size else np.zeros(1)]
        g = glob1
        V = idx.V
        zero = np.array([w == "0" for w in words], dtype=bool)
        for n in range(2, idx.max_n + 1):
            table = idx.tables[n - 1]
            if n > self.max_n or not table.size:  # orders no metric asked weights for, or none in this chunk
                out.append(np.zeros(idx.n_codes[n - 1]))
                continue
            gp, gw = g[table // V], glob1[table % V]
            known = (gp >= 0) & (gw >= 0)
            cur = np.full(table.size, -1, dtype=np.int64)
            cur[known] = self._lookup((gp[known] << 32) | gw[known], n)
            prefix_count = np.where(gp >= 0, _take(self.counts[n - 1], gp), 1).astype(np.float64)
            if n == 2:
                prefix_count = np.where(zero[table // V], total, prefix_count)
            out.append(np.where(cur >= 0, _take(weights[n - 1], cur), np.log2(prefix_count)))
            g = cur
        return out


def _sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` of an int64 array by a sort (numpy 2.x's np.unique hashes first: 4x slower here)."""
    s = np.sort(a)
    if s.size < 2:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def _take(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``values[ids]`` where ids >= 0 (anything where ids is -1; zeros when ``values`` is empty)."""
    return values[np.maximum(ids, 0)] if values.size else np.zeros(ids.size, dtype=np.float64)


def _find(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where ``values`` go in the sorted ``keys``, and which of them are there."""
    pos = np.searchsorted(keys, values)
    inside = pos < keys.size
    hit = np.zeros(values.size, dtype=bool)
    hit[inside] = keys[pos[inside]] == values[inside]
    return pos, hit


def _information(counts: np.ndarray, denominators: np.ndarray) -> np.ndarray:
    """NIST's information weight log2(denominator / count) of each n-gram counted (0 where the count is 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counts > 0, np.log2(denominators / np.maximum(counts, 1)), 0.0)
