"""``mtsig human`` on WMT22 de->en (10 systems, 1,984 segments) beside WMT's own procedure on the same file.

    python benchmarks/bench_human.py [--repeat 3]

Rows (best of ``--repeat`` fresh processes each):
- mtsig, default protocol: all 45 pairs by approximate randomization (10,000 shuffles), Holm, 2,000 joint bootstrap
  resamples behind the intervals and the simultaneous rank sets;
- mtsig, ``--protocol wmt22``: WMT22's procedure (90 one-sided Mann-Whitney tests);
- WMT's procedure in R (``wilcox.test(x, y, alternative = "greater")`` for every ordered pair, as WMT22's tables
  were made), when ``Rscript`` is installed; its p-values are also compared with mtsig's wmt22 ones.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEG = ROOT.parent / "shared" / "data" / "wmt22-humaneval-toen" / "de-en" / "ad-seg-scores-de-en.csv"

R_SCRIPT = r"""
d <- read.table(commandArgs(trailingOnly = TRUE)[1], header = TRUE)
systems <- unique(as.character(d$SYS))
out <- c()
for (a in systems) for (b in systems) if (a != b) {
  p <- wilcox.test(d$Z.SCR[d$SYS == a], d$Z.SCR[d$SYS == b], alternative = "greater")$p.value
  out <- c(out, sprintf("%s\t%s\t%.17g", a, b, p))
}
writeLines(out)
"""


def _best(cmd: list[str], repeat: int) -> tuple[float, str]:
    best, out = float("inf"), ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        best = min(best, time.perf_counter() - t0)
        out = p.stdout
    return best, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if not SEG.exists():
        print(f"needs {SEG}", file=sys.stderr)
        return 2
    mtsig = [sys.executable, "-m", "mtsig.cli", "human", str(SEG)]
    subprocess.run([*mtsig, "-f", "json"], capture_output=True, check=True)  # bytecode caches, as installed
    t_default, _ = _best([*mtsig, "-f", "json"], a.repeat)
    t_wmt, out = _best([*mtsig, "--protocol", "wmt22", "-f", "json"], a.repeat)
    ours = {(c["a"], c["b"]): c["p_value"] for c in json.loads(out)["comparisons"]}
    rows = [("mtsig human (default: 45 pairs AR 10k, Holm, rank sets from 2k joint bootstrap)", t_default),
            ("mtsig human --protocol wmt22 (90 one-sided Mann-Whitney tests)", t_wmt)]  # fmt: skip
    note = "Rscript not installed: WMT's procedure in R not run (apt-get install r-base-core)"
    if shutil.which("Rscript"):
        with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
            fh.write(R_SCRIPT)
        t_r, rout = _best(["Rscript", fh.name, str(SEG)], a.repeat)
        rows.append(("R wilcox.test for every ordered pair (WMT22's procedure)", t_r))
        theirs = {tuple(x.split("\t")[:2]): float(x.split("\t")[2]) for x in rout.splitlines() if x}
        worst = max(abs(ours[k] - v) / v for k, v in theirs.items())
        note = f"mtsig wmt22 vs R: {len(theirs)} p-values, largest relative difference {worst:.1e}"
    print("| workload | seconds |\n|---|---|")
    for label, t in rows:
        print(f"| {label} | {t:.3f} |")
    print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
