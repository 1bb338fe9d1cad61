"""Meta-evaluation: how well each metric agrees with humans, with intervals, and which metric agrees better.

Data: human scores ``H`` ``(S, I)`` (S systems x I items; NaN where no human score) and, per metric, segment scores
``(S, I)`` and system scores ``(S,)``. Statistics (:data:`STATISTICS`, a registry; plugins through the
``mtsig.meta_statistics`` entry-point group):

- system level (human system score against the metric's): ``pearson``, ``spearman``, ``kendall`` (tau-b),
  ``pairwise_accuracy`` (Kocmi et al. 2021), ``spa`` (soft pairwise accuracy, Thompson et al. 2024: 1 - the mean
  absolute difference of the paired-permutation p-values of every system pair under humans and under the metric);
- segment level, averaged ``none``/``sys``/``item`` as mt-metrics-eval defines it: ``pearson``, ``spearman``,
  ``kendall`` (b), ``kendall_c``, ``tau23``, ``acc23`` (with the tie threshold epsilon that maximizes it: Deutsch
  et al. 2023's tie calibration, exact over every pair).

Intervals: percentile bootstrap over the items (segments), the same resamples for every metric. Comparisons: every
pair of metrics, PERM-BOTH (Deutsch et al. 2021): each (system, item) entry's two z-scored metric scores swapped
with probability 1/2, the statistic of both hybrids recomputed, ``p = (c + 1)/(R + 1)`` for "a agrees with humans
better than b"; for ``acc23`` with each metric's own epsilon, the pairwise permutation test (the pairs' agreement
outcomes swapped instead). Clusters: WMT's greedy rule (a metric joins the cluster of the best metric above it
unless that one is significantly better), on raw p-values and on corrected ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtsig.declare import Checked, count_option, level_option, option, seed_option
from mtsig.errors import InputError
from mtsig.metaeval import stats as st
from mtsig.registry import Registry
from mtsig.resample import DEFAULT_SEED, Resampling
from mtsig.serialize import as_dict, jfield, out
from mtsig.stats.multiple import CORRECTIONS, adjust

LEVELS = ("system", "segment")
AVERAGING = ("none", "sys", "item")
DEFAULT_STATISTIC = {"system": "pearson", "segment": "acc23"}


@dataclass(frozen=True, kw_only=True)
class MetricScores:
    """One metric's scores of the same systems and items as the human scores."""

    name: str
    #: (S, I) segment scores (None for a metric known at system level only)
    segments: np.ndarray | None
    #: (S,) system scores
    systems: np.ndarray
    #: system scores of bootstrap resamples of the items: ``resampled(W)`` with W (R, I) counts -> (R, S); None:
    #: the mean of the segment scores
    resampled: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    source: str = ""

    @property
    def seg(self) -> np.ndarray:
        """The segment scores; an error for a metric known at system level only."""
        if self.segments is None:
            raise InputError(f"metric {self.name}: this needs its segment scores, and it has system scores only")
        return self.segments

    def system_boot(self, W: np.ndarray) -> np.ndarray:
        if self.resampled is not None:
            return self.resampled(W)
        if self.segments is None:
            raise InputError(f"metric {self.name}: system scores only; a bootstrap over segments needs segment scores")
        ok = np.isfinite(self.segments)  # missing (None) scores left out, as the system score's nanmean does
        if ok.all():
            return (W @ self.segments.T) / W.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (W @ np.where(ok, self.segments, 0.0).T) / (W @ ok.T.astype(np.float64))


@dataclass(frozen=True, kw_only=True)
class MetaData:
    systems: tuple[str, ...]
    #: (S, I) human segment scores (NaN: not judged), or None with system scores only
    human: np.ndarray | None
    #: (S,) human system scores
    human_systems: np.ndarray
    metrics: tuple[MetricScores, ...]
    notes: tuple[str, ...] = ()
    #: each item's document (items without a human score: a unit of their own), where the human scores have
    #: documents: the resampling unit of intervals and of segment-level PERM-BOTH
    item_documents: tuple[str, ...] | None = None

    @property
    def H(self) -> np.ndarray:
        """The human segment scores; an error where there are system scores only."""
        if self.human is None:
            raise InputError("this needs the human segment scores, and only system scores were given")
        return self.human

    def document_index(self) -> tuple[np.ndarray, int] | None:
        """Each item's document as an index 0..D-1 (in order of first appearance), and D; None without documents."""
        if self.item_documents is None:
            return None
        order = {d: i for i, d in enumerate(dict.fromkeys(self.item_documents))}
        return np.array([order[d] for d in self.item_documents], dtype=np.int64), len(order)

    def metric(self, name: str) -> MetricScores:
        for m in self.metrics:
            if m.name == name:
                return m
        from mtsig.errors import unknown_name

        raise unknown_name("metric", name, [m.name for m in self.metrics])


