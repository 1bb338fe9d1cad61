"""Peak memory and time of ``mtsig human`` (and ``mtsig meta`` at segment level) as the systems grow.

    python benchmarks/bench_human_scale.py [--systems 100 1000 10000] [--segments 1000] [--src DIR] [--limit-gb 8]
    python benchmarks/bench_human_scale.py --meta 60 [--segments 1000]

Synthetic judgments: K systems x N segments, every segment judged for every system (scores normal around a
per-system quality). Each run is ``mtsig human FILE -f json`` in a fresh process (``--src DIR`` runs another
checkout's ``src``, e.g. the code before a change), its peak resident memory read from ``/usr/bin/time -v``,
under an address-space limit (``--limit-gb``) so that a run that would take the machine's memory fails instead.
``--meta M``: M metrics (human scores plus noise) at segment level, ``mtsig meta --level segment``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def write_judgments(path: Path, K: int, N: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    quality = rng.normal(0, 0.05, K)
    with open(path, "w") as f:
        f.write("system\tsegment\tscore\n")
        for k in range(K):
            x = np.round(rng.normal(quality[k], 1, N), 3)
            f.write("".join(f"S{k:05d}\t{i + 1}\t{v}\n" for i, v in enumerate(x)))


def write_metrics(folder: Path, M: int, K: int, N: int, seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    H = np.loadtxt(folder / "h.tsv", skiprows=1, usecols=2).reshape(K, N)
    out = []
    for m in range(M):
        x = np.round(H + rng.normal(0, 1 + m / M, H.shape), 3)
        p = folder / f"m{m}.seg.score"
        with open(p, "w") as f:
            f.write("".join(f"S{k:05d} {v}\n" for k in range(K) for v in x[k]))
        out.append(f"M{m}={p}")
    return out


def run(cmd: list[str], src: Path, limit_gb: float) -> tuple[float, float, int, str]:
    """Wall seconds, peak RSS in GiB, exit status and the last stderr line of one command."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    limit = int(limit_gb * 2**30)
    shell = f"ulimit -v {limit // 1024}; exec /usr/bin/time -v {' '.join(cmd)} > /dev/null"
    p = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, env=env)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    secs = sum(float(x) * 60**i for i, x in enumerate(reversed(wall.group(1).split(":")))) if wall else float("nan")
    last = next((ln for ln in p.stderr.splitlines() if ln.startswith(("mtsig:", "MemoryError", "Traceback"))), "")
    return secs, int(rss.group(1)) / 2**20 if rss else float("nan"), p.returncode, last


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--segments", type=int, default=1000)
    ap.add_argument("--src", default=str(ROOT / "src"), help="the src folder to run (default: this checkout's)")
    ap.add_argument("--limit-gb", type=float, default=8.0)
    ap.add_argument("--meta", type=int, default=None, metavar="M", help="segment-level meta with M metrics instead")
    a = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if a.meta:
            K = a.systems[0] if a.systems != [100, 1000, 10000] else 10
            write_judgments(folder / "h.tsv", K, a.segments)
            specs = write_metrics(folder, a.meta, K, a.segments)
            cmd = [py, "-m", "mtsig.cli", "meta", "--human", str(folder / "h.tsv"), "--metric", *specs, "--level",
                   "segment", "-f", "json", "-q"]  # fmt: skip
            secs, gb, rc, last = run(cmd, Path(a.src), a.limit_gb)
            print(f"meta --level segment, {a.meta} metrics x {K} systems x {a.segments} segments: {secs:.0f} s, peak "
                  f"{gb:.2f} GiB, exit {rc} {last}")  # fmt: skip
            return 0
        print(f"mtsig human, every segment judged for every system, {a.segments} segments; src {a.src}")
        print("| systems | pairs | wall | peak memory | exit | message |\n|---|---|---|---|---|---|")
        for K in a.systems:
            path = folder / f"h{K}.tsv"
            write_judgments(path, K, a.segments)
            cmd = [py, "-m", "mtsig.cli", "human", str(path), "-f", "json", "-q"]
            secs, gb, rc, last = run(cmd, Path(a.src), a.limit_gb)
            print(f"| {K:,} | {K * (K - 1) // 2:,} | {secs:.0f} s | {gb:.2f} GiB | {rc} | {last[:150]} |", flush=True)
            path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
