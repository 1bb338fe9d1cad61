"""Calibration of ``mtsig human`` under nulls with WMT DA's real dependence: segments of one document are judged
together (one HIT scores a whole document of one system), so their paired differences are correlated.

    python benchmarks/human_calibration.py [--pair de-en] [--replicates 1000] [--seed 7] [--data DIR]

Judgments: ``ad-XXen-good-stnd.csv`` of ../shared/data/wmt22-humaneval-toen (de-en, cs-en, uk-en), or of ``--data
DIR`` (e.g. ru-en, ja-en from wmt-conference/wmt22-news-systems); documents recovered from the HITs. The median
intra-class correlation of two systems' paired differences within documents is printed first (de-en 0.190, ru-en
0.149, ja-en 0.273).

Part 1, pairwise tests, rejection rates at α 0.05 and 0.01 with 95% Clopper-Pearson intervals, for the pair ranked
1 and 2, on the segments both were judged on, under four nulls:
- *segment swap*: their scores swapped segment by segment at random (segments exchangeable: no dependence left);
- *document swap*: swapped document by document (whole documents exchangeable: the real dependence kept);
- *segment equal*: the second system shifted to the first's mean, segments drawn with replacement;
- *document equal*: the same, whole documents drawn with replacement (different systems, equally good).
Tests: approximate randomization (2,000 shuffles) of segments and of documents, the paired bootstrap of documents
(1,000), and WMT22's Mann-Whitney U (a pair counts as different when either one-sided test is below α).

Part 2, rank sets, all hold at once? Pseudo-systems from the K real systems: in every document the K systems'
judgments go to the K pseudo-systems in a random order (whole documents: exchangeable, dependence kept), then
pseudo-system j is shifted by δ_j: *all equal* (δ = 0, every true rank 1) or *spread as observed* (δ = the real
systems' differences from their mean). Compared: mtsig's simultaneous 95% sets resampling segments and resampling
documents, and WMT22's ranges (losses + 1, N - wins).
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


def cell(k: int, n: int) -> str:
    lo, hi = clopper_pearson(k, n)
    return f"{k / n:.3f} [{lo:.3f}, {hi:.3f}]"


def icc(d: np.ndarray, docs: np.ndarray) -> float:
    """One-way ANOVA intra-class correlation of ``d`` within the groups ``docs``."""
    _, inv, cnt = np.unique(docs, return_inverse=True, return_counts=True)
    k, n = cnt.size, d.size
    means = np.bincount(inv, d) / cnt
    msb = (cnt * (means - d.mean()) ** 2).sum() / (k - 1)
    msw = ((d - means[inv]) ** 2).sum() / (n - k)
    n0 = (n - (cnt**2).sum() / n) / (k - 1)
    return float((msb - msw) / (msb + (n0 - 1) * msw))


def _two(x: np.ndarray, y: np.ndarray, docs: np.ndarray) -> HumanScores:
    n = len(x)
    return HumanScores(systems=("a", "b"), segments=tuple(map(str, range(n))), scores=np.vstack([x, y]),
                       judgments=np.ones((2, n), dtype=np.int64), documents=tuple(docs))  # fmt: skip


def _pair_pvalues(x: np.ndarray, y: np.ndarray, docs: np.ndarray, seed: int) -> dict[str, float]:
    h = _two(x, y, docs)
    rs = Resampling(None, seed)
    out = {}
    for unit in ("segment", "document"):
        pd = engine.pair_differences(h, engine.unit_sums(h, unit), [(0, 1)])
        out[f"ar, {unit}s as the unit"] = float(engine.paired_ar(pd, rs, 2000)[0])
        if unit == "document":
            out["paired bootstrap, documents"] = float(engine.paired_bootstrap(pd, rs, 1000)[0])
    out["wmt22 Mann-Whitney (either direction)"] = min(mann_whitney_greater(x, y))
    return out


def _draw(null: str, a, b, b_eq, docs, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(a)
    if null == "segment swap":
        s = rng.random(n) < 0.5
        return np.where(s, b, a), np.where(s, a, b), docs
    if null == "document swap":
        labels, inv = np.unique(docs, return_inverse=True)
        s = (rng.random(labels.size) < 0.5)[inv]
        return np.where(s, b, a), np.where(s, a, b), docs
    if null == "segment equal":
        idx = rng.integers(0, n, n)
        return a[idx], b_eq[idx], docs[idx]
    labels, inv = np.unique(docs, return_inverse=True)  # document equal: whole documents with replacement
    members = [np.flatnonzero(inv == d) for d in range(labels.size)]
    pick = rng.integers(0, labels.size, labels.size)
    idx = np.concatenate([members[d] for d in pick])
    new_docs = np.concatenate([np.full(members[d].size, f"{j}") for j, d in enumerate(pick)])
    return a[idx], b_eq[idx], new_docs


def part1(h: HumanScores, reps: int, seed: int) -> None:
    m = h.system_means()
    top = np.argsort(-m)[:2]
    a, b = (h.scores[k] for k in top)
    both = np.isfinite(a) & np.isfinite(b)
    a, b = a[both], b[both]
    docs = np.asarray(h.documents, dtype=object)[both]
    names = [h.systems[k] for k in top]
    print(f"\nPart 1: pairwise tests; {names[0]} and {names[1]}, {both.sum()} common segments in "
          f"{len(set(docs))} documents (ICC of their differences {icc(a - b, docs):.3f}), "
          f"{reps} replicates")  # fmt: skip
    rng = np.random.default_rng(seed)
    b_eq = b - (b.mean() - a.mean())
    for null in ("segment swap", "document swap", "segment equal", "document equal"):
        rows: dict[str, list[float]] = {}
        for r in range(reps):
            x, y, d = _draw(null, a, b, b_eq, docs, rng)
            for t, p in _pair_pvalues(x, y, d, seed * 100_003 + r).items():
                rows.setdefault(t, []).append(p)
        print(f"\nnull: {null}")
        print("| test | rejected at 0.05 [95% CI] | rejected at 0.01 [95% CI] |\n|---|---|---|")
        for t, ps in rows.items():
            ps = np.asarray(ps)
            strict = t.startswith("wmt22")  # WMT's wins: p < 0.05
            cells = [cell(int(np.sum(ps < al if strict else ps <= al)), reps) for al in (0.05, 0.01)]
            print(f"| {t} | {cells[0]} | {cells[1]} |")


def _pseudo(h: HumanScores, delta: np.ndarray, rng: np.random.Generator) -> HumanScores:
    """Per document, the K systems' judgments of it go to the K pseudo-systems in a random order."""
    K, N = h.scores.shape
    _, inv = np.unique(np.asarray(h.documents, dtype=object), return_inverse=True)
    perm = np.argsort(rng.random((inv.max() + 1, K)), axis=1)[inv]  # (N, K): the same order on a whole document
    S = h.scores[perm.T, np.arange(N)[None, :]] + delta[:, None]
    return HumanScores(systems=tuple(f"p{j}" for j in range(K)), segments=h.segments, scores=S,
                       judgments=np.isfinite(S).astype(np.int64), documents=h.documents)  # fmt: skip


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


