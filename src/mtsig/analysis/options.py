"""What ``mtsig analyze`` runs: the analyses asked for and their settings, validated once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from mtsig.analysis.buckets import Cutoffs
from mtsig.analysis.registry import ANALYSES, with_cutoffs
from mtsig.analyze_docs import DOCS
from mtsig.docfields import setting
from mtsig.engine import CompareOptions
from mtsig.errors import InputError
from mtsig.stats.multiple import CORRECTIONS
from mtsig.stats.paired import get_test
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


@dataclass(frozen=True, kw_only=True)
class AnalyzeOptions:
    """What ``analyze`` runs (validated once); each setting's description is in :data:`mtsig.analyze_docs.DOCS`."""

    by: tuple[AnalysisSpec, ...] = setting((), DOCS["by"])
    test: str = setting("ar", DOCS["test"])
    baseline: str | None = setting(None, DOCS["baseline"])
    correction: str = setting("holm", DOCS["correction"])
    alpha: float = setting(0.05, DOCS["alpha"])
    alternative: str = setting("two-sided", DOCS["alternative"])
    confidence: float = setting(0.95, DOCS["confidence"])
    n_bootstrap: int | None = setting(None, DOCS["n_bootstrap"])
    cutoffs: Mapping[str, tuple[float, ...]] = setting(doc=DOCS["cutoffs"], factory=dict)
    top: int = setting(10, DOCS["top"])
    ngram_alpha: float = setting(1.0, DOCS["ngram_alpha"])
    ngram_order: int = setting(4, DOCS["ngram_order"])
    freq_corpus: str | None = setting(None, DOCS["freq_corpus"])
    out_labels: Mapping[str, str] = setting(doc=DOCS["out_labels"], factory=dict)
    source: str | None = setting(None, DOCS["source"])
    resample_unit: str = setting("segment", DOCS["resample_unit"])

    def __post_init__(self):
        by = tuple(AnalysisSpec.parse(b) if isinstance(b, str) else b for b in self.by)
        object.__setattr__(self, "by", tuple(dict.fromkeys(by)))
        get_test(self.test)
        # the checks compare does (alternative, correction, alpha, confidence, unit)
        CompareOptions(tests=(self.test,), baseline=self.baseline, correction=self.correction, alpha=self.alpha,
                       alternative=self.alternative, confidence=self.confidence, n_bootstrap=self.n_bootstrap,
                       resample_unit=self.resample_unit)  # fmt: skip
        if CORRECTIONS.get(self.correction).joint_bootstrap:
            raise InputError(f"correction {self.correction} is not offered by analyze (use holm, bonferroni, sidak "
                             "or bh)", param="correction")  # fmt: skip
        for kind, cuts in self.cutoffs.items():
            try:
                takes = ANALYSES.get(kind).cutoffs is not None
            except InputError:  # not an analysis (nor a plugin's)
                takes = False
            if not takes:
                raise InputError(f"bucket cutoffs apply to {', '.join(with_cutoffs())}, not to {kind!r}",
                                 param="cutoffs")  # fmt: skip
            Cutoffs(tuple(cuts))
        from mtsig.checks import whole_number

        whole_number(self.top, "top", 1)
        if not 0 < self.ngram_alpha < float("inf"):
            raise InputError(f"ngram_alpha must be a positive finite number, got {self.ngram_alpha}",
                             param="ngram_alpha")  # fmt: skip
        if not 1 <= self.ngram_order <= 9:
            raise InputError(f"ngram_order must be 1 to 9, got {self.ngram_order}", param="ngram_order")


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
