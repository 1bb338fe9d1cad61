"""Every figure kind at one column (3.3 in) and two (6.9 in): saved as PNG for a person to look at, and audited
(:func:`mtsig.report.figcheck.audit`: the width, the 7-pt floor, text inside the figure, no overlapping text, a
legend off the data). ``tests/report/test_figures.py`` runs the same audit.

    python benchmarks/figures.py OUT_DIR [--only studies]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", nargs="+", default=None)
    a = ap.parse_args()
    from mtsig.report.figcheck import audit
    from mtsig.report.plots import save
    from mtsig.report.style import COLUMN, DOUBLE
    from tests.report.gallery import BUILDERS

    a.out.mkdir(parents=True, exist_ok=True)
    bad = total = 0
    for group, build in BUILDERS.items():
        if a.only and group not in a.only:
            continue
        for width, tag in ((COLUMN, "column"), (DOUBLE, "double")):
            for name, fig in build(width):
                res = audit(fig, width)
                save(fig, str(a.out / f"{name}-{tag}.png"))
                total += 1
                bad += not res.ok
                print(f"{name:28s} {tag:6s} {res.width:.2f} x {res.height:.2f} in  "
                      f"{'ok' if res.ok else '; '.join(res.problems[:4])}")  # fmt: skip
    print(f"{total - bad} of {total} figures pass")


if __name__ == "__main__":
    main()
