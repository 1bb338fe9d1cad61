"""METEOR 1.5 (Denkowski & Lavie 2014) as a metric of its own: statistics equal to ``meteor-1.5.jar``'s.

Per segment, the 23 statistics the jar sums for its system score (see :mod:`mtsig.meteor.scorer`); with
several references, the row of the reference that gives the best segment score (first one on ties), as
the jar. Corpus METEOR = the jar's formula on the summed rows, reported x 100 (as MultEval does).

Options (the jar's flags in brackets): ``meteor_lang`` [-l], ``meteor_task`` [-t: rank (default), adq,
hter, util, li, tune, universal], ``meteor_norm`` [-norm], ``meteor_lower`` [-lower], ``meteor_no_punct``
[-noPunct], ``meteor_modules`` [-m], ``meteor_weights`` [-w], ``meteor_params`` [-p: alpha beta gamma
delta], ``meteor_beam`` [-x], ``meteor_char`` [-ch]; ``meteor_jar`` and ``meteor_paraphrase`` [-a] locate
the resources, ``meteor_words`` [-s] another function-word list. No Java is needed: the jar is only read
as a zip file.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.io.segments import Segments
from mtsig.metrics.base import Metric
from mtsig.metrics.options import Option

_NORM_HELP = "METEOR: the jar's -norm (tokenize and normalize punctuation, lowercase)"


class METEOR(Metric):
    name = "meteor"
    scale = 100.0
    description = "METEOR 1.5 (exact, stem, synonym, paraphrase stages), equal to meteor-1.5.jar"
    higher_is_better = True
    chunkable = True
    decimals = 2
    work = 25.0  # measured against BLEU on WMT22 de-en (4 systems: 1.76 s vs 0.062 s)
    sentence_score_label = "METEOR of each segment (the jar's segment score x 100)"
    options = {
        "meteor_lang": Option("en", "METEOR: language (en, cz, de, es, fr, ru fully; da fi hu it nl no pt ro se tr)"),
        "meteor_task": Option("rank", "METEOR: parameter set: rank, adq, hter, util, li, tune, universal"),
        "meteor_norm": Option(False, _NORM_HELP),
        "meteor_lower": Option(False, "METEOR: lowercase only (the jar's -lower)"),
        "meteor_no_punct": Option(False, "METEOR: with --meteor-norm, remove punctuation (the jar's -noPunct)"),
        "meteor_modules": Option(None, "METEOR: stages, e.g. 'exact stem synonym paraphrase'", type=str),
        "meteor_weights": Option(None, "METEOR: stage weights, e.g. '1.0 0.6 0.8 0.6'", type=str),
        "meteor_params": Option(None, "METEOR: 'alpha beta gamma delta'", type=str),
        "meteor_beam": Option(40, "METEOR: beam size of the alignment search"),
        "meteor_char": Option(
            False,
            "METEOR: character-based lengths and matches (the jar's -ch; util does not imply it, as on the jar's "
            "command line)",
        ),
        "meteor_jar": Option(
            None, "METEOR: meteor-1.5.jar to read resources from (default: pycocoevalcap's)", type=str, path="file"
        ),
        "meteor_paraphrase": Option(
            None, "METEOR: paraphrase table (default: data/paraphrase-LANG.gz by the jar)", type=str, path="file"
        ),
        "meteor_words": Option(
            None, "METEOR: function-word list (default: the jar's English list, as the jar)", type=str, path="file"
        ),
    }

    def __init__(self, **opts: Any):
        super().__init__(**opts)
        from mtsig.meteor import params

        c = self.config
        normalize = "none"
        if c["meteor_norm"]:
            normalize = "norm-nopunct" if c["meteor_no_punct"] else "norm"
        elif c["meteor_lower"]:
            normalize = "lower"
        self.cfg = params.resolve(
            str(c["meteor_lang"]),
            str(c["meteor_task"]),
            params=c["meteor_params"],
            modules=c["meteor_modules"],
            weights=c["meteor_weights"],
            normalize=normalize,
            beam=int(c["meteor_beam"]),
            char_based=True if c["meteor_char"] else None,
        )
        if normalize.startswith("norm"):
            from mtsig.meteor.normalize import NORMALIZABLE

            if self.cfg.code not in NORMALIZABLE:
                raise InputError(
                    f"METEOR: the jar has no normalizer for {self.cfg.language}: pre-process the text and leave "
                    "--meteor-norm out",
                    param="meteor_norm",
                )
        self._scorer = None
        self._norm = None
        self._digest: str | None = None

    @property
    def stat_names(self):
        from mtsig.meteor.scorer import STAT_NAMES

        return list(STAT_NAMES)

    # ------------------------------------------------------------------ resources
    def _build(self):
        if self._scorer is not None:
            return self._scorer
        from mtsig.meteor import params, resources
        from mtsig.meteor.normalize import normalizer
        from mtsig.meteor.paraphrase import paraphrases
        from mtsig.meteor.scorer import PairScorer

        cfg, c = self.cfg, self.config
        jar = resources.find_jar(c["meteor_jar"])
        fw = resources.function_words(jar, c["meteor_words"])
        stemmer = synonyms = para = None
        if params.STEM in cfg.modules:
            stemmer = self._stemmer(jar)
        if params.SYNONYM in cfg.modules:
            synonyms = resources.load_synonyms(jar, cfg.language)
        if params.PARAPHRASE in cfg.modules:
            para = paraphrases(resources.find_paraphrase(c["meteor_paraphrase"], jar, cfg.code))
        if cfg.normalize.startswith("norm"):
            self._norm = normalizer(cfg.code, resources.prefixes(jar, cfg.language), cfg.normalize == "norm")
        self._scorer = PairScorer(cfg, fw, stemmer, synonyms, para)
        return self._scorer

    def _stemmer(self, jar):
        from mtsig.meteor import resources

        lang = self.cfg.language
        if lang == "arabic-buckwalter-reduced":
            return resources.lookup_stemmer(jar, lang)
        if lang in ("czech", "other"):
            raise InputError(f"METEOR: the jar has no stemmer for {lang}", param="meteor_modules")
        from mtsig.meteor.stem import snowball

        return snowball(lang)

    def warm(self) -> None:
        """Resources loaded and the reference side prepared (word ids, paraphrase-table phrases), here,
        before any worker process starts, so that workers share it."""
        sc = self._build()
        if self._refs is None:
            return
        for r in self._refs:
            for words in self._tokens(r):
                sc.prepare(words)

    # ------------------------------------------------------------------ statistics
    def _tokens(self, seg: Segments) -> list[list[str]]:
        from mtsig.meteor.scorer import tokens

        self._build()
        key = ("meteor-tokens", self.cfg.normalize, self.cfg.code)
        return seg.memo(key, lambda: [tokens(s, self.cfg, self._norm) for s in seg.lines])

    def _stats(self, hyp: Segments) -> np.ndarray:
        from mtsig.meteor.scorer import N_STATS, effective_chunks, score

        sc = self._build()
        h = self._tokens(hyp)
        refs = [self._tokens(r) for r in self.refs]
        cache: dict = self.refs.memo(("meteor-rows", self.signature_for(None)), dict)
        out = np.zeros((len(h), N_STATS))
        for n, hw in enumerate(h):
            best, best_score = None, -1.0
            for k, rw in enumerate(refs):
                key = (k, n, tuple(hw))
                row = cache.get(key)
                if row is None:
                    row = cache[key] = self._row(sc, hw, rw[n], hyp, n, k)
                s = float(score(row, self.cfg.params, self.cfg.weights)) if len(refs) > 1 else 0.0
                if best is None or s > best_score:
                    best, best_score = row, s
            out[n] = best
        return effective_chunks(out)

    def _row(self, sc, hw: list[str], rw: list[str], hyp: Segments, n: int, k: int) -> np.ndarray:
        """One segment's statistics; a segment whose alignment search is beyond the work bound is an error
        naming it."""
        try:
            return sc.row(hw, rw)
        except ValueError as exc:
            if "alignment search would expand" not in str(exc):
                raise
            where = hyp.source or hyp.name or "the hypothesis"
            raise InputError(
                f"METEOR: segment {hyp.offset + n + 1} of {where} ({len(hw):,} words against {len(rw):,} of "
                f"reference {k + 1}): {str(exc).removeprefix('segment: ')} (repeated words match each other); "
                "split the segment, lower --meteor-beam, or leave METEOR out"
            ) from None

    # ------------------------------------------------------------------ scores
    def score(self, totals):
        from mtsig.meteor.scorer import score

        return 100.0 * score(totals, self.cfg.params, self.cfg.weights)

    def signature_fields(self):
        from mtsig.meteor.params import MODULE_SHORT

        cfg = self.cfg
        fields = [
            ("lang", cfg.code),
            ("task", cfg.task),
            ("norm", {"none": "no", "lower": "lc", "norm": "yes", "norm-nopunct": "nopunct"}[cfg.normalize]),
            ("modules", "+".join(MODULE_SHORT[m] for m in cfg.modules)),
        ]
        if cfg.task == "custom":
            fields.append(("params", "_".join(f"{x:g}" for x in cfg.params)))
            fields.append(("weights", "_".join(f"{x:g}" for x in cfg.weights)))
        if cfg.char_based:
            fields.append(("unit", "char"))
        if cfg.beam != 40:
            fields.append(("beam", cfg.beam))
        fields.append(("res", self.resource_digest()))
        return fields

    def resource_digest(self) -> str:
        """What the resources used are, as 8 hex digits of a SHA-256 over the contents of the jar (function
        words, synonyms, prefixes), the paraphrase table when the paraphrase stage runs, and the function-word
        list when one is given: two different tables never share a signature. ``?`` when a resource is
        missing (no statistics can then be computed)."""
        if self._digest is None:
            import hashlib
            from pathlib import Path

            from mtsig.meteor import params, resources
            from mtsig.meteor.paraphrase import source_digest

            c = self.config
            try:
                jar = resources.find_jar(c["meteor_jar"])
                parts = [f"jar:{resources.file_digest(jar)}"]
                if params.PARAPHRASE in self.cfg.modules:
                    para = resources.find_paraphrase(c["meteor_paraphrase"], jar, self.cfg.code)
                    parts.append(f"para:{source_digest(para)}")
                if c["meteor_words"]:
                    parts.append(f"words:{resources.file_digest(Path(c['meteor_words']))}")
            except (InputError, OSError):
                return "?"
            self._digest = hashlib.sha256("|".join(parts).encode()).hexdigest()[:8]
        return self._digest
