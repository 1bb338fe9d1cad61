"""Paired significance tests between systems scored on the same segments: the registry and its p-values.

The difference is always ``delta = score(b) - score(a)`` (``a`` is the baseline in baseline mode).
``alternative`` is ``two-sided`` (default), ``greater`` (H1: delta > 0) or ``less`` (H1: delta < 0).
p-values of the resampling tests are ``(c + 1) / (R + 1)`` where ``c`` counts resamples at least as extreme
as the observed value (ties count, so identical systems get p = 1).

Tests (:data:`PAIRED_TESTS`, one entry each: kind, default number of resamples, label, p-value function):
- ``ar``: approximate randomization (Riezler & Maxwell 2005, Fig. 1): each segment's statistics are
  swapped between the two systems with probability 1/2. For systems with several optimizer runs: the
  randomization of the run-pooled statistics with the run-level variance added
  (:func:`mtsig.stats.engines.runs_ar_many`), calibrated under segment- and run-level nulls.
- ``stratified-ar``: Clark et al.'s (2011) stratified randomization over optimizer runs (a true
  re-partition of each segment's outputs); it holds its level only when the two systems' runs are
  exchangeable segment by segment (see the README's calibration table).
- ``bootstrap``: bootstrap test with the shift method (Riezler & Maxwell, Fig. 2; Noreen 1989): the
  bootstrap differences, centred on their mean, stand in for the null distribution. Fig. 2 as printed
  shifts the *absolute* difference, which amounts to a one-sided test at alpha applied on both sides and
  so rejects about twice as often as it should under the null; mtsig centres the signed difference,
  Noreen's method, which keeps the nominal level (``mtsig.studies.nulls`` measures both).
- ``paired-bootstrap``: Koehn (2004): the share of resamples each system wins; the p-value is the share
  in which the observed winner does not win (doubled for two-sided).
- ``ttest``: paired t-test on sentence-level scores (Zhang); ``wilcoxon``: Wilcoxon signed-rank test
  on the same scores (zero differences dropped).

A new test is one :class:`PairedTest` entry; the engine, the command line and the reports read the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from mtsig.errors import InputError, unknown_name
from mtsig.resample import Resampling
from mtsig.stats.intervals import Interval, interval

ALTERNATIVES = ("two-sided", "greater", "less")


# ---------------------------------------------------------------------------------------------------
# counting and p-values


def check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise unknown_name("alternative", alternative, ALTERNATIVES)


def _tol(x: float) -> float:
    return 1e-12 * max(1.0, abs(x))


def count_extreme(null: np.ndarray, observed: float, alternative: str) -> int:
    """How many null values are at least as extreme as ``observed`` (ties count)."""
    t = _tol(observed)
    if alternative == "two-sided":
        return int(np.count_nonzero(np.abs(null) >= abs(observed) - t))
    if alternative == "greater":
        return int(np.count_nonzero(null >= observed - t))
    return int(np.count_nonzero(null <= observed + t))


def p_from_count(c: int, n: int) -> float:
    return (c + 1) / (n + 1)


def shift_p(boot_delta: np.ndarray, observed: float, alternative: str) -> float:
    """Bootstrap test, shift method: centred bootstrap differences as the null distribution."""
    null = boot_delta - boot_delta.mean()
    return p_from_count(count_extreme(null, observed, alternative), boot_delta.size)


def paired_bootstrap_p(boot_delta: np.ndarray, alternative: str) -> tuple[float, dict[str, float]]:
    """Koehn's paired bootstrap: p-value and the share of resamples won by each system."""
    R = boot_delta.size
    le = int(np.count_nonzero(boot_delta <= 0))
    ge = int(np.count_nonzero(boot_delta >= 0))
    if alternative == "greater":
        p = p_from_count(le, R)
    elif alternative == "less":
        p = p_from_count(ge, R)
    else:
        p = min(1.0, 2 * p_from_count(min(le, ge), R))
    shares = {
        "wins_a": float(np.count_nonzero(boot_delta < 0) / R),
        "wins_b": float(np.count_nonzero(boot_delta > 0) / R),
        "ties": float(np.count_nonzero(boot_delta == 0) / R),
    }
    return p, shares


