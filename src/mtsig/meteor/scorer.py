"""METEOR statistics of one segment and the score of summed statistics, as ``meteor-1.5.jar`` computes them.

Statistics (23 columns, the jar's ``-ssOut`` order): hypothesis and reference length, their function
words, then per stage slot (exact, 2nd, 3rd, 4th stage of the module list) the hypothesis content
matches, reference content matches, hypothesis function-word matches, reference function-word matches;
then chunks, hypothesis and reference matched words. Chunks are stored as the jar sums them: a segment
that matches completely in one chunk adds none (``MeteorStats.addStats``), so the corpus score of summed
rows is the jar's system score.
"""

from __future__ import annotations

from array import array

import numpy as np

from mtsig.meteor.align import (
    SEARCH_WEIGHT,
    Candidates,
    _meteor,
    count_chunks,
    java_hash,
    match_keys,
    match_paraphrases,
    match_synonyms,
    search_python,
)
from mtsig.meteor.normalize import java_tokens
from mtsig.meteor.params import EXACT, PARAPHRASE, STEM, SYNONYM, Config

N_STATS = 23
STAT_NAMES = [
    "hyp_len",
    "ref_len",
    "hyp_func",
    "ref_func",
    *(
        f"{side}_{kind}_{k + 1}"
        for k in range(4)
        for side, kind in (("hyp", "c"), ("ref", "c"), ("hyp", "f"), ("ref", "f"))
    ),
    "chunks",
    "hyp_matched_words",
    "ref_matched_words",
]
_TC, _CH = 4, 20


def _utf16_len(word: str) -> int:
    return len(word) + sum(1 for c in word if ord(c) > 0xFFFF)


#: the most paths the alignment search may expand for one segment (beam x candidate matches): about 15 s and
#: 0.9 GB (1,570 copies of one word against as many); a segment beyond is refused (as ``mtsig._meteor`` does)
MAX_SEARCH_WORK = 100_000_000


class Vocabulary:
    """Per distinct word, what the stages compare (Java hash of the word and of its stem, sorted synset ids),
    whether it is a function word and its size (1, or UTF-16 units when character-based), as flat arrays the
    compiled scorer reads by word id."""

    def __init__(self, scorer: PairScorer):
        self._sc = scorer
        self.index: dict[str, int] = {}
        self.key, self.stem, self.size = array("i"), array("i"), array("i")
        self.syn_off, self.syn_id = array("i", [0]), array("i")
        self.fw = array("B")

    def _add(self, w: str) -> int:
        sc = self._sc
        self.key.append(java_hash(w))
        self.stem.append(sc._stem_key(w) if sc.stemmer is not None else 0)
        if sc.synonyms is not None:
            self.syn_id.extend(sorted(sc.synonyms.sets(w)))
        self.syn_off.append(len(self.syn_id))
        self.size.append(_utf16_len(w) if sc.cfg.char_based else 1)
        self.fw.append(sc._is_fw(w))
        i = self.index[w] = len(self.index)
        return i

    def ids(self, words: list[str]) -> array:
        index = self.index
        return array("i", [index[w] if w in index else self._add(w) for w in words])

    def arrays(self) -> tuple:
        return (self.key, self.stem, self.syn_off, self.syn_id, self.size, self.fw)


