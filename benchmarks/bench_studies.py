"""Wall time of every default `mtsig study` (issue 12's budget: under 60 s each on the four WMT22 systems,
`runs` on the MultEval example), each in a fresh process as a user runs it.

    python benchmarks/bench_studies.py [--data ../shared/data] [--only type1 power ...] [--dask local:2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

STUDIES = ("type1", "multiplicity", "sensitivity", "sampling", "coverage", "testsize", "levels", "power", "runs")
WMT_SYSTEMS = ("JDExploreAcademy", "LT22", "Online-B", "PROMT")


def inputs(data: Path, study: str) -> list[str]:
    if study == "runs":
        d = data / "multeval-example"
        runs = [f"{s}={d}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1", "sys2")]
        return ["-r", str(d / "refs.test2010.lc.tok.en.0"), "-s", *runs, "-m", "bleu"]
    d = data / "wmt22-de-en"
    hyps = [f"{s}={d}/generaltest2022.de-en.hyp.{s}.en" for s in WMT_SYSTEMS]
    metrics = ["bleu", "nist"] if study == "sensitivity" else ["bleu"]
    return ["-r", str(d / "generaltest2022.de-en.ref.A.en"), "-s", *hyps, "-m", *metrics]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--only", nargs="+", choices=STUDIES, default=list(STUDIES))
    ap.add_argument("--dask", default=None, help="also pass --dask ADDRESS (type1, multiplicity, runs, power)")
    a = ap.parse_args()
    print(f"{'study':<14}{'seconds':>9}  budget 60 s")
    for study in a.only:
        cmd = [sys.executable, "-m", "mtsig", "study", study, *inputs(Path(a.data), study), "-q", "-o", "/dev/null"]
        if a.dask and study in ("type1", "multiplicity", "runs", "power"):
            cmd += ["--dask", a.dask]
        t = time.perf_counter()
        subprocess.run(cmd, check=True)
        s = time.perf_counter() - t
        print(f"{study:<14}{s:>9.1f}  {'met' if s < 60 else 'NOT MET'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