# ------------------------------------------------------------------------------------------------ options
def _statistic(name: str) -> None:
    STATISTICS.get(name)


def _statistic_names() -> list[str]:
    return list(STATISTICS)


def _meta_correction(name: str) -> None:
    if CORRECTIONS.get(name).joint_bootstrap:
        raise InputError(f"correction {name} is not offered by meta", param="correction")


def _p_corrections() -> tuple[str, ...]:
    from mtsig.stats.multiple import p_corrections

    return p_corrections()


#: why ``test="bootstrap"`` is refused (it was offered until issue 60's measurement)
BOOTSTRAP_WITHDRAWN = (
    "test bootstrap is no longer offered: resampling segments or documents never varies a metric's errors per "
    "system, so under a null of two equally good metrics whose errors are per system it rejected 0.20-0.33 at 0.05 "
    "(WMT22 de-en, benchmarks/meta_calibration.py --noise system; PERM-BOTH 0.066 there): use perm-both"
)


@dataclass(frozen=True, kw_only=True)
class MetaOptions(Checked):
    """What ``mtsig meta`` computes: each setting declared once (flag, check, description; :mod:`mtsig.declare`),
    the levels, counts, seed and unit from the declarations every command shares."""

    level: str = option("system", "system or segment", "str", choices=LEVELS, group="meta-evaluation")
    statistic: str | None = option(None, "what metrics are compared on (pearson at system level, acc23 at segment "
                                   "level; also spearman, kendall, kendall_c, tau23, pairwise_accuracy, spa)", "str",
                                   metavar="S", lookup=_statistic, group="meta-evaluation",
                                   names=_statistic_names)  # fmt: skip
    average_by: str = option("item", "segment level: one correlation over all, per system or per item", "str",
                             choices=AVERAGING, what="averaging", group="meta-evaluation")  # fmt: skip
    #: PERM-BOTH, "pairwise" (the pairwise permutation test; acc23/tau23 with each metric's epsilon) or "bootstrap"
    test: str = option("perm-both", "perm-both (the default at both levels) or pairwise (segment-level acc23 at each "
                       "metric's epsilon: too liberal); the segment bootstrap is no longer offered (a metric's "
                       "per-system errors: docs/meta.md)", "str",
                       choices=("perm-both", "pairwise"), shown=False,
                       group="meta-evaluation")  # fmt: skip
    n_resamples: int | None = count_option(None, "permutations of the tests (default: at least 1000, enough for the "
                                           "corrected threshold)", group="meta-evaluation")  # fmt: skip
    n_bootstrap: int = count_option(1000, "bootstrap resamples of the intervals", group="meta-evaluation")
    confidence: float = level_option(0.95, "level of the intervals", group="meta-evaluation")
    alpha: float = level_option(0.05, "significance level", group="meta-evaluation")
    correction: str = option("holm", "over every pair of metrics", "str", choices=_p_corrections,
                             lookup=_meta_correction, group="meta-evaluation")  # fmt: skip
    seed: int = seed_option(DEFAULT_SEED, group="meta-evaluation")
    #: what intervals and segment-level PERM-BOTH resample: "segment", "document" (whole documents; PERM-BOTH swaps
    #: a system's entries of a document together), or None: documents wherever the human scores have them
    resample_unit: str | None = option(None, "what intervals and segment-level PERM-BOTH resample (default: "
                                       "documents wherever the human scores have them)", "str",
                                       choices=("segment", "document"), what="resample unit",
                                       group="meta-evaluation")  # fmt: skip

    def __post_init__(self):
        if self.test == "bootstrap":
            raise InputError(BOOTSTRAP_WITHDRAWN, param="test")
        super().__post_init__()
        if self.statistic is not None:
            s = STATISTICS.get(self.statistic)
            if self.level not in s.levels:
                raise InputError(f"statistic {s.name} is a {'/'.join(s.levels)}-level statistic, not "
                                 f"{self.level}-level", param="statistic")  # fmt: skip
        if self.test == "pairwise" and (self.level != "segment" or self.compared_on != "acc23"):  # ran PERM-BOTH
            raise InputError(f"test pairwise is mt-metrics-eval's test of segment-level acc23 (level segment, "
                             f"statistic acc23), not of {self.level}-level {self.compared_on}: use perm-both",
                             param="test")  # fmt: skip
        if self.level == "system" and self.average_by != "item":  # it would be ignored
            raise InputError(f"average_by {self.average_by} applies at segment level (level segment); system-level "
                             "statistics have one value over the systems", param="average_by")  # fmt: skip

    @property
    def compared_on(self) -> str:
        return self.statistic or DEFAULT_STATISTIC[self.level]


