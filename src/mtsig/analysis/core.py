"""``mtsig analyze``: where two systems differ, with an interval and a corrected p-value per bucket.

Every bucket analysis is built on ``compare``'s engine (:func:`mtsig.engine.compare_table`), so any registered
test, the resampling units and optimizer runs work as they do there:

- **Partitions of the segments** (``ref-length``, ``labels``, ``documents``): each bucket is the table of its
  segments; its scores are the metrics computed from the bucket's summed statistics (BLEU of a bucket is the
  BLEU of those segments), its intervals and tests resample the bucket's segments.
- **Partitions that depend on each output** (``length-diff``, ``sentence-score``): a segment falls in a
  different bucket for each system, so the number compared is the share of a system's segments in the bucket
  (compare-mt counts them); the paired tests treat the bucket indicator as a sentence-level metric over all
  segments. Each system's corpus score of its own bucket segments is shown beside it.
- **Word analyses** (``word-frequency``, ``word-labels``): per bucket, every segment's matched, output and
  reference word counts are a metric's sufficient statistics; the F-measure ``2m / (o + r)`` is its corpus
  score, tested and bootstrapped over segments like BLEU.

The p-values of one analysis (all its buckets and pairs) are adjusted together (``correction``, holm by
default). Buckets with fewer than :data:`MIN_BUCKET` segments (or reference words) are shown without tests and
are left out of the correction; a tested bucket is flagged ``too_small`` when even the most extreme outcome of
an exact randomization over its segments could not pass the corrected threshold.

Analyses are registered in :data:`ANALYSES` (:func:`register_analysis`): a new one is a function of an
:class:`AnalysisContext` and its argument that returns :class:`~mtsig.analysis.result.Analysis` objects.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from mtsig.analysis.buckets import DEFAULT_CUTOFFS, Cutoffs
from mtsig.analysis.result import Analysis, AnalyzeResult, Bucket, BucketComparison, BucketScore
from mtsig.docfields import setting
from mtsig.engine import DEFAULT_BOOTSTRAP, CompareOptions, ScoreOptions, auto_resamples, compare_table, score_table
from mtsig.engine import threshold as corrected_threshold
from mtsig.errors import InputError
from mtsig.metrics.base import Metric
from mtsig.registry import Registry
from mtsig.resample import Resampling
from mtsig.stats.multiple import CORRECTIONS, adjust
from mtsig.stats.paired import PAIRED_TESTS, get_test
from mtsig.table import StatsTable, SystemInfo

#: buckets with fewer segments (or, for word analyses, reference and output words) are shown without tests
MIN_BUCKET = 10
#: metrics whose segment scores lie on a 0-100 scale, where compare-mt's sentence-score cutoffs (tenths) apply


# ------------------------------------------------------------------------------------------ derived metrics
class _Derived(Metric):
    """A metric whose statistics ``mtsig analyze`` derives from other statistics or from words (never scored
    from text directly)."""

    options: dict = {}
    signature_has_refs = False

    def _stats(self, hyp):  # pragma: no cover - never called: the statistics are built by the analysis
        raise InputError(f"{self.name} statistics are built by mtsig analyze")


class BucketShare(_Derived):
    """The share (%) of segments that fall in a bucket: statistics ``[in bucket, 1]``."""

    name = "share"
    description = "share of segments in a bucket (%)"
    decimals = 1
    sentence_score_label = "100 when the segment is in the bucket, else 0"

    @property
    def stat_names(self):
        return ["in_bucket", "segments"]

    def score(self, totals):
        t = np.asarray(totals, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return 100.0 * t[..., 0] / t[..., 1]


class WordAccuracy(_Derived):
    """compare-mt's word accuracy of one bucket: statistics ``[matched, output words, reference words]``;
    ``measure`` is ``f`` (2m / (o + r)), ``p`` (m / o) or ``r`` (m / r); 0 when nothing matches."""

    name = "word-accuracy"
    description = "word F-measure, precision or recall of a bucket"
    decimals = 4
    sentence_score_label = "the segment's own word accuracy"

    def __init__(self, measure: str = "f"):
        super().__init__()
        self.measure = measure

    @property
    def stat_names(self):
        return ["matched", "output_words", "reference_words"]

    def score(self, totals):
        t = np.asarray(totals, dtype=np.float64)
        m, o, r = t[..., 0], t[..., 1], t[..., 2]
        if self.measure == "f":
            num, den = 2 * m, o + r
        else:
            num, den = m, (o if self.measure == "p" else r)
        # m > 0 implies den > 0 (matched words are output and reference words): no other guard is needed
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(m > 0, num / den, 0.0)


# ------------------------------------------------------------------------------------------------- options
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
        doc="Bucket boundaries per analysis (``{\"ref-length\": [10, 20, 30]}``; compare-mt's defaults otherwise).",
        factory=dict,
    )
    top: int = setting(10, "N-grams and example segments per pair and direction (10).")
    ngram_alpha: float = setting(1.0, "The smoothing of the n-gram ratio (1).")
    ngram_order: int = setting(4, "The highest n-gram order (4).")
    freq_corpus: str | None = setting(None, "A file whose word frequencies bucket the words (default: the reference's).")
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
            if kind not in DEFAULT_CUTOFFS:
                raise InputError(f"bucket cutoffs apply to {', '.join(DEFAULT_CUTOFFS)}, not to {kind!r}",
                                 param="cutoffs")  # fmt: skip
            Cutoffs(tuple(cuts))
        if self.top < 1:
            raise InputError(f"top must be at least 1, got {self.top}", param="top")
        if not 0 < self.ngram_alpha < float("inf"):
            raise InputError(f"ngram_alpha must be a positive finite number, got {self.ngram_alpha}",
                             param="ngram_alpha")  # fmt: skip
        if not 1 <= self.ngram_order <= 9:
            raise InputError(f"ngram_order must be 1 to 9, got {self.ngram_order}", param="ngram_order")


# ------------------------------------------------------------------------------------------------ context
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

    def add(self, metrics: dict[str, Metric], stats: dict[str, dict[str, np.ndarray]], k: int) -> str:
        """Add an analysis' metrics; returns the prefix of their names in :attr:`result`."""
        prefix = f"a{len({key.split(':')[0] for key in self.metrics})}:"
        self.metrics.update({prefix + m: v for m, v in metrics.items()})
        self.stats.update({prefix + m: v for m, v in stats.items()})
        self.k = max(self.k, k)
        return prefix

    def run(self, ctx: AnalysisContext) -> None:
        if not self.metrics:
            return
        self.n_resamples = _n_resamples(ctx, self.k)
        self.result = _compare(ctx, _derived_table(ctx.table, self.metrics, self.stats), self.n_resamples)


