"""mtsig's confidence sequences (:mod:`mtsig.stats.confseq`) against the paper's reference implementation, the
``confseq`` package's pure-Python ``predmix_empbern_twosided_cs`` and ``betting_cs`` (defaults), on the same
streams, with and without sampling without replacement (``N``): the largest difference of the bounds, and the
time of each.

    python benchmarks/confseq_oracle.py --confseq CONFSEQ_SRC [--json OUT]

``CONFSEQ_SRC`` is the ``src`` folder of confseq's source distribution (``pip download --no-deps confseq``,
unpacked; 0.0.11): its pure-Python modules are imported from there (the package's C++ boundaries are not needed).
Two shims let them import under NumPy 2: ``np.float_`` (a removed alias used in a type hint) and ``multiprocess``
(only for its parallel option, unused). The streams: Bernoulli, Beta, a constant, one value, and real paired
document differences of two WMT24 ESA systems rescaled from [-100, 100]. ``--json OUT`` writes the streams and
confseq's bounds (what ``tests/stats/test_confseq.py`` holds mtsig to).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
ALPHAS = (0.05, 0.01 / 78)


def streams() -> dict[str, list[float]]:
    rng = np.random.default_rng(20261129)
    out = {
        "bernoulli-0.3": rng.binomial(1, 0.3, 150).astype(float),
        "beta-2-5": rng.beta(2, 5, 200),
        "constant-0.5": np.full(60, 0.5),
        "one": np.array([0.8]),
        "edges": rng.choice([0.0, 1.0, 0.5], 90),
    }
    try:
        from mtsig.io.human import read_human
        from tests.data import DATA

        h = read_human(str(DATA / "wmt24-esa" / "esa_generalMT2024_wave3.csv"), lp="en-ja",
                       docs=str(DATA / "wmt24-esa" / "en-ja.docs"))  # fmt: skip
        docs = list(dict.fromkeys(h.documents))
        d = np.array(h.documents)
        a, b = h.systems.index("Claude-3.5"), h.systems.index("GPT-4")
        diff = [np.nanmean(h.scores[a, d == x]) - np.nanmean(h.scores[b, d == x]) for x in docs]
        out["esa-doc-differences"] = (np.array([v for v in diff if np.isfinite(v)]) + 100) / 200
    except Exception as exc:  # noqa: BLE001 - the shared data is optional here
        print(f"(no ESA stream: {exc})")
    return {k: [float(v) for v in x] for k, x in out.items()}


def load_confseq(src: Path):
    np.float_ = np.float64  # type: ignore[attr-defined] # removed in NumPy 2; confseq.misc names it in a hint
    sys.modules.setdefault("multiprocess", types.ModuleType("multiprocess"))
    sys.path.insert(0, str(src))
    from confseq.betting import betting_cs
    from confseq.predmix import predmix_empbern_twosided_cs

    return predmix_empbern_twosided_cs, betting_cs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--confseq", required=True, type=Path, help="confseq's src folder (0.0.11)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    from mtsig.stats.confseq import betting, predmix_eb

    ref_eb, ref_bet = load_confseq(a.confseq)
    data = streams()
    out: dict = {"confseq": "0.0.11", "alphas": list(ALPHAS), "streams": data, "predmix_eb": {}, "betting": {}}
    worst = {"predmix_eb": 0.0, "betting": 0.0}
    took = {"ours": 0.0, "confseq": 0.0}
    for name, x in data.items():
        arr = np.array(x)
        for alpha, N in [(a, None) for a in ALPHAS] + [(ALPHAS[0], len(arr) + len(arr) // 3)]:
            key = f"{name}@{alpha!r}" + (f"@{N}" if N else "")
            for method, mine, ref in (("predmix_eb", predmix_eb, ref_eb), ("betting", betting, ref_bet)):
                t0 = time.perf_counter()
                lo_r, hi_r = ref(arr, alpha=alpha, N=N)
                t1 = time.perf_counter()
                lo, hi = mine(arr, alpha=alpha, N=N)
                t2 = time.perf_counter()
                took["confseq"] += t1 - t0
                took["ours"] += t2 - t1
                worst[method] = max(worst[method], float(np.max(np.abs(lo - lo_r))), float(np.max(np.abs(hi - hi_r))))
                out[method][key] = [list(map(float, lo_r)), list(map(float, hi_r))]
    n = sum(len(x) for x in data.values())
    print(f"{len(data)} streams ({n} observations) x alphas {ALPHAS}")
    print(f"  largest difference: predmix EB {worst['predmix_eb']:.1e}, betting {worst['betting']:.1e}")
    print(f"  time: confseq {took['confseq']:.2f} s, mtsig {took['ours']:.2f} s "
          f"({took['confseq'] / max(took['ours'], 1e-9):.0f}x)")  # fmt: skip
    if a.json:
        a.json.write_text(json.dumps(out) + "\n", encoding="utf-8")
        print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
