"""Run the readers' fuzz targets (tests/io/test_fuzz.py) for a fixed time and print how many inputs each took.

python benchmarks/fuzz_readers.py --minutes 10
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--batch", type=int, default=500, help="examples per target per round")
    a = ap.parse_args()
    os.environ["MTSIG_FUZZ_EXAMPLES"] = str(a.batch)  # read when the targets are defined
    fz = importlib.import_module("tests.io.test_fuzz")
    tests = [fz.test_fuzz_plain_text, fz.test_fuzz_sgml_xml, fz.test_fuzz_conllu, fz.test_fuzz_segment_scores,
             fz.test_fuzz_statistics_file]  # fmt: skip
    warnings.simplefilter("ignore")
    end = time.monotonic() + 60 * a.minutes
    rounds = 0
    while time.monotonic() < end:
        for t in tests:
            t()  # no example database: every round draws new random inputs
        rounds += 1
    total = sum(fz.RUN.values())
    print(f"{a.minutes:g} min, {rounds} rounds: {total:,} inputs, none ended in anything but a result or an InputError")
    for k, v in fz.RUN.items():
        print(f"  {k:8s} {v:,}")


if __name__ == "__main__":
    main()