def part2(h: HumanScores, reps: int, seed: int, n_boot: int, confidence: float = 0.95) -> None:
    K = len(h.systems)
    m = h.system_means()
    print(f"\nPart 2: rank sets; {K} pseudo-systems, documents exchanged whole ({h.n_documents} documents, "
          f"{len(h.segments)} segments), {reps} replicates, {n_boot} joint bootstrap resamples each, mtsig's sets at "
          f"{confidence:.0%}")  # fmt: skip
    rng = np.random.default_rng(seed + 1)
    kinds = ("mtsig, segments", "mtsig, documents", "WMT22")
    print("| design | " + " | ".join(f"{k}: all hold [95% CI] | mean size" for k in kinds) + " |")
    print("|---|" + "---|---|" * len(kinds))
    for design, delta in (("all equal", np.zeros(K)), ("spread as observed", m - m.mean())):
        true = np.array([1 + int(np.sum(delta > d + 1e-12)) for d in delta])
        hits = dict.fromkeys(kinds, 0)
        size = dict.fromkeys(kinds, 0.0)
        for r in range(reps):
            ph = _pseudo(h, delta, rng)
            means = ph.system_means()
            got = {}
            for unit, name in (("segment", kinds[0]), ("document", kinds[1])):
                boot = engine.joint_bootstrap(engine.unit_sums(ph, unit), Resampling(None, seed * 7919 + r), n_boot)
                got[name] = engine.rank_sets(boot, means, confidence)[0]
            got["WMT22"] = _wmt_ranges(ph)
            for name, rr in got.items():
                hits[name] += _covers(rr, true)
                size[name] += np.mean([hi - lo + 1 for lo, hi in rr])
        cells = [f"{cell(hits[k], reps)} | {size[k] / reps:.2f}" for k in kinds]
        print(f"| {design} | {' | '.join(cells)} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--pair", default="de-en")
    ap.add_argument("--data", default=None, help="a folder holding ad-XXen-good-stnd.csv (default: shared data)")
    ap.add_argument("--n-bootstrap", type=int, default=1000)
    ap.add_argument("--part", type=int, choices=(1, 2), default=None, help="run one part only")
    ap.add_argument("--confidence", type=float, default=0.95, help="the level of mtsig's rank sets (part 2)")
    a = ap.parse_args()
    name = f"ad-{a.pair.replace('-', '')}-good-stnd.csv"
    path = Path(a.data) / name if a.data else DATA / a.pair / name
    if not path.exists():
        print(f"needs {path}", file=sys.stderr)
        return 2
    h = read_human(str(path))
    K = len(h.systems)
    d = [icc((h.scores[i] - h.scores[j])[h.judged[i] & h.judged[j]],
             np.asarray(h.documents, dtype=object)[h.judged[i] & h.judged[j]])
         for i in range(K) for j in range(i + 1, K) if (h.judged[i] & h.judged[j]).sum() > 100]  # fmt: skip
    print(f"{a.pair}: {K} systems, {h.n_documents} documents recovered from the HITs; median intra-class correlation "
          f"of two systems' paired differences within documents: {np.median(d):.3f}")  # fmt: skip
    t0 = time.perf_counter()
    if a.part in (None, 1):
        part1(h, a.replicates, a.seed)
    if a.part in (None, 2):
        part2(h, a.replicates, a.seed, a.n_bootstrap, a.confidence)
    print(f"\n({time.perf_counter() - t0:.0f} s, seed {a.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
