"""A second language pair made from the shared WMT23 en-de folder, to check what only several pairs exercise
(pairwise accuracy pooled over pairs, averages over tasks of several pairs) against mt-metrics-eval itself.

``zh-en`` (WMT23's facts: reference refA, outlier synthetic_ref) is every file of en-de under the new pair's name,
the MQM scores moved by seeded noise (each system's score, each domain score and each segment score, ``None``
kept), so the human ranking and the correlations differ from en-de's. The metric scores are en-de's.

``he-en`` (WMT23's facts: standard reference refB, no outlier, the other reference scored as a system) is the same
with two references: en-de's refA is its refB, and en-de's synthetic_ref its refA, a human translation that the
tasks score as a system (in the outputs, the metric scores and, made from ONLINE-W's MQM scores with noise, the
human scores).

    python -m tests.meta.mtme_fake OUT      # OUT/wmt23/ then holds en-de (linked), and the made zh-en and he-en
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

#: he-en's references from en-de's: (en-de's name, he-en's name)
HE_EN = {"refA": "refB", "synthetic_ref": "refA"}


def _noisy(src: Path, dst: Path, rng: np.random.Generator, sd: float, names: dict | None = None) -> None:
    """``src``'s scores moved by noise; ``names``: systems renamed, and a system made (he-en's refA: ONLINE-W's
    lines again, with their own noise)."""
    out = []
    made = []
    for ln in src.read_text(encoding="utf-8").splitlines():
        *keys, x = ln.split("\t")
        if names is not None:
            keys = [names.get(k, k) for k in keys]
        out.append("\t".join([*keys, x if x == "None" else repr(float(x) + float(rng.normal(0.0, sd)))]))
        if names is not None and keys[-1] == "ONLINE-W":
            made.append((keys[:-1], x))
    for keys, x in made:
        out.append("\t".join([*keys, "refA", x if x == "None" else repr(float(x) + float(rng.normal(0.0, sd)))]))
    dst.write_text("\n".join(out) + "\n", encoding="utf-8")


def _renamed(src: Path, dst: Path) -> None:
    """A metric-score file of en-de as he-en's: its systems renamed as its references are."""
    out = []
    for ln in src.read_text(encoding="utf-8").splitlines():
        *keys, x = ln.split("\t")
        out.append("\t".join([*(HE_EN.get(k, k) for k in keys), x]))
    dst.write_text("\n".join(out) + "\n", encoding="utf-8")


def _he_en(wmt23: Path, root: Path, rng: np.random.Generator) -> None:
    for sub in ("sources", "documents", "references", "human-scores"):
        for f in sorted((wmt23 / sub).iterdir()):
            if not f.name.startswith("en-de."):
                continue
            parts = f.name.split(".")
            if sub == "references":
                (root / sub / f"he-en.{HE_EN[parts[1]]}.txt").symlink_to(f.resolve())
            elif sub == "human-scores":
                if ".mqm." in f.name and f.name.endswith(".score"):
                    _noisy(f, root / sub / ("he-en" + f.name[5:]), rng, {"sys": 1.5, "domain": 1.5, "seg": 3.0}[
                        parts[-2]], names=HE_EN)  # fmt: skip
            else:
                (root / sub / ("he-en" + f.name[5:])).symlink_to(f.resolve())
    out = root / "system-outputs" / "he-en"
    out.mkdir()
    for f in sorted((wmt23 / "system-outputs" / "en-de").iterdir()):
        (out / f"{HE_EN.get(f.stem, f.stem)}.txt").symlink_to(f.resolve())
    scores = root / "metric-scores" / "he-en"
    scores.mkdir()
    for f in sorted((wmt23 / "metric-scores" / "en-de").iterdir()):
        base, rest = f.name.split(".", 1)
        metric, ref = base.rsplit("-", 1) if base.endswith(tuple(HE_EN)) else (base, None)
        if ref is None:
            metric, ref = (base[: -len("-synthetic_ref")], "synthetic_ref") if base.endswith("-synthetic_ref") else (
                base, None)  # fmt: skip
        name = f"{metric}-{HE_EN[ref]}.{rest}" if ref in HE_EN else f.name
        _renamed(f, scores / name)


def _link(src: Path, dst: Path) -> None:
    if not dst.exists():
        os.symlink(src.resolve(), dst)


def _en_de(wmt23: Path, root: Path) -> None:
    """en-de itself, linked."""
    for sub in ("sources", "references", "documents", "human-scores"):
        for f in sorted((wmt23 / sub).iterdir()):
            if f.name.startswith("en-de."):
                _link(f, root / sub / f.name)
    for sub in ("system-outputs", "metric-scores"):
        _link(wmt23 / sub / "en-de", root / sub / "en-de")


def _zh_en(wmt23: Path, root: Path, rng: np.random.Generator) -> None:
    for sub in ("sources", "references", "documents", "human-scores"):
        for f in sorted((wmt23 / sub).iterdir()):
            if not f.name.startswith("en-de."):
                continue
            made = root / sub / ("zh-en" + f.name[len("en-de") :])
            if sub == "human-scores" and ".mqm." in f.name and f.name.endswith(".score"):
                _noisy(f, made, rng, {"sys": 1.5, "domain": 1.5, "seg": 3.0}[f.name.split(".")[-2]])
            else:
                _link(f, made)
    for sub in ("system-outputs", "metric-scores"):
        _link(wmt23 / sub / "en-de", root / sub / "zh-en")


def make_pair(wmt23: Path, out: Path, lp: str = "zh-en", seed: int = 0) -> Path:
    """``out/wmt23`` with en-de linked from ``wmt23`` and ``lp`` (``zh-en`` or ``he-en``) made from it; returns
    ``out/wmt23``."""
    rng = np.random.default_rng(seed)
    root = out / "wmt23"
    for sub in ("sources", "references", "documents", "human-scores", "system-outputs", "metric-scores"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    _en_de(wmt23, root)
    {"zh-en": _zh_en, "he-en": _he_en}[lp](wmt23, root, rng)
    return root


if __name__ == "__main__":
    here = Path(__file__).resolve().parents[2]
    src = here.parent / "shared" / "data" / "mtme-wmt23-ende" / "wmt23"
    make_pair(src, Path(sys.argv[1]), "zh-en")
    print(make_pair(src, Path(sys.argv[1]), "he-en", seed=1))
