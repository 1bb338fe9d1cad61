"""Calibration of ``mtsig meta``'s tests between metrics under a null: two metrics of equal quality (the human
scores plus independent noise of the same size), so neither agrees with humans better than the other.

    python benchmarks/meta_calibration.py [--replicates 1000] [--seed 11] [--noise segment|document] [--rho 0.3]

Human scores: WMT22 de->en DA judgments (../shared/data/wmt22-humaneval-toen), the 10 systems, the first
``--segments`` segments, documents recovered from the HITs; a replicate draws both metrics' noise anew:
- ``--noise segment``: independent normal noise per (system, segment);
- ``--noise system``: besides that, each metric misjudges each system by a constant N(0, ``--system-sd``) (a
  metric's per-system error, which resampling segments or documents never varies);
- ``--noise document``: the noise of a system's segments of one document shares a part (intra-class correlation
  ``--rho``, 0.3: a metric that misjudges a system on a document misjudges its neighbouring segments too, as human
  judgments of one document are correlated: WMT22 DA 0.15-0.27).
Rejection rates at α 0.05 and 0.01 with 95% Clopper-Pearson intervals, for
- the one-sided p in a direction fixed in advance ("metric A agrees better than B"): should reject α;
- the decision mtsig reports (``significant``: twice the one-sided p of the observed direction, i.e. two-sided);
- the one-sided p in the observed direction as WMT's greedy clusters use it (about 2α: it picks its direction
  after looking).
Cells: level, statistic, test, averaging and the resampling unit (segments, or documents: PERM-BOTH swaps a
system's entries of one document together; the bootstrap draws whole documents). System-level soft pairwise
accuracy (``spa``, ``--only system:spa:perm-both``) swaps a system's rows of scores whole, as every system-level
PERM-BOTH of ``mtsig meta`` does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from mtsig.io.human import read_human  # noqa: E402
from mtsig.metaeval.core import MetaData, MetaOptions, MetricScores, segment_level, spa, system_level  # noqa: E402
from mtsig.metaeval.run import _bootstrap_system, _count, pair_test, spa_tests, swap_masks  # noqa: E402

HUMAN = ROOT.parent / "shared" / "data" / "wmt22-humaneval-toen" / "de-en" / "ad-deen-good-stnd.csv"
CELLS = tuple((level, stat, test, "item", unit) for level, stat, test, units in (
    ("system", "pearson", "perm-both", ("segment",)), ("system", "pearson", "bootstrap", ("segment", "document")),
    ("segment", "pearson", "perm-both", ("segment", "document")), ("segment", "kendall", "perm-both",
    ("segment", "document")), ("segment", "acc23", "perm-both", ("segment", "document")),
    ("segment", "acc23", "pairwise", ("segment",)), ("system", "spa", "perm-both", ("segment",)))
    for unit in units)  # fmt: skip


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    from scipy.stats import beta

    lo = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
    return lo, hi


def _noise(shape, docs: np.ndarray, rho: float, rng: np.random.Generator) -> np.ndarray:
    """Normal noise of unit variance; with ``rho`` > 0 a system's segments of one document share a part of it."""
    e = rng.normal(size=shape)
    if rho <= 0:
        return e
    u = rng.normal(size=(shape[0], int(docs.max()) + 1))[:, docs]
    return np.sqrt(rho) * u + np.sqrt(1 - rho) * e


def _system_error(shape, sd: float, rng: np.random.Generator) -> np.ndarray:
    """``--noise system``: each metric misjudges each system by its own constant N(0, sd) (on every segment of it),
    besides the per-segment noise: an error that resampling segments or documents never varies."""
    if sd <= 0:
        return np.zeros(shape)
    return rng.normal(0, sd, (shape[0], 1)) * np.ones((1, shape[1]))


