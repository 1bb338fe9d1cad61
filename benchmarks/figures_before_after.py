"""Every figure kind drawn by two versions of mtsig, at one column (3.3 in) and two (6.9 in): each saved as PNG,
each audited by the current audit (:func:`mtsig.report.figcheck.audit`: width, 7-pt floor, text inside the
figure, no overlapping text, legend off the data), and each pair put side by side in one PNG for a person to look at.

    python benchmarks/figures_before_after.py OUT_DIR --before REV [--after REV] [--only studies]

Both versions draw the same figures from the same data with the same builders (``tests/report/gallery.py``); a
version whose code cannot draw a kind says so. Prints one line per figure and width, and the counts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import same_bytes as sb  # noqa: E402

#: run inside each version: draw every figure of the gallery, save it, and audit it with the current audit (loaded
#: from this tree by path); the study figures' module has moved between versions, so an older location is aliased
_DRAW = r"""
import importlib.util, json, sys, types
from pathlib import Path
out, root, only = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
try:
    import mtsig.report.study_plots  # noqa: F401
except ImportError:
    import mtsig.studies.registry as reg
    alias = types.ModuleType("mtsig.report.study_plots")
    alias.plot_study = reg.plot_study
    sys.modules["mtsig.report.study_plots"] = alias
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from mtsig.report.plots import save
def current(name, path):  # a module of this tree, loaded beside the version's own
    spec = importlib.util.spec_from_file_location(name, root / path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
import mtsig.report.style as own_style
style_now = current("style_now", "src/mtsig/report/style.py")
sys.modules["mtsig.report.style"] = style_now  # the audit binds this tree's style helpers ...
figcheck = current("figcheck_now", "src/mtsig/report/figcheck.py")
sys.modules["mtsig.report.style"] = own_style  # ... and the version draws with its own
from tests.report.gallery import BUILDERS
res = {}
for group, build in BUILDERS.items():
    if only and group not in only:
        continue
    for width, tag in ((3.3, "column"), (6.9, "double")):
        try:
            for name, fig in build(width):
                a = figcheck.audit(fig, width)
                res[f"{name}-{tag}"] = "ok" if a.ok else "; ".join(a.problems[:3])
                save(fig, str(out / f"{name}-{tag}.png"))  # each version's own paper style, 300 dpi
                plt.close(fig)
        except Exception as exc:  # this version cannot draw the group (an API it lacks)
            res[f"{group}-{tag}"] = f"not drawn: {type(exc).__name__}: {exc}"[:200]
print(json.dumps(res))
"""


def _draw(src: Path, out: Path, only: list[str]) -> dict[str, str]:
    """Draw and audit every figure with the version whose sources are in ``src`` (gallery and audit from this
    tree): figure name -> "ok" or its problems."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": f"{src / 'src'}{os.pathsep}{ROOT}", "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, "-c", _DRAW, str(out), str(ROOT), *only], env=env, capture_output=True,
                       text=True, cwd=ROOT, timeout=3600)  # fmt: skip
    if r.returncode != 0:
        raise SystemExit(f"drawing with {src} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _side_by_side(before: Path, after: Path, out: Path) -> None:
    """One PNG: the old figure on the left, the new on the right, each at its own size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt

    imgs = [mpimg.imread(p) if p.exists() else None for p in (before, after)]
    h = max(i.shape[0] for i in imgs if i is not None)
    w = sum(i.shape[1] for i in imgs if i is not None)
    ratios = [i.shape[1] if i is not None else 1 for i in imgs]
    fig, axes = plt.subplots(1, 2, figsize=(w / 300 + 0.4, h / 300 + 0.5), dpi=200,
                             gridspec_kw={"width_ratios": ratios})  # fmt: skip
    for ax, img, title in zip(axes, imgs, ("before", "after")):
        ax.axis("off")
        ax.set_title(title, fontsize=9)
        if img is not None:
            ax.imshow(img)
        else:
            ax.text(0.5, 0.5, "not drawn", ha="center", va="center")
    fig.savefig(out, dpi=200)
    plt.close(fig)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--before", required=True, help="git revision of the old code")
    ap.add_argument("--after", default=None, help="git revision of the new code (default: the working tree)")
    ap.add_argument("--only", nargs="+", default=[], help="builder groups (score-compare analyze studies human-meta)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"before": sb.export(a.before, Path(tmp) / "before"), "after": sb.export(a.after, Path(tmp) / "after")}
        audits = {k: _draw(t, a.out / k, a.only) for k, t in trees.items()}
    (a.out / "side-by-side").mkdir(parents=True, exist_ok=True)
    names = sorted(set(audits["before"]) | set(audits["after"]))
    counts = {"before": 0, "after": 0}
    for n in names:
        b, f = audits["before"].get(n, "not drawn"), audits["after"].get(n, "not drawn")
        counts["before"] += b == "ok"
        counts["after"] += f == "ok"
        _side_by_side(a.out / "before" / f"{n}.png", a.out / "after" / f"{n}.png", a.out / "side-by-side" / f"{n}.png")
        print(f"{n:36s} before: {b[:70]:70s} after: {f[:60]}")
    print(f"audit passed: before {counts['before']} of {len(names)}, after {counts['after']} of {len(names)}; "
          f"PNGs in {a.out}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
