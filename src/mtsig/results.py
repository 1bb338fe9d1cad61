"""Result objects of ``score`` and ``compare`` (frozen data + ``to_dict``); the core never prints."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtsig.errors import InputError, unknown_name
from mtsig.evaluation import StatsTable
from mtsig.resample import DEFAULT_SEED
from mtsig.stats.intervals import CI_METHODS, interval, jackknife_scores, summarize
from mtsig.stats.multiple import CORRECTIONS, adjust, clusters, experimentwise_error
from mtsig.stats.paired import (
    ALTERNATIVES,
    TESTS,
    TestResult,
    ar_counts,
    bootstrap_many,
    p_from_count,
    paired_bootstrap_p,
    sentence_test,
    shift_p,
)
from mtsig.stats.runs import median_run, stratified_ar_many

ProgressFactory = Callable[[str, int], Callable[[int], None]]


def _progress(factory: ProgressFactory | None, label: str, total: int):
    return factory(label, total) if factory is not None else None


@dataclass(frozen=True)
class ScoreResult:
    """Scores of every system under every metric: ``systems[i]["scores"][metric]``."""

    systems: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)
    higher_is_better: dict[str, bool] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"systems": self.systems}
        if self.settings:
            d["settings"] = self.settings
        return d

    def score(self, system: str, metric: str) -> float:
        for s in self.systems:
            if s["name"] == system:
                return s["scores"][metric]["score"]
        raise KeyError(system)


def _check_common(n_bootstrap: int, confidence: float, seed: int | None) -> int:
    if n_bootstrap < 1:
        raise InputError(f"--n-bootstrap must be at least 1, got {n_bootstrap}")
    if not 0 < confidence < 1:
        raise InputError(f"--confidence must lie strictly between 0 and 1, got {confidence}")
    return DEFAULT_SEED if seed is None else int(seed)


def score_table(
    table: StatsTable,
    ci: bool = False,
    ci_method: str = "percentile",
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int | None = None,
    progress: ProgressFactory | None = None,
    boot: dict | None = None,
) -> ScoreResult:
    """Corpus scores (and bootstrap intervals; per-run statistics for systems with several runs).

    ``boot`` may hold bootstrap samples already drawn, keyed ``(metric, system, run)``.
    """
    if ci_method not in CI_METHODS:
        raise unknown_name("confidence-interval method", ci_method, CI_METHODS)
    seed = _check_common(n_bootstrap, confidence, seed)
    any_runs = any(s.n_runs > 1 for s in table.systems)
    need_boot = ci or any_runs
    systems = [{"name": s.name, "files": s.files, "scores": {}} for s in table.systems]
    if need_boot and boot is None:
        boot = bootstrap_many(
            {
                (m, s.name, r): (metric, table.stats[m][s.name][r])
                for m, metric in table.metrics.items()
                for s in table.systems
                for r in range(s.n_runs)
            },
            n_bootstrap,
            seed,
            _progress(progress, "bootstrap", n_bootstrap),
        )
    for mname, metric in table.metrics.items():
        sig = table.signatures.get(mname, metric.signature)
        for sd, info in zip(systems, table.systems):
            st = table.stats[mname][info.name]
            run_scores = table.corpus_scores(mname, info.name)
            entry: dict[str, Any] = {"score": float(run_scores.mean()), "signature": sig}
            if any_runs:
                dev = table.dev_scores.get(mname, {}).get(info.name)
                entry.update(
                    {
                        "mean": float(run_scores.mean()),
                        "s_sel": float(np.mean([boot[(mname, info.name, r)].std(ddof=1) for r in range(info.n_runs)])),
                        "s_test": float(run_scores.std(ddof=1)) if info.n_runs > 1 else None,
                        "s_dev": float(np.std(dev, ddof=1)) if dev is not None and len(dev) > 1 else None,
                        "runs": [float(x) for x in run_scores],
                        "median_run": median_run(run_scores, metric.higher_is_better),
                    }
                )
                if dev is not None:
                    entry["dev_runs"] = [float(x) for x in dev]
            if ci and info.n_runs == 1:
                samples = boot[(mname, info.name, 0)]
                jack = jackknife_scores(metric, st[0]) if ci_method == "bca" else None
                iv = interval(samples, ci_method, confidence, observed=float(run_scores[0]), jackknife=jack)
                entry.update(
                    {
                        "ci": iv.to_list(),
                        "ci_method": ci_method,
                        "confidence": confidence,
                        "bootstrap": summarize(samples).to_dict(),
                    }
                )
            if info.n_runs == 1:
                details = metric.describe(st[0].sum(axis=0))
                if details:
                    entry["details"] = details
            sd["scores"][mname] = entry
    settings: dict[str, Any] = {}
    if need_boot:
        settings = {"n_bootstrap": n_bootstrap, "seed": seed}
        if ci:
            settings.update({"ci_method": ci_method, "confidence": confidence})
    return ScoreResult(systems, settings, {m: table.metrics[m].higher_is_better for m in table.metrics})


@dataclass(frozen=True)
class CompareResult:
    settings: dict[str, Any]
    systems: list[dict[str, Any]]
    comparisons: list[dict[str, Any]]
    clusters: dict[str, list[list[str]] | None]
    higher_is_better: dict[str, bool] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "systems": self.systems,
            "comparisons": self.comparisons,
            "clusters": self.clusters,
        }


def compare_table(
    table: StatsTable,
    tests: list[str] | tuple[str, ...] = ("ar",),
    n_resamples: int | None = None,
    seed: int | None = None,
    baseline: str | None = None,
    correction: str = "holm",
    alpha: float = 0.05,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    n_bootstrap: int | None = None,
    progress: ProgressFactory | None = None,
    chunk_bytes: int | None = None,
) -> CompareResult:
    """Paired tests of every pair of systems (or each system against ``baseline``) for every metric."""
    tests = list(dict.fromkeys(tests))
    if not tests:
        raise InputError("no test given")
    for t in tests:
        if t not in TESTS:
            raise unknown_name("test", t, TESTS)
    if correction not in CORRECTIONS:
        raise unknown_name("correction", correction, CORRECTIONS)
    if alternative not in ALTERNATIVES:
        raise unknown_name("alternative", alternative, ALTERNATIVES)
    if not 0 < alpha < 1:
        raise InputError(f"--alpha must lie strictly between 0 and 1, got {alpha}")
    if n_resamples is not None and n_resamples < 1:
        raise InputError(f"--n-resamples must be at least 1, got {n_resamples}")
    seed = _check_common(n_bootstrap or 1, confidence, seed)
    names = table.system_names
    if len(names) < 2:
        raise InputError("compare needs at least two systems")
    multi = {s.name for s in table.systems if s.n_runs > 1}
    if multi and set(tests) != {"ar"}:
        raise InputError(
            f"system(s) {', '.join(sorted(multi))} have several optimizer runs: only the stratified approximate "
            "randomization over runs is available for them (--test ar; Clark et al. 2011)"
        )
    if baseline is not None:
        if baseline not in names:
            raise InputError(f"baseline {baseline!r} is not one of the systems: {', '.join(names)}")
        pairs = [(baseline, n) for n in names if n != baseline]
    else:
        pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    n_ar = n_resamples or 10_000
    n_boot = (
        n_resamples
        if (n_resamples and any(t in tests for t in ("bootstrap", "paired-bootstrap")))
        else (n_bootstrap or 1_000)
    )
    run_pairs = [p for p in pairs if p[0] in multi or p[1] in multi]
    single_pairs = [p for p in pairs if p not in run_pairs]
    # runs of a system are pooled (their statistics summed per segment): the observed difference of a pair
    # with several runs is the difference of the pooled corpus scores (Clark et al., section 4.2)
    pooled = {m: {n: table.stats[m][n].sum(axis=0) for n in names} for m in table.metrics}
    # one bootstrap plan for every metric, run and pooled system: s_sel, and the interval of each difference
    items = {}
    for m, metric in table.metrics.items():
        for s_ in table.systems:
            for r in range(s_.n_runs):
                items[(m, s_.name, r)] = (metric, table.stats[m][s_.name][r])
            if s_.n_runs > 1:
                items[(m, s_.name, "pooled")] = (metric, pooled[m][s_.name])
    boot_all = bootstrap_many(items, n_boot, seed, _progress(progress, "bootstrap", n_boot), chunk_bytes)
    scores_res = score_table(table, n_bootstrap=n_boot, seed=seed, boot=boot_all)
    strat = {}
    if "ar" in tests and run_pairs:
        strat = stratified_ar_many(
            {
                (m, a, b): (metric, table.stats[m][a], table.stats[m][b])
                for m, metric in table.metrics.items()
                for a, b in run_pairs
            },
            n_ar,
            seed,
            alternative,
            _progress(progress, "stratified randomization", n_ar),
            chunk_bytes,
        )
    comparisons: list[dict[str, Any]] = []
    cl: dict[str, list[list[str]] | None] = {}
    for mname, metric in table.metrics.items():
        stats = pooled[mname]
        score = {n: float(metric.score(stats[n].sum(axis=0))) for n in names}
        boot = {n: boot_all[(mname, n, "pooled" if n in multi else 0)] for n in names}
        counts = {(a, b): strat[(mname, a, b)] for a, b in run_pairs} if strat else {}
        if "ar" in tests and single_pairs:
            counts.update(
                ar_counts(
                    {n: stats[n] for n in {x for p in single_pairs for x in p}},
                    metric,
                    single_pairs,
                    n_ar,
                    seed,
                    alternative,
                    _progress(progress, f"{mname}: randomization", n_ar),
                    chunk_bytes,
                )
            )
        sent = {n: metric.sentence_scores(stats[n]) for n in names} if {"ttest", "wilcoxon"} & set(tests) else None
        delta_ci = {(a, b): interval(boot[b] - boot[a], "percentile", confidence) for a, b in pairs}
        significant: dict[frozenset, bool] = {}
        for ti, test in enumerate(tests):
            rows = []
            for a, b in pairs:
                delta = score[b] - score[a]
                extra: dict[str, Any] = {}
                stat = None
                n_used: int | None = None
                if test == "ar":
                    p = p_from_count(counts[(a, b)], n_ar)
                    n_used = n_ar
                    if (a, b) in run_pairs:
                        extra = {"stratified": True, "runs_a": table.system(a).n_runs, "runs_b": table.system(b).n_runs}
                elif test == "bootstrap":
                    p = shift_p(boot[b] - boot[a], delta, alternative)
                    n_used = n_boot
                elif test == "paired-bootstrap":
                    p, extra = paired_bootstrap_p(boot[b] - boot[a], alternative)
                    n_used = n_boot
                else:
                    stat, p = sentence_test(test, sent[a], sent[b], alternative)
                rows.append(
                    TestResult(
                        test,
                        mname,
                        a,
                        b,
                        score[a],
                        score[b],
                        delta,
                        p,
                        alternative,
                        n_used,
                        seed if n_used else None,
                        delta_ci[(a, b)],
                        stat,
                        extra,
                    )
                )
            padj = adjust([r.p_value for r in rows], correction)
            for r, pa in zip(rows, padj):
                d = r.to_dict()
                d["p_adjusted"] = float(pa)
                d["significant"] = bool(pa <= alpha)
                comparisons.append(d)
                if ti == 0:  # clusters follow the first test listed
                    significant[frozenset((r.a, r.b))] = d["significant"]
        cl[mname] = clusters(score, significant, metric.higher_is_better) if baseline is None else None
    k = len(pairs)
    settings = {
        "tests": tests,
        "n_resamples": {
            t: (n_ar if t == "ar" else n_boot) for t in tests if t in ("ar", "bootstrap", "paired-bootstrap")
        },
        "n_bootstrap_delta_ci": n_boot,
        "seed": seed,
        "alternative": alternative,
        "correction": correction,
        "alpha": alpha,
        "confidence": confidence,
        "baseline": baseline,
        "n_comparisons": k,
        "experimentwise_error_unadjusted": experimentwise_error(alpha, k),
        "cluster_test": tests[0] if baseline is None else None,
        "signatures": {m: table.signatures.get(m, table.metrics[m].signature) for m in table.metrics},
        "n_segments": table.n_segments,
    }
    return CompareResult(
        settings, scores_res.systems, comparisons, cl, {m: table.metrics[m].higher_is_better for m in table.metrics}
    )
