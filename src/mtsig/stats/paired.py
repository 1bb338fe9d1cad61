"""Paired significance tests between systems scored on the same segments: the registry and its p-values.

The difference is always ``delta = score(b) - score(a)`` (``a`` is the baseline in baseline mode).
``alternative`` is ``two-sided`` (default), ``greater`` (H1: B is better than A, in the metric's direction: delta > 0
for BLEU, delta < 0 for TER) or ``less`` (H1: B is worse); a metric best at a target value has no one-sided test.
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
- ``aso``: Almost Stochastic Order over optimizer runs (seeds), as deepsig computes it: ε_min, not a p-value
  (``p_value`` None); "better" when ε_min < τ = 0.2, Bonferroni inside the bound (each at 1 - α/k).

A new test is one :class:`PairedTest` entry (:func:`register_test`), of a kind of :mod:`mtsig.stats.kinds`
(a new kind is one :class:`~mtsig.stats.kinds.TestKind` subclass); the engine, the command line, the reports and
``study type1`` read the registries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from mtsig.errors import InputError
from mtsig.registry import Registry
from mtsig.resample import Resampling
from mtsig.results import TestResult
from mtsig.stats.kinds import KINDS, BootstrapEvidence, CountEvidence, PairStats, SentenceEvidence, get_kind
from mtsig.stats.pvalues import (  # noqa: F401 - the p-value arithmetic, importable from here as before
    ALTERNATIVES,
    alternative_for,
    check_alternative,
    count_extreme,
    p_from_count,
    paired_bootstrap_p,
    sentence_test,
    shift_p,
)


class Outcome(NamedTuple):
    p_value: float
    statistic: float | None = None
    extra: dict[str, Any] = {}  # never mutated


def _ar_outcome(ev: CountEvidence) -> Outcome:
    return Outcome(ev.p_value if ev.p_value is not None else p_from_count(ev.extreme, ev.n_resamples))


def _shift_outcome(ev: BootstrapEvidence) -> Outcome:
    return Outcome(shift_p(ev.boot_delta, ev.observed, ev.alternative))


def _paired_bootstrap_outcome(ev: BootstrapEvidence) -> Outcome:
    p, shares = paired_bootstrap_p(ev.boot_delta, ev.alternative)
    return Outcome(p, extra=shares)


def _ttest_outcome(ev: SentenceEvidence) -> Outcome:
    t, p = sentence_test("ttest", ev.sent_a, ev.sent_b, ev.alternative)
    return Outcome(p, t)


def _aso_outcome(ev) -> Outcome:
    """ASO's ε_min in the direction the data favour (B better when Δ favours B in the metric's direction); no
    p-value (None): the decision is ε_min < τ and the permutation gate's adjusted p-value at most alpha."""
    b_favoured = ev.eps_b_better <= ev.eps_a_better
    eps = ev.eps_b_better if b_favoured else ev.eps_a_better
    extra = {"eps_min": eps, "favoured": "b" if b_favoured else "a", "eps_min_b_better": ev.eps_b_better,
             "eps_min_a_better": ev.eps_a_better, "violation_ratio_b_better": ev.violation_ratio, "tau": ev.tau,
             "aso_confidence": ev.confidence, "gate_p": ev.gate_p, "gate_p_adjusted": ev.gate_p_adjusted,
             "gate_splits": ev.gate_splits, "gate_exact": ev.gate_exact,
             "gate_correction": ev.gate_correction}  # fmt: skip
    return Outcome(None, eps, extra)  # type: ignore[arg-type]


def _wilcoxon_outcome(ev: SentenceEvidence) -> Outcome:
    w, p = sentence_test("wilcoxon", ev.sent_a, ev.sent_b, ev.alternative)
    return Outcome(p, w)


class PairedTest(NamedTuple):
    """One paired test: its name, the name of its kind (:data:`mtsig.stats.kinds.KINDS`: ``randomization``,
    ``stratified``, ``bootstrap``, ``sentence`` or a registered one), a label, the default number of resamples
    (None for a kind that does not resample) and the p-value from the kind's evidence."""

    name: str
    kind: str
    label: str
    default_resamples: int | None
    outcome: Callable[[Any], Outcome]
    #: a two-sided p-value's floor is this many times the kind's smallest p (the paired bootstrap doubles it)
    two_sided_floor: float = 1.0
    #: the test's null distribution is its centred bootstrap distribution (the shift method)
    null_from_bootstrap: bool = False

    @property
    def resamples(self) -> bool:
        return self.default_resamples is not None

    def smallest_p(self, n_resamples: int, alternative: str) -> float:
        """The smallest p-value ``n_resamples`` resamples can give."""
        floor = self.two_sided_floor if alternative == "two-sided" else 1.0
        return floor * get_kind(self.kind).smallest_p(n_resamples, alternative)


