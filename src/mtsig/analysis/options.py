"""What ``mtsig analyze`` runs: the analyses asked for and their settings, validated once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from mtsig.analysis.buckets import Cutoffs
from mtsig.analysis.registry import ANALYSES, with_cutoffs
from mtsig.analyze_docs import DOCS
from mtsig.declare import level_option, option
from mtsig.engine import Decisions
from mtsig.errors import InputError
from mtsig.stats.multiple import CORRECTIONS, p_corrections
from mtsig.stats.paired import get_test, test_names
from mtsig.table import StatsTable


class AnalysisSpec(NamedTuple):
    kind: str
    arg: str | None = None

    @classmethod
    def parse(cls, text: str) -> AnalysisSpec:
        kind, _, arg = text.partition("=")
        kind = kind.strip()
        entry = ANALYSES.get(kind)
        if arg and not entry.takes_arg:
            raise InputError(f"analysis {kind} takes no argument (got {kind}={arg})", param="by")
        if entry.needs_arg and not arg:
            raise InputError(f"analysis {kind} needs a file: --by {kind}=FILE ({entry.help})", param="by")
        return cls(kind, arg or None)

    @property
    def text(self) -> str:
        """As written: ``kind`` or ``kind=FILE``."""
        return self.kind if self.arg is None else f"{self.kind}={self.arg}"


def _analyses_without_files() -> list[str]:
    """The analyses a form offers as choices: those that need no file of their own."""
    return [n for n, e in ANALYSES.items() if not e.needs_arg]


def _p_correction(name: str) -> None:
    if CORRECTIONS.get(name).joint_bootstrap:
        raise InputError(f"correction {name} is not offered by analyze (use holm, bonferroni, sidak or bh)",
                         param="correction")  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class AnalyzeOptions(Decisions):
    """What ``analyze`` runs: compare's shared settings (:class:`~mtsig.engine.Decisions`, inherited, not copied)
    and the analyses' own, each declared once; the API's descriptions are in :data:`mtsig.analyze_docs.DOCS`."""

    by: tuple[AnalysisSpec, ...] = option((), "analyses to run (default: every one that needs no extra file)",
                                          "strs", metavar="ANALYSIS", group="analyses", doc=DOCS["by"],
                                          names=_analyses_without_files)  # fmt: skip
    test: str = option("ar", "the paired test of every bucket", "str", choices=test_names, lookup=get_test,
                       group="tests", metavar="TEST", doc=DOCS["test"])  # fmt: skip
    correction: str = option("holm", "p-value adjustment over every bucket and pair of an analysis", "str",
                             choices=p_corrections, lookup=_p_correction, group="tests",
                             doc=DOCS["correction"])  # fmt: skip
    confidence: float = level_option(0.95, "level of every interval", DOCS["confidence"])
    cutoffs: Mapping[str, tuple[float, ...]] = option(doc=DOCS["cutoffs"], factory=dict)
    top: int = option(10, "n-grams and example segments per pair and direction", "int", low=1, metavar="N",
                      group="analyses", doc=DOCS["top"])  # fmt: skip
    ngram_alpha: float = option(1.0, "smoothing of the n-gram ratio (compare-mt's default)", "float", metavar="A",
                                low=0, open=True, group="analyses", doc=DOCS["ngram_alpha"])  # fmt: skip
    ngram_order: int = option(4, "highest n-gram order", "int", low=1, high=9, metavar="N", group="analyses",
                              doc=DOCS["ngram_order"])  # fmt: skip
    freq_corpus: str | None = option(None, "word-frequency: count word frequencies in FILE (default: in the "
                                     "reference)", "str", metavar="FILE", group="analyses", path="file",
                                     doc=DOCS["freq_corpus"])  # fmt: skip
    out_labels: Mapping[str, str] = option(doc=DOCS["out_labels"], factory=dict)
    source: str | None = option(None, "source segments shown with the examples", "str", metavar="FILE",
                                group="analyses", path="file", doc=DOCS["source"])  # fmt: skip

    def __post_init__(self):
        texts = tuple(b if isinstance(b, str) else b.text for b in self.by)
        object.__setattr__(self, "by", texts)
        super().__post_init__()  # every declared setting checked, compare's included
        object.__setattr__(self, "by", tuple(dict.fromkeys(AnalysisSpec.parse(b) for b in texts)))
        for kind, cuts in self.cutoffs.items():
            try:
                takes = ANALYSES.get(kind).cutoffs is not None
            except InputError:  # not an analysis (nor a plugin's)
                takes = False
            if not takes:
                raise InputError(f"bucket cutoffs apply to {', '.join(with_cutoffs())}, not to {kind!r}",
                                 param="cutoffs")  # fmt: skip
            Cutoffs(tuple(cuts))


def default_specs(table: StatsTable) -> tuple[AnalysisSpec, ...]:
    """What runs without --by: every default analysis (those reading words only when the texts are here)."""
    return tuple(
        AnalysisSpec(e.name) for e in ANALYSES.values() if e.default and (table.texts is not None or not e.needs_texts)
    )


def unused_settings(opts: AnalyzeOptions, specs: tuple[AnalysisSpec, ...]) -> list[str]:
    """The analysis settings given (not at their defaults) that no analysis of ``specs`` reads: one note each,
    naming the analyses that would."""
    default = AnalyzeOptions()
    running = {s.kind for s in specs}
    out = []
    for name in dict.fromkeys(o for e in ANALYSES.values() for o in e.options):
        if getattr(opts, name) == getattr(default, name):
            continue
        readers = [n for n, e in ANALYSES.items() if name in e.options]
        if not running & set(readers):
            out.append(f"{name} applies to {' and '.join(readers)}, which this analysis does not run: it was ignored")
    for kind in opts.cutoffs:
        if kind not in running:
            out.append(f"cutoffs for {kind} were given but {kind} is not run: they were ignored")
    return out
