"""TER (Snover et al. 2006): tercom's search with sacreBLEU's definitions and options.

Statistics per segment: ``[edits, avg_ref_len]``: the fewest edits (insertions, deletions,
substitutions and shifts of word sequences) over the references, and the average reference length.
Both stay floats: with several references the average length is fractional and MultEval's integer
truncation would change the score. Corpus TER = 100 x sum(edits) / sum(avg_ref_len) (100 when the
references are empty and the hypothesis is not, 0 when both are). Lower is better.

Options, as sacreBLEU's (and its defaults): ``ter_case`` (case-sensitive; default off, text is
lowercased), ``ter_normalize`` (tercom's normalization), ``ter_no_punct`` (remove punctuation),
``ter_asian_support`` (CJK handling with the two above). Text goes through sacreBLEU's own
``TercomTokenizer``; the search runs in the compiled extension ``mtsig._ter`` (C), whose numbers equal
sacreBLEU's (tested per segment). Without the extension, sacreBLEU's pure-Python search is used, with a
warning: same numbers, far slower.

``ter_tercom`` runs tercom 0.7.25/0.8.0's own search instead (``mtsig._ter.tercom``, with
:mod:`mtsig.metrics.tercom` as its Python reference and fallback), the one MultEval uses: tercom's beamed
edit distance, its candidate order and stopping rule, and no cap on candidates. Its edits equal tercom
0.8.0's on every segment tested (MultEval's regression sets and random pairs); sacreBLEU's differ on some
long segments (see the README).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig._compiled import load
from mtsig.errors import InputError
from mtsig.io.segments import Segments
from mtsig.metrics.base import Metric
from mtsig.metrics.options import Option
from mtsig.tokenize import code_words

#: the search keeps a table of (hypothesis words + 1) x (reference words + 1) cells of 5 bytes: a pair beyond
#: this many cells (about 500 MB; e.g. 10,000 x 10,000 words) is refused with an error naming the segment
MAX_CELLS = 100_000_000
#: sacreBLEU's search stops after this many shift candidates in all; tercom's does not (``ter_tercom``)
SACREBLEU_CANDIDATES = 1000

_ter = load("_ter")
COMPILED = _ter is not None


def _select(ids: np.ndarray, off: np.ndarray, rows: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The token ids and offsets of the segments ``rows`` (in that order, repeats allowed)."""
    if len(rows) == len(off) - 1 and np.array_equal(rows, np.arange(len(rows))):
        return ids, off
    parts = [ids[off[i] : off[i + 1]] for i in rows]
    new_off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=new_off[1:])
    return (np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)).astype(np.int32), new_off


