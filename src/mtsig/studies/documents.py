"""``mtsig study units``: do segment-level tests and intervals hold when a test set is made of documents?

Segments of one document share a topic, a style and an author; two systems' differences can cluster by document.
A bootstrap or a randomization over segments then treats the test set as larger than it is. This study measures
it on the user's own systems, with resampling by document (:mod:`mtsig.units`) beside it:

(a) **Tests under a document-level null.** From two real systems A and B, pseudo-systems A' and B': per document,
    all of its segments of A and B swapped with probability 1/2. A' and B' are equally good, and their
    differences cluster exactly as the real systems' do. Each test is run at the segment level and at the
    document level on every replicate; a calibrated test rejects in α of them (document-level randomization is
    exact under this null).
(b) **Coverage of bootstrap intervals when test sets are drawn by documents.** The test set is taken as the
    population of documents; each replicate draws a test set of K documents from it (with replacement) and
    computes every system's segment-level and document-level percentile interval of the metric, which should
    cover the full set's score in the nominal share of replicates.

Replicate ``r`` of either part draws from its own stream of the seed, so every figure is reproducible from the
reported seed, on any number of processes or Dask workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mtsig.errors import InputError
from mtsig.resample import STREAM_KEYS, Resampling, stream_rng
from mtsig.stats.intervals import interval
from mtsig.stats.kinds import KINDS, MIN_SEGMENTS_BOOTSTRAP, PairStats, check_bootstrap
from mtsig.stats.paired import PAIRED_TESTS
from mtsig.studies.design import MAX_RESAMPLES, Design, design_dict, metric_option, option, pairs_option, seed_option
from mtsig.studies.inputs import pair_of, pooled_stats
from mtsig.studies.nulls import binomial_interval
from mtsig.studies.replicates import Runner
from mtsig.studies.result import StudyResult, StudyTable
from mtsig.units import UnitMetric, group_index, unit_labels

if TYPE_CHECKING:
    from mtsig.metrics.base import Metric
    from mtsig.units import UnitMetric


def _test_names() -> tuple[str, ...]:
    return tuple(t for t, spec in PAIRED_TESTS.items() if KINDS[spec.kind].single_output)


@dataclass(frozen=True, kw_only=True)
class UnitsDesign(Design):
    """``study units``: segment-level against document-level tests and intervals."""

    metric: str | None = metric_option()
    pairs: tuple[tuple[str, str], ...] | None = pairs_option(
        "the two real systems the null is built from (default: the first two)", most=1
    )
    unit: str = option("document", "the cluster: document or domain", "str", choices=("document", "domain"))
    tests: tuple[str, ...] = option(("ar", "paired-bootstrap"), "the tests run at both levels", "strs",
                                    choices=_test_names)  # fmt: skip
    alphas: tuple[float, ...] = option((0.05, 0.01), "significance levels", "floats", low=0, high=1, open=True)
    replicates: int = option(1000, "null pairs, and test sets drawn for the coverage", "int", low=1, high=10**6)
    n_resamples: int = option(1000, "resamples per test", "int", low=1, high=MAX_RESAMPLES)
    n_bootstrap: int = option(1000, "bootstrap resamples per interval", "int", low=1, high=MAX_RESAMPLES)
    confidence: float = option(0.95, "interval level", "float", low=0, high=1, open=True)
    documents: int | None = option(None, "units per drawn test set (default: as many as the test set has)", "int",
                                   low=1)  # fmt: skip
    seed: int = seed_option()

    def __post_init__(self):
        super().__post_init__()
        check_bootstrap(MIN_SEGMENTS_BOOTSTRAP, self.n_bootstrap, self.confidence, "an interval")


def _unit_stats(m, X: np.ndarray, idx: np.ndarray, U: int) -> np.ndarray:
    """Statistics ``(U, d + 2)`` of the units: summed statistics, summed sentence scores, segment count."""
    from mtsig.units import _sum_by

    rows = np.column_stack([X, np.asarray(m.sentence_scores(X), dtype=np.float64), np.ones(X.shape[0])])
    return _sum_by(idx, U, rows)


def _counts(tests, g: UnitsDesign) -> dict[str, int]:
    return {t: g.n_resamples for t in tests if PAIRED_TESTS[t].resamples}


def _p_values(tests, pair: PairStats, res: Resampling, counts: dict) -> dict[str, float]:
    from mtsig.stats.paired import pair_evidence

    ev = pair_evidence(list(tests), pair, res, counts)
    return {t: float(PAIRED_TESTS[t].outcome(ev[t][0]).p_value) for t in tests}


@dataclass(frozen=True)
class DocNullJob:
    """Null pair r: every document's segments of A and B swapped together with probability 1/2; each test at
    the segment level and at the level of units."""

    metric: Metric
    unit_metric: UnitMetric
    A: np.ndarray
    B: np.ndarray
    UA: np.ndarray
    UB: np.ndarray
    idx: np.ndarray
    tests: tuple[str, ...]
    counts: dict
    seed: int

    def replicate(self, r: int) -> dict:
        key = STREAM_KEYS["units null"]
        swap_u = stream_rng(self.seed, key, r).random(len(self.UA)) < 0.5
        swap = swap_u[self.idx]
        a, b = np.where(swap[:, None], self.B, self.A), np.where(swap[:, None], self.A, self.B)
        ua, ub = np.where(swap_u[:, None], self.UB, self.UA), np.where(swap_u[:, None], self.UA, self.UB)
        seg = _p_values(self.tests, PairStats(self.metric, a, b), Resampling(None, self.seed, stream=(key, r, 0)),
                        self.counts)  # fmt: skip
        unit = _p_values(self.tests, PairStats(self.unit_metric, ua, ub),
                         Resampling(None, self.seed, stream=(key, r, 1)), self.counts)  # fmt: skip
        return {"segment": seg, "unit": unit}


@dataclass(frozen=True)
class DrawJob:
    """Test set c: K units drawn with replacement; each system's segment-level and unit-level percentile
    intervals, whether they cover the full set's score, and their widths."""

    metric: Metric
    unit_metric: UnitMetric
    stats: dict
    units: dict
    rows_of: tuple
    full: dict
    k: int
    n_bootstrap: int
    confidence: float
    seed: int

    def replicate(self, c: int) -> dict:
        from mtsig.stats.engines import bootstrap_many

        key = STREAM_KEYS["units coverage"]
        drawn = stream_rng(self.seed, key, c).integers(0, len(self.rows_of), self.k)
        rows = np.concatenate([self.rows_of[u] for u in drawn])
        seg = bootstrap_many({s: (self.metric, X[rows]) for s, X in self.stats.items()},
                             Resampling(self.n_bootstrap, self.seed, stream=(key, c, 0)))  # fmt: skip
        unit = bootstrap_many({s: (self.unit_metric, U[drawn]) for s, U in self.units.items()},
                              Resampling(self.n_bootstrap, self.seed, stream=(key, c, 1)))  # fmt: skip
        out = {}
        for level, boot in (("segment", seg), ("unit", unit)):
            for s, v in boot.items():
                iv = interval(v, "percentile", self.confidence)
                out[f"{level}|{s}"] = (bool(iv.low <= self.full[s] <= iv.high), float(iv.high - iv.low))
        return out


