"""What ``mtsig analyze`` runs: the analyses asked for and their settings, validated once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from mtsig.analysis.buckets import Cutoffs
from mtsig.analysis.registry import ANALYSES, with_cutoffs
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
    """What ``analyze`` runs (validated once)."""

    by: tuple[AnalysisSpec, ...] = setting(
        (),
        "Analyses (``mtsig analyze --help`` lists them): ``ref-length``, ``length-diff``, ``sentence-score``, "
        "``labels=FILE``, ``documents``, ``word-frequency``, ``word-labels=FILE``, ``ngrams``, ``examples`` "
        "(default: the ones that need no extra file).",
    )
    test: str = setting("ar", "The test of every bucket (``ar`` default; any test of ``compare``).")
    baseline: str | None = setting(None, "Each system against this one (default: all pairs).")
    correction: str = setting(
        "holm",
        "The p-value adjustment over every bucket and pair of an analysis (``holm`` default, ``bonferroni``, "
        "``sidak``, ``bh``, ``none``).",
    )
    alpha: float = setting(0.05, "The level of the decisions (0.05).")
    alternative: str = setting("two-sided", "As in :func:`mtsig.compare`.")
    confidence: float = setting(0.95, "The level of every interval (0.95).")
    n_bootstrap: int | None = setting(None, "Bootstrap resamples behind the intervals (1000).")
    cutoffs: Mapping[str, tuple[float, ...]] = setting(
        doc='Bucket boundaries per analysis (``{"ref-length": [10, 20, 30]}``; compare-mt\'s defaults otherwise).',
        factory=dict,
    )
    top: int = setting(10, "N-grams and example segments per pair and direction (10).")
    ngram_alpha: float = setting(1.0, "The smoothing of the n-gram ratio (1).")
    ngram_order: int = setting(4, "The highest n-gram order (4).")
    freq_corpus: str | None = setting(
        None, "A file whose word frequencies bucket the words (default: the reference's)."
    )
    out_labels: Mapping[str, str] = setting(
        doc="With ``word-labels``: each system's file of output word labels ``{name: path}``.", factory=dict
    )
    source: str | None = setting(
        None, "A file of source segments shown with the examples (WMT XML input brings its own)."
    )
    resample_unit: str = setting("segment", "What every bucket's tests and intervals resample, as in compare.")

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
        if self.top < 1:
            raise InputError(f"top must be at least 1, got {self.top}", param="top")
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
