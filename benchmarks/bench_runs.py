"""Optimizer-run analysis speed on MultEval's own example (3 systems x 3 runs, 2,489 segments):
mtsig compare with BLEU + Length, 10,000 bootstrap resamples (s_sel) and 10,000 stratified shuffles,
end to end, printed beside MultEval's own wall time.

MultEval (Java) is not installable from the package registries this project uses, so its figure is the
one measured with its README command (BLEU + METEOR + TER + Length, same resample counts) on a 2-core
machine like this one: about 65 s. mtsig is timed with BLEU + Length and with BLEU + TER + Length.

    python benchmarks/bench_runs.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import sys

from _common import DATA, timed

MULTEVAL_SECONDS = 65.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    d = DATA / "multeval-example"
    if not d.exists():
        sys.exit(f"benchmark data not found: {d}")
    mt = shutil.which("mtsig")
    if not mt:
        sys.exit("needs the mtsig command on PATH")
    systems = [
        f"{s}={d}/hyps.lc.tok.en.{s}.opt0,{d}/hyps.lc.tok.en.{s}.opt1,{d}/hyps.lc.tok.en.{s}.opt2"
        for s in ("baseline", "sys1", "sys2")
    ]
    base = [
        mt,
        "compare",
        "-r",
        str(d / "refs.test2010.lc.tok.en.0"),
        "-s",
        *systems,
        "--tokenize",
        "none",
        "--baseline",
        "baseline",
        "--n-bootstrap",
        "10000",
        "--n-resamples",
        "10000",
        "-q",
        "-o",
        "/dev/null",
    ]
    t, _ = timed([*base, "-m", "bleu", "length"], a.repeat)
    t3, _ = timed([*base, "-m", "bleu", "ter", "length"], a.repeat)
    print(
        f"MultEval example, 3 systems x 3 runs x 2489 segments, 10,000 bootstrap + 10,000 stratified shuffles "
        f"(best of {a.repeat})"
    )
    print(f"  mtsig compare, BLEU + Length:                    {t:6.2f} s")
    print(f"  mtsig compare, BLEU + TER + Length:              {t3:6.2f} s")
    print(
        f"  MultEval, BLEU + METEOR + TER + Length (README): ~{MULTEVAL_SECONDS:.0f} s  "
        f"(ratio ~{MULTEVAL_SECONDS / t3:.0f}x against BLEU + TER + Length; MultEval also ran METEOR)"
    )


if __name__ == "__main__":
    main()
