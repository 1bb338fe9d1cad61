"""Calibration of ``mtsig human`` on WMT22's de->en DA segment scores (../shared/data/wmt22-humaneval-toen).

    python benchmarks/human_calibration.py [--replicates 1000] [--seed 7] [--pair de-en]

Part 1, pairwise tests under two nulls, rejection rates at α 0.05 and 0.01 with 95% Clopper-Pearson intervals:
- *swap*: two real systems (the pair ranked 1 and 2 by WMT22), their judgments swapped segment by segment at
  random on the segments both were judged on (exchangeable outputs);
- *equal*: the same two systems made equally good: test sets of the common segments drawn with replacement from
  the pair's segments after the second system's scores are shifted so the two means are equal (different systems,
  equal quality).
Tests: the default protocol's AR (2,000 shuffles per replicate) and paired bootstrap (1,000), and WMT22's
Mann-Whitney U (a pair counts as different when either one-sided test is below α, as WMT's wins are counted).

Part 2, rank sets: every system's rank set must hold its true rank, all at once (simultaneous coverage).
Pseudo-systems are made from the K real systems: on every segment the K systems' judgments are given to the K
pseudo-systems in a random order (so they are exchangeable), then pseudo-system j's scores are shifted by δ_j:
- *all equal*: δ = 0 (every true rank is 1: ties share the best rank);
- *spread*: δ_j = the real systems' observed differences from their mean (true ranks 1..K, as WMT22's order).
Compared: the default protocol's simultaneous sets (joint bootstrap, step-down max-T, 95%) and WMT22's ranges
(losses + 1, N − wins from uncorrected one-sided Mann-Whitney tests at 0.05).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import beta

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from mtsig.humaneval import engine  # noqa: E402
from mtsig.humaneval.protocols import mann_whitney_greater  # noqa: E402
from mtsig.io.human import HumanScores, read_human  # noqa: E402
from mtsig.resample import Resampling  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "wmt22-humaneval-toen"


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    a = 1 - level
    lo = 0.0 if k == 0 else float(beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


def _two(x: np.ndarray, y: np.ndarray) -> HumanScores:
    n = len(x)
    return HumanScores(systems=("a", "b"), segments=tuple(map(str, range(n))), scores=np.vstack([x, y]),
                       judgments=np.ones((2, n), dtype=np.int64))  # fmt: skip


def _pair_pvalues(x: np.ndarray, y: np.ndarray, seed: int) -> dict[str, float]:
    h = _two(x, y)
    units = engine.unit_sums(h)
    pd = engine.pair_differences(h, units, [(0, 1)])
    rs = Resampling(None, seed)
    p_mwu = min(mann_whitney_greater(x, y))
    return {
        "ar": float(engine.paired_ar(pd, rs, 2000)[0]),
        "paired-bootstrap": float(engine.paired_bootstrap(pd, rs, 1000)[0]),
        "wmt22 Mann-Whitney (either direction)": p_mwu,
    }


def part1(h: HumanScores, reps: int, seed: int) -> None:
    m = h.system_means()
    top = np.argsort(-m)[:2]
    a, b = (h.scores[k] for k in top)
    both = np.isfinite(a) & np.isfinite(b)
    a, b = a[both], b[both]
    names = [h.systems[k] for k in top]
    print(f"\nPart 1: pairwise tests; {names[0]} and {names[1]}, {both.sum()} common segments, {reps} replicates")
    rng = np.random.default_rng(seed)
    b_eq = b - (b.mean() - a.mean())
    for null in ("swap", "equal"):
        rows: dict[str, list[float]] = {}
        for r in range(reps):
            if null == "swap":
                s = rng.random(len(a)) < 0.5
                x, y = np.where(s, b, a), np.where(s, a, b)
            else:
                idx = rng.integers(0, len(a), len(a))
                x, y = a[idx], b_eq[idx]
            for t, p in _pair_pvalues(x, y, seed * 100_003 + r).items():
                rows.setdefault(t, []).append(p)
        print(f"\nnull: {null}")
        print("| test | rejected at 0.05 [95% CI] | rejected at 0.01 [95% CI] |\n|---|---|---|")
        for t, ps in rows.items():
            ps = np.asarray(ps)
            cells = []
            for al in (0.05, 0.01):
                k = int(np.sum(ps <= al if t != "wmt22 Mann-Whitney (either direction)" else ps < al))
                lo, hi = clopper_pearson(k, reps)
                cells.append(f"{k / reps:.3f} [{lo:.3f}, {hi:.3f}]")
            print(f"| {t} | {cells[0]} | {cells[1]} |")


def _pseudo(h: HumanScores, delta: np.ndarray, rng: np.random.Generator) -> HumanScores:
    K, N = h.scores.shape
    perm = np.argsort(rng.random((N, K)), axis=1)  # per segment, which real system each pseudo-system takes
    S = h.scores[perm.T, np.arange(N)[None, :]] + delta[:, None]
    return HumanScores(systems=tuple(f"p{j}" for j in range(K)), segments=h.segments, scores=S,
                       judgments=np.isfinite(S).astype(np.int64))  # fmt: skip


def _wmt_ranges(h: HumanScores, alpha: float = 0.05) -> list[tuple[int, int]]:
    K = len(h.systems)
    vals = [h.scores[k][np.isfinite(h.scores[k])] for k in range(K)]
    beats = np.zeros((K, K), dtype=bool)
    for i in range(K):
        for j in range(i + 1, K):
            pij, pji = mann_whitney_greater(vals[i], vals[j])
            beats[i, j], beats[j, i] = pij < alpha, pji < alpha
    return [(1 + int(beats[:, k].sum()), K - int(beats[k].sum())) for k in range(K)]


def _covers(ranges, true_ranks) -> bool:
    return all(lo <= t <= hi for (lo, hi), t in zip(ranges, true_ranks))


def part2(h: HumanScores, reps: int, seed: int, n_boot: int) -> None:
    K = len(h.systems)
    m = h.system_means()
    print(f"\nPart 2: rank sets; {K} pseudo-systems from {h.systems[0]}... ({len(h.segments)} segments), {reps} "
          f"replicates, {n_boot} joint bootstrap resamples each")  # fmt: skip
    rng = np.random.default_rng(seed + 1)
    print("| design | mtsig simultaneous 95% sets: all hold [95% CI] | mean set size | WMT22 ranges: all hold "
          "[95% CI] | mean range size |\n|---|---|---|---|---|")  # fmt: skip
    for design, delta in (("all equal", np.zeros(K)), ("spread as observed", m - m.mean())):
        true = np.array([1 + int(np.sum(delta > d + 1e-12)) for d in delta])
        hits = {"mtsig": 0, "wmt": 0}
        size = {"mtsig": 0.0, "wmt": 0.0}
        for r in range(reps):
            ph = _pseudo(h, delta, rng)
            boot = engine.joint_bootstrap(engine.unit_sums(ph), Resampling(None, seed * 7919 + r), n_boot)
            sets, _ = engine.rank_sets(boot, ph.system_means(), 0.95)
            wmt = _wmt_ranges(ph)
            for name, rr in (("mtsig", sets), ("wmt", wmt)):
                hits[name] += _covers(rr, true)
                size[name] += np.mean([hi - lo + 1 for lo, hi in rr])
        cells = []
        for name in ("mtsig", "wmt"):
            lo, hi = clopper_pearson(hits[name], reps)
            cells += [f"{hits[name] / reps:.3f} [{lo:.3f}, {hi:.3f}]", f"{size[name] / reps:.2f}"]
        print(f"| {design} | {' | '.join(cells)} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--pair", default="de-en")
    ap.add_argument("--n-bootstrap", type=int, default=1000)
    ap.add_argument("--part", type=int, choices=(1, 2), default=None, help="run one part only")
    a = ap.parse_args()
    path = DATA / a.pair / f"ad-seg-scores-{a.pair}.csv"
    if not path.exists():
        print(f"needs {path}", file=sys.stderr)
        return 2
    h = read_human(str(path))
    t0 = time.perf_counter()
    if a.part in (None, 1):
        part1(h, a.replicates, a.seed)
    if a.part in (None, 2):
        part2(h, a.replicates, a.seed, a.n_bootstrap)
    print(f"\n({time.perf_counter() - t0:.0f} s, seed {a.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
