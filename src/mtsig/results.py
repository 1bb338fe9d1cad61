"""Typed, frozen results of ``score`` and ``compare``; each has ``to_dict()`` (the JSON the CLI prints).

The core never prints: the engine (:mod:`mtsig.engine`) builds these objects and the renderers
(:mod:`mtsig.report`) turn them into text. Bootstrap and null distributions are kept on the objects only
when asked for (``keep_distributions``), for plots and studies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mtsig.errors import InputError, unknown_name
from mtsig.serialize import as_dict, jfield, out
from mtsig.stats.intervals import BootstrapSummary, Interval


@dataclass(frozen=True, kw_only=True)
class TestResult:
    """The outcome of one paired test of systems ``a`` and ``b`` under one metric (built by keyword).

    ``null_distribution`` (the statistic under the null: shuffled differences, centred bootstrap
    differences) and ``bootstrap_distribution`` (bootstrap differences) are kept only when asked for.
    ``pvalue`` and ``statistic`` follow scipy.stats' names.
    """

    __test__ = False  # not a pytest test class

    metric: str
    a: str
    b: str
    score_a: float
    score_b: float
    delta: float
    delta_ci: Interval | None = None
    test: str
    #: None for a test that gives no p-value (``aso``: its ε_min is ``statistic``)
    p_value: float | None
    alternative: str = "two-sided"
    n_resamples: int | None = None
    seed: int | None = None
    statistic: float | None = jfield(None, omit="none")
    #: a test's own fields (e.g. ``eps_min``), written beside the others (one named like them is kept apart under
    #: ``extra``)
    extra: dict[str, Any] = jfield(default_factory=dict, flatten=True)
    null_distribution: np.ndarray | None = jfield(None, repr=False, compare=False, skip=True)
    bootstrap_distribution: np.ndarray | None = jfield(None, repr=False, compare=False, skip=True)

    @property
    def pvalue(self) -> float | None:
        """scipy.stats' name for :attr:`p_value`."""
        return self.p_value

    to_dict = as_dict


@dataclass(frozen=True)
class RunStats:
    """A system with several optimizer runs: mean over runs, s_sel, s_test, s_dev, the runs' scores."""

    mean: float
    s_sel: float
    s_test: float | None
    s_dev: float | None
    runs: tuple[float, ...]
    median_run: int
    dev_runs: tuple[float, ...] | None = jfield(None, omit="none")

    to_dict = as_dict


def _interval_keys(ci: Interval, _score: Any) -> dict[str, Any]:
    return {"ci": ci.to_list(), "ci_method": ci.method, "confidence": ci.confidence}


@dataclass(frozen=True)
class SystemScore:
    """One system's corpus score under one metric, with what was computed around it."""

    score: float
    signature: str
    #: written as the runs' own keys (mean, s_sel, ...)
    runs: RunStats | None = jfield(None, omit="none", flatten=True)
    #: written as ``ci``, ``ci_method`` and ``confidence``
    ci: Interval | None = jfield(None, omit="none", flatten=True, convert=_interval_keys)
    #: written with an interval only
    bootstrap: BootstrapSummary | None = jfield(None, omit=lambda v, o: v is None or o.ci is None)
    details: dict[str, Any] | None = jfield(None, omit="empty")
    #: the bootstrap scores behind ``ci`` / ``s_sel`` (kept on request; per run for systems with runs)
    samples: np.ndarray | None = jfield(None, repr=False, compare=False, skip=True)

    to_dict = as_dict


@dataclass(frozen=True)
class SystemResult:
    name: str
    files: tuple[str, ...]
    scores: dict[str, SystemScore]

    to_dict = as_dict


def options_changed(options: Any, settings: Any) -> dict[str, Any]:
    """The settings given and not at their defaults, except those ``settings`` records under its own keys."""
    from mtsig.declare import changed

    return changed(options, settings.RECORDED)


