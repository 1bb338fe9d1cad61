"""Coverage of the document-level bootstrap interval against the number of documents (issue 40).

The population: the WMT22 de-fr test set (WMT XML, its documents). Each replicate draws a test set of D documents
with replacement from it, computes each system's BLEU interval by resampling whole documents (1,000 resamples, as
``mtsig score --ci --resample-unit document``), and checks whether it covers the population's BLEU (the score of
the whole test set). Methods: ``percentile`` (mtsig's default), ``t`` (bootstrap standard error, t quantile on
D - 1 degrees of freedom), ``bca`` (bias-corrected and accelerated, the jackknife over documents), ``studentized``
(the bootstrap-t, each resample's jackknife standard error: ``--ci-method studentized``) and ``widened`` (the
percentile interval stretched about the score by sqrt(D / (D - 1)) t(D - 1) / z, a small-sample correction).
Prints the coverage of the 95% intervals with 95% Clopper-Pearson intervals.

    python benchmarks/coverage_documents.py [--reps 1000] [--docs 25 50 113 227]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import mtsig
from mtsig.resample import Resampling
from mtsig.stats.intervals import bootstrap_jackknife_se, interval, jackknife_scores
from mtsig.studies.nulls import binomial_interval
from mtsig.units import group_index

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SYSTEMS = ("Online-W", "Online-Y", "LT22")
METHODS = ("percentile", "t", "bca", "studentized", "widened")


def documents() -> tuple:
    """The metric, and each system's statistics summed per document (documents x statistics)."""
    x = str(DATA / "wmt22-de-fr" / "wmttest2022.de-fr.all.xml")
    t = mtsig.compute(x, [f"{x}:{s}" for s in SYSTEMS], ["bleu"])
    idx, names = group_index(t.units["document"])
    per_doc = {}
    for s in SYSTEMS:
        seg = t.stats["bleu"][s][0]
        per_doc[s] = np.stack([seg[idx == j].sum(axis=0) for j in range(len(names))])
    return t.metrics["bleu"], per_doc


def widened(boot, observed, D, confidence=0.95):
    """The percentile interval widened about the observed score by sqrt(D / (D - 1)) * t(D - 1) / z."""
    from scipy import stats as sps

    a = (1 - confidence) / 2
    lo, hi = np.quantile(boot, [a, 1 - a])
    f = np.sqrt(D / (D - 1)) * sps.t.ppf(1 - a, D - 1) / sps.norm.ppf(1 - a)
    return observed - f * (observed - lo), observed + f * (hi - observed)


def coverage(  # noqa: PLR0913 - the cell's settings
    metric, docs: np.ndarray, D: int, reps: int, n_boot: int, seed: int, conf: float = 0.95
) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    truth = float(metric.score(docs.sum(axis=0)))
    hits = dict.fromkeys(METHODS, 0)
    for _ in range(reps):
        S = docs[rng.integers(len(docs), size=D)]  # a test set of D documents
        plan = Resampling(n_resamples=n_boot, seed=int(rng.integers(2**31))).plan("bootstrap", D, n_boot)
        boot = np.asarray(metric.score(np.concatenate(list(plan.chunks())) @ S), dtype=np.float64)
        observed = float(metric.score(S.sum(axis=0)))
        jack = jackknife_scores(metric, S)
        boot_se = bootstrap_jackknife_se(metric, S, plan)  # mtsig's own (score --ci-method studentized)
        for m in METHODS[:4]:
            iv = interval(boot, m, conf, observed=observed, jackknife=jack, n=D, boot_se=boot_se)
            hits[m] += iv.low <= truth <= iv.high
        lo, hi = widened(boot, observed, D, conf)
        hits["widened"] += lo <= truth <= hi
    return hits


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--n-bootstrap", type=int, default=1000)
    ap.add_argument("--docs", type=int, nargs="+", default=[25, 50, 113, 227])
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--confidence", type=float, default=0.95, help="the intervals' level (coverage is of the truth)")
    a = ap.parse_args()
    if not DATA.exists():
        print(f"needs {DATA}", file=sys.stderr)
        return 2
    metric, per_doc = documents()
    n_docs = len(next(iter(per_doc.values())))
    print(f"WMT22 de-fr, {n_docs} documents; {a.reps} test sets per cell, {a.n_bootstrap} document resamples each, "
          f"seed {a.seed}; coverage of {a.confidence:.0%} intervals [95% Clopper-Pearson]\n")  # fmt: skip
    print("| documents | system | " + " | ".join(METHODS) + " |")
    print("|---|---|" + "---|" * len(METHODS))
    for D in a.docs:
        for i, s in enumerate(SYSTEMS):
            hits = coverage(metric, per_doc[s], D, a.reps, a.n_bootstrap, a.seed + 1000 * D + i, a.confidence)
            cells = []
            for m in METHODS:
                lo, hi = binomial_interval(hits[m], a.reps)
                cells.append(f"{hits[m] / a.reps:.3f} [{lo:.3f}, {hi:.3f}]")
            print(f"| {D} | {s} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
