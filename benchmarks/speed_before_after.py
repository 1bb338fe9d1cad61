"""score, compare and analyze timed on two revisions (issue 37's before/after table): each tree exported and built
as ``same_bytes.py`` does, every command run alternately on both, the best of ``--repeat`` printed.

    python benchmarks/speed_before_after.py --before REV [--repeat 5]
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
from _common import SYSTEMS, WMT, need_data  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True, help="git revision of the old code")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    need_data()
    h = [f"{s}={WMT}/generaltest2022.de-en.hyp.{s}.en" for s in SYSTEMS]
    r = [f"{WMT}/generaltest2022.de-en.ref.A.en"]
    cmds = {"score (bleu chrf ter, --ci)": ["score", "-r", *r, "-s", *h, "-m", "bleu", "chrf", "ter", "--ci"],
            "compare (bleu chrf, ar)": ["compare", "-r", *r, "-s", *h, "-m", "bleu", "chrf"],
            "analyze (default analyses)": ["analyze", "-r", *r, "-s", *h, "-j", "1"]}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"before": sb.export(a.before, Path(tmp) / "before"), "after": sb.export(None, Path(tmp) / "after")}
        best = {(c, k): float("inf") for c in cmds for k in trees}
        for _ in range(a.repeat):
            for c, argv in cmds.items():
                for k, t in trees.items():
                    env = {**os.environ, "PYTHONPATH": str(t / "src")}
                    t0 = time.perf_counter()
                    p = subprocess.run([sys.executable, "-m", "mtsig", *argv, "-q"], env=env, capture_output=True)
                    if p.returncode != 0:
                        sys.exit(f"{k}: {' '.join(argv)} failed: {p.stderr.decode()[-500:]}")
                    best[(c, k)] = min(best[(c, k)], time.perf_counter() - t0)
    print(f"WMT22 de-en, {len(SYSTEMS)} systems, best of {a.repeat}, alternating\n")
    print(f"| command | before ({a.before}) | after | ratio |\n|---|---|---|---|")
    for c in cmds:
        b, f = best[(c, "before")], best[(c, "after")]
        print(f"| {c} | {b:.2f} s | {f:.2f} s | {b / f:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
