"""What every analysis works with: the :class:`AnalysisContext` (table, settings, pairs, tokens), the shared
comparison of derived metrics (:class:`Batch`) and the steps each bucket takes on ``compare``'s engine (its
comparison without correction, then one adjustment over every bucket and pair of an analysis)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from mtsig.analysis.buckets import Cutoffs
from mtsig.analysis.registry import ANALYSES
from mtsig.analysis.result import Analysis, Bucket, BucketComparison
from mtsig.engine import CompareOptions, auto_resamples, compare_table
from mtsig.engine import threshold as corrected_threshold
from mtsig.errors import InputError
from mtsig.metrics.base import Metric
from mtsig.resample import Resampling, whole_numbers
from mtsig.stats.multiple import adjust
from mtsig.stats.paired import PAIRED_TESTS
from mtsig.table import StatsTable, SystemInfo

if TYPE_CHECKING:
    from mtsig.analysis.options import AnalyzeOptions

#: buckets with fewer segments (or, for word analyses, reference and output words) are shown without tests
MIN_BUCKET = 10


class Later(NamedTuple):
    """An analysis finished after the shared tests have run (:class:`Batch`): ``build()`` gives its analyses."""

    build: Callable[[], list[Analysis]]
    #: what can be computed while the shared comparison finishes (on the calling thread, after the analyses that
    #: are not batched), before ``build``
    work: Callable[[], None] | None = None


class Batch:
    """The derived metrics of every analysis over all segments (shares, word accuracy), tested together: one
    comparison, so one drawing of shuffles and one bootstrap serve them all, with the resamples the analysis
    with the most comparisons needs (each analysis still corrects over its own buckets and pairs)."""

    def __init__(self):
        self.metrics: dict[str, Metric] = {}
        self.stats: dict[str, dict[str, np.ndarray]] = {}
        self.k = 0
        self.result = None
        self.n_resamples: int | None = None

    def add(self, metrics: Mapping[str, Metric], stats: dict[str, dict[str, np.ndarray]], k: int) -> str:
        """Add an analysis' metrics; returns the prefix of their names in :attr:`result`."""
        prefix = f"a{len({key.split(':')[0] for key in self.metrics})}:"
        self.metrics.update({prefix + m: v for m, v in metrics.items()})
        self.stats.update({prefix + m: v for m, v in stats.items()})
        self.k = max(self.k, k)
        return prefix

    def run(self, ctx: AnalysisContext) -> None:
        if not self.metrics:
            return
        self.n_resamples = resamples_for(ctx, self.k)
        self.result = compare_bucket(ctx, derived_table(ctx.table, self.metrics, self.stats), self.n_resamples)


