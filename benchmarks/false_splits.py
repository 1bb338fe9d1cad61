"""False splits of each WMT ranking procedure under a null made from the same data, beside mtsig's rank sets.

    python benchmarks/false_splits.py [--data wmt22:de-en wmt24:en-ja ...] [--replicates 1000] [--seed 5]

Null: pseudo-systems from a pair's K real systems. In every document the K systems' judgments go to the K
pseudo-systems in a random order (whole documents, so the judgments' dependence within documents stays; domains
stay with their documents), so all pseudo-systems are equally good by construction and every true rank is 1. A
procedure *splits falsely* when it puts them in more than one cluster. For mtsig: its clusters (Holm-corrected
paired tests) and whether its simultaneous 95% rank sets all hold rank 1.

Data: WMT22 into-English DA (``../shared/data/wmt22-humaneval-toen``, documents recovered from the HITs) and WMT24's
ESA wave 3 (``../shared/data/wmt24-esa``, with its ``.docs`` files: documents and domains). Protocols: ``wmt22``,
``wmt24`` (WMT24's humeval/tools.py), ``wmt24-signed``, ``wmt25`` (WMT25's 08-compute_clusters.py; segment-paired:
these data have one wave) and ``mtsig``. 95% Clopper-Pearson intervals.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from human_calibration import cell  # noqa: E402

from mtsig.humaneval.protocols import HumanOptions, run_human  # noqa: E402
from mtsig.io.human import HumanScores, read_human  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def load(spec: str) -> HumanScores:
    year, lp = spec.split(":")
    if year == "wmt22":
        src = lp.split("-")[0]
        return read_human(str(DATA / "wmt22-humaneval-toen" / lp / f"ad-{src}en-good-stnd.csv"))
    esa = DATA / "wmt24-esa"
    return read_human(str(esa / "esa_generalMT2024_wave3.csv"), lp=lp, docs=str(esa / f"{lp}.docs"))


def pseudo(h: HumanScores, rng: np.random.Generator) -> HumanScores:
    """Per document, the K systems' judgments of it dealt to K pseudo-systems in a random order."""
    K, N = h.scores.shape
    _, inv = np.unique(np.asarray(h.documents, dtype=object), return_inverse=True)
    perm = np.argsort(rng.random((inv.max() + 1, K)), axis=1)[inv]  # (N, K): one order per document
    S = h.scores[perm.T, np.arange(N)[None, :]]
    return replace(h, systems=tuple(f"p{j:02d}" for j in range(K)), scores=S,
                   judgments=h.judgments[perm.T, np.arange(N)[None, :]], runs=None)  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", nargs="+", default=["wmt22:de-en", "wmt22:cs-en", "wmt24:en-ja", "wmt24:en-zh"])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--n-bootstrap", type=int, default=1000, help="mtsig's rank sets: bootstrap resamples")
    ap.add_argument("--n-resamples", type=int, default=2000, help="mtsig's paired tests: resamples per pair")
    ap.add_argument("--protocols", nargs="+", default=None, help="the protocols to run (default: every one)")
    ap.add_argument("--confidence", type=float, default=0.95, help="the level of mtsig's rank sets")
    a = ap.parse_args()
    print(
        f"{a.replicates} replicates per data set, seed {a.seed}, mtsig's rank sets at {a.confidence:.0%}; share of "
        "replicates with more than one cluster\n"
    )
    print(
        "| data | systems | documents | wmt22 | wmt24 | wmt24-signed | wmt25 | mtsig clusters | mtsig rank sets miss |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for spec in a.data:
        h = load(spec)
        has_domains = h.domains is not None
        protocols = ["wmt22", "wmt24", "wmt24-signed", "wmt25", "mtsig"] if has_domains else ["wmt22", "wmt25", "mtsig"]
        protocols = [p for p in protocols if a.protocols is None or p in a.protocols]
        splits = dict.fromkeys([*protocols, "sets"], 0)
        rng = np.random.default_rng(a.seed)
        t0 = time.perf_counter()
        for r in range(a.replicates):
            ph = pseudo(h, rng)
            for p in protocols:
                opts = HumanOptions(protocol=p, seed=a.seed * 100_003 + r, n_bootstrap=a.n_bootstrap,
                                    n_resamples=a.n_resamples if p == "mtsig" else None,
                                    confidence=a.confidence)  # fmt: skip
                res = run_human(ph, opts)
                splits[p] += len(res.clusters) > 1
                if p == "mtsig":
                    splits["sets"] += any(s.rank_range[0] > 1 for s in res.systems)
        n = a.replicates
        row = [spec, str(len(h.systems)), str(h.n_documents)]
        for p in ("wmt22", "wmt24", "wmt24-signed", "wmt25", "mtsig", "sets"):
            row.append(cell(splits[p], n) if p in splits else "-")
        print("| " + " | ".join(row) + f" |  <!-- {time.perf_counter() - t0:.0f} s -->", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
