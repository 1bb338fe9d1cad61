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
from mtsig.stats.intervals import BootstrapSummary, Interval


@dataclass(frozen=True, kw_only=True)
class TestResult:
    """The outcome of one paired test of systems ``a`` and ``b`` under one metric (built by keyword).

    ``null_distribution`` (the statistic under the null: shuffled differences, centred bootstrap
    differences) and ``bootstrap_distribution`` (bootstrap differences) are kept only when asked for.
    ``pvalue`` and ``statistic`` follow scipy.stats' names.
    """

    __test__ = False  # not a pytest test class

    test: str
    metric: str
    a: str
    b: str
    score_a: float
    score_b: float
    delta: float
    #: None for a test that gives no p-value (``aso``: its ε_min is ``statistic``)
    p_value: float | None
    alternative: str = "two-sided"
    n_resamples: int | None = None
    seed: int | None = None
    delta_ci: Interval | None = None
    statistic: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    null_distribution: np.ndarray | None = field(default=None, repr=False, compare=False)
    bootstrap_distribution: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def pvalue(self) -> float | None:
        """scipy.stats' name for :attr:`p_value`."""
        return self.p_value

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
        clash = {k: v for k, v in self.extra.items() if k in d}
        d.update({k: v for k, v in self.extra.items() if k not in d})  # a test's own fields (e.g. eps_min)
        if clash:  # a plugin's extra named like a field (p_value) does not overwrite it: kept apart
            d["extra"] = clash
        return d


@dataclass(frozen=True)
class RunStats:
    """A system with several optimizer runs: mean over runs, s_sel, s_test, s_dev, the runs' scores."""

    mean: float
    s_sel: float
    s_test: float | None
    s_dev: float | None
    runs: tuple[float, ...]
    median_run: int
    dev_runs: tuple[float, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "mean": self.mean,
            "s_sel": self.s_sel,
            "s_test": self.s_test,
            "s_dev": self.s_dev,
            "runs": list(self.runs),
            "median_run": self.median_run,
        }
        if self.dev_runs is not None:
            d["dev_runs"] = list(self.dev_runs)
        return d


@dataclass(frozen=True)
class SystemScore:
    """One system's corpus score under one metric, with what was computed around it."""

    score: float
    signature: str
    runs: RunStats | None = None
    ci: Interval | None = None
    bootstrap: BootstrapSummary | None = None
    details: dict[str, Any] | None = None
    #: the bootstrap scores behind ``ci`` / ``s_sel`` (kept on request; per run for systems with runs)
    samples: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"score": self.score, "signature": self.signature}
        if self.runs is not None:
            d.update(self.runs.to_dict())
        if self.ci is not None:
            d.update({"ci": self.ci.to_list(), "ci_method": self.ci.method, "confidence": self.ci.confidence})
            if self.bootstrap is not None:
                d["bootstrap"] = self.bootstrap.to_dict()
        if self.details:
            d["details"] = self.details
        return d


@dataclass(frozen=True)
class SystemResult:
    name: str
    files: tuple[str, ...]
    scores: dict[str, SystemScore]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "files": list(self.files),
            "scores": {m: s.to_dict() for m, s in self.scores.items()},
        }


@dataclass(frozen=True, kw_only=True)
class ScoreSettings:
    """What produced the scores: the metrics' signatures and the test set's size always; the bootstrap's count
    and seed when something was resampled (intervals, s_sel), the interval's method and level with ``--ci``."""

    n_bootstrap: int | None = None
    seed: int | None = None
    ci_method: str | None = None
    confidence: float | None = None
    signatures: dict[str, str] = field(default_factory=dict)
    n_segments: int | None = None
    #: what the bootstrap drew when it drew documents or domains (segments: left out), and how many there are
    resample_unit: str | None = None
    n_units: int | None = None
    #: the validated settings (:class:`~mtsig.engine.ScoreOptions`): those not recorded above are recorded under
    #: their own names when they are not at their defaults
    options: Any = field(default=None, repr=False, compare=False)

    #: the settings recorded above (``ci`` by ``ci_method``)
    RECORDED: ClassVar[tuple[str, ...]] = ("ci", "ci_method", "confidence", "n_bootstrap", "seed", "resample_unit")

    def to_dict(self) -> dict[str, Any]:
        from mtsig.declare import changed

        out = {k: v for k, v in self.__dict__.items() if k != "options" and v is not None and v != {}}
        if self.options is not None:
            out.update(changed(self.options, self.RECORDED))
        return out


