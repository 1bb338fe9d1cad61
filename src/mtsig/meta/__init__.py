"""Metrics judged against humans: ``mtsig meta`` (:func:`meta`), and what a metric delta means to humans
(:mod:`mtsig.thresholds`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mtsig.meta.core import STATISTICS, MetaData, MetaOptions, MetaResult, MetaStatistic, MetricScores
from mtsig.meta.inputs import align, human_input, negate, own_metrics, read_score_file
from mtsig.meta.run import run_meta
from mtsig.report import meta as _render  # noqa: F401 - registers the result's formats


def meta(  # noqa: PLR0913 - every setting is a keyword, typed and documented
    human: Any,
    metrics: Mapping[str, str] | Sequence[str] | None = None,
    *,
    refs: Any = None,
    systems: Any = None,
    compute: Sequence[str] = (),
    level: str = "system",
    statistic: str | None = None,
    average_by: str = "item",
    test: str | None = None,
    n_resamples: int = 1000,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    correction: str = "holm",
    seed: int | None = None,
    lower_is_better: Sequence[str] = (),
    **options: Any,
) -> MetaResult:
    """How well each metric agrees with humans, with intervals, and which metric agrees better.

    human:
        A file (or files) of human scores: any format :func:`mtsig.human` reads, or ``SYSTEM score`` lines (system
        level); or the :class:`~mtsig.io.human.HumanScores` read from them.
    metrics:
        ``{NAME: FILE}`` or ``["NAME=FILE", ...]``: score files in mt-metrics-eval's layout (``SYSTEM score`` per
        line; once per system for system level, once per segment in test-set order for segment level).
    refs, systems, compute:
        mtsig's own metrics (e.g. ``compute=["bleu", "chrf"]``) computed from references and system outputs, as
        ``mtsig.compute`` takes them; system names match the human ones exactly or as WMT's ``NAME.3``.
    level, statistic, average_by:
        ``system`` (statistics of the system scores; metrics compared on ``pearson`` by default) or ``segment``
        (``acc23`` with tie calibration by default); segment-level averaging ``none``, ``sys`` or ``item``.
    test:
        ``perm-both`` (Deutsch et al. 2021), or ``pairwise`` (the pairwise permutation test: acc23 at each metric's
        own epsilon; the default for acc23 at segment level).
    n_resamples, n_bootstrap, confidence, alpha, correction, seed:
        Permutations of the tests, bootstrap resamples of the intervals (over segments), their level, the
        significance level and the correction over all pairs of metrics (Holm), the seed (12345 when None).
    lower_is_better:
        Names of metric files whose lower scores are better (TER, MetricX): negated first, so that every statistic
        reads higher as better (mtsig's own metrics are oriented by themselves).
    """
    from mtsig.resample import DEFAULT_SEED

    h = human if not isinstance(human, (str, list, tuple)) else human_input(human)
    given = dict(metrics) if isinstance(metrics, Mapping) else dict(_spec(x) for x in (metrics or ()))
    scores = {name: (read_score_file(path)[0], path) for name, path in given.items()}
    for name in lower_is_better:  # oriented so that higher is better, as every statistic here assumes
        if name not in scores:
            from mtsig.errors import InputError

            raise InputError(
                f"lower_is_better names {name!r}, which is not a metric file given", param="lower_is_better"
            )
        scores[name] = (negate(scores[name][0]), scores[name][1] + " (negated: lower is better)")
    boot = {}
    if compute:
        own, boot = own_metrics(refs, systems, compute, **options)
        clash = set(own) & set(scores)
        if clash:
            from mtsig.errors import InputError

            raise InputError(f"metric name(s) given twice: {', '.join(sorted(clash))}")
        scores.update(own)
    if not scores:
        from mtsig.errors import InputError

        raise InputError("no metric given: metrics NAME=FILE (score files), or compute=[...] with refs and systems")
    data = align(h, scores, boot)
    opts = MetaOptions(level=level, statistic=statistic, average_by=average_by, test=test or _default_test(data, level,
                       statistic),
                       n_resamples=n_resamples, n_bootstrap=n_bootstrap, confidence=confidence, alpha=alpha,
                       correction=correction, seed=DEFAULT_SEED if seed is None else seed)  # fmt: skip
    return run_meta(data, opts)


def _default_test(data: MetaData, level: str, statistic: str | None) -> str:
    """System level: the paired bootstrap over segments where every metric has segment scores (PERM-BOTH over 10
    systems rejected up to 8.5% at 0.05 under a null of equally good metrics; benchmarks/meta_calibration.md),
    else PERM-BOTH over systems. Segment level: PERM-BOTH (tie-calibrated acc23 recalibrated on every hybrid); the
    pairwise permutation test rejected 16% at 0.05 under that null and is offered only on request."""
    if level == "system":
        ok = data.human is not None and all(m.segments is not None or m.resampled is not None for m in data.metrics)
        return "bootstrap" if ok else "perm-both"
    return "perm-both"


def _spec(text: str) -> tuple[str, str]:
    name, eq, path = text.partition("=")
    if not eq or not name or not path:
        from mtsig.errors import InputError

        raise InputError(f"metric {text!r}: give NAME=FILE", param="metric")
    return name, path


__all__ = ["STATISTICS", "MetaData", "MetaOptions", "MetaResult", "MetaStatistic", "MetricScores", "align", "meta",
           "run_meta"]  # fmt: skip
