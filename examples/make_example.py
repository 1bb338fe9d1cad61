"""Generate the small example shipped in examples/ (run from the repository root; deterministic).

Forty short English segments with two independent references and two systems: ``base`` and ``new``,
where ``new`` makes fewer of the word-level errors. The text is synthetic, written for mtsig. Beside them:
three optimizer runs of each system (``runs/``: the same error process drawn again, as a retrained system
would), and ``ref.docids``, the document of each segment (eight documents of five segments) for
``--resample-unit document``.
"""

from __future__ import annotations

import random
from pathlib import Path

SUBJECTS = [
    "the council",
    "our team",
    "the new museum",
    "a local farmer",
    "the city library",
    "the research group",
    "the small bakery",
    "the railway company",
    "the school board",
    "a young engineer",
]
VERBS = [
    ("opened", "inaugurated"),
    ("announced", "declared"),
    ("built", "constructed"),
    ("sold", "traded"),
    ("repaired", "fixed"),
    ("planned", "prepared"),
    ("closed", "shut"),
    ("tested", "checked"),
]
OBJECTS = [
    "a bridge over the river",
    "its annual report",
    "a garden for the children",
    "fresh bread every morning",
    "the old clock tower",
    "a plan for cleaner streets",
    "twelve electric buses",
    "a course on solar energy",
]
TIMES = ["on Monday", "last year", "in the spring", "after a long debate", "before the holidays", "this week"]
ALT_WORDS = {"the": "a", "a": "the", "on": "in", "in": "on", "its": "the", "for": "to", "every": "each"}


def sentence(rng: random.Random) -> tuple[str, str]:
    s, (v1, v2), o, t = rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(TIMES)
    a = f"{s.capitalize()} {v1} {o} {t}."
    b = f"{t.capitalize()}, {s} {v2} {o}." if rng.random() < 0.5 else f"{s.capitalize()} {v2} {o} {t}."
    return a, b


def corrupt(text: str, rng: random.Random, rate: float) -> str:
    words = text.split()
    out = []
    for w in words:
        r = rng.random()
        if r < rate / 3:
            continue  # dropped word
        if r < 2 * rate / 3 and w.lower() in ALT_WORDS:
            out.append(ALT_WORDS[w.lower()])
        elif r < rate and len(out) > 1:
            out.insert(len(out) - 1, w)  # local reordering
        else:
            out.append(w)
    return " ".join(out)


def main() -> None:
    rng = random.Random(2026)
    pairs = [sentence(rng) for _ in range(40)]
    here = Path(__file__).parent
    (here / "ref.A.en").write_text("\n".join(p[0] for p in pairs) + "\n", encoding="utf-8")
    (here / "ref.B.en").write_text("\n".join(p[1] for p in pairs) + "\n", encoding="utf-8")
    base = [corrupt(p[0] if rng.random() < 0.5 else p[1], rng, 0.4) for p in pairs]
    new = [corrupt(p[0] if rng.random() < 0.5 else p[1], rng, 0.3) for p in pairs]
    (here / "base.en").write_text("\n".join(base) + "\n", encoding="utf-8")
    (here / "new.en").write_text("\n".join(new) + "\n", encoding="utf-8")
    # the runs and documents draw from their own streams: the files above stay as they were
    (here / "runs").mkdir(exist_ok=True)
    for system, rate in (("base", 0.4), ("new", 0.3)):
        for run in (1, 2, 3):
            r = random.Random(f"{system}-run-{run}")
            lines = [corrupt(p[0] if r.random() < 0.5 else p[1], r, rate) for p in pairs]
            (here / "runs" / f"{system}.run{run}.en").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (here / "ref.docids").write_text("".join(f"doc{i // 5 + 1}\n" for i in range(len(pairs))), encoding="utf-8")


if __name__ == "__main__":
    main()
