"""The result of ``mtsig analyze``: analyses of buckets (scores, differences, corrected p-values) and of items
(characteristic n-grams, example segments). ``to_dict()`` is the JSON of ``mtsig analyze -f json``."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar

from mtsig.errors import InputError
from mtsig.results import options_changed
from mtsig.serialize import as_dict, jfield, out
from mtsig.stats.intervals import Interval


@dataclass(frozen=True)
class BucketScore:
    """One system in one bucket: the score (of the bucket's segments, or the share of the system's segments in
    the bucket, or the word F-measure), its bootstrap interval, and what else the analysis counts."""

    score: float | None
    ci: Interval | None = None
    n_segments: float | None = jfield(None, omit="none")
    #: word analyses: precision and recall (with their intervals) and the counts behind them
    extra: dict[str, Any] = jfield(default_factory=dict, flatten=True)

    to_dict = as_dict


@dataclass(frozen=True)
class BucketComparison:
    """Systems ``a`` and ``b`` in one bucket: delta = b - a, its paired-bootstrap interval, the test's p-value and
    the p-value adjusted over every bucket and pair of the analysis."""

    a: str
    b: str
    delta: float | None
    delta_ci: Interval | None
    test: str
    p_value: float | None
    p_adjusted: float | None
    significant: bool

    to_dict = as_dict


@dataclass(frozen=True)
class Bucket:
    label: str
    lower: float | None
    upper: float | None
    #: segments in the bucket (None where the bucket depends on each system's output: see each system's count)
    n_segments: int | None
    #: reference words in the bucket (word analyses)
    n_words: int | None = field(metadata=out(omit="none"))
    systems: dict[str, BucketScore]
    comparisons: tuple[BucketComparison, ...]
    #: no pair can be significant here after the correction (too few segments or words), or not tested at all
    too_small: bool = False

    to_dict = as_dict


@dataclass(frozen=True)
class Analysis:
    """One analysis: ``kind`` (``ref-length``, ``word-frequency``, ``ngrams`` ...), the metric its numbers are
    in, and its buckets or (``ngrams``, ``examples``) its items."""

    kind: str
    metric: str
    _: KW_ONLY
    direction: str = "higher"
    #: resamples behind the p-values (None: no test ran, or a test that does not resample)
    n_resamples: int | None = None
    #: written when there are some or there are no buckets
    items: tuple[dict[str, Any], ...] = jfield((), omit=lambda v, o: not v and bool(o.buckets))
    buckets: tuple[Bucket, ...] = jfield((), omit="empty")
    #: what the numbers are, in a sentence (shown under the table)
    note: str = ""
    #: the decimals its numbers are shown with (the metric's; what every surface reads them at)
    decimals: int = 2
    #: each segment's bucket (segment-level buckets): one index array for every system, or ``{system: array}``
    #: where a system's own output decides (its first run); not in the JSON (what an interactive view opens)
    members: Any = jfield(None, repr=False, compare=False, skip=True)

    to_dict = as_dict

    def bucket(self, label: str) -> Bucket:
        for b in self.buckets:
            if b.label == label:
                return b
        raise InputError(f"no bucket {label!r} in {self.kind}; buckets: {', '.join(b.label for b in self.buckets)}")


@dataclass(frozen=True, kw_only=True)
class AnalyzeSettings:
    """How an analysis was run: what its JSON's ``settings`` holds."""

    #: the analyses run (``kind`` or ``kind=arg``)
    analyses: tuple[str, ...]
    test: str
    #: resamples of the test as given (None: automatic, per analysis; each analysis reports its own count)
    n_resamples: int | None
    n_bootstrap: int
    seed: int
    correction: str
    corrected_over: str = "every bucket and pair of an analysis"
    alpha: float
    alternative: str
    confidence: float
    baseline: str | None
    cutoffs: dict[str, tuple[float, ...]]
    min_bucket: int
    #: the tokenizer of the words (None without texts)
    tokenize: str | None
    signatures: dict[str, str]
    n_segments: int
    resample_unit: str
    #: the validated settings (:class:`~mtsig.analysis.options.AnalyzeOptions`): those not recorded above are
    #: recorded under their own names when they are not at their defaults (``top``, ``ngram_order``, ...)
    options: Any = jfield(None, repr=False, compare=False, omit="none", flatten=True, convert=options_changed)

    #: the settings the keys of :meth:`to_dict` record under names of their own
    RECORDED: ClassVar[tuple[str, ...]] = (
        "by", "test", "n_resamples", "n_bootstrap", "seed", "correction", "alpha", "alternative", "confidence",
        "baseline", "cutoffs", "resample_unit")  # fmt: skip

    to_dict = as_dict

    def __getitem__(self, key: str) -> Any:
        """The JSON's value of ``key`` (``settings["n_segments"]``, as results read before these were typed)."""
        return self.to_dict()[key]


@dataclass(frozen=True)
class AnalyzeResult:
    settings: AnalyzeSettings
    systems: tuple[str, ...]
    analyses: tuple[Analysis, ...]
    warnings: tuple[str, ...] = ()

    to_dict = as_dict

    def to_pandas(self, items: bool = False):
        """One row per bucket and system and per bucket and pair (``row``: ``system`` or ``difference``); with
        ``items=True``, the n-grams and example segments instead (needs pandas)."""
        from mtsig.frames import ANALYZE_COLUMNS, analyze_rows, frame, item_rows

        if items:
            return frame(*item_rows(self))
        return frame(analyze_rows(self), ANALYZE_COLUMNS)

    def _repr_html_(self) -> str:
        from mtsig.report.notebook import analyze_html

        return analyze_html(self)

    def get(self, kind: str, metric: str | None = None) -> Analysis:
        """The analysis of ``kind`` (and ``metric``, when the kind was run for several)."""
        found = [a for a in self.analyses if a.kind == kind and (metric is None or a.metric == metric)]
        if not found:
            have = ", ".join(f"{a.kind} ({a.metric})" for a in self.analyses)
            raise InputError(f"no analysis {kind!r}" + (f" of {metric!r}" if metric else "") + f"; there are: {have}")
        if len(found) > 1:
            raise InputError(f"{kind} was run for several metrics ({', '.join(a.metric for a in found)}): name one")
        return found[0]

    def __repr__(self) -> str:
        sig = sum(c.significant for a in self.analyses for b in a.buckets for c in b.comparisons)
        kinds = ", ".join(dict.fromkeys(a.kind for a in self.analyses))
        return f"<AnalyzeResult {len(self.systems)} systems; {kinds}: {sig} significant bucket differences>"