@dataclass
class AnalysisContext:
    table: StatsTable
    opts: AnalyzeOptions
    resampling: Resampling
    pairs: list[tuple[str, str]]
    warnings: list[str] = field(default_factory=list)
    _memo: dict = field(default_factory=dict)
    batch: Batch = field(default_factory=Batch)

    @property
    def names(self) -> list[str]:
        return self.table.system_names

    def needs_texts(self, what: str):
        if self.table.texts is None:
            raise InputError(f"analysis {what} needs the texts (give -r and -s): a statistics file holds no words")
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

    def coder(self):
        """One vocabulary of word ids for every word analysis (each text coded once)."""
        from mtsig.analysis.words import Coder

        if "coder" not in self._memo:
            self._memo["coder"] = Coder()
        return self._memo["coder"]

    def cutoffs(self, kind: str, integer: bool = True, default: tuple[float, ...] | None = None) -> Cutoffs:
        given = self.opts.cutoffs.get(kind)
        vals = tuple(given) if given else (default or DEFAULT_CUTOFFS[kind])
        return Cutoffs(vals, integer and all(float(v).is_integer() for v in vals))


# ------------------------------------------------------------------------------------------------ helpers
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


def _derived_table(table: StatsTable, metrics: dict[str, Metric], stats: dict[str, dict[str, np.ndarray]]):
    systems = [SystemInfo(s.name, s.files, s.n_runs) for s in table.systems]
    n = next(iter(next(iter(stats.values())).values())).shape[1]
    return StatsTable(metrics, systems, stats, n, units=dict(table.units) if n == table.n_segments else {})


def _n_resamples(ctx: AnalysisContext, k: int) -> int | None:
    """Resamples of the test: as given, or enough for the corrected threshold over ``k`` comparisons."""
    spec = PAIRED_TESTS[ctx.opts.test]
    if not spec.resamples:
        return None
    if ctx.resampling.n_resamples is not None:
        return ctx.resampling.n_resamples
    return auto_resamples(ctx.opts.test, corrected_threshold(ctx.opts.alpha, max(k, 1), ctx.opts.correction),
                          ctx.opts.alternative)  # fmt: skip


def _compare_opts(ctx: AnalysisContext, unit: str | None = None) -> CompareOptions:
    o = ctx.opts
    return CompareOptions(tests=(o.test,), baseline=o.baseline, correction="none", alpha=o.alpha,
                          alternative=o.alternative, confidence=o.confidence, n_bootstrap=o.n_bootstrap,
                          system_ci=True, resample_unit=unit or o.resample_unit)  # fmt: skip


def _too_small(n_units: int, k: int, ctx: AnalysisContext) -> bool:
    """Whether an exact randomization over ``n_units`` units cannot reach the corrected threshold: its smallest
    p-value, 2^(1 - n) two-sided (2^-n one-sided), is above alpha / k."""
    exponent = n_units - (1 if ctx.opts.alternative == "two-sided" else 0)
    smallest = 2.0 ** (-exponent) if exponent < 1000 else 0.0
    return smallest > corrected_threshold(ctx.opts.alpha, max(k, 1), ctx.opts.correction)


def _compare(ctx: AnalysisContext, table: StatsTable, n_res: int | None):
    """compare_table on ``table`` with the analysis' test (no correction: the analysis corrects)."""
    res = compare_table(table, _compare_opts(ctx), ctx.resampling.with_count(n_res))
    for w in res.warnings:
        if w not in ctx.warnings and "smallest p-value" not in w:
            ctx.warnings.append(w)
    return res


def _finish(ctx: AnalysisContext, raw: list[list[dict]]) -> list[tuple[BucketComparison, ...]]:
    """Adjust the p-values of every bucket and pair of one analysis together."""
    flat = [(i, j) for i, comps in enumerate(raw) for j, c in enumerate(comps) if c["p_value"] is not None]
    padj = adjust([raw[i][j]["p_value"] for i, j in flat], ctx.opts.correction) if flat else []
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


