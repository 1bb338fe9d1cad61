"""What resampling by document costs against resampling by segment, on WMT22 de-fr (1,984 segments, 271
documents, six systems): the same commands with ``--resample-unit segment`` and ``document``, whole commands in
fresh processes and the resampling alone in this process; prints each ratio (the target: at most 1.5).

    python benchmarks/bench_units.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time

from _common import DATA, timed

XML = DATA / "wmt22-de-fr" / "wmttest2022.de-fr.all.xml"

COMMANDS = {
    "score --ci (bleu chrf ter)": ["score", "-m", "bleu", "chrf", "ter", "--ci"],
    "compare all pairs, ar + paired-bootstrap (bleu)": ["compare", "-m", "bleu", "--test", "ar", "paired-bootstrap"],
    "compare vs baseline, 5 tests (bleu chrf)": ["compare", "-m", "bleu", "chrf", "-b", "LT22", "--test", "ar",
                                                 "bootstrap", "paired-bootstrap", "ttest", "wilcoxon"],
}  # fmt: skip


def _in_process(repeat: int) -> None:
    import mtsig

    table = mtsig.compute(str(XML), str(XML), ["bleu", "chrf", "ter"])
    print(f"\nresampling alone (statistics computed once; best of {repeat})")
    for label, fn in (
        ("score ci=True", lambda u: mtsig.score(stats=table, ci=True, resample_unit=u)),
        ("compare ar + paired-bootstrap", lambda u: mtsig.compare(stats=table, test=["ar", "paired-bootstrap"],
                                                                  resample_unit=u)),
    ):  # fmt: skip
        best = {}
        for unit in ("segment", "document"):
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                fn(unit)
                times.append(time.perf_counter() - t0)
            best[unit] = min(times)
        ratio = best["document"] / best["segment"]
        print(
            f"  {label:40s} segment {best['segment']:6.2f} s   document {best['document']:6.2f} s   ratio {ratio:.2f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if not XML.exists():
        sys.exit(f"benchmark data not found: {XML}")
    print(f"whole commands in fresh processes (best of {a.repeat})")
    for label, args in COMMANDS.items():
        best = {}
        for unit in ("segment", "document"):
            cmd = [sys.executable, "-m", "mtsig", args[0], "-r", str(XML), "-s", str(XML), *args[1:],
                   "--resample-unit", unit, "-q", "-j", "1"]  # fmt: skip
            best[unit], _ = timed(cmd, a.repeat)
        ratio = best["document"] / best["segment"]
        print(
            f"  {label:48s} segment {best['segment']:6.2f} s   document {best['document']:6.2f} s   ratio {ratio:.2f}"
        )
    _in_process(a.repeat)


if __name__ == "__main__":
    main()