@dataclass(frozen=True, kw_only=True)
class MetaStatistic:
    """One agreement statistic: ``value(x, y, valid)`` on human ``x`` (G, L), metric ``y`` (R, G, L) -> (R, G), and
    the levels it applies to."""

    name: str
    help: str
    levels: tuple[str, ...]
    value: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None

    def of(self, x: np.ndarray, y: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """``value(x, y, valid)``; an error for a statistic that has its own routine instead (acc23, SPA)."""
        if self.value is None:
            raise InputError(f"statistic {self.name} is computed by its own routine, not group by group")
        return self.value(x, y, valid)


STATISTICS: Registry[MetaStatistic] = Registry("meta-evaluation statistic", "mtsig.meta_statistics")
for _s in (
    MetaStatistic(name="pearson", help="Pearson's r", levels=LEVELS, value=st.pearson),
    MetaStatistic(name="spearman", help="Spearman's rho (average ranks)", levels=LEVELS, value=st.spearman),
    MetaStatistic(name="kendall", help="Kendall's tau-b", levels=LEVELS,
                  value=lambda x, y, v: st.kendall(x, y, v, "b")),
    MetaStatistic(name="kendall_c", help="Kendall's tau-c", levels=("segment",),
                  value=lambda x, y, v: st.kendall(x, y, v, "c")),
    MetaStatistic(name="tau23", help="tau-23 (Deutsch et al. 2023), ties at epsilon 0", levels=("segment",),
                  value=lambda x, y, v: st.kendall(x, y, v, "23")),
    MetaStatistic(name="acc23", help="acc23 with the tie threshold epsilon that maximizes it", levels=("segment",)),
    MetaStatistic(name="pairwise_accuracy", help="share of system pairs ordered as humans order them",
                  levels=("system",)),
    MetaStatistic(name="spa", help="soft pairwise accuracy (Thompson et al. 2024)", levels=("system",)),
):  # fmt: skip
    STATISTICS.register(_s)


# ------------------------------------------------------------------------------------------------ groups
def groups(S: int, n_items: int, average_by: str) -> np.ndarray:
    """``(G, L)`` indices into the flattened (S * n_items) matrix for each group of the averaging."""
    idx = np.arange(S * n_items).reshape(S, n_items)
    if average_by == "none":
        return idx.reshape(1, -1)
    return idx if average_by == "sys" else idx.T


def segment_level(x: np.ndarray, y: np.ndarray, stat: str, average_by: str, epsilon: float | None = None,
                  empty: float = 0.0):  # fmt: skip
    """A segment-level statistic of human ``x`` (S, I) and metric ``y`` (S, I) or (R, S, I): ``(value, epsilon)`` (or
    ``(R,)`` values); groups averaged, NaN groups left out (mt-metrics-eval's macro average). ``empty``: the value
    when no group has one (mt-metrics-eval's 0; NaN for "undefined")."""
    g = groups(x.shape[0], x.shape[1], average_by)
    X = x.reshape(-1)[g]
    valid = np.isfinite(X)
    Y = y.reshape(-1)[g] if y.ndim == 2 else y.reshape(y.shape[0], -1)[:, g]
    batch = Y if Y.ndim == 3 else Y[None]
    if stat == "acc23":
        if epsilon is None:
            if batch.shape[0] != 1:
                raise ValueError("tie calibration runs on one metric vector")
            value, eps = st.tie_calibration(X, batch[0], valid, "acc23")
            return (value if np.isfinite(value) else empty), eps
        vals = st.kendall(X, batch, valid, "acc23", epsilon)
    else:
        vals = STATISTICS.get(stat).of(X, batch, valid)
    import warnings

    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a row without a defined group: "empty" below
        out = np.nanmean(np.where(np.isfinite(vals), vals, np.nan), axis=1) if vals.shape[1] else vals[:, 0]
    out = np.where(np.all(~np.isfinite(vals), axis=1), empty, out)  # no defined group: 0, as mt-metrics-eval
    return (float(out[0]), epsilon) if y.ndim == 2 else out


def system_level(hs: np.ndarray, ms: np.ndarray, stat: str) -> np.ndarray:
    """A system-level statistic of human system scores ``hs`` (S,) or (R, S) and metric ``ms`` (R, S) -> (R,)."""
    ms = np.atleast_2d(ms)
    hs = np.broadcast_to(hs, ms.shape)
    if stat == "pairwise_accuracy":
        shares = []
        for h, m in zip(hs, ms):
            agree, n = st.pairwise_accuracy(h, m)
            shares.append(agree / n if n else np.nan)
        return np.asarray(shares)
    fn = STATISTICS.get(stat).of
    out = np.empty(ms.shape[0])
    for r in range(ms.shape[0]):  # each resample has its own human vector
        valid = np.isfinite(hs[r])[None]
        out[r] = fn(hs[r][None], ms[r][None, None], valid)[0, 0]
    return out


# ------------------------------------------------------------------------------------------------ SPA
def permutation_flips(n_items: int, n_permutations: int = 1000, seed: int = 4) -> np.ndarray:
    """SPA's permutations, ``(n_permutations, n_items)`` bool, True where a permutation flips the segment's sign:
    float32 uniform draws from ``default_rng(seed)`` that round to 0 (Thompson et al.'s signs are the draws rounded
    to 0/1, times 2, minus 1)."""
    rng = np.random.default_rng(seed)
    draws = rng.random(size=(n_permutations, n_items), dtype=np.float32)
    return np.rint(draws) == 0


def permutation_pvalues(seg: np.ndarray, n_permutations: int = 1000, seed: int = 4) -> np.ndarray:
    """``(S, S)`` p-values of "system i is better than system j" (upper triangle) by a paired permutation test on
    segment scores ``(S, I)`` without gaps, as Thompson et al. 2024 define it for SPA: one matrix of random signs
    for all systems (float32 uniform draws rounded to 0/1 from ``default_rng(seed)``), ``p = share of permutations
    whose difference of sums reaches the observed one``.

    Sums are taken in float64 on the scores as given, and a permutation's difference that equals the observed one
    up to the rounding of those sums (``n`` times the largest score times 2^-46) counts as reaching it: WMT's
    scores are decimals (MQM's -107.1), whose equal sums can differ in the last bits. (Thompson et al.'s code sums
    in float32, so its ties fall either way by rounding: on which side depends on the order of the systems, which
    mt-metrics-eval takes from a Python set, that is from PYTHONHASHSEED, and on the memory layout. Measured on
    WMT23 en-de over 10 hash seeds, one metric's value moves by up to 6.8e-4 from run to run.)"""
    S, n_items = seg.shape
    signs = np.where(permutation_flips(n_items, n_permutations, seed), -1.0, 1.0)
    x = np.asarray(seg, dtype=np.float64)
    sums = x.sum(axis=1)
    partial = signs @ x.T
    tol = n_items * float(np.abs(x).max(initial=0.0)) * 2.0**-46
    p = np.full((S, S), np.nan)
    for i in range(S - 1):  # row i against every j > i at once: the same differences and counts
        reach = partial[:, i : i + 1] - partial[:, i + 1 :] >= (sums[i] - sums[i + 1 :]) - tol
        p[i, i + 1 :] = np.sum(reach, axis=0) / n_permutations
    return p


def spa(human: np.ndarray, metric: np.ndarray, n_permutations: int = 1000, seed: int = 4) -> float:
    """Soft pairwise accuracy: 1 - mean |p_human - p_metric| over the system pairs (segments judged for every
    system only; the caller says how many were left out)."""
    full = np.all(np.isfinite(human), axis=0)
    if not full.all():
        human, metric = human[:, full], metric[:, full]
    ph = permutation_pvalues(human, n_permutations, seed)
    pm = permutation_pvalues(metric, n_permutations, seed)
    iu = np.triu_indices(human.shape[0], 1)
    return float(1.0 - np.mean(np.abs(ph - pm)[iu]))


# ------------------------------------------------------------------------------------------------ results
@dataclass(frozen=True, kw_only=True)
class MetricAgreement:
    name: str
    #: each statistic's value, written under the statistic's name
    values: dict[str, float | None] = field(metadata=out(flatten=True))
    epsilon: float | None
    ci: dict[str, list[float] | None]
    cluster: int
    cluster_corrected: int

    to_dict = as_dict


@dataclass(frozen=True, kw_only=True)
class MetricComparison:
    a: str
    b: str
    statistic: str
    #: the statistic of b minus a's (B − A, as every mtsig table shows a difference); None where either metric's
    #: statistic is undefined (a constant metric): then nothing is tested
    delta: float | None
    #: one-sided: a agrees with humans better than b (a is the better of the two on these data)
    p_value: float | None
    #: twice the one-sided p (at most 1): the test that the two differ
    p_two_sided: float | None
    #: p_two_sided corrected over every pair of metrics
    p_adjusted: float | None
    significant: bool
    note: str | None = jfield(None, omit="none")

    to_dict = as_dict


@dataclass(frozen=True, kw_only=True)
class MetaResult:
    level: str
    statistic: str
    metrics: tuple[MetricAgreement, ...]
    comparisons: tuple[MetricComparison, ...]
    clusters: tuple[tuple[str, ...], ...]
    clusters_corrected: tuple[tuple[str, ...], ...]
    settings: dict[str, Any]
    notes: tuple[str, ...] = ()
    #: decimals shown in text, Markdown and LaTeX (``-w``; None: 3 for statistics, 4 for differences)
    decimals: int | None = jfield(None, repr=False, compare=False, skip=True)

    def get(self, a: str, b: str) -> MetricComparison:
        for c in self.comparisons:
            if (c.a, c.b) == (a, b):
                return c
        raise InputError(f"no comparison of {a} with {b}")

    def metric(self, name: str) -> MetricAgreement:
        for m in self.metrics:
            if m.name == name:
                return m
        raise InputError(f"no metric {name}")

    to_dict = as_dict

    def metric_rows(self) -> list[dict[str, Any]]:
        """One row per metric: each statistic's value and interval, the clusters."""
        rows = []
        for m in self.metrics:
            row: dict[str, Any] = {"metric": m.name}
            for stat, v in m.values.items():
                iv = m.ci.get(stat)
                row.update({stat: v, f"{stat}_ci_low": iv[0] if iv else None, f"{stat}_ci_high": iv[1] if iv else None})
            rows.append({**row, "cluster": m.cluster, "cluster_corrected": m.cluster_corrected})
        return rows

    def to_pandas(self, comparisons: bool = False):
        """One row per metric (or per pair of metrics, with ``comparisons=True``); needs pandas."""
        from mtsig.frames import frame

        if comparisons:
            rows = [c.to_dict() for c in self.comparisons]
            return frame(rows, list(rows[0]) if rows else ["a", "b"])
        rows = self.metric_rows()
        return frame(rows, list(dict.fromkeys(k for r in rows for k in r)))

    def _repr_html_(self) -> str:
        from mtsig.report.notebook import meta_html

        return meta_html(self)

    def __repr__(self) -> str:
        best = ", ".join(f"{m.name} {m.values.get(self.statistic)}" for m in self.metrics[:3])
        return f"<MetaResult {self.level}, {self.statistic}: {best}>"


__all__ = ["MetaData", "MetaOptions", "MetaResult", "MetricScores", "STATISTICS", "MetaStatistic", "adjust",
           "groups", "segment_level", "system_level", "spa", "permutation_flips", "permutation_pvalues",
           "Resampling"]  # fmt: skip
