"""Rendering time of the figures and the HTML report for 16 systems x 3 metrics (BLEU, NIST, chrF).

The 16 systems are the four WMT22 de-en systems crossed (odd segments from one, even from another); the
comparison is computed once (AR, 24,000 shuffles: the automatic count for 120 pairs), then timed: drawing and
saving the p-value matrix (PNG and SVG), the score figure, and the whole HTML report.

    python benchmarks/bench_plots.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import mtsig  # noqa: E402
from mtsig.report.html import render_html  # noqa: E402
from tests.data import WMT, wmt_ref  # noqa: E402
from tests.report.test_browser import _crossed  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        specs = _crossed(WMT, folder)
        res = mtsig.compare([wmt_ref(WMT, "A"), wmt_ref(WMT, "B")], specs, ["bleu", "nist", "chrf"],
                            keep_distributions=True)  # fmt: skip
        scores = mtsig.score([wmt_ref(WMT, "A"), wmt_ref(WMT, "B")], specs, ["bleu", "nist", "chrf"], ci=True)
        rows = [
            ("compare figure (matrix) to PNG", lambda: mtsig.plot(res, str(folder / "m.png"))),
            ("compare figure (matrix) to SVG", lambda: mtsig.plot(res, str(folder / "m.svg"))),
            ("score figure with intervals to PNG", lambda: mtsig.plot(scores, str(folder / "s.png"))),
            ("HTML report (tables + both figures)", lambda: render_html(res, "mtsig compare ...")),
        ]
        print(f"16 systems x 3 metrics, {len(res.comparisons)} comparisons; best of {a.repeat}")
        for label, fn in rows:
            print(f"  {label:40s} {best(fn, a.repeat):6.2f} s")


if __name__ == "__main__":
    main()