@dataclass(frozen=True)
class ScoreResult:
    """Scores of every system under every metric: ``systems[i].scores[metric]``."""

    systems: tuple[SystemResult, ...]
    settings: ScoreSettings = ScoreSettings()
    #: per metric, which scores are better: "higher", "lower" or "closest to <target>"
    directions: dict[str, str] = field(default_factory=dict)
    decimals: dict[str, int] = field(default_factory=dict)
    #: with ``sentence_level``: per metric, each system's (or run's, ``NAME[run i]``) score of every segment
    segments: dict[str, dict[str, list[float]]] | None = None

    @property
    def metrics(self) -> list[str]:
        return list(self.systems[0].scores) if self.systems else []

    def to_dict(self) -> dict[str, Any]:
        d = {"systems": [s.to_dict() for s in self.systems], "settings": self.settings.to_dict()}
        if self.segments is not None:
            d["segments"] = self.segments
        return d

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

    result: TestResult
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

    def to_dict(self) -> dict[str, Any]:
        d = self.result.to_dict()
        d["p_adjusted"] = self.p_adjusted
        d["significant"] = self.significant
        d["human_agreement"] = self.human_agreement
        return d


@dataclass(frozen=True, kw_only=True)
class CompareSettings:
    tests: tuple[str, ...]
    #: resamples per resampling test
    n_resamples: dict[str, int]
    #: whether the counts were chosen automatically (enough for the corrected threshold)
    n_resamples_auto: bool
    #: bootstrap resamples behind every interval of a difference (and s_sel)
    n_bootstrap: int
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
    n_units: int | None = None
    #: the validated settings (:class:`~mtsig.engine.CompareOptions`): those not recorded above are recorded
    #: under their own names when they are not at their defaults (``paired_runs``, ``system_ci``, ...)
    options: Any = field(default=None, repr=False, compare=False)

    #: the settings the keys of :meth:`to_dict` record under names of their own
    RECORDED: ClassVar[tuple[str, ...]] = ("tests", "n_resamples", "n_bootstrap", "seed", "alternative", "correction",
                                           "alpha", "confidence", "baseline", "resample_unit")  # fmt: skip

    @property
    def paired_runs(self) -> bool:
        return bool(getattr(self.options, "paired_runs", False))

    def to_dict(self) -> dict[str, Any]:
        from mtsig.declare import changed

        out = self._dict()
        if self.options is not None:
            out.update(changed(self.options, self.RECORDED))
        return out

    def _dict(self) -> dict[str, Any]:
        return {
            "tests": list(self.tests),
            "n_resamples": dict(self.n_resamples),
            "n_resamples_auto": self.n_resamples_auto,
            "n_bootstrap_delta_ci": self.n_bootstrap,
            "seed": self.seed,
            "alternative": self.alternative,
            "correction": self.correction,
            "alpha": self.alpha,
            "confidence": self.confidence,
            "baseline": self.baseline,
            "n_comparisons": self.n_comparisons,
            "experimentwise_error_unadjusted": self.experimentwise_error_unadjusted,
            "cluster_test": self.cluster_test,
            "signatures": dict(self.signatures),
            "n_segments": self.n_segments,
            "resample_unit": self.resample_unit,
            "n_units": self.n_units if self.n_units is not None else self.n_segments,
        }


@dataclass(frozen=True)
class CompareResult:
    settings: CompareSettings
    systems: tuple[SystemResult, ...]
    comparisons: tuple[Comparison, ...]
    clusters: dict[str, list[list[str]] | None]
    #: per metric, which scores are better: "higher", "lower" or "closest to <target>"
    directions: dict[str, str] = field(default_factory=dict)
    decimals: dict[str, int] = field(default_factory=dict)
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "settings": self.settings.to_dict(),
            "systems": [s.to_dict() for s in self.systems],
            "comparisons": [c.to_dict() for c in self.comparisons],
            "clusters": self.clusters,
            "warnings": list(self.warnings),
        }
