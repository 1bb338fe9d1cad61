"""mtsig meta against google-research/mt-metrics-eval's own ``stats`` module (the oracle), on the same inputs:
every statistic's value, PERM-BOTH p-values (within Monte-Carlo error), and the speed of PERM-BOTH.

    python benchmarks/meta_oracle.py --tools DIR [--quick]

DIR holds the ``mt_metrics_eval`` package (its ``stats.py``, ``pce.py``, ``tau_optimization.py``; e.g. a
``git archive`` of the repository; its stats module needs numpy and scipy alone). mt-metrics-eval is not mtsig's
dependency and is not on PyPI, so the tests restate its unit tests' expectations and this script compares the rest.

Data: 10 systems x 2,000 segments of synthetic human scores (10% missing) and five metrics of decreasing quality
(seeded), as in the issue's speed workload.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from mtsig.metaeval.core import MetaData, MetaOptions, MetricScores, segment_level, spa  # noqa: E402
from mtsig.metaeval.run import run_meta  # noqa: E402


def data(S: int = 10, n_items: int = 2000, seed: int = 0, missing: float = 0.1):
    rng = np.random.default_rng(seed)
    H = np.round(rng.normal(size=(S, n_items)) + rng.normal(size=(S, 1)) * 0.3, 2)
    H[rng.random((S, n_items)) < missing] = np.nan
    metrics = [np.round(np.nan_to_num(H) + rng.normal(size=(S, n_items)) * (1 + 0.15 * k), 3) for k in range(5)]
    return H, metrics


def _lists(H: np.ndarray, M: np.ndarray):
    gold = [None if not np.isfinite(v) else float(v) for v in H.ravel()]
    return gold, [float(v) for v in M.ravel()]


def compare_values(mme_stats, H, metrics) -> float:
    worst = 0.0
    S = H.shape[0]
    for M in metrics[:2]:
        gold, met = _lists(H, M)
        c = mme_stats.Correlation(S, gold, met)
        for avg in ("none", "sys", "item"):
            pairs = [("pearson", c.Pearson(avg)[0]), ("spearman", c.Spearman(avg)[0]), ("kendall", c.Kendall(avg)[0]),
                     ("tau23", c.KendallVariants(avg, variant="23")[0])]  # fmt: skip
            if avg != "none":
                pairs.append(("kendall_c", c.Kendall(avg, variant="c")[0]))
            for stat, ref in pairs:
                got = segment_level(H, M, stat, avg)[0]
                worst = max(worst, abs(got - ref))
                print(f"  {avg:5s} {stat:9s} mtsig {got:.15f}  mt-metrics-eval {ref:.15f}")
        ref = c.KendallWithTiesOpt("item", "acc23", sample_rate=1.0)
        got = segment_level(H, M, "acc23", "item")
        print(f"  item  acc23 tie-calibrated: mtsig {got[0]:.15f} (epsilon {got[1]:.6g}), mt-metrics-eval "
              f"{ref[0]:.15f} (epsilon {ref[1]:.6g})")  # fmt: skip
        worst = max(worst, abs(got[0] - ref[0]))
    full = np.nan_to_num(H)
    for M in metrics[:2]:
        got = spa(full, M)
        ref = mme_stats.Correlation(S, *_lists(full, M)).PairwiseConfidenceError()[0]
        print(f"  SPA (no missing human scores): mtsig {got:.15f}  mt-metrics-eval {ref:.15f}")
        worst = max(worst, abs(got - ref))
    return worst


def perm_both_pvalues(mme_stats, k: int) -> None:
    H, metrics = data(S=10, n_items=200, seed=1)
    print(f"\nPERM-BOTH p-values, item-level Pearson and Kendall tau-b, 10 systems x 200 segments, {k} resamples "
          "each (p of 'the second metric agrees better'; Monte-Carlo SE ~ sqrt(p(1-p)/k))")  # fmt: skip
    ms = tuple(MetricScores(name=f"m{i}", segments=M, systems=M.mean(1)) for i, M in enumerate(metrics[:3]))
    d = MetaData(systems=tuple(map(str, range(10))), human=H, human_systems=np.nanmean(H, 1), metrics=ms)
    for stat, fn in (("pearson", mme_stats.scipy.stats.pearsonr), ("kendall", mme_stats.scipy.stats.kendalltau)):
        ours = run_meta(d, MetaOptions(level="segment", statistic=stat, n_resamples=k, n_bootstrap=100))
        for c in ours.comparisons:
            a, b = (d.metric(c.a), d.metric(c.b))
            ca = mme_stats.Correlation(10, *_lists(H, a.segments))
            cb = mme_stats.Correlation(10, *_lists(H, b.segments))
            params = mme_stats.PermutationSigDiffParams(block_size=k)  # no early stopping
            np.random.seed(7)
            p, delta, _, _ = mme_stats.PermutationSigDiff(cb, ca, fn, "item", k, params)
            se = np.sqrt(max(p * (1 - p), 1 / k) / k)
            z = abs(c.p_value - p) / se
            print(f"  {stat:8s} {c.a} better than {c.b}: mtsig p {c.p_value:.4f} (delta {c.delta:+.5f}); "
                  f"mt-metrics-eval p {p:.4f} (delta {delta:+.5f}); |diff| / SE {z:.2f}")  # fmt: skip


def hybrids(mme_stats, cases: int) -> None:
    """PERM-BOTH's hybrids, one by one, against mt-metrics-eval's own functions: tie-calibrated acc23 through the
    compiled kernel (``_Acc23Table.both``: 64 draws a pass) against ``stats.KendallWithTiesOpt`` recalibrating
    each hybrid (sample_rate 1.0), and pce through the task sets' engine (``mtsig.metaeval.pce``) against
    ``Correlation.PairwiseConfidenceError`` on each hybrid (float32 sums there: ties may fall apart by rounding, so
    pce is compared on continuous scores of 30 or more segments, where no tie occurs)."""
    from mtsig.metaeval.core import permutation_pvalues
    from mtsig.metaeval.pce import Engine
    from mtsig.metaeval.run import _Acc23Table

    rng = np.random.default_rng(2026)
    worst_acc, worst_pce, n_acc, n_pce = 0.0, 0.0, 0, 0
    for case in range(cases):
        S, n, avg = int(rng.integers(3, 9)), int(rng.integers(5, 40)), ("item", "sys", "none")[case % 3]
        H = np.round(rng.normal(size=(S, n)), 1)
        H[rng.random(H.shape) < 0.1] = np.nan
        za = np.round(np.nan_to_num(H) + rng.normal(size=H.shape), int(rng.integers(0, 3)))
        zb = np.round(np.nan_to_num(H) + rng.normal(size=H.shape) * 1.5, int(rng.integers(0, 3)))
        za[np.isnan(H)] = zb[np.isnan(H)] = np.nan
        bits = (rng.random((70, H.size)) < 0.5).astype(np.uint8)
        got_a, got_b = _Acc23Table(H, za, zb, avg).both(bits)
        gold = [None if not np.isfinite(v) else float(v) for v in H.ravel()]
        for r in range(0, 70, 7):
            for got, src in ((got_a[r], bits[r] == 1), (got_b[r], bits[r] == 0)):
                hyb = np.where(src.reshape(H.shape), zb, za)
                met = [0.0 if not np.isfinite(v) else float(v) for v in hyb.ravel()]
                ref = mme_stats.KendallWithTiesOpt(gold, met, "acc23", S, avg, sample_rate=1.0)[0]
                worst_acc, n_acc = max(worst_acc, abs(float(got) - float(ref))), n_acc + 1
        # pce: no gaps (it needs every system's score), continuous scores, 30 or more segments (with fewer, some of
        # the 1,000 sign vectors flip nothing, whose sum equals the observed one: a tie that float32 decides)
        N = int(rng.integers(30, 60))
        Hf = rng.normal(size=(S, N))
        Z = np.stack([Hf + rng.normal(size=(S, N)) * s for s in (0.5, 1.0)])
        Z = (Z - Z.reshape(2, -1).mean(1)[:, None, None]) / Z.reshape(2, -1).std(1)[:, None, None]
        engine = Engine(Z, permutation_pvalues(Hf))
        M = rng.random((12, S * N)) < 0.5
        draws = engine.draws(np.array([[0, 1]]), lambda lo, hi, M=M: M[lo:hi], 0, 12)[0]
        for r in range(12):
            ha, hb = np.where(M[r].reshape(S, N), Z[0], Z[1]), np.where(M[r].reshape(S, N), Z[1], Z[0])
            pa = mme_stats.Correlation(S, [float(v) for v in Hf.ravel()], [float(v) for v in ha.ravel()])
            pb = mme_stats.Correlation(S, [float(v) for v in Hf.ravel()], [float(v) for v in hb.ravel()])
            ref = pa.PairwiseConfidenceError()[0] - pb.PairwiseConfidenceError()[0]
            worst_pce, n_pce = max(worst_pce, abs(draws[r] - ref)), n_pce + 1
    print(f"\nhybrids against mt-metrics-eval ({cases} random cases, gaps, ties, three averagings): tie-calibrated "
          f"acc23 of {n_acc} hybrids through the kernel, largest difference {worst_acc:.1e}; pce of {n_pce} pairs of "
          f"hybrids through the engine, largest difference {worst_pce:.1e}")  # fmt: skip


def speed(mme_stats, k_theirs: int) -> None:
    H, metrics = data()
    ms = tuple(MetricScores(name=f"m{i}", segments=M, systems=M.mean(1)) for i, M in enumerate(metrics))
    d = MetaData(systems=tuple(map(str, range(10))), human=H, human_systems=np.nanmean(H, 1), metrics=ms)
    print("\nspeed: PERM-BOTH, 5 metrics x 10 systems x 2,000 segments, item averaging, 1,000 resamples, all 10 pairs")
    for stat, fn in (("kendall", mme_stats.scipy.stats.kendalltau), ("pearson", mme_stats.scipy.stats.pearsonr)):
        from mtsig.metaeval import run as R

        t0 = time.perf_counter()
        opts = MetaOptions(level="segment", statistic=stat, n_resamples=1000)
        vals = {m.name: {stat: 0.0} for m in ms}
        R._compare(d, opts, {}, vals)
        ours = time.perf_counter() - t0
        ca = mme_stats.Correlation(10, *_lists(H, metrics[0]))
        cb = mme_stats.Correlation(10, *_lists(H, metrics[1]))
        params = mme_stats.PermutationSigDiffParams(block_size=k_theirs)
        t0 = time.perf_counter()
        mme_stats.PermutationSigDiff(cb, ca, fn, "item", k_theirs, params)
        per = (time.perf_counter() - t0) / k_theirs
        theirs = per * 1000 * 10
        print(f"  {stat:8s} mtsig {ours:7.2f} s | mt-metrics-eval {theirs:8.0f} s (measured {k_theirs} resamples of "
              f"one pair: {per * 1000:.1f} ms each, times 1,000 x 10 pairs) | ratio {theirs / ours:.0f}x")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tools", required=True, help="a folder holding the mt_metrics_eval package")
    ap.add_argument("--quick", action="store_true", help="fewer resamples for the p-value and speed parts")
    a = ap.parse_args()
    sys.path.insert(0, a.tools)
    try:
        from mt_metrics_eval import stats as mme_stats
    except ImportError as exc:
        print(f"cannot import mt_metrics_eval from {a.tools}: {exc}", file=sys.stderr)
        return 2
    H, metrics = data()
    print("statistic values, 10 systems x 2,000 segments (two metrics)")
    worst = compare_values(mme_stats, H, metrics)
    print(f"largest absolute difference: {worst:.2e}")
    hybrids(mme_stats, 6 if a.quick else 30)
    perm_both_pvalues(mme_stats, 200 if a.quick else 1000)
    speed(mme_stats, 3 if a.quick else 10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
