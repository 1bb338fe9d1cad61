"""Judgments in WMT25's humeval format, made here from a seed, for holding ``--protocol wmt25`` to WMT25's own
script (``benchmarks/wmt25_oracle.py`` runs the script on this file; the test compares with what it wrote).

Two language pairs, 12 systems of graded quality, paragraphs of three domains judged in two waves (scores 0-100 in
whole points, so ties and zero differences occur, as in ESA), a few judgments missing and one system that judged
only part of the items.

    python -m tests.humaneval.wmt25_fake OUT.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

PAIRS = ("en-cs_CZ", "en-ja_JP")
QUALITY = (80, 79, 78, 76, 75, 75, 72, 70, 69, 64, 62, 50)


def make_humeval(path: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    lines = []
    for lp in PAIRS:
        for d in range(30):
            domain = ("news", "social", "speech")[d % 3]
            base = rng.normal(0, 10)
            for para in range(int(rng.integers(2, 6))):
                item = f"{lp}_#_{domain}_#_doc{d}_#_{para}"
                scores = {}
                for k, q in enumerate(QUALITY):
                    if k == 11 and d % 2:  # the last system judged on half the documents only
                        continue
                    judged = {}
                    for wave in ("human1", "human2"):
                        if rng.random() < 0.04:  # a judgment missing
                            continue
                        judged[wave] = float(np.clip(round(q + base + rng.normal(0, 12)), 0, 100))
                    scores[f"S{k:02d}"] = judged
                lines.append(json.dumps({"doc_id": item, "scores": scores}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    print(make_humeval(Path(sys.argv[1])))