def _rate_row(label: list, k: int, n: int, nominal: float) -> list:
    lo, hi = binomial_interval(k, n)
    return [*label, k, n, 100 * k / n, 100 * lo, 100 * hi, 100 * nominal]


def _null_rates(g: UnitsDesign, name: str, a: str, b: str, reps: list) -> tuple[StudyTable, list]:
    """(a) The rejection rates of each test at each level, segment-level and unit-level, under the unit-level
    null pairs ``reps``: the table and the JSON rows."""
    rows, rates = [], []
    for level, label in (("segment", "segment"), ("unit", g.unit)):
        for t in g.tests:
            p = np.array([x[level][t] for x in reps])
            for al in g.alphas:
                rows.append(_rate_row([label, t, al], int(np.sum(p <= al)), len(p), al))
                rates.append([label, t, al, rows[-1][5], rows[-1][6], rows[-1][7]])
    head = ["resampling unit", "test", "α", "rejected", "null pairs", "rejection %", "95% CI low", "95% CI high",
            "nominal %"]  # fmt: skip
    t1 = StudyTable(f"{name}: rejections under {g.replicates} {g.unit}-level nulls from {a} and {b} (all segments "
                    f"of a {g.unit} swapped with probability 1/2)", head, rows,
                    [None, None, None, None, None, 1, 1, 1, 1])  # fmt: skip
    return t1, rates


