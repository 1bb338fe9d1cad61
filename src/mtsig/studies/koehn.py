"""Koehn (2004)'s validation experiments on a user's own outputs, over the statistics (never the text).

The full test set stands for the "true" score, as Koehn's 30,000 sentences did; smaller test sets are cut
from it:

- ``blocks``: k runs of consecutive segments; ``broad``: every k-th segment (sample i holds segments
  i, i+k, i+2k, ...); ``random``: segments drawn without replacement, each sample from its own seeded
  stream (seed, study key, size, sample number), so a sample never depends on how many others are drawn.

Studies: :func:`sampling` (Figs. 2-4), :func:`coverage` (Fig. 6), :func:`testsize` (Table 3) and
:func:`levels` (Table 4). Each returns a :class:`~mtsig.studies.result.StudyResult`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from mtsig.errors import InputError, unknown_name
from mtsig.resample import STREAM_KEYS, Resampling, stream_rng
from mtsig.stats.intervals import CI_METHODS, bootstrap_jackknife_se, interval, jackknife_scores
from mtsig.stats.kinds import KINDS, MIN_SEGMENTS_BOOTSTRAP, check_bootstrap
from mtsig.stats.paired import PAIRED_TESTS
from mtsig.studies.design import (
    MAX_RESAMPLES,
    Design,
    design_dict,
    metric_option,
    option,
    pairs_option,
    seed_option,
)
from mtsig.studies.inputs import pooled_stats
from mtsig.studies.nulls import binomial_interval
from mtsig.studies.replicates import Runner
from mtsig.studies.result import StudyResult, StudyTable

if TYPE_CHECKING:
    from mtsig.metrics.base import Metric

SAMPLINGS = ("broad", "random")
#: Koehn's Table 4 bins of the significance level reached (lower bounds, in %)
LEVEL_BINS = (99.9, 99.0, 98.0, 97.0, 96.0, 95.0, 90.0, 80.0, 50.0)


_PAIRS = "pairs of systems (default: all pairs)"
_SIZES = "sample sizes (default: 100 300 600 and the largest that fits)"


def _test_names() -> tuple[str, ...]:
    """The registered tests of single outputs (stratified randomization needs optimizer runs)."""
    return tuple(t for t, spec in PAIRED_TESTS.items() if KINDS[spec.kind].single_output)


@dataclass(frozen=True, kw_only=True)
class SamplingDesign(Design):
    """``study sampling``: blocks of consecutive segments against broad samples."""

    metric: str | None = metric_option()
    samples: int = option(10, "number of blocks and of broad samples", "int", low=2)
    pairs: tuple[tuple[str, str], ...] | None = pairs_option(_PAIRS)


@dataclass(frozen=True, kw_only=True)
class CoverageDesign(Design):
    """``study coverage``: bootstrap intervals on samples, against the full-set score."""

    metric: str | None = metric_option()
    sampling: str = option("random", "how samples are cut", "str", choices=SAMPLINGS)
    samples: int = option(200, "samples", "int", low=1)
    size: int = option(100, "segments per sample", "int", low=2)
    confidence: float = option(0.95, "interval level", "float", low=0, high=1, open=True)
    n_bootstrap: int = option(1000, "bootstrap resamples per sample", "int", low=1, high=MAX_RESAMPLES)
    seed: int = seed_option()

    def __post_init__(self):
        super().__post_init__()
        check_bootstrap(MIN_SEGMENTS_BOOTSTRAP, self.n_bootstrap, self.confidence, "an interval")


@dataclass(frozen=True, kw_only=True)
class LevelsDesign(Design):
    """``study levels``: correctness of conclusions by the significance level they reach."""

    metric: str | None = metric_option()
    sampling: str = option("broad", "how samples are cut", "str", choices=SAMPLINGS)
    samples: int = option(100, "random samples per size", "int", low=1)
    sizes: tuple[int, ...] | None = option(None, _SIZES, "ints", low=1)
    test: str = option("paired-bootstrap", "the test", "str", choices=_test_names)
    n_resamples: int = option(1000, "resamples per test", "int", low=1, high=MAX_RESAMPLES)
    seed: int = seed_option()
    pairs: tuple[tuple[str, str], ...] | None = pairs_option(_PAIRS)


@dataclass(frozen=True, kw_only=True)
class TestsizeDesign(LevelsDesign):
    """``study testsize``: conclusions and their correctness by test-set size (the samples and tests of
    ``levels``, and the level at which a conclusion is drawn)."""

    __test__ = False  # not a pytest test class

    alpha: float = option(0.05, "significance level", "float", low=0, high=1, open=True)


# ------------------------------------------------------------------------------------------------ samples
def block_samples(n_segments: int, k: int) -> np.ndarray:
    """``(k, n)`` segment indices: k blocks of ``n = n_segments // k`` consecutive segments."""
    n = _size_of(n_segments, k)
    return np.arange(k * n).reshape(k, n)