@dataclass
class AnalysisContext:
    table: StatsTable
    opts: AnalyzeOptions
    resampling: Resampling
    pairs: list[tuple[str, str]]
    warnings: list[str] = field(default_factory=list)
    _memo: dict = field(default_factory=dict)
    batch: Batch = field(default_factory=Batch)
    #: counts the analyses done (a progress bar's ``advance``), or None
    done: Callable[[int], None] | None = None

    def finished(self, n: int = 1) -> None:
        """``n`` analyses are done (the progress of the whole run, beside each test's own)."""
        if self.done is not None:
            self.done(n)

    @property
    def names(self) -> list[str]:
        return self.table.system_names

    def needs_texts(self, what: str):
        if self.table.texts is None:
            raise InputError(f"analysis {what} needs the texts (give -r and -s): statistics read from a file "
                             "(--stats, --wmt25-scores) hold no words")  # fmt: skip
        return self.table.texts

    def tokenizer(self):
        from mtsig.tokenize import DEFAULT_TOKENIZER, Tokenizer

        for m in self.table.metrics.values():
            if "tokenize" in m.config:
                return Tokenizer(m.config["tokenize"], bool(m.config.get("lowercase", False)))
        return Tokenizer(DEFAULT_TOKENIZER, False)

    def ref_tokens(self, what: str) -> list[list[str]]:
        refs, _ = self.needs_texts(what)
        return self.tokenizer().tokenize_all(refs[0])

    def sys_tokens(self, what: str, name: str) -> list[list[list[str]]]:
        """Each run's tokens of system ``name``."""
        _, systems = self.needs_texts(what)
        s = next(x for x in systems if x.name == name)
        return [self.tokenizer().tokenize_all(r) for r in s.runs]

    def ref_coded(self, what: str):
        """The first reference as word ids (:class:`~mtsig.analysis.words.Coded`), tokenized as the metrics are."""
        refs, _ = self.needs_texts(what)
        return self.coder().code_text(refs[0], self.tokenizer())

    def sys_coded(self, what: str, name: str) -> list:
        """Each run of system ``name`` as word ids."""
        _, systems = self.needs_texts(what)
        s = next(x for x in systems if x.name == name)
        return [self.coder().code_text(r, self.tokenizer()) for r in s.runs]

    def forget_words(self) -> None:
        """Let the word ids of the texts go (every analysis that reads them has run)."""
        self._memo.pop("coder", None)

    def coder(self):
        """One vocabulary of word ids for every word analysis (each text coded once)."""
        from mtsig.analysis.words import Coder

        if "coder" not in self._memo:
            self._memo["coder"] = Coder()
        return self._memo["coder"]

    def cutoffs(self, kind: str, integer: bool = True, default: tuple[float, ...] | None = None) -> Cutoffs:
        """The bucket cutoffs of analysis ``kind``: as given, else ``default``, else the ones it declares."""
        given = self.opts.cutoffs.get(kind)
        vals = tuple(given) if given else (default or ANALYSES[kind].cutoffs)
        if vals is None:
            raise InputError(f"analysis {kind} has no default bucket cutoffs: give --bucket-cutoffs {kind}=C1:C2:...")
        return Cutoffs(vals, integer and all(float(v).is_integer() for v in vals))


def subset(table: StatsTable, idx: np.ndarray) -> StatsTable:
    """The table of some segments (rows ``idx``), every system's runs and every metric."""
    return StatsTable(
        table.metrics,
        table.systems,
        {m: {s: a[:, idx] for s, a in d.items()} for m, d in table.stats.items()},
        len(idx),
        [table.keys[i] for i in idx] if table.keys else None,
        dict(table.signatures),
        units={k: [v[i] for i in idx] for k, v in table.units.items()},
    )


def derived_table(table: StatsTable, metrics: Mapping[str, Metric], stats: dict[str, dict[str, np.ndarray]]):
    systems = [SystemInfo(s.name, s.files, s.n_runs) for s in table.systems]
    n = next(iter(next(iter(stats.values())).values())).shape[1]
    return StatsTable(dict(metrics), systems, stats, n, units=dict(table.units) if n == table.n_segments else {})


def resamples_for(ctx: AnalysisContext, k: int) -> int | None:
    """Resamples of the test: as given, or enough for the corrected threshold over ``k`` comparisons."""
    spec = PAIRED_TESTS[ctx.opts.test]
    if not spec.resamples:
        return None
    if ctx.resampling.n_resamples is not None:
        return ctx.resampling.n_resamples
    return auto_resamples(ctx.opts.test, corrected_threshold(ctx.opts.alpha, max(k, 1), ctx.opts.correction),
                          ctx.opts.alternative)  # fmt: skip


def bucket_compare_options(ctx: AnalysisContext, unit: str | None = None) -> CompareOptions:
    shared = {**ctx.opts.decisions(), "correction": "none", "resample_unit": unit or ctx.opts.resample_unit}
    return CompareOptions(**shared, tests=(ctx.opts.test,), system_ci=True)


def too_small(n_units: int, k: int, ctx: AnalysisContext) -> bool:
    """Whether an exact randomization over ``n_units`` units cannot reach the corrected threshold: its smallest
    p-value, 2^(1 - n) two-sided (2^-n one-sided), is above alpha / k."""
    exponent = n_units - (1 if ctx.opts.alternative == "two-sided" else 0)
    smallest = 2.0 ** (-exponent) if exponent < 1000 else 0.0
    return smallest > corrected_threshold(ctx.opts.alpha, max(k, 1), ctx.opts.correction)


