"""A second language pair made from the shared WMT23 en-de folder, to check what only several pairs exercise
(pairwise accuracy pooled over pairs, averages over tasks of several pairs) against mt-metrics-eval itself.

The copy is ``zh-en`` (WMT23's facts: reference refA, outlier synthetic_ref): every file of en-de under the new
pair's name, the MQM scores moved by seeded noise (each system's score, each domain score and each segment score,
``None`` kept), so the human ranking and the correlations differ from en-de's. The metric scores are en-de's.

    python -m tests.meta.mtme_fake OUT      # OUT/wmt23/ then holds en-de (linked) and the made zh-en
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np


def _noisy(src: Path, dst: Path, rng: np.random.Generator, sd: float) -> None:
    out = []
    for ln in src.read_text(encoding="utf-8").splitlines():
        *keys, x = ln.split("\t")
        out.append("\t".join([*keys, x if x == "None" else repr(float(x) + float(rng.normal(0.0, sd)))]))
    dst.write_text("\n".join(out) + "\n", encoding="utf-8")


def make_pair(wmt23: Path, out: Path, lp: str = "zh-en", seed: int = 0) -> Path:
    """``out/wmt23`` with en-de linked from ``wmt23`` and ``lp`` made from it; returns ``out/wmt23``."""
    rng = np.random.default_rng(seed)
    root = out / "wmt23"
    for sub in ("sources", "references", "documents", "human-scores", "system-outputs", "metric-scores"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for sub in ("sources", "references", "documents", "human-scores"):
        for f in sorted((wmt23 / sub).iterdir()):
            if not f.name.startswith("en-de."):
                continue
            link = root / sub / f.name
            if not link.exists():
                os.symlink(f.resolve(), link)
            made = root / sub / (lp + f.name[len("en-de") :])
            if sub == "human-scores" and ".mqm." in f.name and f.name.endswith(".score"):
                _noisy(f, made, rng, {"sys": 1.5, "domain": 1.5, "seg": 3.0}[f.name.split(".")[-2]])
            elif not made.exists():
                os.symlink(f.resolve(), made)
    for sub in ("system-outputs", "metric-scores"):
        link = root / sub / "en-de"
        if not link.exists():
            os.symlink((wmt23 / sub / "en-de").resolve(), link)
        made = root / sub / lp
        if not made.exists():
            os.symlink((wmt23 / sub / "en-de").resolve(), made)
    return root


if __name__ == "__main__":
    here = Path(__file__).resolve().parents[2]
    print(make_pair(here.parent / "shared" / "data" / "mtme-wmt23-ende" / "wmt23", Path(sys.argv[1])))