def sentence_test(kind: str, seg_a: np.ndarray, seg_b: np.ndarray, alternative: str) -> tuple[float, float]:
    """Paired t-test or Wilcoxon signed-rank test on sentence-level scores: (statistic, p)."""
    from scipy import stats as sps

    d = np.asarray(seg_b, dtype=np.float64) - np.asarray(seg_a, dtype=np.float64)
    if not np.all(np.isfinite(d)):
        raise InputError("sentence-level scores are not all finite; the paired tests need finite scores")
    if np.all(d == 0):
        return 0.0, 1.0
    if kind == "ttest":
        if np.all(d == d[0]):  # constant non-zero difference: the t statistic is infinite
            stat = float(np.inf if d[0] > 0 else -np.inf)
            p = 0.0 if alternative == "two-sided" or (alternative == "greater") == (d[0] > 0) else 1.0
            return stat, p
        r = sps.ttest_1samp(d, 0.0, alternative=alternative)
        return float(r.statistic), float(r.pvalue)
    r = sps.wilcoxon(d, zero_method="wilcox", alternative=alternative)
    return float(r.statistic), float(r.pvalue)


# ---------------------------------------------------------------------------------------------------
# the registry


class Evidence(NamedTuple):
    """What a test's p-value is computed from, for one pair under one metric (the engine fills what the
    test's kind needs): the observed difference, a count of extreme resamples, bootstrap differences or
    sentence-level scores."""

    observed: float
    alternative: str = "two-sided"
    count: int | None = None
    n_resamples: int | None = None
    boot_delta: np.ndarray | None = None
    sent_a: np.ndarray | None = None
    sent_b: np.ndarray | None = None
    #: a p-value the engine computed itself (the runs test), used as it is
    p_value: float | None = None


class Outcome(NamedTuple):
    p_value: float
    statistic: float | None = None
    extra: dict[str, Any] = {}  # never mutated


def _ar_outcome(ev: Evidence) -> Outcome:
    return Outcome(ev.p_value if ev.p_value is not None else p_from_count(ev.count, ev.n_resamples))


def _shift_outcome(ev: Evidence) -> Outcome:
    return Outcome(shift_p(ev.boot_delta, ev.observed, ev.alternative))


def _paired_bootstrap_outcome(ev: Evidence) -> Outcome:
    p, shares = paired_bootstrap_p(ev.boot_delta, ev.alternative)
    return Outcome(p, extra=shares)


def _ttest_outcome(ev: Evidence) -> Outcome:
    t, p = sentence_test("ttest", ev.sent_a, ev.sent_b, ev.alternative)
    return Outcome(p, t)


def _wilcoxon_outcome(ev: Evidence) -> Outcome:
    w, p = sentence_test("wilcoxon", ev.sent_a, ev.sent_b, ev.alternative)
    return Outcome(p, w)


class PairedTest(NamedTuple):
    """One paired test. ``kind``: ``randomization`` (counts of shuffles), ``stratified`` (counts of
    re-partitions of optimizer runs), ``bootstrap`` (bootstrap differences) or ``sentence`` (sentence-level
    scores); resampling tests have a default count."""

    name: str
    kind: str
    label: str
    default_resamples: int | None
    outcome: Callable[[Evidence], Outcome]

    @property
    def resamples(self) -> bool:
        return self.default_resamples is not None


PAIRED_TESTS: dict[str, PairedTest] = {
    t.name: t
    for t in (
        PairedTest("ar", "randomization", "approx. randomization", 10_000, _ar_outcome),
        PairedTest("stratified-ar", "stratified", "stratified randomization", 10_000, _ar_outcome),
        PairedTest("bootstrap", "bootstrap", "bootstrap (shift)", 1_000, _shift_outcome),
        PairedTest("paired-bootstrap", "bootstrap", "paired bootstrap", 1_000, _paired_bootstrap_outcome),
        PairedTest("ttest", "sentence", "paired t-test", None, _ttest_outcome),
        PairedTest("wilcoxon", "sentence", "Wilcoxon", None, _wilcoxon_outcome),
    )
}
TESTS = tuple(PAIRED_TESTS)
#: the bootstrap resamples behind s_sel and the interval of each difference, when no test sets them
DEFAULT_BOOTSTRAP = PAIRED_TESTS["bootstrap"].default_resamples


def get_test(name: str) -> PairedTest:
    if name not in PAIRED_TESTS:
        raise unknown_name("test", name, TESTS)
    return PAIRED_TESTS[name]


# ---------------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class TestResult:
    """The outcome of one paired test of systems ``a`` and ``b`` under one metric.

    ``null_distribution`` (the statistic under the null: shuffled differences, centred bootstrap
    differences) and ``bootstrap_distribution`` (bootstrap differences) are kept only when asked for.
    """

    __test__ = False  # not a pytest test class

    test: str
    metric: str
    a: str
    b: str
    score_a: float
    score_b: float
    delta: float
    p_value: float
    alternative: str = "two-sided"
    n_resamples: int | None = None
    seed: int | None = None
    delta_ci: Interval | None = None
    statistic: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    null_distribution: np.ndarray | None = field(default=None, repr=False, compare=False)
    bootstrap_distribution: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "metric": self.metric,
            "a": self.a,
            "b": self.b,
            "score_a": self.score_a,
            "score_b": self.score_b,
            "delta": self.delta,
            "delta_ci": self.delta_ci.to_list() if self.delta_ci else None,
            "test": self.test,
            "p_value": self.p_value,
            "alternative": self.alternative,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
        }
        if self.statistic is not None:
            d["statistic"] = self.statistic
        d.update(self.extra)
        return d


