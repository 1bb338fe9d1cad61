"""METEOR: mtsig against meteor-1.5.jar and MultEval on MultEval's example, in one session.

Rows (each command in a fresh process; wall time and peak memory from /usr/bin/time):
  stats   METEOR of the 9 outputs (3 systems x 3 runs x 2,489 segments): the jar once per output, as a user
          (or MultEval) runs it, against one ``mtsig score -m meteor`` over all nine.
  compare BLEU+METEOR+TER+Length, 10,000 bootstrap samples and 10,000 stratified shuffles: MultEval's ``eval``
          (METEOR 1.5, --meteor.language en) against ``mtsig compare`` the same way.
  load    loading METEOR's resources from mtsig's cache (paraphrase table, synonyms, stemmer), in-process.

    python benchmarks/bench_meteor.py --tools /tmp/tools [--only stats compare load]

``--tools`` as for bench_tools.py (DIR/multeval compiled, see there); the jar is pycocoevalcap's.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import DATA

ME = DATA / "multeval-example"
OUTPUTS = [ME / f"hyps.lc.tok.en.{s}.opt{k}" for s in ("baseline", "sys1", "sys2") for k in range(3)]
REF = ME / "refs.test2010.lc.tok.en.0"


def timed(cmds: list[list[str]], cwd: str | None = None) -> tuple[float, float]:
    """Total wall seconds and the largest peak resident memory (GB) of running ``cmds`` one after another."""
    total, peak = 0.0, 0.0
    for cmd in cmds:
        with tempfile.NamedTemporaryFile("r") as t:
            t0 = time.perf_counter()
            p = subprocess.run(
                ["/usr/bin/time", "-f", "%M", "-o", t.name, *cmd], cwd=cwd, capture_output=True, text=True
            )
            total += time.perf_counter() - t0
            if p.returncode != 0:
                sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr[-2000:]}")
            peak = max(peak, int(re.findall(r"\d+", open(t.name).read())[-1]) / 2**20)
    return total, peak


def row(name: str, other: str, o: tuple[float, float], m: tuple[float, float], target: float) -> None:
    ratio = o[0] / m[0]
    print(
        f"{name:8} {other:28} {o[0]:8.1f} s {o[1]:5.2f} GB | mtsig {m[0]:7.2f} s {m[1]:5.2f} GB | "
        f"{ratio:5.1f}x (target {target:g}x) {'met' if ratio >= target else 'NOT met'}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tools", type=Path, required=True)
    ap.add_argument("--only", nargs="*", default=["stats", "compare", "load"])
    a = ap.parse_args()
    from mtsig.meteor.resources import find_jar

    jar = find_jar(None)
    java, mt = shutil.which("java") or "java", shutil.which("mtsig") or "mtsig"
    mt_score = [mt, "score", "-r", str(REF), "-s", *map(str, OUTPUTS), "-m", "meteor", "--tokenize", "none",
                "-q", "-o", "/dev/null"]  # fmt: skip
    timed([mt_score])  # warm the cache (the first use builds it)
    if "stats" in a.only:
        jar_runs = [[java, "-Xmx2G", "-jar", str(jar), str(h), str(REF), "-l", "en"] for h in OUTPUTS]
        row("stats", "meteor-1.5.jar x 9 outputs", timed(jar_runs), timed([mt_score]), 5)
    if "compare" in a.only:
        me_dir = a.tools / "multeval"
        cp = ":".join([str(me_dir / "build"), *map(str, sorted((me_dir / "lib").glob("*.jar"))), str(jar)])
        args = ["--refs", str(REF)]
        for s in ("baseline", "sys1", "sys2"):
            args += [f"--hyps-{s}", *(str(ME / f"hyps.lc.tok.en.{s}.opt{k}") for k in range(3))]
        multeval = [java, "-Xmx2G", "-Dfile.encoding=UTF8", "-cp", cp, "multeval.MultEval", "eval", "--metrics", "bleu",
                    "meteor", "ter", "length", "--meteor.language", "en", "--boot-samples", "10000", "--ar-shuffles",
                    "10000", *args]  # fmt: skip
        runs = [
            f"{s}={','.join(str(ME / f'hyps.lc.tok.en.{s}.opt{k}') for k in range(3))}"
            for s in ("baseline", "sys1", "sys2")
        ]
        mcmp = [mt, "compare", "-r", str(REF), "-s", *runs, "-m", "bleu", "meteor", "ter", "length", "--tokenize",
                "none", "--baseline", "baseline", "--test", "stratified-ar", "--n-bootstrap", "10000",
                "--n-resamples", "10000", "-q", "-o", "/dev/null"]  # fmt: skip
        row("compare", "MultEval eval (with METEOR)", timed([multeval], cwd=str(me_dir)), timed([mcmp]), 15)
    if "load" in a.only:
        code = (
            "import time; t=time.perf_counter(); from mtsig.metrics import get_metric; m=get_metric('meteor'); "
            "m.warm(); print(time.perf_counter()-t)"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        print(f"load     METEOR resources from the cache: {float(out):.2f} s (target < 2 s)")


if __name__ == "__main__":
    main()
