"""The Metric protocol: per-segment sufficient statistics and a vectorized corpus score.

A metric turns each test segment (hypothesis + its references) into a fixed-width row of statistics;
the corpus score is a function of the column sums. ``score`` accepts totals with any leading axes,
so R resampled totals are scored in one numpy call.

Life cycle: ``m = get_metric("bleu", tokenize="13a")``; ``m.prepare(refs)`` does the reference-side
work once (it is cached on the :class:`~mtsig.io.segments.RefSet` and shared between metrics);
``m.stats(hyp)`` gives an ``(N, d)`` array for any number of systems; ``m.score(S.sum(0))`` the corpus
score. ``m.score`` needs no references, so statistics saved to disk can be scored and tested later.

A metric declares (class attributes): ``name``, ``description``, ``higher_is_better``, ``options``
(name -> :class:`~mtsig.metrics.options.Option`), ``side_inputs`` (name ->
:class:`~mtsig.metrics.options.SideInput`) and ``decimals`` (how many a report shows).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from mtsig._version import __version__
from mtsig.errors import InputError
from mtsig.io.segments import RefSet, Segments
from mtsig.metrics.options import Option, SideInput, as_option


class Metric(ABC):
    """Base class of all metrics. Subclasses set ``name``, ``higher_is_better`` and ``options``."""

    #: the name (a class attribute; the segment-score metric sets its own per instance)
    name: str
    description: ClassVar[str] = ""
    higher_is_better: bool = True
    #: a score that is best at a value rather than high or low (``length``: 100); ``higher_is_better`` then gives
    #: only the sign convention of the numbers, and :meth:`goodness` the ordering
    target: ClassVar[float | None] = None
    #: option name -> Option (or a plain default value); ``get_metric`` passes only these to the constructor
    options: ClassVar[dict[str, Option | Any]] = {}
    #: data beside the texts that the metric reads (parses, segment scores ...)
    side_inputs: ClassVar[dict[str, SideInput]] = {}
    #: decimals shown in reports
    decimals: ClassVar[int] = 2
    #: the top of the scale segment scores lie on (compare-mt's ``scorer.scale``): 100 for BLEU, chrF, TER, METEOR
    #: ... (``analyze --by sentence-score`` then buckets by compare-mt's cutoffs on that scale); None for a metric
    #: whose scale is not known (human scores, COMET): buckets at the deciles of the segment scores
    scale: ClassVar[float | None] = None
    #: what any statistics of the metric satisfy (checked when a statistics file is read): no negative value,
    #: whole numbers (counts)
    nonnegative_stats: ClassVar[bool] = True
    integer_stats: ClassVar[bool] = False
    #: whether the number of references is part of the signature
    signature_has_refs: ClassVar[bool] = True
    #: whether statistics of a chunk of segments equal those rows of the whole corpus' statistics (given the
    #: references of that chunk), so that a large test set can be scored chunk by chunk
    chunkable: ClassVar[bool] = False
    #: whether the metric needs reference n-gram counts over the whole corpus (NIST's information weights)
    needs_corpus_ngram_counts: ClassVar[bool] = False
    #: what ``sentence_scores`` computes (reported beside the sentence-level tests)
    sentence_score_label: ClassVar[str] = "the metric on each segment alone"
    #: the time to compute one segment's statistics relative to BLEU's (measured on WMT22 de-en: BLEU 7.6 us a
    #: segment); decides whether worker processes pay for their start (:data:`mtsig.executor.MIN_FORK_WORK`)
    work: ClassVar[float] = 1.0

    def __init__(self, **opts: Any):
        declared = self.declared_options()
        unknown = set(opts) - set(declared)
        if unknown:
            raise InputError(
                f"metric {self.name!r} has no option(s) {', '.join(sorted(unknown))}; "
                f"its options: {', '.join(declared) or 'none'}"
            )
        self.config: dict[str, Any] = {**{k: o.default for k, o in declared.items()}, **opts}
        self._refs: RefSet | None = None

    @property
    def direction(self) -> str:
        """Which scores are better: ``"higher"``, ``"lower"`` or ``"closest to <target>"``."""
        if self.target is not None:
            return f"closest to {self.target:g}"
        return "higher" if self.higher_is_better else "lower"

    def goodness(self, scores):
        """Scores oriented so that larger is better (the distance to the target, negated, for a target metric)."""
        x = np.asarray(scores, dtype=np.float64)
        if self.target is not None:
            return -np.abs(x - self.target)
        return x if self.higher_is_better else -x

    @classmethod
    def declared_options(cls) -> dict[str, Option]:
        return {k: as_option(v) for k, v in cls.options.items()}

    # ---------------------------------------------------------------- statistics
    @property
    @abstractmethod
    def stat_names(self) -> list[str]:
        """Names of the statistics columns."""

    def prepare(self, refs: RefSet | list) -> RefSet:
        """Attach the references (reference-side work is cached on the RefSet)."""
        if not isinstance(refs, RefSet):
            refs = RefSet(list(refs))
        n = {len(r) for r in refs}
        if len(n) > 1:
            raise InputError("references differ in length: " + ", ".join(f"{r.name}: {len(r)}" for r in refs))
        self._refs = refs
        return refs

    @property
    def refs(self) -> RefSet:
        if self._refs is None:
            raise RuntimeError(f"metric {self.name!r}: call prepare(refs) before stats()")
        return self._refs

    def stats(self, hyp: Segments | list[str], refs: RefSet | list | None = None) -> np.ndarray:
        """Per-segment statistics ``(N, d)`` of one hypothesis (``refs`` overrides the prepared ones)."""
        if refs is not None:
            self.prepare(refs)
        hyp = Segments.of(hyp, name="hypothesis")
        if len(hyp) != self.refs.n_segments:
            raise InputError(
                f"{hyp.source or hyp.name} has {len(hyp)} segments but reference "
                f"{self.refs[0].source or self.refs[0].name} has {self.refs.n_segments}"
            )
        return self._stats(hyp)

    @abstractmethod
    def _stats(self, hyp: Segments) -> np.ndarray: ...

    def warm(self) -> None:
        """Do the reference-side work now (before systems are scored in parallel processes)."""
        return None

    def warm_runs(self, hyps: list[Segments], threads: int = 1) -> None:
        """Work shared by the outputs about to be scored (all systems and runs), done once, before they are
        scored one by one, on up to ``threads`` threads; nothing by default (TER searches each distinct
        segment output once)."""
        return None

    @property
    def ngram_order(self) -> int:
        """The highest n-gram order the metric needs (reference-side work is warmed largest first)."""
        return 0

    # ---------------------------------------------------------------- scores
    @abstractmethod
    def score(self, totals: np.ndarray) -> np.ndarray:
        """Corpus score(s) from summed statistics; vectorized over leading axes."""

    def corpus_score(self, stats: np.ndarray) -> float:
        return float(self.score(np.asarray(stats, dtype=np.float64).sum(axis=0)))

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """Score of each segment on its own (row by row)."""
        return self.score(np.asarray(stats, dtype=np.float64))

    def check_stats(self, stats: np.ndarray) -> str | None:
        """Why ``stats`` (finite, of this metric's width) cannot have come from this metric, or None: negative
        or fractional counts where the metric has none, and a ``match_K`` column above ``total_K``, ``hyp_K`` or
        ``ref_K`` (a match is counted in both)."""
        S = np.asarray(stats, dtype=np.float64)
        if self.nonnegative_stats and S.size and S.min() < 0:
            return "negative statistics"
        if self.integer_stats and not np.array_equal(S, np.round(S)):
            return "fractional counts"
        names = list(self.stat_names)
        for i, n in enumerate(names):
            if not n.startswith("match_"):
                continue
            for other in (f"total_{n[6:]}", f"hyp_{n[6:]}", f"ref_{n[6:]}"):
                if other in names and np.any(S[..., i] > S[..., names.index(other)]):
                    return f"more matches than n-grams ({n} > {other})"
        return None

    def describe(self, totals: np.ndarray) -> dict[str, Any]:
        """Extra details of a corpus score (precisions, brevity penalty ...), for reports."""
        return {}

    # ---------------------------------------------------------------- identity
    def signature_fields(self) -> list[tuple[str, Any]]:
        """``(name, value)`` pairs the signature pins: by default every declared option with its value, in the
        order declared (a metric whose options read better under short keys overrides this, as the built-in
        ones do), so that whatever changes the number changes the signature."""
        return [(k, _signature_value(self.config[k])) for k in type(self).declared_options()]

    def signature_for(self, n_refs: int | None) -> str:
        """The signature: a pure function of the configuration and the number of references."""
        fields = [(type(self).name, None), *self.signature_fields()]
        if n_refs is not None and self.signature_has_refs:
            fields.append(("nrefs", n_refs))
        fields.append(("version", __version__))
        return "mtsig:" + "|".join(k if v is None else f"{k}:{v}" for k, v in fields)

    @property
    def signature(self) -> str:
        """The signature with the references prepared so far (none: no ``nrefs`` field)."""
        return self.signature_for(len(self._refs) if self._refs is not None else None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config})"


def _signature_value(x: Any) -> str:
    """An option's value as a signature shows it (yes/no for flags)."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    return str(x)