# ---------------------------------------------------------------------------------------------------
# one pair, from statistics arrays


def paired_test(test: str, stats_a, stats_b, metric, *, resampling: Resampling | None = None, **settings) -> TestResult:
    """Run one registered test on one pair of statistics arrays ``(N, d)``.

    ``settings``: ``alternative`` (two-sided, greater, less), ``confidence`` (0.95: the level of the
    percentile interval of the difference that bootstrap tests add), ``names`` (("a", "b")).
    """
    from mtsig.stats.engines import ar_counts, bootstrap_many, stratified_ar_many

    unknown = set(settings) - {"alternative", "confidence", "names"}
    if unknown:
        raise InputError(
            f"paired_test has no setting(s) {', '.join(sorted(unknown))}: use alternative, confidence, names"
        )
    alternative = settings.get("alternative", "two-sided")
    a, b = settings.get("names", ("a", "b"))
    spec = get_test(test)
    check_alternative(alternative)
    resampling = resampling or Resampling()
    sa, sb = np.asarray(stats_a, dtype=np.float64), np.asarray(stats_b, dtype=np.float64)
    if sa.shape != sb.shape:
        raise InputError(f"the two statistics arrays differ in shape: {sa.shape} vs {sb.shape}")
    score_a, score_b = float(metric.score(sa.sum(axis=0))), float(metric.score(sb.sum(axis=0)))
    delta = score_b - score_a
    R = resampling.count(spec.default_resamples) if spec.resamples else None
    ci = None
    if spec.kind == "stratified":  # one run each: a re-partition of 2 outputs, i.e. a swap
        counts = stratified_ar_many({0: (metric, sa[None], sb[None])}, resampling.with_count(R), alternative)
        ev = Evidence(delta, alternative, counts[0], R)
    elif spec.kind == "randomization":
        counts = ar_counts({a: sa, b: sb}, metric, [(a, b)], resampling.with_count(R), alternative)
        ev = Evidence(delta, alternative, counts[(a, b)], R)
    elif spec.kind == "bootstrap":
        boot = bootstrap_many({a: (metric, sa), b: (metric, sb)}, resampling.with_count(R))
        ev = Evidence(delta, alternative, n_resamples=R, boot_delta=boot[b] - boot[a])
        ci = interval(ev.boot_delta, "percentile", settings.get("confidence", 0.95))
    else:
        ev = Evidence(delta, alternative, sent_a=metric.sentence_scores(sa), sent_b=metric.sentence_scores(sb))
    out = spec.outcome(ev)
    seed = resampling.seed if spec.resamples else None
    return TestResult(
        test,
        metric.name,
        a,
        b,
        score_a,
        score_b,
        delta,
        out.p_value,
        alternative,
        R,
        seed,
        ci,
        out.statistic,
        out.extra,
    )


def _resampling(n_resamples: int | None, kw: dict) -> dict:
    seed = kw.pop("seed", None)
    kw["resampling"] = Resampling.of(n_resamples, seed)
    return kw


def approximate_randomization(stats_a, stats_b, metric, n_resamples: int = 10_000, **kw) -> TestResult:
    """Approximate randomization of one pair (``seed``, ``alternative``, ``names`` as :func:`paired_test`)."""
    return paired_test("ar", stats_a, stats_b, metric, **_resampling(n_resamples, kw))


def bootstrap_test(stats_a, stats_b, metric, n_resamples: int = 1_000, **kw) -> TestResult:
    """Bootstrap test with the shift method, plus the percentile interval of the difference."""
    return paired_test("bootstrap", stats_a, stats_b, metric, **_resampling(n_resamples, kw))


def paired_bootstrap(stats_a, stats_b, metric, n_resamples: int = 1_000, **kw) -> TestResult:
    """Koehn's paired bootstrap resampling, plus the percentile interval of the difference."""
    return paired_test("paired-bootstrap", stats_a, stats_b, metric, **_resampling(n_resamples, kw))


def paired_ttest(stats_a, stats_b, metric, **kw) -> TestResult:
    """Paired t-test on sentence-level scores."""
    return paired_test("ttest", stats_a, stats_b, metric, **kw)


def wilcoxon_test(stats_a, stats_b, metric, **kw) -> TestResult:
    """Wilcoxon signed-rank test on sentence-level scores."""
    return paired_test("wilcoxon", stats_a, stats_b, metric, **kw)