def compare_bucket(ctx: AnalysisContext, table: StatsTable, n_res: int | None):
    """compare_table on ``table`` with the analysis' test (no correction: the analysis corrects)."""
    res = compare_table(table, bucket_compare_options(ctx), ctx.resampling.with_count(n_res))
    for w in res.warnings:
        if w not in ctx.warnings and "smallest p-value" not in w:
            ctx.warnings.append(w)
    return res


def adjust_analysis(ctx: AnalysisContext, raw: list[list[dict]]) -> list[tuple[BucketComparison, ...]]:
    """Adjust the p-values of every bucket and pair of one analysis together."""
    flat = [(i, j) for i, comps in enumerate(raw) for j, c in enumerate(comps) if c["p_value"] is not None]
    padj = adjust([raw[i][j]["p_value"] for i, j in flat], ctx.opts.correction) if flat else np.empty(0)
    adjusted = {ij: float(p) for ij, p in zip(flat, padj)}
    out = []
    for i, comps in enumerate(raw):
        row = []
        for j, c in enumerate(comps):
            pa = adjusted.get((i, j))
            row.append(BucketComparison(c["a"], c["b"], c["delta"], c["delta_ci"], ctx.opts.test, c["p_value"], pa,
                                        pa is not None and pa <= ctx.opts.alpha))  # fmt: skip
        out.append(tuple(row))
    return out


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def untested_pairs(ctx: AnalysisContext, scores: dict[str, float | None]) -> list[dict]:
    return [
        {"a": a, "b": b, "delta": _delta(scores[a], scores[b]), "delta_ci": None, "p_value": None} for a, b in ctx.pairs
    ]


def tested_pairs(ctx: AnalysisContext, res, metric: str) -> list[dict]:
    by_pair = {c.pair: c.result for c in res.comparisons if c.metric == metric}
    return [
        {
            "a": a,
            "b": b,
            "delta": by_pair[(a, b)].delta,
            "delta_ci": by_pair[(a, b)].delta_ci,
            "p_value": by_pair[(a, b)].p_value,
        }  # fmt: skip
        for a, b in ctx.pairs
    ]


def batched_buckets(  # noqa: PLR0913 - what one analysis' buckets are made of
    ctx: AnalysisContext,
    systems_of: list,
    raw: list,
    labels: list[str],
    bounds: list,
    tested: list[int],
    k: int,
    n_words: list[int] | None = None,
) -> tuple[Bucket, ...]:
    """The buckets of an analysis tested in the shared comparison (over all segments): the pairs of every bucket
    adjusted together, a bucket flagged too small when it is untested or no outcome could pass the threshold."""
    comps = adjust_analysis(ctx, raw)
    return tuple(
        Bucket(labels[b], bounds[b][0], bounds[b][1], None, n_words[b] if n_words else None, systems_of[b], comps[b],
               too_small=b not in tested or too_small(ctx.table.n_segments, k, ctx))
        for b in range(len(labels))
    )  # fmt: skip


def bucket_pairs(ctx: AnalysisContext, res, metric: str, tested: bool, scores: dict) -> list[dict]:
    """The pairs of one bucket: tested (from the comparison ``res``), or with their differences alone."""
    return tested_pairs(ctx, res, metric) if tested else untested_pairs(ctx, {n: s.score for n, s in scores.items()})


def finite_or_none(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def as_count(x: float) -> float | int:
    return int(x) if float(x).is_integer() else float(x)


def compact_counts(X: np.ndarray) -> np.ndarray:
    """Statistics of whole, non-negative counts (float64 or integers) held as the smallest integer type that has
    them (int8, int16 or int32): an eighth to a half of float64's memory (a million segments), and no number
    changes: NumPy sums small integers in int64 (exact), subtracts them exactly within their range, and every
    metric casts its totals to float64 before it divides. Otherwise ``X`` unchanged."""
    if X.size == 0 or not (X.dtype == np.float64 or np.issubdtype(X.dtype, np.integer)):
        return X
    flat = X.reshape(-1, X.shape[-1])
    if (X.dtype == np.float64 and not whole_numbers(flat)) or not bool((flat >= 0).all()):
        return X
    top = float(flat.max())
    for dtype in (np.int8, np.int16, np.int32):
        if top <= np.iinfo(dtype).max // 2:  # room for a difference of two of them
            return flat.astype(dtype).reshape(X.shape)
    return X