@dataclass(frozen=True, kw_only=True)
class ScoreSettings:
    """What produced the scores: the metrics' signatures and the test set's size always; the bootstrap's count
    and seed when something was resampled (intervals, s_sel), the interval's method and level with ``--ci``."""

    n_bootstrap: int | None = jfield(None, omit="empty")
    seed: int | None = jfield(None, omit="empty")
    ci_method: str | None = jfield(None, omit="empty")
    confidence: float | None = jfield(None, omit="empty")
    signatures: dict[str, str] = jfield(default_factory=dict, omit="empty")
    n_segments: int | None = jfield(None, omit="empty")
    #: what the bootstrap drew when it drew documents or domains (segments: left out), and how many there are
    resample_unit: str | None = jfield(None, omit="empty")
    n_units: int | None = jfield(None, omit="empty")
    #: the validated settings (:class:`~mtsig.engine.ScoreOptions`): those not recorded above are recorded under
    #: their own names when they are not at their defaults
    options: Any = jfield(None, repr=False, compare=False, omit="none", flatten=True, convert=options_changed)

    #: the settings recorded above (``ci`` by ``ci_method``)
    RECORDED: ClassVar[tuple[str, ...]] = ("ci", "ci_method", "confidence", "n_bootstrap", "seed", "resample_unit")

    to_dict = as_dict


@dataclass(frozen=True)
class ScoreResult:
    """Scores of every system under every metric: ``systems[i].scores[metric]``."""

    systems: tuple[SystemResult, ...]
    settings: ScoreSettings = ScoreSettings()
    #: per metric, which scores are better: "higher", "lower" or "closest to <target>"
    directions: dict[str, str] = jfield(default_factory=dict, skip=True)
    decimals: dict[str, int] = jfield(default_factory=dict, skip=True)
    #: with ``sentence_level``: per metric, each system's (or run's, ``NAME[run i]``) score of every segment
    segments: dict[str, dict[str, list[float]]] | None = jfield(None, omit="none")

    @property
    def metrics(self) -> list[str]:
        return list(self.systems[0].scores) if self.systems else []

    to_dict = as_dict

    def to_pandas(self):
        """One row per system and metric: score, interval, runs' statistics, signature (needs pandas)."""
        from mtsig.frames import SCORE_COLUMNS, frame, score_rows

        return frame(score_rows(self), SCORE_COLUMNS)

    def score(self, system: str, metric: str) -> float:
        for s in self.systems:
            if s.name == system:
                return s.scores[metric].score
        raise KeyError(system)

    def __repr__(self) -> str:
        scores = "; ".join(
            f"{s.name}: " + ", ".join(f"{m} {sc.score:.{self.decimals.get(m, 2)}f}" for m, sc in s.scores.items())
            for s in self.systems[:6]
        )
        more = f"; ... ({len(self.systems)} systems)" if len(self.systems) > 6 else ""
        return f"<ScoreResult {scores}{more}>"

    def _repr_html_(self) -> str:
        from mtsig.report.notebook import score_html

        return score_html(self)


@dataclass(frozen=True)
class Comparison:
    """One row of a comparison: a test result with its adjusted p-value and the decision at alpha."""

    #: written as the test's own keys
    result: TestResult = field(metadata=out(flatten=True))
    #: None for a test without a p-value (``aso``)
    p_adjusted: float | None
    significant: bool
    #: what Δ means to humans where the metric has a published fit (Kocmi et al. 2024): ``{"fit", "accuracy",
    #: "scale"}``, the estimated share of human judgments agreeing with the metric's preference (see
    #: :mod:`mtsig.thresholds`); None otherwise
    human_agreement: dict | None = None

    @property
    def metric(self) -> str:
        return self.result.metric

    @property
    def test(self) -> str:
        return self.result.test

    @property
    def pair(self) -> tuple[str, str]:
        return self.result.a, self.result.b

    to_dict = as_dict