def one_replicate(H: np.ndarray, docs, cell, rng: np.random.Generator, seed: int, how: tuple[int, float]):
    level, stat, test, avg, unit = cell
    permutations, rho, sys_sd = how
    base = np.nan_to_num(H)
    a = np.round(base + _noise(H.shape, docs, rho, rng) + _system_error(H.shape, sys_sd, rng), 3)
    b = np.round(base + _noise(H.shape, docs, rho, rng) + _system_error(H.shape, sys_sd, rng), 3)
    ms = (MetricScores(name="A", segments=a, systems=a.mean(1)), MetricScores(name="B", segments=b, systems=b.mean(1)))
    d = MetaData(systems=tuple(map(str, range(H.shape[0]))), human=H, human_systems=np.nanmean(H, 1), metrics=ms,
                 item_documents=tuple(f"d{x}" for x in docs))  # fmt: skip
    # the system-level bootstrap is no longer offered by mtsig meta (this benchmark measured why); it is still
    # measured here, through its private function
    opts = MetaOptions(level=level, statistic=stat, test="perm-both" if test == "bootstrap" else test, average_by=avg,
                       n_resamples=permutations, n_bootstrap=40, seed=seed, resample_unit=unit)  # fmt: skip
    values, eps = {}, {}
    if stat == "spa":  # both directions from one run of the engine (the same masks)
        values = {m.name: spa(H, m.segments) for m in ms}
        (_, fixed), (_, other) = spa_tests(d, [(ms[0], ms[1]), (ms[1], ms[0])], opts, permutations)
        observed = fixed if values["A"] >= values["B"] else other
        return fixed, min(1.0, 2 * observed), observed
    for m in ms:  # only the compared statistic (run_meta would compute every one): which metric looks better
        if level == "system":
            values[m.name] = float(system_level(d.human_systems, m.systems[None], stat)[0])
        else:
            values[m.name], eps[m.name] = segment_level(H, m.segments, stat, avg)
    if test == "bootstrap":

        def one(x, y):
            obs, null = _bootstrap_system(d, x, y, stat, opts, permutations)
            return obs, (_count(obs, null) + 1) / (null.size + 1)
    else:
        W = swap_masks(d, opts)

        def one(x, y):
            return pair_test(d, x, y, opts, eps, W)

    fixed = one(ms[0], ms[1])[1]  # "A agrees better", decided in advance
    a, b = (ms[0], ms[1]) if values["A"] >= values["B"] else (ms[1], ms[0])
    observed = fixed if a is ms[0] else one(a, b)[1]
    return fixed, min(1.0, 2 * observed), observed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--segments", type=int, default=400, help="segments used (the first N with judgments)")
    ap.add_argument(
        "--only", default=None, metavar="LEVEL:STATISTIC:TEST", help="one cell, e.g. segment:acc23:perm-both"
    )
    ap.add_argument("--permutations", type=int, default=1000, help="permutations per test (1000)")
    ap.add_argument("--noise", choices=("segment", "document", "system"), default="segment")
    ap.add_argument(
        "--system-sd",
        type=float,
        default=0.1,
        help="--noise system: the sd of each metric's constant error per system (0.1)",
    )
    ap.add_argument("--rho", type=float, default=0.3, help="--noise document: the noise's intra-class correlation")
    a = ap.parse_args()
    h = read_human(str(HUMAN))
    H = h.scores[:, : a.segments]
    _, docs = np.unique(np.asarray(h.documents[: a.segments], dtype=object), return_inverse=True)
    rho = a.rho if a.noise == "document" else 0.0
    rng = np.random.default_rng(a.seed)
    t0 = time.perf_counter()
    shape = f"{H.shape[0]} systems x {H.shape[1]} segments in {docs.max() + 1} documents"
    print(f"{a.replicates} replicates per cell, {shape}, {a.permutations} permutations each; noise {a.noise}"
          + (f" (intra-class correlation {rho})" if rho else "")
          + (f" (each metric's error per system N(0, {a.system_sd:g}) besides N(0, 1) per segment)"
             if a.noise == "system" else "") + "\n")  # fmt: skip
    print("| level | statistic | test | unit | p fixed direction: 0.05 / 0.01 | reported decision (two-sided): 0.05 / "
          "0.01 | observed direction one-sided: 0.05 / 0.01 |\n|---|---|---|---|---|---|---|")  # fmt: skip
    cells = [c for c in CELLS if a.only is None or a.only in (":".join(c[:3]), ":".join((*c[:3], c[4])))]
    for cell in cells:
        sys_sd = a.system_sd if a.noise == "system" else 0.0
        ps = np.array([one_replicate(H, docs, cell, rng, a.seed * 1000 + r, (a.permutations, rho, sys_sd))
                       for r in range(a.replicates)])  # fmt: skip
        cols = []
        for j in range(3):
            parts = []
            for al in (0.05, 0.01):
                k = int(np.sum(ps[:, j] <= al))
                lo, hi = clopper_pearson(k, a.replicates)
                parts.append(f"{k / a.replicates:.3f} [{lo:.3f}, {hi:.3f}]")
            cols.append(" / ".join(parts))
        unit = "-" if cell[0] == "system" and cell[2] == "perm-both" else cell[4]
        print(f"| {' | '.join(cell[:3])} | {unit} | {' | '.join(cols)} |", flush=True)
    print(f"\n({time.perf_counter() - t0:.0f} s, seed {a.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