def _coded(toks: list[tuple[str, ...]], vocab: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Word ids (-1 for words no reference has) and offsets of tokenized segments."""
    ids, lens = code_words(toks, vocab, grow=False)
    off = np.zeros(len(toks) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    return ids.astype(np.int32), off


def _parts(lengths: list[int], n: int) -> list[tuple[int, int]]:
    """``[a, b)`` ranges cutting the segments into at most ``n`` runs of about equal search work (which
    grows about with the square of a segment's length)."""
    if n <= 1 or len(lengths) < 2 * n:
        return [(0, len(lengths))]
    work = np.cumsum(np.square(np.asarray(lengths, dtype=np.float64)) + 1.0)
    cuts = np.searchsorted(work, work[-1] * np.arange(1, n) / n)
    bounds = [0, *sorted({int(c) for c in cuts if 0 < c < len(lengths)}), len(lengths)]
    return list(zip(bounds[:-1], bounds[1:]))


class TER(Metric):
    name = "ter"
    scale = 100.0
    chunkable = True
    work = 2.0  # measured against BLEU on WMT22 de-en (4 systems: 0.124 s vs 0.062 s)
    description = "TER (tercom search, sacreBLEU options); lower is better"
    higher_is_better = False
    options = {
        "ter_case": Option(False, "TER: case-sensitive (default: lowercase)"),
        "ter_normalize": Option(False, "TER: tercom's normalization"),
        "ter_no_punct": Option(False, "TER: remove punctuation"),
        "ter_asian_support": Option(False, "TER: CJK handling (with the two above)"),
        "ter_tercom": Option(
            False,
            "TER: tercom 0.7.25/0.8.0's own search, as MultEval runs it (its edit-distance beam, candidate order "
            "and no cap on candidates; sacreBLEU's search stops after 1,000 candidates and over-counts edits on "
            "long segments)",
        ),
    }

    def __init__(self, **opts: Any):
        super().__init__(**opts)
        self._tok = None
        if self.config["ter_normalize"] or self.config["ter_no_punct"]:
            from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

            self._tok = TercomTokenizer(
                normalized=bool(self.config["ter_normalize"]),
                no_punct=bool(self.config["ter_no_punct"]),
                asian_support=bool(self.config["ter_asian_support"]),
                case_sensitive=bool(self.config["ter_case"]),
            )
        self._key = ("ter-tokens", *(bool(self.config[k]) for k in self.options))

    def _split(self, line: str) -> list[str]:
        """The words of a line as sacreBLEU's tercom tokenizer gives them. Without normalization and
        punctuation removal it only lowercases (unless case-sensitive) and splits on whitespace (its
        ``asian_support`` acts only with one of those two), done here without importing sacreBLEU."""
        if self._tok is not None:
            return self._tok(line.rstrip()).split()
        return (line if self.config["ter_case"] else line.lower()).split()

    @property
    def stat_names(self):
        return ["edits", "avg_ref_len"]

    def _tokens(self, seg: Segments) -> list[list[str]]:
        return seg.memo(self._key, lambda: [self._split(s) for s in seg.lines])

    def _hyp_keys(self, hyp: Segments) -> list[tuple[int, tuple[str, ...]]]:
        """``(segment, tokens)`` of every segment of an output, each distinct line tokenized once for all
        outputs (optimizer runs and systems share most of their lines)."""
        line_tokens: dict[str, tuple[str, ...]] = self.refs.memo(self._key + ("line-tokens",), dict)
        keys = []
        for i, line in enumerate(hyp.lines):
            t = line_tokens.get(line)
            if t is None:
                t = line_tokens[line] = tuple(self._split(line))
            keys.append((i, t))
        return keys

    def _ref_side(self):
        def make():
            vocab: dict[str, int] = {}
            arrays = []
            for r in self.refs:
                toks = self._tokens(r)
                ids, lens = code_words(toks, vocab, grow=True)
                off = np.zeros(len(toks) + 1, dtype=np.int64)
                np.cumsum(lens, out=off[1:])
                arrays.append((ids.astype(np.int32), off, toks))
            return vocab, arrays

        return self.refs.memo(self._key + ("ids",), make)

    def _edits_cache(self) -> dict[tuple[int, tuple[str, ...]], np.ndarray]:
        """Edits against each reference of every ``(segment, tokens)`` searched so far: they depend on nothing
        else, so an output repeated across systems and optimizer runs (often most of them) is searched once."""
        return self.refs.memo(self._key + ("edits",), dict)

    def warm(self) -> None:
        self._ref_side()

    def warm_runs(self, hyps: list[Segments], threads: int = 1) -> None:
        """Search every distinct segment output of all ``hyps`` once, on ``threads`` threads (the compiled
        search releases the GIL), before the outputs are scored one by one."""
        cache, todo = self._edits_cache(), {}
        for hyp in hyps:
            if len(hyp) == self.refs.n_segments:  # a wrong length is reported when the output is scored
                keys = [k for k in self._hyp_keys(hyp) if k not in cache and k not in todo]
                self._check_size(hyp, keys)
                todo.update(dict.fromkeys(keys))
        self._search(list(todo), threads)

    def _search(self, keys: list[tuple[int, tuple[str, ...]]], threads: int = 1) -> None:
        """Search ``keys`` against every reference and store their edits in the cache."""
        if not keys:
            return
        vocab, refs = self._ref_side()
        rows = [i for i, _ in keys]
        edits = np.empty((len(refs), len(keys)), dtype=np.int64)
        if _ter is not None:
            parts = _parts([len(t) for _, t in keys], threads)
            hyp_ids = [_coded([t for _, t in keys[a:b]], vocab) for a, b in parts]
            ref_ids = [[_select(rids, roff, rows[a:b]) for rids, roff, _ in refs] for a, b in parts]

            def run(p: int) -> None:
                a, b = parts[p]
                for k in range(len(refs)):
                    if self.config["ter_tercom"]:
                        _ter.tercom(*hyp_ids[p], *ref_ids[p][k], edits[k, a:b])
                    else:
                        _ter.edits(*hyp_ids[p], *ref_ids[p][k], edits[k, a:b], True, SACREBLEU_CANDIDATES)

            if len(parts) > 1:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(len(parts)) as pool:
                    list(pool.map(run, range(len(parts))))
            else:
                run(0)
        elif self.config["ter_tercom"]:  # pragma: no cover
            from mtsig.metrics.tercom import tercom_edits

            for k, (_, _, rtoks) in enumerate(refs):
                edits[k] = [tercom_edits(t, rtoks[i]) for i, t in keys]
        else:  # pragma: no cover
            import sacrebleu.metrics.lib_ter as lib_ter
            from sacrebleu.metrics.lib_ter import translation_edit_rate

            saved = lib_ter._MAX_SHIFT_CANDIDATES
            lib_ter._MAX_SHIFT_CANDIDATES = SACREBLEU_CANDIDATES  # its module constant
            try:
                for k, (_, _, rtoks) in enumerate(refs):
                    edits[k] = [translation_edit_rate(list(t), rtoks[i])[0] for i, t in keys]
            finally:
                lib_ter._MAX_SHIFT_CANDIDATES = saved
        cache = self._edits_cache()
        for j, key in enumerate(keys):
            cache[key] = edits[:, j]

    def _stats(self, hyp: Segments) -> np.ndarray:
        _, refs = self._ref_side()
        keys = self._hyp_keys(hyp)
        cache = self._edits_cache()
        todo = list(dict.fromkeys(k for k in keys if k not in cache))
        self._check_size(hyp, todo)
        self._search(todo)
        best = np.array([cache[k].min() for k in keys], dtype=np.float64)
        lens = np.array([[len(s) for s in r[2]] for r in refs], dtype=np.float64)
        return np.column_stack([best.reshape(len(keys)), lens.mean(axis=0)])

    def _check_size(self, hyp: Segments, keys: list[tuple[int, tuple[str, ...]]]) -> None:
        """Refuse a segment whose search table would exceed :data:`MAX_CELLS` (memory grows with the product
        of the two lengths), naming it, rather than running out of memory."""
        if not keys:
            return
        todo = [i for i, _ in keys]
        h = np.array([len(t) for _, t in keys], dtype=np.int64) + 1
        for k, (_, roff, _) in enumerate(self._ref_side()[1]):
            r = np.diff(roff)[todo] + 1
            bad = np.flatnonzero(h * r > MAX_CELLS)
            if bad.size:
                j = int(bad[0])
                i, where = todo[j], hyp.source or hyp.name or "the hypothesis"
                raise InputError(
                    f"TER: segment {hyp.offset + i + 1} of {where} has {h[j] - 1:,} words and "
                    f"reference {self.refs[k].source or self.refs[k].name} has {r[j] - 1:,}: the TER search needs "
                    f"memory for their product ({h[j] * r[j] * 5 / 2**30:.1f} GB); pairs are limited to "
                    f"{MAX_CELLS:,} cells (about 10,000 x 10,000 words). Split the segment or leave TER out."
                )

    def score(self, totals):
        totals = np.asarray(totals, dtype=np.float64)
        e, L = totals[..., 0], totals[..., 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.where(L > 0, e / L, np.where(e > 0, 1.0, 0.0))
        return 100.0 * s

    def signature_fields(self):
        c = self.config
        return [
            ("case", "mixed" if c["ter_case"] else "lc"),
            ("tok", "tercom"),
            ("norm", "yes" if c["ter_normalize"] else "no"),
            ("punct", "no" if c["ter_no_punct"] else "yes"),
            ("asian", "yes" if c["ter_asian_support"] else "no"),
            *([("search", "tercom")] if c["ter_tercom"] else []),
        ]