def _coverage_tables(g: UnitsDesign, name: str, k: int, systems: list[str], cov: list):
    """(b) How often the intervals of the drawn test sets ``cov`` cover the full set's score, segment-level and
    unit-level, overall and per system: the two tables and the JSON rows."""
    rows2, cover = [], []
    for level, label in (("segment", "segment"), ("unit", g.unit)):
        hits = [x[f"{level}|{s}"][0] for x in cov for s in systems]
        width = float(np.mean([x[f"{level}|{s}"][1] for x in cov for s in systems]))
        r = _rate_row([label], int(sum(hits)), len(hits), g.confidence)
        rows2.append([*r, width])
        cover.append([label, r[3], r[4], r[5], width])
    head2 = ["resampling unit", "cover the full-set score", "intervals", "coverage %", "95% CI low", "95% CI high",
             "nominal %", "mean width"]  # fmt: skip
    title2 = f"{name}: coverage of {100 * g.confidence:g}% percentile intervals on {g.replicates} test sets of {k} "
    t2 = StudyTable(title2 + f"{g.unit}s drawn from the test set", head2, rows2, [None, None, None, 1, 1, 1, 1, 2])
    per = [[s, *(100 * float(np.mean([x[f"{lv}|{s}"][0] for x in cov])) for lv in ("segment", "unit"))]
           for s in systems]  # fmt: skip
    t3 = StudyTable(f"{name}: coverage % per system", ["system", "segment", g.unit], per, [None, 1, 1])
    return t2, t3, cover


def units_study(table, design: UnitsDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Segment-level against unit-level tests (under a document-level null) and intervals (on test sets drawn
    by documents): see the module's description."""
    g, run = design or UnitsDesign(), run or Runner()
    if table.has_runs:
        raise InputError("study units takes one output per system (pool or pick optimizer runs first)")
    name, m, stats = pooled_stats(table, g.metric)
    idx, names = group_index(unit_labels(table, g.unit))
    U = len(names)
    if U < MIN_SEGMENTS_BOOTSTRAP:
        raise InputError(f"study units needs at least {MIN_SEGMENTS_BOOTSTRAP} {g.unit}s; the test set has {U}")
    for t in g.tests:
        if PAIRED_TESTS[t].kind == "bootstrap":
            check_bootstrap(U, g.n_resamples, 0.95, f"the {t} test", "n_resamples", unit=g.unit)
    a, b = pair_of(table, g.pairs[0] if g.pairs else None, "two real systems to build the null from")
    um = UnitMetric(m, g.unit)
    units = {s: _unit_stats(m, X, idx, U) for s, X in stats.items()}
    counts = _counts(g.tests, g)
    job = DocNullJob(m, um, stats[a], stats[b], units[a], units[b], idx, tuple(g.tests), counts, g.seed)
    t1, rates = _null_rates(g, name, a, b, run.replicates(f"units: {g.unit}-level null pairs", job, g.replicates))
    # (b) coverage on test sets drawn by units
    order = np.argsort(idx, kind="stable")
    bounds = np.searchsorted(idx[order], np.arange(U + 1))
    rows_of = tuple(order[bounds[u] : bounds[u + 1]] for u in range(U))
    k = g.documents or U
    full = {s: float(m.score(X.sum(axis=0))) for s, X in stats.items()}
    draw = DrawJob(m, um, stats, units, rows_of, full, k, g.n_bootstrap, g.confidence, g.seed)
    cov = run.replicates(f"units: test sets of {k} {g.unit}s", draw, g.replicates)
    t2, t3, cover = _coverage_tables(g, name, k, list(stats), cov)
    settings = {"metric": name, "null from": f"{a}, {b}", "unit": g.unit, "units": U, "segments": table.n_segments,
                "replicates": g.replicates, "shuffles": g.n_resamples, "bootstrap": g.n_bootstrap,
                "units per drawn test set": k, "seed": g.seed}  # fmt: skip
    notes = (
        f"(a) {g.unit}-level randomization is exact under this null; a segment-level test that rejects more often "
        f"than α treats the segments of a {g.unit} as independent when the systems' differences cluster by "
        f"{g.unit}.",
        f"(b) each test set is drawn with replacement from the {U} {g.unit}s; the full set's score is the "
        "population's. Intervals that cover it less often than the nominal level are too narrow.",
    )
    data = {"rates": rates, "coverage": cover, "unit": g.unit}
    return StudyResult("units", settings, (t1, t2, t3), data, notes, design_dict(g))