def broad_samples(n_segments: int, k: int) -> np.ndarray:
    """``(k, n)``: sample i holds segments i, i + k, i + 2k, ... (``n = n_segments // k`` of them)."""
    n = _size_of(n_segments, k)
    return np.arange(k * n).reshape(n, k).T.copy()


def random_samples(n_segments: int, size: int, count: int, seed: int, key: tuple[int, ...] = ()) -> np.ndarray:
    """``(count, size)``: each row ``size`` distinct segments (sorted), from its own seeded stream."""
    if not 1 <= size <= n_segments:
        raise InputError(f"a sample of {size} segments does not fit a test set of {n_segments}")
    out = np.empty((count, size), dtype=np.int64)
    for c in range(count):
        out[c] = np.sort(
            stream_rng(seed, STREAM_KEYS["random samples"], *key, size, c).choice(n_segments, size, replace=False)
        )
    return out


def _size_of(n_segments: int, k: int) -> int:
    if k < 2 or n_segments // k < 1:
        raise InputError(f"cannot cut {n_segments} segments into {k} samples (at least 2, of at least 1 segment)")
    return n_segments // k


def samples_of(kind: str, n_segments: int, size: int, count: int, seed: int, key: tuple[int, ...] = ()) -> np.ndarray:
    """Broad samples of ``size`` (as many as fit) or ``count`` random ones."""
    if kind not in SAMPLINGS:
        raise unknown_name("sampling", kind, SAMPLINGS)
    if kind == "broad":
        return broad_samples(n_segments, max(2, n_segments // size))[:, :size]
    return random_samples(n_segments, size, count, seed, key)


# ------------------------------------------------------------------------------------------------ inputs
def _inputs(table, metric: str | None):
    """(metric name, metric, ``{system: pooled statistics (N, d)}``, full-set scores)."""
    name, m, stats = pooled_stats(table, metric)
    full = {s: float(m.score(x.sum(axis=0))) for s, x in stats.items()}
    return name, m, stats, full


def _pairs(table, pairs: Sequence[tuple[str, str]] | None) -> list[tuple[str, str]]:
    names = table.system_names
    if len(names) < 2:
        raise InputError(f"the study compares systems: give at least two (got {len(names)})")
    if pairs is None:
        return list(combinations(names, 2))
    for a, b in pairs:
        for s in (a, b):
            if s not in names:
                raise InputError(f"no system {s!r}; systems: {', '.join(names)}", param="pairs")
    return [(a, b) for a, b in pairs]


def _scores(m, X: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Corpus score of each sample (rows of ``idx``), vectorized."""
    return np.asarray(m.score(X[idx].sum(axis=1)), dtype=np.float64)


def _spread(v: np.ndarray) -> list[float]:
    return [float(v.min()), float(v.max()), float(v.std(ddof=1)) if v.size > 1 else 0.0]


# ------------------------------------------------------------------------------------------------ sampling
def sampling(table, design: SamplingDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Koehn Figs. 2-4: scores of k blocks of consecutive segments against k broad samples, per system, and
    the per-sample differences of pairs (no replicates: ``run`` is not used)."""
    g = design or SamplingDesign()
    k, pairs = g.samples, g.pairs
    name, m, stats, full = _inputs(table, g.metric)
    N = table.n_segments
    blocks, broad = block_samples(N, k), broad_samples(N, k)
    per = {s: {"blocks": _scores(m, X, blocks), "broad": _scores(m, X, broad)} for s, X in stats.items()}
    rows = [[s, full[s], *_spread(v["blocks"]), *_spread(v["broad"])] for s, v in per.items()]
    head = ["system", "full set", "blocks min", "blocks max", "blocks sd", "broad min", "broad max", "broad sd"]
    d = m.decimals
    t1 = StudyTable(f"{name}: per-sample scores ({k} samples of {N // k} segments)", head, rows, [None] + [d] * 7)
    prs = _pairs(table, pairs)
    diffs = {}
    rows2 = []
    for a, b in prs:
        delta = full[b] - full[a]
        db, dr = per[b]["blocks"] - per[a]["blocks"], per[b]["broad"] - per[a]["broad"]
        diffs[f"{a} vs {b}"] = {"blocks": db.tolist(), "broad": dr.tolist(), "full": delta}
        flips = [int(np.sum(np.sign(v) != np.sign(delta))) for v in (db, dr)]
        rows2.append([f"{a} vs {b}", delta, *_spread(db), flips[0], *_spread(dr), flips[1]])
    head2 = ["pair (B - A)", "full-set Δ", "blocks min", "max", "sd", "blocks: other sign", "broad min", "max", "sd",
             "broad: other sign"]  # fmt: skip
    t2 = StudyTable(f"{name}: per-sample differences", head2, rows2, [None, d, d, d, d, None, d, d, d, None])
    data = {
        "scores": {s: {"blocks": v["blocks"].tolist(), "broad": v["broad"].tolist(), "full": full[s]}
                   for s, v in per.items()},
        "differences": diffs,
    }  # fmt: skip
    settings = {"metric": name, "samples": k, "sample size": N // k, "segments": N}
    notes = [
        "blocks: consecutive segments; broad: every k-th segment. A smaller sd for broad samples means that"
        " neighbouring segments are alike (topic, document), so a test set should be sampled broadly."
    ]
    return StudyResult("sampling", settings, (t1, t2), data, tuple(notes), design_dict(g))


# ------------------------------------------------------------------------------------------------ coverage
@dataclass(frozen=True)
class CoverageJob:
    """Sample c: bootstrap intervals of every system by every method, and whether they cover the full set."""

    metric: Metric
    stats: dict
    full: dict
    samples: np.ndarray
    n_bootstrap: int
    confidence: float
    seed: int

    def replicate(self, c: int) -> dict:
        from mtsig.stats.engines import bootstrap_many

        m, rows = self.metric, self.samples[c]
        sub = {s: X[rows] for s, X in self.stats.items()}
        r = Resampling(self.n_bootstrap, self.seed, stream=(STREAM_KEYS["coverage"], rows.size, c))
        boot = bootstrap_many({s: (m, x) for s, x in sub.items()}, r)
        out = {}
        plan = r.plan("bootstrap", rows.size, self.n_bootstrap)  # the resamples behind boot (studentized: their SEs)
        for s, x in sub.items():
            obs, jack = float(m.score(x.sum(axis=0))), jackknife_scores(m, x)
            se = bootstrap_jackknife_se(m, x, plan)
            ivs = {meth: interval(boot[s], meth, self.confidence, observed=obs, jackknife=jack, n=rows.size,
                                  boot_se=se) for meth in CI_METHODS}  # fmt: skip
            out[s] = ({meth: bool(iv.low <= self.full[s] <= iv.high) for meth, iv in ivs.items()},
                      [ivs["percentile"].low, ivs["percentile"].high])  # fmt: skip
        return out


def coverage(table, design: CoverageDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Koehn Fig. 6: bootstrap intervals (percentile, t, BCa, studentized) from samples of ``design.size``
    segments, checked against the full-set score; the coverage rate per method with its binomial interval."""
    from scipy.stats import norm

    g, run = design or CoverageDesign(), run or Runner()
    size, kind, count, seed = g.size, g.sampling, g.samples, g.seed
    n_bootstrap, confidence = g.n_bootstrap, g.confidence
    name, m, stats, full = _inputs(table, g.metric)
    N = table.n_segments
    idx = samples_of(kind, N, size, count, seed, (STREAM_KEYS["coverage"],))
    per = run.replicates("coverage: samples", CoverageJob(m, stats, full, idx, n_bootstrap, confidence, seed), len(idx))
    hits = {(s, meth): [p[s][0][meth] for p in per] for s in stats for meth in CI_METHODS}
    bounds = {s: [p[s][1] for p in per] for s in stats}
    share = size / N
    z = norm.ppf(0.5 + confidence / 2)
    expected = float(2 * norm.cdf(z / np.sqrt(1 - share)) - 1) if kind == "random" and share < 1 else confidence
    rows_m = []
    for meth in CI_METHODS:
        h = [x for s in stats for x in hits[(s, meth)]]
        lo, hi = binomial_interval(int(sum(h)), len(h))
        rows_m.append([meth, len(h), int(sum(h)), 100 * float(np.mean(h)), 100 * lo, 100 * hi, 100 * confidence,
                       100 * expected])  # fmt: skip
    head = ["method", "intervals", "cover the full-set score", "coverage %", "95% CI low", "95% CI high",
            "nominal %", "expected %"]  # fmt: skip
    t1 = StudyTable(f"{name}: coverage of {100 * confidence:g}% bootstrap intervals on {len(idx)} {kind} samples of "
                    f"{size} segments", head, rows_m, [None, None, None, 1, 1, 1, 1, 1])  # fmt: skip
    rows_s = [[s, *(100 * float(np.mean(hits[(s, meth)])) for meth in CI_METHODS)] for s in stats]
    t2 = StudyTable(f"{name}: coverage % per system", ["system", *CI_METHODS], rows_s, [None, *(1 for _ in CI_METHODS)])
    data = {"full": full, "percentile_bounds": {s: b for s, b in bounds.items()},
            "covered": {f"{s}|{meth}": [bool(x) for x in v] for (s, meth), v in hits.items()}}  # fmt: skip
    settings = {"metric": name, "sampling": kind, "sample size": size, "samples": len(idx), "bootstrap": n_bootstrap,
                "confidence": confidence, "seed": seed, "segments": N}  # fmt: skip
    notes = [
        f"expected %: the nominal level widened for sampling {100 * share:.1f}% of a finite test set without "
        "replacement (the bootstrap treats the sample as drawn from an infinite set: 2Φ(z/√(1-n/N)) - 1)."
        if kind == "random"
        else "broad samples are not random draws: compare with the nominal level loosely."
    ]
    return StudyResult("coverage", settings, (t1, t2), data, tuple(notes), design_dict(g))


# ------------------------------------------------------------------------------------------------ test size
@dataclass(frozen=True)
class ConclusionJob:
    """Sample ``(size, c)`` (flattened): every pair tested on it."""

    metric: Metric
    stats: dict
    full: dict
    samples: tuple  # (size, sample number, segment indices) per replicate
    pairs: tuple
    test: str
    n_resamples: int
    seed: int

    def replicate(self, i: int) -> list[dict]:
        from mtsig.stats.paired import paired_test

        size, c, rows = self.samples[i]
        r = Resampling(self.n_resamples, self.seed, stream=(STREAM_KEYS["testsize"], size, c))
        out = []
        for a, b in self.pairs:
            res = paired_test(self.test, self.stats[a][rows], self.stats[b][rows], self.metric, resampling=r)
            out.append({"pair": f"{a} vs {b}", "size": int(size), "sample": c, "delta": res.delta, "p": res.p_value,
                        "full": self.full[b] - self.full[a]})  # fmt: skip
        return out


def _conclusions(table, sizes: list[int], g: LevelsDesign, run: Runner | None = None):
    """Every sample's test of every pair at every size: dicts of pair, size, sample, Δ, p, full-set Δ."""
    name, m, stats, full = _inputs(table, g.metric)
    kind, count = g.sampling, g.samples
    key = (STREAM_KEYS["testsize"],)
    samples = tuple((size, c, rows) for size in sizes
                    for c, rows in enumerate(samples_of(kind, table.n_segments, size, count, g.seed, key)))  # fmt: skip
    job = ConclusionJob(m, stats, full, samples, tuple(_pairs(table, g.pairs)), g.test, g.n_resamples, g.seed)
    per = (run or Runner()).replicates("test sets", job, len(samples))
    # by size, then sample, then pair
    return name, [c for part in per for c in part]


def _sizes(N: int, sizes: Sequence[int] | None, kind: str) -> list[int]:
    largest = N // 2 if kind == "broad" else N - 1
    chosen = [s for s in (sizes or (100, 300, 600)) if s <= largest]
    if sizes is None:
        chosen.append(largest)
    bad = [s for s in (sizes or ()) if not 1 <= s <= largest]
    if bad or not chosen:
        raise InputError(f"sample sizes must lie in 1..{largest} for {kind} samples of {N} segments", param="sizes")
    return sorted(set(chosen))


def _verdict(c: dict, alpha: float) -> str:
    if c["p"] > alpha or c["delta"] == 0:
        return "none"
    return "correct" if np.sign(c["delta"]) == np.sign(c["full"]) else "wrong"


def testsize(table, design: TestsizeDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Koehn Table 3: how often a test at level ``alpha`` concludes a difference on samples of each size, and
    how often that conclusion agrees with the full set (correct) or not (wrong)."""
    g = design or TestsizeDesign()
    kind, test, alpha = g.sampling, g.test, g.alpha
    sizes = _sizes(table.n_segments, g.sizes, kind)
    name, cs = _conclusions(table, sizes, g, run)
    d = table.metrics[name].decimals
    rows: list[list] = []
    curves: dict = {}
    for pair in dict.fromkeys(c["pair"] for c in cs):
        for size in sizes:
            sel = [c for c in cs if c["pair"] == pair and c["size"] == size]
            v = [_verdict(c, alpha) for c in sel]
            ok, bad = v.count("correct"), v.count("wrong")
            rows.append([pair, sel[0]["full"], size, len(sel), 100 * ok / len(sel), 100 * bad / len(sel)])
            curves.setdefault(pair, []).append([size, 100 * ok / len(sel), 100 * bad / len(sel)])
    head = ["pair (B - A)", "full-set Δ", "sample size", "samples", "correct conclusions %", "wrong conclusions %"]
    t = StudyTable(f"{name}: conclusions of {test} at α = {alpha:g} on {kind} samples", head, rows,
                   [None, d, None, None, 1, 1])  # fmt: skip
    settings = {"metric": name, "test": test, "alpha": alpha, "sampling": kind, "sizes": sizes,
                "resamples": g.n_resamples, "seed": g.seed, "segments": table.n_segments}  # fmt: skip
    notes = ["correct: significant and of the same sign as the full-set difference; wrong: significant and of the"
             " other sign (or any significant conclusion where the full set shows no difference)."]  # fmt: skip
    return StudyResult("testsize", settings, (t,), {"curves": curves, "conclusions": cs}, tuple(notes), design_dict(g))


def _level(c: dict) -> float:
    """The significance level (%) a conclusion reaches, one-sided in the direction the sample shows."""
    return 100 * (1 - c["p"] / 2)


def levels(table, design: LevelsDesign | None = None, run: Runner | None = None) -> StudyResult:
    """Koehn Table 4: every sample's conclusion binned by the significance level it reaches (one-sided, in the
    direction the sample shows: ``1 - p/2``), with the share that agrees with the full set."""
    g = design or LevelsDesign()
    kind, test = g.sampling, g.test
    sizes = _sizes(table.n_segments, g.sizes, kind)
    name, cs = _conclusions(table, sizes, g, run)
    rows, bars = [], []
    upper = 100.0
    for low in LEVEL_BINS:
        sel = [c for c in cs if c["delta"] != 0 and low <= _level(c) and (_level(c) < upper or upper == 100.0)]
        ok = sum(np.sign(c["delta"]) == np.sign(c["full"]) for c in sel)
        lo, hi = binomial_interval(int(ok), len(sel)) if sel else (float("nan"), float("nan"))
        label = f"{low:g}-{upper:g}%"
        rows.append([label, len(sel), 100 * ok / len(sel) if sel else None, 100 * lo if sel else None,
                     100 * hi if sel else None])  # fmt: skip
        bars.append([label, len(sel), 100 * ok / len(sel) if sel else None])
        upper = low
    head = ["significance level", "conclusions", "correct %", "95% CI low", "95% CI high"]
    t = StudyTable(f"{name}: conclusions of {test} by significance level ({kind} samples of {sizes})", head, rows,
                   [None, None, 1, 1, 1])  # fmt: skip
    settings = {"metric": name, "test": test, "sampling": kind, "sizes": sizes, "resamples": g.n_resamples,
                "seed": g.seed, "segments": table.n_segments}  # fmt: skip
    notes = [
        "The level a conclusion reaches (1 - p/2) is not the chance that it is right: a calibrated test bounds how "
        "often it is wrong when the systems are equally good (α), but how often a conclusion at 90-95% is right "
        "depends on how far apart the pairs tested here are, so a bin may be right less often than its level "
        "(Koehn's Table 4 found them right more often; with close pairs a bin can fall well below its level while "
        "the test holds α). Read the table as how much to trust a conclusion of that strength on test sets like "
        "these."
    ]
    return StudyResult("levels", settings, (t,), {"bins": bars}, tuple(notes), design_dict(g))