class PairScorer:
    """Aligns a hypothesis with a reference (both already normalized / lowercased) and returns the row."""

    def __init__(self, cfg: Config, function_words, stemmer=None, synonyms=None, paraphrases=None):
        self.cfg = cfg
        self.fw = function_words
        self.stemmer = stemmer
        self.synonyms = synonyms
        self.para = paraphrases
        self._stem_memo: dict[str, int] = {}
        self._phrase_memo: dict[tuple[str, ...], tuple] = {}
        self._fw_memo: dict[str, bool] = {}
        self.vocab = Vocabulary(self)
        self._stages = bytes(self.cfg.modules)
        self._weights = tuple(SEARCH_WEIGHT[m] for m in self.cfg.modules)
        self._table = self.para.pair_arrays() if self.para is not None else None

    def _stem_key(self, w: str) -> int:
        k = self._stem_memo.get(w)
        if k is None:
            k = self._stem_memo[w] = java_hash(self.stemmer(w))
        return k

    def _is_fw(self, w: str) -> bool:
        f = self._fw_memo.get(w)
        if f is None:
            f = self._fw_memo[w] = w.lower() in self.fw
        return f

    def _phrases(self, words: list[str]):
        key = tuple(words)
        p = self._phrase_memo.get(key)
        if p is None:
            p = self._phrase_memo[key] = self.para.phrases(words)
        return p

    def candidates(self, w1: list[str], w2: list[str], k1: list[int], k2: list[int]) -> Candidates:
        cands = Candidates(len(w1), len(w2))
        stages = self.cfg.modules
        if len(w1) == len(w2) and k1 == k2:
            stages = stages[:1]  # identical: the first stage only (the jar avoids search errors so)
        for s, mod in enumerate(stages):
            if mod == EXACT:
                match_keys(cands, s, k1, k2, None, None)
            elif mod == STEM:
                match_keys(cands, s, [self._stem_key(w) for w in w1], [self._stem_key(w) for w in w2], k1, k2)
            elif mod == SYNONYM:
                sets = self.synonyms.sets
                match_synonyms(cands, s, [sets(w) for w in w1], [sets(w) for w in w2], k1, k2)
            elif mod == PARAPHRASE:
                match_paraphrases(cands, s, self.para, self._phrases(w1), self._phrases(w2))
        return cands

    def prepare(self, words: list[str]) -> None:
        """What :meth:`row` needs of a line computed ahead (its word ids, its phrases)."""
        self.vocab.ids(words)
        if self.para is not None:
            self._phrases(words)

    def row(self, w1: list[str], w2: list[str]) -> np.ndarray:
        """Statistics of hypothesis words ``w1`` against reference words ``w2``: in ``mtsig._meteor`` when
        it is built (candidates, search and row in one call), else :meth:`row_python`."""
        if _meteor is None:  # pragma: no cover
            return self.row_python(w1, w2)
        r = np.empty(N_STATS)
        ph = (self._phrases(w1), self._phrases(w2)) if self.para is not None else (None, None)
        v = self.vocab
        _meteor.segment(v.ids(w1), v.ids(w2), v.arrays(), self._stages, self._weights, self.cfg.beam, *ph,
                        self._table, r)  # fmt: skip
        return r

    def row_python(self, w1: list[str], w2: list[str]) -> np.ndarray:
        """:meth:`row` in Python (the reference of the compiled scorer)."""
        k1 = [java_hash(w) for w in w1]
        k2 = [java_hash(w) for w in w2]
        cands = self.candidates(w1, w2, k1, k2)
        work = self.cfg.beam * (sum(len(ms) for ms in cands.by_start) + len(w2))
        if work > MAX_SEARCH_WORK:  # as the compiled search refuses it
            raise ValueError(f"segment: the alignment search would expand {work} paths, more than {MAX_SEARCH_WORK}")
        chosen = search_python(cands, len(w2), self.cfg.modules, self.cfg.beam)
        f1 = [self._is_fw(w) for w in w1]
        f2 = [self._is_fw(w) for w in w2]
        size1 = [_utf16_len(w) for w in w1] if self.cfg.char_based else [1] * len(w1)
        size2 = [_utf16_len(w) for w in w2] if self.cfg.char_based else [1] * len(w2)
        r = np.zeros(N_STATS)
        r[0], r[1] = sum(size1), sum(size2)
        r[2] = sum(s for s, f in zip(size1, f1) if f)
        r[3] = sum(s for s, f in zip(size2, f2) if f)
        words1 = words2 = 0
        for j, length, i, mlen, stage in chosen:
            base = _TC + 4 * stage
            for k in range(i, i + mlen):
                r[base + (2 if f1[k] else 0)] += size1[k]
            for k in range(j, j + length):
                r[base + 1 + (2 if f2[k] else 0)] += size2[k]
            words1 += mlen
            words2 += length
        r[_CH] = count_chunks(chosen)
        r[21], r[22] = words1, words2
        return r


def effective_chunks(rows: np.ndarray) -> np.ndarray:
    """Zero the chunks of rows that match completely in one chunk (the jar's aggregation rule)."""
    rows = np.array(rows, dtype=np.float64, copy=True)
    t_total = rows[..., _TC:_CH:4].sum(-1) + rows[..., _TC + 2 : _CH : 4].sum(-1)
    r_total = rows[..., _TC + 1 : _CH : 4].sum(-1) + rows[..., _TC + 3 : _CH : 4].sum(-1)
    perfect = (t_total == rows[..., 0]) & (r_total == rows[..., 1]) & (rows[..., _CH] == 1)
    rows[..., _CH] = np.where(perfect, 0.0, rows[..., _CH])
    return rows


def score(totals: np.ndarray, params, weights) -> np.ndarray:
    """The jar's ``computeMetrics``: METEOR (0..1) of statistics with any leading axes."""
    t = np.asarray(totals, dtype=np.float64)
    alpha, beta, gamma, delta = params
    w = np.zeros(4)
    w[: min(4, len(weights))] = weights[:4]
    tl, rl, tf, rf = t[..., 0], t[..., 1], t[..., 2], t[..., 3]
    tc, rc, tfm, rfm = (t[..., _TC + k : _CH : 4] for k in range(4))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t_wlen = delta * (tl - tf) + (1.0 - delta) * tf
        r_wlen = delta * (rl - rf) + (1.0 - delta) * rf
        t_wm = np.zeros(t.shape[:-1])
        r_wm = np.zeros(t.shape[:-1])
        for k in range(4):  # the jar's order of additions
            t_wm = t_wm + tc[..., k] * w[k] * delta
        for k in range(4):
            r_wm = r_wm + rc[..., k] * w[k] * delta
        for k in range(4):
            t_wm = t_wm + tfm[..., k] * w[k] * (1.0 - delta)
        for k in range(4):
            r_wm = r_wm + rfm[..., k] * w[k] * (1.0 - delta)
        p = t_wm / t_wlen
        r = r_wm / r_wlen
        fmean = 1.0 / ((1.0 - alpha) / p + alpha / r)
        t_total = tc.sum(-1) + tfm.sum(-1)
        r_total = rc.sum(-1) + rfm.sum(-1)
        chunks = t[..., _CH]
        perfect = (t_total == tl) & (r_total == rl) & (chunks == 1)
        frag = np.where(perfect, 0.0, chunks / ((t[..., 21] + t[..., 22]) / 2))
        s = fmean * (1.0 - gamma * np.power(frag, beta))
    s = np.where(np.isnan(s), 0.0, np.maximum(s, 0.0))
    return s


def tokens(line: str, cfg: Config, norm) -> list[str]:
    """The words the jar aligns: normalized (``-norm``), lowercased (``-norm``/``-lower``), then split."""
    if norm is not None:
        line = norm(line)
    if cfg.normalize != "none":
        line = line.lower()
    return java_tokens(line)
