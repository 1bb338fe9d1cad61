"""Dependency-relation F-score (Riezler & Maxwell 2005, section 3; after Crouch et al. 2002).

Each parsed sentence is a multiset of dependency triples ``(head word, relation, dependent word)``
(``ROOT`` as the head word of the root; ``depf_labeled=False`` drops the relation). Statistics per
segment: ``[matches, hypothesis triples, reference triples]`` with multiset (clipped) matches against
the reference whose sentence-level F1 is highest (the first on ties), the same rule chrF uses for
several references. Corpus score: F1 of the summed statistics, 0-100. ``lowercase`` compares words
case-insensitively.

Parses come from CoNLL-U files given as the texts themselves (``-r ref.conllu -s sys.conllu``) or beside
plain texts (``--parses-ref``, ``--parses-hyp``), or from spaCy (``--parser spacy:PIPELINE``, with the
``mtsig[spacy]`` extra and an installed pipeline that has a parser).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.io.segments import Segments
from mtsig.metrics.base import Metric
from mtsig.metrics.options import LOWERCASE, Option, SideInput


def triples(parse, labeled: bool = True, lowercase: bool = False) -> Counter:
    forms = [f.lower() for f in parse.forms] if lowercase else list(parse.forms)
    out: Counter = Counter()
    for dep, head, rel in zip(forms, parse.heads, parse.deprels):
        h = "ROOT" if head == 0 else forms[head - 1]
        out[(h, rel, dep) if labeled else (h, dep)] += 1
    return out


def f1(m: np.ndarray, h: np.ndarray, r: np.ndarray) -> np.ndarray:
    m, h, r = (np.asarray(x, dtype=np.float64) for x in (m, h, r))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(h > 0, m / h, 0.0)
        rc = np.where(r > 0, m / r, 0.0)
        return np.where(p + rc > 0, 200 * p * rc / (p + rc), 0.0)


def parses_of(seg: Segments, parser: str | None):
    if seg.parses is not None:
        return seg.parses
    if not parser:
        raise InputError(
            f"{seg.source or seg.name}: the dependency F-score needs parses: give CoNLL-U files (as the texts, or "
            "with parses_ref / parses_hyp), or parser=spacy:PIPELINE",
            param=("parses_ref", "parses_hyp", "parser"),
        )
    return seg.memo(("parses", parser), lambda: parse_with(parser, seg.lines, seg.source or seg.name))


def parse_with(parser: str, lines: list[str], where: str):
    """Parse plain text with ``spacy:PIPELINE``."""
    from mtsig.io.conllu import Parse

    kind, _, name = parser.partition(":")
    if kind != "spacy" or not name:
        raise InputError(f"unknown parser {parser!r}: use spacy:PIPELINE (e.g. spacy:en_core_web_sm)")
    try:
        import spacy
    except ImportError:
        raise InputError(
            "parser=spacy:... needs spaCy: pip install 'mtsig[spacy]' and a pipeline", param="parser"
        ) from None
    try:
        nlp = spacy.load(name)
    except OSError as exc:
        raise InputError(f"spaCy pipeline {name!r} is not installed ({exc})") from None
    if "parser" not in nlp.pipe_names:
        raise InputError(f"spaCy pipeline {name!r} has no dependency parser")
    out = []
    for doc in nlp.pipe(lines):
        toks = list(doc)
        heads = tuple(0 if t.head.i == t.i else t.head.i - doc[0].i + 1 for t in toks)
        out.append(Parse(tuple(t.text for t in toks), heads, tuple(t.dep_ for t in toks), doc.text))
    if len(out) != len(lines):
        raise InputError(f"{where}: the parser returned {len(out)} parses for {len(lines)} segments")
    return out


def attach_ref_parses(refs, systems, paths) -> None:
    from mtsig.io.load import attach_parses

    attach_parses(list(refs), list(paths), "reference")


def attach_hyp_parses(refs, systems, specs) -> None:
    """Parses of the systems: ``NAME=FILE[,FILE...]`` (one file per run), or one file per system in order."""
    import os

    from mtsig.io.load import attach_parses, parse_system_spec

    specs = list(specs)
    if not all("=" in x and not os.path.exists(x) for x in specs):
        attach_parses([s.runs[0] for s in systems], specs, "system")
        return
    by = {s.name: s for s in systems}
    for spec in specs:
        name, files = parse_system_spec(spec)
        if name not in by:
            raise InputError(f"parses for {name!r}, which is not one of the systems")
        attach_parses(by[name].runs, files, f"system {name!r}")


class DepF(Metric):
    name = "depf"
    scale = 100.0
    integer_stats = True  # counts of triples
    description = "dependency-relation F-score (labeled triples; needs parses), 0-100"
    options = {
        "depf_labeled": Option(True, "depf: (head, dependent) pairs without relations", flag="--depf-unlabeled"),
        "lowercase": LOWERCASE,
        "parser": Option(None, "parse plain text with spaCy (extra)", type=str, metavar="spacy:PIPELINE"),
    }
    side_inputs = {
        "parses_ref": SideInput("CoNLL-U parses of the references (in -r order)", attach_ref_parses, "CONLLU"),
        "parses_hyp": SideInput(
            "CoNLL-U parses of the systems: NAME=FILE[,FILE...] or one file per system in -s order",
            attach_hyp_parses,
            "CONLLU",
            path="named",
        ),
    }

    @property
    def stat_names(self):
        return ["matches", "hyp_triples", "ref_triples"]

    def _triples(self, seg: Segments):
        lab, lc = bool(self.config["depf_labeled"]), bool(self.config["lowercase"])
        return seg.memo(
            ("depf", lab, lc, self.config["parser"]),
            lambda: [triples(p, lab, lc) for p in parses_of(seg, self.config["parser"])],
        )

    def warm(self) -> None:
        for r in self.refs:
            self._triples(r)

    def _stats(self, hyp: Segments) -> np.ndarray:
        hyps = self._triples(hyp)
        refs = [self._triples(r) for r in self.refs]
        out = np.zeros((len(hyps), 3))
        for i, h in enumerate(hyps):
            nh = sum(h.values())
            best, best_f = None, -1.0
            for r in refs:
                ri = r[i]
                m = sum((h & ri).values())
                nr = sum(ri.values())
                f = float(f1(m, nh, nr))
                if f > best_f:
                    best, best_f = (m, nh, nr), f
            out[i] = best
        return out

    def score(self, totals):
        totals = np.asarray(totals, dtype=np.float64)
        return f1(totals[..., 0], totals[..., 1], totals[..., 2])

    def signature_fields(self):
        c = self.config
        f: list[tuple[str, Any]] = [
            ("labeled", "yes" if c["depf_labeled"] else "no"),
            ("case", "lc" if c["lowercase"] else "mixed"),
        ]
        if c["parser"]:
            f.append(("parser", c["parser"]))
        return f
