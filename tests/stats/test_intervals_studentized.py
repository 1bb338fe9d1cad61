"""The studentized (bootstrap-t) interval: its per-resample standard errors come from the very resamples of the
bootstrap, it is the bootstrap-t by hand, and it covers where few documents are resampled (issue 40)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.resample import Resampling
from mtsig.stats.intervals import bootstrap_jackknife_se, interval, jackknife_scores, jackknife_se

EX = Path(__file__).resolve().parents[2] / "examples"


def _stats(seed: int, docs: int = 25):
    """BLEU statistics of documents of uneven size (a document = the sum of its segments')."""
    table = mtsig.compute([str(EX / "ref.A.en")], {"a": str(EX / "base.en")}, ["bleu"])
    seg = table.stats["bleu"]["a"][0]
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 8, size=docs)
    return table.metrics["bleu"], np.stack([seg[rng.integers(len(seg), size=k)].sum(axis=0) for k in sizes])


def test_the_standard_errors_come_from_the_bootstraps_own_resamples():
    metric, S = _stats(0)
    plan = Resampling(n_resamples=300, seed=7).plan("bootstrap", len(S), 300)
    W = np.concatenate(list(plan.chunks()))
    se = bootstrap_jackknife_se(metric, S, plan, max_bytes=10_000)  # small chunks: the same numbers
    for b in (0, 17, 299):  # resample b's own jackknife over the copies it drew
        drawn = np.repeat(np.arange(len(S)), W[b].astype(int))
        jack = jackknife_scores(metric, S[drawn])
        assert se[b] == pytest.approx(float(jackknife_se(jack)), rel=1e-9)


def test_it_is_the_bootstrap_t_by_hand():
    metric, S = _stats(1)
    plan = Resampling(n_resamples=500, seed=3).plan("bootstrap", len(S), 500)
    W = np.concatenate(list(plan.chunks()))
    boot = np.asarray(metric.score(W @ S))
    observed = float(metric.score(S.sum(axis=0)))
    jack = jackknife_scores(metric, S)
    se_b = bootstrap_jackknife_se(metric, S, plan)
    iv = interval(boot, "studentized", 0.9, observed=observed, jackknife=jack, boot_se=se_b)
    t = (boot - observed) / se_b
    se = float(jackknife_se(jack))
    lo, hi = observed - np.quantile(t, 0.95) * se, observed - np.quantile(t, 0.05) * se
    assert (iv.low, iv.high) == pytest.approx((lo, hi), rel=1e-12)
    assert iv.low < observed < iv.high


def test_score_offers_it_and_its_samples_are_the_bootstraps(tmp_path):
    r = mtsig.score([str(EX / "ref.A.en")], {"a": str(EX / "base.en")}, ci=True, ci_method="studentized",
                    n_bootstrap=400, seed=5)  # fmt: skip
    s = r.systems[0].scores["bleu"]
    assert s.ci.method == "studentized" and s.ci.low < s.score < s.ci.high


def test_it_covers_where_percentile_undercovers_with_few_documents():
    """25 documents of uneven size drawn from a population of 200: the studentized interval's coverage of the
    population's BLEU is at least the percentile interval's and near the level (seeded: the same numbers each
    run)."""
    metric, pop = _stats(2, docs=200)
    truth = float(metric.score(pop.sum(axis=0)))
    rng = np.random.default_rng(11)
    hits = {"percentile": 0, "studentized": 0}
    reps = 200
    for i in range(reps):
        S = pop[rng.integers(len(pop), size=25)]
        plan = Resampling(n_resamples=400, seed=i).plan("bootstrap", len(S), 400)
        boot = np.asarray(metric.score(np.concatenate(list(plan.chunks())) @ S))
        observed, jack = float(metric.score(S.sum(axis=0))), jackknife_scores(metric, S)
        se_b = bootstrap_jackknife_se(metric, S, plan)
        for m in hits:
            iv = interval(boot, m, 0.95, observed=observed, jackknife=jack, boot_se=se_b)
            hits[m] += iv.low <= truth <= iv.high
    assert hits["studentized"] >= hits["percentile"]
    assert hits["studentized"] / reps >= 0.92
