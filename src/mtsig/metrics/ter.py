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
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.io.segments import Segments
from mtsig.metrics.base import Metric
from mtsig.metrics.options import Option

#: the search keeps a table of (hypothesis words + 1) x (reference words + 1) cells of 5 bytes: a pair beyond
#: this many cells (about 500 MB; e.g. 10,000 x 10,000 words) is refused with an error naming the segment
MAX_CELLS = 100_000_000

try:
    from mtsig import _ter

    COMPILED = True
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _ter = None
    COMPILED = False


def _select(ids: np.ndarray, off: np.ndarray, rows: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The token ids and offsets of some segments only."""
    if len(rows) == len(off) - 1:
        return ids, off
    parts = [ids[off[i] : off[i + 1]] for i in rows]
    new_off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=new_off[1:])
    return (np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)).astype(np.int32), new_off


class TER(Metric):
    name = "ter"
    chunkable = True
    description = "TER (tercom search, sacreBLEU options); lower is better"
    higher_is_better = False
    options = {
        "ter_case": Option(False, "TER: case-sensitive (default: lowercase)"),
        "ter_normalize": Option(False, "TER: tercom's normalization"),
        "ter_no_punct": Option(False, "TER: remove punctuation"),
        "ter_asian_support": Option(False, "TER: CJK handling (with the two above)"),
    }

    def __init__(self, **opts: Any):
        super().__init__(**opts)
        from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

        self._tok = TercomTokenizer(
            normalized=bool(self.config["ter_normalize"]),
            no_punct=bool(self.config["ter_no_punct"]),
            asian_support=bool(self.config["ter_asian_support"]),
            case_sensitive=bool(self.config["ter_case"]),
        )
        self._key = ("ter-tokens", *(bool(self.config[k]) for k in self.options))

    @property
    def stat_names(self):
        return ["edits", "avg_ref_len"]

    def _tokens(self, seg: Segments) -> list[list[str]]:
        return seg.memo(self._key, lambda: [self._tok(s.rstrip()).split() for s in seg.lines])

    def _ref_side(self):
        def make():
            vocab: dict[str, int] = {}
            arrays = []
            for r in self.refs:
                toks = self._tokens(r)
                ids = np.fromiter((vocab.setdefault(t, len(vocab)) for s in toks for t in s), dtype=np.int32)
                off = np.zeros(len(toks) + 1, dtype=np.int64)
                np.cumsum([len(s) for s in toks], out=off[1:])
                arrays.append((ids, off, toks))
            return vocab, arrays

        return self.refs.memo(self._key + ("ids",), make)

    def warm(self) -> None:
        self._ref_side()

    def _stats(self, hyp: Segments) -> np.ndarray:
        vocab, refs = self._ref_side()
        toks = self._tokens(hyp)
        N = len(toks)
        # edits of a segment depend only on its tokens: outputs repeated across systems and optimizer
        # runs (often most of them) are searched once per reference set
        cache: dict[tuple[int, tuple[str, ...]], np.ndarray] = self.refs.memo(self._key + ("edits",), dict)
        keys = [(i, tuple(t)) for i, t in enumerate(toks)]
        todo = [i for i, k in enumerate(keys) if k not in cache]
        if todo:
            self._check_size(hyp, toks, refs, todo)
            sub = [toks[i] for i in todo]
            edits = np.empty((len(refs), len(todo)), dtype=np.int64)
            if COMPILED:
                ids = np.fromiter((vocab.get(t, -1) for s in sub for t in s), dtype=np.int32)
                off = np.zeros(len(sub) + 1, dtype=np.int64)
                np.cumsum([len(s) for s in sub], out=off[1:])
                for k, (rids, roff, _) in enumerate(refs):
                    rsub_ids, rsub_off = _select(rids, roff, todo)
                    _ter.edits(ids, off, rsub_ids, rsub_off, edits[k])
            else:  # pragma: no cover
                from sacrebleu.metrics.lib_ter import translation_edit_rate

                warnings.warn("mtsig._ter is not compiled: TER uses sacreBLEU's Python search (slow)", stacklevel=2)
                for k, (_, _, rtoks) in enumerate(refs):
                    edits[k] = [translation_edit_rate(h, rtoks[i])[0] for h, i in zip(sub, todo)]
            for j, i in enumerate(todo):
                cache[keys[i]] = edits[:, j]
        best = np.array([cache[k].min() for k in keys], dtype=np.float64)
        lens = np.array([[len(s) for s in r[2]] for r in refs], dtype=np.float64)
        return np.column_stack([best.reshape(N), lens.mean(axis=0)])

    def _check_size(self, hyp: Segments, toks: list[list[str]], refs, todo: list[int]) -> None:
        """Refuse a segment whose search table would exceed :data:`MAX_CELLS` (memory grows with the product
        of the two lengths), naming it, rather than running out of memory."""
        h = np.array([len(toks[i]) for i in todo], dtype=np.int64) + 1
        for k, (_, roff, _) in enumerate(refs):
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
        ]
