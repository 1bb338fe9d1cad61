"""A one-pair comparison's start-up against numpy's own: ``python -c "import numpy"`` (the floor every numpy tool
pays) and ``mtsig compare`` of the shipped example (40 segments, approximate randomization, 10,000 shuffles),
run alternately in fresh processes with bytecode caches (as an installed package has them), best of ``--repeat``;
prints both and the ratio. With ``--before REV``, the same for that revision's tree (exported and built as
``same_bytes.py`` does) in the same alternation.

    python benchmarks/startup.py [--repeat 25] [--before REV]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import same_bytes as sb  # noqa: E402

EX = Path(__file__).resolve().parents[1] / "examples"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=25)
    ap.add_argument("--before", default=None, help="also a git revision's tree")
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # caches, as installed
    compare = ["-m", "mtsig", "compare", "-r", str(EX / "ref.A.en"), "-s", str(EX / "base.en"), str(EX / "new.en"),
               "-q"]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this tree": None}
        if a.before:
            trees[a.before] = sb.export(a.before, Path(tmp) / "before")
        runs = {"import numpy": ([sys.executable, "-c", "import numpy"], env)}
        for label, tree in trees.items():
            e = env if tree is None else {**env, "PYTHONPATH": str(tree / "src")}
            runs[f"mtsig compare ({label})"] = ([sys.executable, *compare], e)
        best = {k: float("inf") for k in runs}
        for i in range(a.repeat + 1):  # the first round writes the bytecode caches: not counted
            for k, (cmd, e) in runs.items():
                t0 = time.perf_counter()
                subprocess.run(cmd, env=e, capture_output=True, check=True)
                if i:
                    best[k] = min(best[k], time.perf_counter() - t0)
    floor = best["import numpy"]
    print(f"best of {a.repeat}, alternating, fresh processes with bytecode caches\n")
    print("| command | time | x numpy's start-up |\n|---|---|---|")
    for k, v in best.items():
        print(f"| {k} | {v:.3f} s | {v / floor:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