@dataclass(frozen=True, kw_only=True)
class CompareSettings:
    tests: tuple[str, ...]
    #: resamples per resampling test
    n_resamples: dict[str, int]
    #: whether the counts were chosen automatically (enough for the corrected threshold)
    n_resamples_auto: bool
    #: bootstrap resamples behind every interval of a difference (and s_sel)
    n_bootstrap: int = field(metadata=out(key="n_bootstrap_delta_ci"))
    seed: int
    alternative: str
    correction: str
    alpha: float
    confidence: float
    baseline: str | None
    n_comparisons: int
    experimentwise_error_unadjusted: float
    cluster_test: str | None
    signatures: dict[str, str]
    n_segments: int
    #: what every resampling procedure drew or swapped ("segment", "document", "domain") and how many there are
    resample_unit: str = "segment"
    #: written as ``n_segments`` when not given (every segment its own unit)
    n_units: int | None = jfield(None, convert=lambda v, o: v if v is not None else o.n_segments)
    #: the validated settings (:class:`~mtsig.engine.CompareOptions`): those not recorded above are recorded
    #: under their own names when they are not at their defaults (``paired_runs``, ``system_ci``, ...)
    options: Any = jfield(None, repr=False, compare=False, omit="none", flatten=True, convert=options_changed)

    #: the settings the keys of :meth:`to_dict` record under names of their own
    RECORDED: ClassVar[tuple[str, ...]] = ("tests", "n_resamples", "n_bootstrap", "seed", "alternative", "correction",
                                           "alpha", "confidence", "baseline", "resample_unit")  # fmt: skip

    @property
    def paired_runs(self) -> bool:
        return bool(getattr(self.options, "paired_runs", False))

    to_dict = as_dict


@dataclass(frozen=True)
class CompareResult:
    settings: CompareSettings
    systems: tuple[SystemResult, ...]
    comparisons: tuple[Comparison, ...]
    clusters: dict[str, list[list[str]] | None]
    #: per metric, which scores are better: "higher", "lower" or "closest to <target>"
    directions: dict[str, str] = jfield(default_factory=dict, skip=True)
    decimals: dict[str, int] = jfield(default_factory=dict, skip=True)
    #: what the user should know (e.g. too few resamples for any pair to be significant)
    warnings: tuple[str, ...] = ()

    @property
    def metrics(self) -> list[str]:
        return list(dict.fromkeys(c.metric for c in self.comparisons))

    def __repr__(self) -> str:
        sig = sum(c.significant for c in self.comparisons)
        st = self.settings
        return (
            f"<CompareResult {len(self.systems)} systems, metrics {', '.join(self.metrics)}, tests "
            f"{', '.join(st.tests)}: {len(self.comparisons)} comparisons, {sig} significant at {st.alpha} "
            f"({st.correction}); .get(a, b), .to_dict()>"
        )

    def _repr_html_(self) -> str:
        from mtsig.report.notebook import compare_html

        return compare_html(self)

    def get(self, a: str, b: str, *, metric: str | None = None, test: str | None = None) -> Comparison:
        """The comparison of systems ``a`` and ``b`` (delta = b - a) under ``metric`` and ``test`` (each may be
        left out when the result has only one; the test defaults to the first one run)."""
        metrics = self.metrics
        if metric is None:
            if len(metrics) != 1:
                raise InputError(f"give metric= (one of {', '.join(metrics)})")
            metric = metrics[0]
        if metric not in metrics:
            raise unknown_name("metric", metric, metrics)
        test = self.settings.tests[0] if test is None else test
        if test not in self.settings.tests:
            raise unknown_name("test", test, self.settings.tests)
        for c in self.comparisons:
            if c.metric == metric and c.test == test and c.pair in ((a, b), (b, a)):
                if c.pair == (a, b):
                    return c
                raise InputError(f"{a} and {b} were compared as {b} -> {a}: use get({b!r}, {a!r}, ...)")
        names = [s.name for s in self.systems]
        for x in (a, b):
            if x not in names:
                raise unknown_name("system", x, names)
        raise InputError(f"{a} and {b} were not compared (baseline {self.settings.baseline!r})")

    def to_pandas(self):
        """One row per comparison (metric, test, pair): scores, Δ and its interval, p-values (needs pandas)."""
        from mtsig.frames import COMPARE_COLUMNS, compare_rows, frame

        return frame(compare_rows(self), COMPARE_COLUMNS)

    to_dict = as_dict