def _check_test(test: PairedTest) -> None:
    kind = get_kind(test.kind)
    if kind.resamples != test.resamples:
        need = "a default number of resamples" if kind.resamples else "no default number of resamples"
        raise InputError(f"test {test.name!r}: a test of kind {kind.name!r} has {need}")


#: the paired tests by name (plugins: the ``mtsig.tests`` entry-point group, shared with the kinds)
PAIRED_TESTS: Registry[PairedTest] = Registry("test", "mtsig.tests", check=_check_test)


def register_test(test: PairedTest) -> PairedTest:
    """Add a test to the registry (its kind must be registered; a test of a resampling kind has a default count)."""
    return PAIRED_TESTS.register(test)


for _t in (
    PairedTest("ar", "randomization", "approx. randomization", 10_000, _ar_outcome),
    PairedTest("stratified-ar", "stratified", "stratified randomization", 10_000, _ar_outcome),
    PairedTest("bootstrap", "bootstrap", "bootstrap (null-centred)", 1_000, _shift_outcome, null_from_bootstrap=True),
    PairedTest("paired-bootstrap", "bootstrap", "paired bootstrap", 1_000, _paired_bootstrap_outcome, 2.0),
    PairedTest("ttest", "sentence", "paired t-test", None, _ttest_outcome),
    PairedTest("wilcoxon", "sentence", "Wilcoxon", None, _wilcoxon_outcome),
    PairedTest("aso", "aso", "ASO (ε_min)", 1_000, _aso_outcome),
):
    register_test(_t)

#: the bootstrap resamples behind s_sel and the interval of each difference, when no test sets them
DEFAULT_BOOTSTRAP: int = PAIRED_TESTS["bootstrap"].default_resamples or 0
assert DEFAULT_BOOTSTRAP > 0, "the bootstrap test declares its default count"


def test_names() -> tuple[str, ...]:
    """The names of the registered tests, now (plugins included)."""
    return tuple(PAIRED_TESTS)


test_names.__test__ = False  # type: ignore[attr-defined]  # not a pytest test (a function attribute pytest reads)


def __getattr__(name: str):
    if name == "TESTS":  # the registered names when asked for, not when this module was imported
        return test_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_test(name: str) -> PairedTest:
    return PAIRED_TESTS.get(name)


# ---------------------------------------------------------------------------------------------------
# one pair, from statistics arrays


def pair_evidence(
    tests: Sequence[str],
    pair: PairStats,
    resampling: Resampling,
    counts: Mapping[str, int],
    alternative: str = "two-sided",
    confidence: float = 0.95,
) -> dict[str, tuple[Any, Any]]:
    """Each test's ``(evidence, interval of the difference or None)`` for one pair of statistics arrays: the
    evidence of a kind is gathered once per count (the bootstrap tests share one bootstrap, the sentence tests
    one set of sentence scores). ``counts``: resamples per resampling test."""
    cache: dict[tuple[str, int | None], tuple[Any, Any]] = {}
    out = {}
    for t in tests:
        spec = get_test(t)
        R = counts[t] if spec.resamples else None
        if (spec.kind, R) not in cache:
            how = resampling.with_count(R)
            cache[(spec.kind, R)] = KINDS[spec.kind].one_pair(pair, how, alternative, confidence)
        out[t] = cache[(spec.kind, R)]
    return out


def paired_test(test: str, stats_a, stats_b, metric, *, resampling: Resampling | None = None, **settings) -> TestResult:
    """Run one registered test on one pair of statistics arrays ``(N, d)``.

    ``settings``: ``alternative`` (two-sided, greater, less), ``confidence`` (0.95: the level of the
    percentile interval of the difference that bootstrap tests add), ``names`` (("a", "b")).
    """
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
    R = resampling.count(spec.default_resamples) if spec.default_resamples is not None else None
    counts = {test: R} if R is not None else {}
    confidence = settings.get("confidence", 0.95)
    raw = alternative_for(metric, alternative)
    ev, ci = pair_evidence([test], PairStats(metric, sa, sb), resampling, counts, raw, confidence)[test]
    out = spec.outcome(ev)
    return TestResult(
        test=test,
        metric=metric.name,
        a=a,
        b=b,
        score_a=score_a,
        score_b=score_b,
        delta=score_b - score_a,
        p_value=out.p_value,
        alternative=alternative,
        n_resamples=R,
        seed=resampling.seed if spec.resamples else None,
        delta_ci=ci,
        statistic=out.statistic,
        extra=out.extra,
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