def _untested(ctx: AnalysisContext, scores: dict[str, float | None]) -> list[dict]:
    return [
        {
            "a": a,
            "b": b,
            "delta": None if scores[a] is None or scores[b] is None else scores[b] - scores[a],
            "delta_ci": None,
            "p_value": None,
        }  # fmt: skip
        for a, b in ctx.pairs
    ]


def _tested(ctx: AnalysisContext, res, metric: str) -> list[dict]:
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


def _valid(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


# ------------------------------------------------------------------------------------- partition analyses
def partition_analysis(
    ctx: AnalysisContext, kind: str, groups: np.ndarray, labels: list[str], bounds: list[tuple], note: str
) -> list[Analysis]:
    """Buckets that partition the segments (the same for every system): per metric, each system's score of the
    bucket's segments with its interval, and per pair the difference, its interval and the corrected p-value."""
    table = ctx.table
    sizes = [int(np.sum(groups == b)) for b in range(len(labels))]
    units = _unit_counts(ctx, groups, len(labels))
    tested = [b for b, n in enumerate(units) if n >= MIN_BUCKET]
    k = len(tested) * len(ctx.pairs)
    n_res = _n_resamples(ctx, k)
    results: dict[int, Any] = {}
    for b in range(len(labels)):
        if sizes[b] == 0:
            continue
        sub = subset(table, np.flatnonzero(groups == b))
        if b in tested:
            results[b] = ("compare", _compare(ctx, sub, n_res))
        else:
            results[b] = ("score", score_table(sub, ScoreOptions(), ctx.resampling.with_count(None)))
    out = []
    for mname, metric in table.metrics.items():
        raw, systems_of = [], []
        for b in range(len(labels)):
            if b not in results:
                systems_of.append({n: BucketScore(None, None) for n in ctx.names})
                raw.append([])
                continue
            how, res = results[b]
            systems_of.append({s.name: BucketScore(_valid(s.scores[mname].score), s.scores[mname].ci)
                               for s in res.systems})  # fmt: skip
            if how == "compare":
                raw.append(_tested(ctx, res, mname))
            else:
                raw.append(_untested(ctx, {n: v.score for n, v in systems_of[-1].items()}))
        comps = _finish(ctx, raw)
        buckets = tuple(
            Bucket(
                labels[b],
                *bounds[b],
                sizes[b],
                None,
                systems_of[b],
                comps[b],
                too_small=b not in tested or _too_small(units[b], k, ctx),
            )  # fmt: skip
            for b in range(len(labels))
        )
        out.append(Analysis(kind, mname, buckets, note=note, decimals=metric.decimals, direction=metric.direction,
                            n_resamples=n_res if tested else None))  # fmt: skip
    return out


def _unit_counts(ctx: AnalysisContext, groups: np.ndarray, nb: int) -> list[int]:
    """Resampling units in each bucket: segments, or the documents (domains) with segments in it."""
    unit = ctx.opts.resample_unit
    if unit == "segment":
        return [int(np.sum(groups == b)) for b in range(nb)]
    labels = np.asarray(ctx.table.units[unit], dtype=object)
    return [len(set(labels[groups == b])) for b in range(nb)]


def _ref_length(ctx: AnalysisContext, arg) -> list[Analysis]:
    cut = ctx.cutoffs("ref-length")
    lengths = np.array([len(t) for t in ctx.ref_tokens("ref-length")])
    groups = cut.assign(lengths)
    labels = cut.labels()
    note = "reference length in words (the first reference, tokenized as the metrics are); each bucket's scores " \
           "are the metric computed on its segments alone"  # fmt: skip
    return partition_analysis(ctx, "ref-length", groups, labels, [cut.bounds(i) for i in range(cut.n)], note)


def _label_groups(values: list[str]) -> tuple[np.ndarray, list[str]]:
    order = list(dict.fromkeys(values))
    index = {v: i for i, v in enumerate(order)}
    return np.array([index[v] for v in values], dtype=np.int64), order


def _labels(ctx: AnalysisContext, arg) -> list[Analysis]:
    table = ctx.table
    if arg is None:
        if "domain" not in table.units:
            raise InputError("analysis labels needs a file of one label per segment: --by labels=FILE (WMT XML "
                             "input brings its domains: then --by labels alone uses them)")  # fmt: skip
        values, source = table.units["domain"], "the test set's domains"
    else:
        from mtsig.io.text import read_lines

        values = [x.strip() for x in read_lines(arg)]
        source = arg
        if len(values) != table.n_segments:
            raise InputError(f"{arg}: {len(values)} labels, but the test set has {table.n_segments} segments")
        empty = next((i for i, v in enumerate(values) if not v), None)
        if empty is not None:
            raise InputError(f"{arg}: line {empty + 1}: empty label")
    groups, order = _label_groups(values)
    note = f"segments labelled by {source}; each bucket's scores are the metric computed on its segments alone"
    return partition_analysis(ctx, "labels", groups, order, [(None, None)] * len(order), note)


def _documents(ctx: AnalysisContext, arg) -> list[Analysis]:
    if "document" not in ctx.table.units:
        raise InputError("analysis documents needs the documents of the segments: SGML or WMT XML input, or --docids")
    groups, order = _label_groups(ctx.table.units["document"])
    note = "one bucket per document (in test-set order); each bucket's scores are the metric on its segments alone"
    return partition_analysis(ctx, "documents", groups, order, [(None, None)] * len(order), note)


# -------------------------------------------------------------------- partitions that depend on the output
def share_analysis(
    ctx: AnalysisContext,
    kind: str,
    metric_label: str,
    groups: dict[str, np.ndarray],
    cut: Cutoffs,
    note: str,
) -> Analysis:
    """Buckets each system's segments fall in by its own output (``groups[name]``: runs x segments): the share of
    its segments in each bucket, compared between systems with the paired tests over all segments."""
    nb = cut.n
    counts = {n: np.array([(g == b).sum(axis=1).mean() for b in range(nb)]) for n, g in groups.items()}
    most = [max(float(counts[n][b]) for n in ctx.names) for b in range(nb)]
    tested = [b for b in range(nb) if most[b] >= MIN_BUCKET]
    k = len(tested) * len(ctx.pairs)
    cut.labels()
    key = None
    if tested:
        metrics = {f"b{b}": BucketShare() for b in tested}
        stats = {
            f"b{b}": {
                n: np.stack([(g == b).astype(np.float64), np.ones_like(g, dtype=np.float64)], axis=-1)
                for n, g in groups.items()
            }  # fmt: skip
            for b in tested
        }
        key = ctx.batch.add(metrics, stats, k)
    return Later(lambda: [_share_result(ctx, kind, metric_label, groups, cut, note, counts, tested, k, key)])


def _share_result(ctx, kind, metric_label, groups, cut, note, counts, tested, k, key) -> Analysis:  # noqa: PLR0913
    table = ctx.table
    nb = cut.n
    labels = cut.labels()
    res = ctx.batch.result if key is not None else None
    raw, systems_of = [], []
    for b in range(nb):
        scores = {}
        for n in ctx.names:
            g = groups[n]
            share = 100.0 * float((g == b).mean())
            ci = None
            if res is not None and b in tested:
                ci = next(s for s in res.systems if s.name == n).scores[f"{key}b{b}"].ci
            extra = {"scores": _own_bucket_scores(table, n, g == b)}
            scores[n] = BucketScore(share, ci, _count(counts[n][b]), extra)
        systems_of.append(scores)
        raw.append(
            _tested(ctx, res, f"{key}b{b}") if b in tested else _untested(ctx, {n: s.score for n, s in scores.items()})
        )
    comps = _finish(ctx, raw)
    buckets = tuple(
        Bucket(
            labels[b],
            *cut.bounds(b),
            None,
            None,
            systems_of[b],
            comps[b],
            too_small=b not in tested or _too_small(table.n_segments, k, ctx),
        )  # fmt: skip
        for b in range(nb)
    )
    n_res = ctx.batch.n_resamples if key is not None else None
    return Analysis(kind, metric_label, buckets, note=note, decimals=1, direction="higher", n_resamples=n_res)


def _count(x: float) -> float | int:
    return int(x) if float(x).is_integer() else float(x)


def _own_bucket_scores(table: StatsTable, name: str, mask: np.ndarray) -> dict[str, float | None]:
    """Each metric's corpus score of the segments of one system that fall in the bucket (runs pooled)."""
    out = {}
    for mname, metric in table.metrics.items():
        A = table.stats[mname][name]  # runs x segments x d
        if not mask.any():
            out[mname] = None
            continue
        tot = (A * mask[..., None]).sum(axis=(0, 1))
        out[mname] = _valid(metric.score(tot))
    return out


def _length_diff(ctx: AnalysisContext, arg) -> list[Analysis]:
    cut = ctx.cutoffs("length-diff")
    ref = np.array([len(t) for t in ctx.ref_tokens("length-diff")])
    groups = {
        n: np.stack([cut.assign(np.array([len(t) for t in run]) - ref) for run in ctx.sys_tokens("length-diff", n)])
        for n in ctx.names
    }
    note = "output length minus reference length, in words; each system's share (%) of segments per bucket " \
           "(its count beside it), compared segment by segment between systems"  # fmt: skip
    return share_analysis(ctx, "length-diff", "share of segments (%)", groups, cut, note)


def _sentence_score(ctx: AnalysisContext, arg) -> list[Analysis]:
    out = []
    table = ctx.table
    for mname, metric in table.metrics.items():
        scores = {n: np.stack([metric.sentence_scores(run) for run in table.stats[mname][n]]) for n in ctx.names}
        if metric.scale == 100:  # compare-mt's cutoffs are on its 0-100 scale
            default = DEFAULT_CUTOFFS["sentence-score"]
        else:  # the deciles of every system's segment scores
            pooled = np.concatenate([s.ravel() for s in scores.values()])
            pooled = pooled[np.isfinite(pooled)]
            q = np.unique(np.round(np.quantile(pooled, np.linspace(0.1, 0.9, 9)), 4)) if pooled.size else [0.0]
            default = tuple(float(x) for x in q)
        cut = ctx.cutoffs("sentence-score", integer=False, default=default)
        groups = {n: cut.assign(np.nan_to_num(s, nan=-np.inf)) for n, s in scores.items()}
        note = f"each system's segment-level {mname} ({metric.sentence_score_label}); each system's share (%) of " \
               "segments per bucket, compared segment by segment between systems"  # fmt: skip
        out.append(share_analysis(ctx, "sentence-score", f"{mname}: share of segments (%)", groups, cut, note))
    return Later(lambda: [a for later in out for a in later.build()])


# ------------------------------------------------------------------------------------------ word analyses
def word_analysis(ctx: AnalysisContext, kind: str, X: dict[str, np.ndarray], labels: list[str], bounds, note: str):
    """``X[name]``: runs x segments x buckets x [matched, output words, reference words]."""
    from mtsig.stats.kinds import KINDS

    if KINDS[PAIRED_TESTS[ctx.opts.test].kind].name == "sentence":
        raise InputError(
            f"analysis {kind}: the word F-measure is a ratio of counts over the corpus; the sentence-level test "
            f"{ctx.opts.test} does not apply (use ar, bootstrap or paired-bootstrap)",
            param="test",
        )
    table = ctx.table
    nb = len(labels)
    first = X[ctx.names[0]][0]
    n_ref = [int(first[:, b, 2].sum()) for b in range(nb)]
    words = [max(float(X[n][:, :, b, :2].sum(axis=1).mean(axis=0).max()) for n in ctx.names) for b in range(nb)]
    tested = [b for b in range(nb) if max(n_ref[b], words[b]) >= MIN_BUCKET]
    k = len(tested) * len(ctx.pairs)
    key = None
    pr: dict = {}  # the intervals of precision and recall (bootstrap only): computed while the batch finishes
    work = None
    if tested:
        stats = {f"b{b}": {n: X[n][:, :, b, :] for n in ctx.names} for b in tested}
        key = ctx.batch.add({f"b{b}": WordAccuracy("f") for b in tested}, stats, k)
        both = {**{f"p{b}": WordAccuracy("p") for b in tested}, **{f"r{b}": WordAccuracy("r") for b in tested}}
        pr_stats = {f"{c}{b}": stats[f"b{b}"] for c in "pr" for b in tested}
        n_boot = ctx.opts.n_bootstrap or DEFAULT_BOOTSTRAP

        def work() -> None:
            pr["result"] = score_table(
                _derived_table(table, both, pr_stats),
                ScoreOptions(
                    ci=True,
                    ci_method="percentile",
                    confidence=ctx.opts.confidence,
                    resample_unit=ctx.opts.resample_unit,
                ),
                replace(ctx.resampling, n_resamples=n_boot),
            )

    args = (ctx, kind, X, labels, bounds, note, n_ref, tested, k, key, pr)
    return Later(lambda: [_word_result(*args)], work)


def _word_result(ctx, kind, X, labels, bounds, note, n_ref, tested, k, key, pr) -> Analysis:  # noqa: PLR0913
    table = ctx.table
    nb = len(labels)
    res = ctx.batch.result if key is not None else None
    raw, systems_of = [], []
    for b in range(nb):
        scores = {}
        for n in ctx.names:
            tot = X[n][:, :, b, :].sum(axis=(0, 1))
            m, o, r = (float(x) for x in tot)
            f = float(WordAccuracy("f").score(tot))
            extra = {"precision": float(WordAccuracy("p").score(tot)), "recall": float(WordAccuracy("r").score(tot)),
                     "matched": _count(m), "output_words": _count(o), "reference_words": _count(r)}  # fmt: skip
            ci = None
            if res is not None and b in tested:
                ci = next(s for s in res.systems if s.name == n).scores[f"{key}b{b}"].ci
                sp = next(s for s in pr["result"].systems if s.name == n)
                for c, field_name in (("p", "precision"), ("r", "recall")):
                    iv = sp.scores[f"{c}{b}"].ci
                    extra[f"{field_name}_ci"] = iv.to_list() if iv else None
            scores[n] = BucketScore(f, ci, None, extra)
        systems_of.append(scores)
        raw.append(
            _tested(ctx, res, f"{key}b{b}") if b in tested else _untested(ctx, {n: s.score for n, s in scores.items()})
        )
    comps = _finish(ctx, raw)
    buckets = tuple(
        Bucket(
            labels[b],
            *bounds[b],
            None,
            n_ref[b],
            systems_of[b],
            comps[b],
            too_small=b not in tested or _too_small(table.n_segments, k, ctx),
        )  # fmt: skip
        for b in range(nb)
    )
    n_res = ctx.batch.n_resamples if key is not None else None
    return Analysis(kind, "word F-measure", buckets, note=note, decimals=4, direction="higher", n_resamples=n_res)


def _runs_counts(ctx: AnalysisContext, what: str, count) -> dict[str, np.ndarray]:
    return {n: np.stack([count(run) for run in ctx.sys_tokens(what, n)]) for n in ctx.names}


def _word_frequency(ctx: AnalysisContext, arg) -> list[Analysis]:
    from mtsig.analysis.words import frequency_counts, word_counts_by_frequency

    ref = ctx.ref_tokens("word-frequency")
    if ctx.opts.freq_corpus:
        from mtsig.io.load import load_references

        corpus = load_references([ctx.opts.freq_corpus], allow_empty=True)[0]
        freq, source = frequency_counts(ctx.tokenizer().tokenize_all(corpus)), ctx.opts.freq_corpus
    else:
        freq, source = None, "the reference"
    cut = ctx.cutoffs("word-frequency")
    coder = ctx.coder()
    runs = {n: ctx.sys_tokens("word-frequency", n) for n in ctx.names}
    for t in [ref, *(r for rs in runs.values() for r in rs)]:
        coder.code(t)  # every word gets its id first: the buckets are computed once for the vocabulary
    if freq is None:  # the reference's own counts, by word id (0 for words only the outputs have)
        counts = np.bincount(coder.code(ref)[0], minlength=len(coder.vocab)).astype(np.float64)
    else:
        counts = np.fromiter((freq.get(w, 0) for w in coder.vocab), dtype=np.float64, count=len(coder.vocab))
    bucket = cut.assign(counts)
    X = {n: np.stack([word_counts_by_frequency(coder, ref, r, bucket, cut.n) for r in rs]) for n, rs in runs.items()}
    note = f"words by their frequency in {source}; precision, recall and F-measure of the words each output " \
           "matches in the reference (compare-mt's word accuracy), intervals and tests over segments"  # fmt: skip
    return word_analysis(ctx, "word-frequency", X, cut.labels(), [cut.bounds(i) for i in range(cut.n)], note)


def _word_labels(ctx: AnalysisContext, arg) -> list[Analysis]:
    from mtsig.analysis.words import read_word_labels, word_counts_by_label

    ref = ctx.ref_tokens("word-labels")
    ref_labels = read_word_labels(arg, ref, "the reference")
    missing = [n for n in ctx.names if n not in ctx.opts.out_labels]
    if missing:
        raise InputError(
            f"analysis word-labels needs the labels of every system's output words too: --out-labels NAME=FILE "
            f"for {', '.join(missing)} (an unmatched output word is counted in the bucket of its own label)",
            param="out_labels",
        )
    unknown = sorted(set(ctx.opts.out_labels) - set(ctx.names))
    if unknown:
        raise InputError(f"--out-labels names no system {', '.join(unknown)}; the systems: {', '.join(ctx.names)}")
    outs = {}
    for n in ctx.names:
        runs = ctx.sys_tokens("word-labels", n)
        if len(runs) > 1:
            raise InputError(f"analysis word-labels: {n} has several optimizer runs; give one output per system")
        outs[n] = (runs[0], read_word_labels(ctx.opts.out_labels[n], runs[0], f"output {n}"))
    order = list(dict.fromkeys([x for ls in ref_labels for x in ls] + [x for _, lo in outs.values() for ls in lo
                                                                       for x in ls]))  # fmt: skip
    index = {v: i for i, v in enumerate(order)}
    X = {n: word_counts_by_label(ref, ref_labels, o, lo, index)[None] for n, (o, lo) in outs.items()}
    note = f"words by their label ({arg}; output words: --out-labels); precision, recall and F-measure of matched " \
           "words, intervals and tests over segments"  # fmt: skip
    return word_analysis(ctx, "word-labels", X, order, [(None, None)] * len(order), note)


# ------------------------------------------------------------------------------------------ item analyses
def _ngrams(ctx: AnalysisContext, arg) -> list[Analysis]:
    from mtsig.analysis.words import ngram_match_table, salient_ngrams

    ref = ctx.ref_tokens("ngrams")
    o = ctx.opts
    coder = ctx.coder()
    outs = [ctx.sys_tokens("ngrams", n)[0] for n in ctx.names]
    words, grams, counts = ngram_match_table(coder, ref, outs, o.ngram_order)
    word_rank = coder.rank()

    def text(g: int) -> str:
        return " ".join(words[i] for i in grams[g] if i >= 0)

    col = {n: j for j, n in enumerate(ctx.names)}
    items = []
    for a, b in ctx.pairs:
        ma, mb = counts[:, col[a]], counts[:, col[b]]
        a_more, b_more = salient_ngrams(grams, word_rank, ma, mb, o.ngram_alpha, o.top)
        for side, rows in ((a, a_more), (b, b_more)):
            for rank, (ratio, g) in enumerate(rows, 1):
                items.append({"a": a, "b": b, "favours": side, "rank": rank, "ngram": text(g),
                              "order": int((grams[g] >= 0).sum()), "ratio": ratio, "count_a": int(ma[g]),
                              "count_b": int(mb[g])})  # fmt: skip
    runs = " (each system's first optimizer run)" if ctx.table.has_runs else ""
    note = (f"n-grams of orders 1-{o.ngram_order} each system matches in the reference more often than the other"
            f"{runs}, by (count_a + {o.ngram_alpha:g}) / (count_a + count_b + {2 * o.ngram_alpha:g}) (compare-mt's "
            f"smoothed ratio); the top {o.top} each way")  # fmt: skip
    return [Analysis("ngrams", "matched n-grams", items=tuple(items), note=note, decimals=4)]


def _examples(ctx: AnalysisContext, arg) -> list[Analysis]:
    table = ctx.table
    refs, systems = ctx.needs_texts("examples")
    source = _source_lines(ctx, refs)
    text = {s.name: s.runs[0] for s in systems}
    out = []
    for mname, metric in table.metrics.items():
        sent = {n: metric.sentence_scores(table.stats[mname][n][0]) for n in ctx.names}
        items = []
        for a, b in ctx.pairs:
            good = metric.goodness(sent[b]) - metric.goodness(sent[a])  # > 0: b better
            good = np.where(np.isfinite(good), good, 0.0)
            for side, order in ((b, np.argsort(-good, kind="stable")), (a, np.argsort(good, kind="stable"))):
                rank = 0
                for i in order[: ctx.opts.top]:
                    if (good[i] <= 0 and side == b) or (good[i] >= 0 and side == a):
                        break
                    rank += 1
                    items.append({
                        "a": a, "b": b, "better": side, "rank": rank, "segment": int(i) + 1,
                        "score_a": _valid(sent[a][i]), "score_b": _valid(sent[b][i]),
                        "delta": _valid(sent[b][i] - sent[a][i]),
                        "source": source[i] if source is not None else None,
                        "reference": refs[0].lines[i], "output_a": text[a].lines[i], "output_b": text[b].lines[i],
                    })  # fmt: skip
        runs = " (first optimizer run)" if table.has_runs else ""
        note = f"the segments where each system beats the other most by segment-level {mname}{runs}; top " \
               f"{ctx.opts.top} each way"  # fmt: skip
        out.append(Analysis("examples", mname, items=tuple(items), note=note, decimals=metric.decimals,
                            direction=metric.direction))  # fmt: skip
    return out


def _source_lines(ctx: AnalysisContext, refs) -> list[str] | None:
    if ctx.opts.source:
        from mtsig.io.text import read_lines

        lines = read_lines(ctx.opts.source)
        if len(lines) != refs.n_segments:
            raise InputError(f"source {ctx.opts.source} has {len(lines)} lines but the references have "
                             f"{refs.n_segments}")  # fmt: skip
        return lines
    return list(refs.source.lines) if refs.source is not None else None


# ------------------------------------------------------------------------------------------------ registry
class AnalysisEntry(NamedTuple):
    """A registered analysis: ``run(ctx, arg)`` returns its analyses, or a :class:`Later` when it put derived
    metrics into ``ctx.batch`` (tested together once every analysis has been prepared)."""

    name: str
    run: Callable[[AnalysisContext, str | None], list[Analysis] | Later]
    help: str
    takes_arg: bool = False
    needs_arg: bool = False
    #: run when no --by is given
    default: bool = True
    #: puts its metrics into the shared comparison (``ctx.batch``) and returns a :class:`Later`
    batched: bool = False


#: the analyses by name (plugins: the ``mtsig.analyses`` entry-point group, loaded when ``--by`` names an
#: analysis that is not a built-in one)
ANALYSES: Registry[AnalysisEntry] = Registry("analysis", "mtsig.analyses")


def register_analysis(entry: AnalysisEntry) -> AnalysisEntry:
    """Add an analysis (``mtsig analyze --by NAME`` and ``mtsig.analyze(by=[NAME])`` offer it)."""
    return ANALYSES.register(entry)


for _e in (
    AnalysisEntry("ref-length", _ref_length, "scores by reference length (words)"),
    AnalysisEntry("length-diff", _length_diff, "segments by output length minus reference length", batched=True),
    AnalysisEntry("sentence-score", _sentence_score, "segments by each system's segment-level score", batched=True),
    AnalysisEntry(
        "labels",
        _labels,
        "scores by a label per segment: --by labels=FILE (WMT XML: its domains)",
        takes_arg=True,
        default=False,
    ),  # fmt: skip
    AnalysisEntry("documents", _documents, "scores by document (SGML/XML input or --docids)", default=False),
    AnalysisEntry("word-frequency", _word_frequency, "word accuracy by word frequency (--freq-corpus)", batched=True),
    AnalysisEntry(
        "word-labels",
        _word_labels,
        "word accuracy by a label per word: --by word-labels=FILE (reference word labels) with --out-labels NAME=FILE",
        takes_arg=True,
        needs_arg=True,
        default=False,
        batched=True,
    ),  # fmt: skip
    AnalysisEntry("ngrams", _ngrams, "the n-grams each system matches more often"),
    AnalysisEntry("examples", _examples, "the segments where each system beats the other most"),
):
    register_analysis(_e)


def default_specs(table: StatsTable) -> tuple[AnalysisSpec, ...]:
    """What runs without --by: every default analysis (those needing words only when the texts are here)."""
    text_free = ("sentence-score",)
    return tuple(
        AnalysisSpec(e.name)
        for e in ANALYSES.values()
        if e.default and (table.texts is not None or e.name in text_free)
    )


class _ForkedBatch:
    """The shared comparison computed in a forked child, its result sent back through a pipe (pickled)."""

    def __init__(self, ctx: AnalysisContext, pid: int, fd: int):
        self.ctx, self.pid, self.fd = ctx, pid, fd

    def join(self) -> None:
        import os
        import pickle

        with os.fdopen(self.fd, "rb") as f:
            data = f.read()
        os.waitpid(self.pid, 0)
        if not data:  # the child failed: the comparison runs here, where its error is raised as it would be
            self.ctx.batch.run(self.ctx)
            return
        n_resamples, result, notes, raised = pickle.loads(data)
        self.ctx.batch.n_resamples, self.ctx.batch.result = n_resamples, result
        self.ctx.warnings.extend(w for w in notes if w not in self.ctx.warnings)
        for message, category in raised:  # Python warnings the child met, raised here as the thread would
            warnings.warn(message, category, stacklevel=2)

    def cancel(self) -> None:
        import os
        import signal

        os.close(self.fd)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:  # it had finished (Ctrl-C reaches it too)
            pass
        os.waitpid(self.pid, 0)


def _fork_batch(ctx: AnalysisContext) -> _ForkedBatch | None:
    """Start the shared comparison in a forked child (None where the platform cannot fork or nothing is batched).
    The child writes nothing but its result, and leaves without running any exit handler."""
    import os

    if not ctx.batch.metrics or not hasattr(os, "fork"):
        return None
    import numpy.random  # noqa: F401 - imported once, before the fork, rather than in both processes

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (its result is checked in the parent)
        try:
            import pickle

            os.close(read)
            try:
                before = len(ctx.warnings)
                with warnings.catch_warnings(record=True) as raised:
                    warnings.simplefilter("always")
                    ctx.batch.run(ctx)
                caught = [(str(w.message), w.category) for w in raised]
                data = pickle.dumps(
                    (ctx.batch.n_resamples, ctx.batch.result, ctx.warnings[before:], caught), protocol=5
                )
            except BaseException:  # noqa: BLE001 - the parent runs the comparison again and raises there
                data = b""
            with os.fdopen(write, "wb") as f:
                f.write(data)
        finally:
            os._exit(0)
    os.close(write)
    return _ForkedBatch(ctx, pid, read)


def _run_analyses(ctx: AnalysisContext, specs, fork: bool) -> dict[int, list[Analysis] | Later]:
    """Each spec's analyses, or its :class:`Later` once the shared comparison has run. The analyses that put their
    metrics into the shared comparison are prepared first; the comparison then runs beside the others (each
    bucket's own comparison, n-grams, examples), on a second thread (NumPy releases the GIL in its heavy loops) or
    in a forked process (``fork``); every number is the same in either order."""
    from threadpoolctl import threadpool_limits

    parts: dict[int, list[Analysis] | Later] = {}
    for i, spec in enumerate(specs):
        if ANALYSES[spec.kind].batched:
            parts[i] = ANALYSES[spec.kind].run(ctx, spec.arg)
    # one BLAS thread per Python thread: BLAS's own threads would take the cores the two threads use (on two
    # cores, 0.9-1.3 s became 0.9 s for the benchmark's run)
    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(max_workers=1) as pool:
        child = _fork_batch(ctx) if fork else None
        done = pool.submit(ctx.batch.run, ctx) if child is None else None
        try:
            for i, spec in enumerate(specs):
                if not ANALYSES[spec.kind].batched:
                    parts[i] = ANALYSES[spec.kind].run(ctx, spec.arg)
            for p in parts.values():
                if isinstance(p, Later) and p.work is not None:
                    p.work()
        except BaseException:
            if child is not None:
                child.cancel()
            raise
        if done is not None:
            done.result()
        else:
            child.join()
    return parts


def analyze_table(
    table: StatsTable,
    options: AnalyzeOptions | None = None,
    resampling: Resampling | None = None,
    *,
    fork: bool = False,
):
    """Run the analyses of ``options.by`` (default: :func:`default_specs`) on a statistics table.

    ``fork``: run the shared comparison in a forked child process rather than on a second thread, where the
    platform forks and nothing draws progress (the command line's choice when it may use another process: the
    two halves then do not take turns on one interpreter lock). Every number is the same either way."""
    from mtsig.engine import _pairs

    opts = options or AnalyzeOptions()
    resampling = resampling or Resampling()
    if len(table.system_names) < 2:
        raise InputError("analyze needs at least two systems")
    if opts.resample_unit != "segment":  # the units every analysis resamples, checked before any work
        from mtsig.units import unit_labels

        unit_labels(table, opts.resample_unit)
    pairs = _pairs(table, CompareOptions(baseline=opts.baseline))
    ctx = AnalysisContext(table, opts, resampling, pairs)
    specs = opts.by or default_specs(table)
    parts = _run_analyses(ctx, specs, fork and resampling.progress is None)
    analyses: list[Analysis] = []
    for i in range(len(specs)):
        p = parts[i]
        analyses += p.build() if isinstance(p, Later) else p
    settings = {
        "analyses": [s.kind + (f"={s.arg}" if s.arg else "") for s in specs],
        "test": opts.test,
        "n_resamples": resampling.n_resamples,
        "n_bootstrap": opts.n_bootstrap or DEFAULT_BOOTSTRAP,
        "seed": resampling.seed,
        "correction": opts.correction,
        "corrected_over": "every bucket and pair of an analysis",
        "alpha": opts.alpha,
        "alternative": opts.alternative,
        "confidence": opts.confidence,
        "baseline": opts.baseline,
        "cutoffs": {k: list(v) for k, v in opts.cutoffs.items()},
        "min_bucket": MIN_BUCKET,
        "tokenize": ctx.tokenizer().signature if table.texts is not None else None,
        "signatures": {m: table.signatures.get(m, table.metrics[m].signature) for m in table.metrics},
        "n_segments": table.n_segments,
        "resample_unit": opts.resample_unit,
    }
    return AnalyzeResult(settings, tuple(table.system_names), tuple(analyses), tuple(ctx.warnings))
