"""mtsig against MultEval on MultEval's own regression sets (``reg-test/set1``, ``set2``), number by number.

MultEval (https://github.com/jhclark/multeval) is not a dependency of mtsig and its regression data is not in
``shared/data``; put its sources in a scratch folder, compile them and point at it with ``--tools``:

    DIR/multeval/reg-test/set1/set1.{out.0..3,ref0..3}, DIR/multeval/reg-test/set2/set2.{out.0,ref0}
    DIR/multeval/build/                  javac -d build -cp lib/guava-11.0.jar:lib/tercom-0.8.0.jar:lib/jannopts.jar:
                                         METEOR_JAR $(find src -name '*.java')
    DIR/multeval/lib/*.jar               (guava, jannopts, tercom 0.8.0, shipped with MultEval)
    DIR/multeval/constants               (MultEval reads its version from it)

The configurations are the ones MultEval's ``reg-test.sh`` checks: set 1's four runs against each of its four
references alone and against all four, set 2's single run and reference (21 in all). For each, MultEval's
``eval --metrics bleu ter length`` is run once and its numbers read from its verbose output: BLEU, the
brevity penalty's two lengths, the four n-gram match and total counts, TER and Length. mtsig computes the same
with ``--tokenize multeval`` (MultEval splits on ASCII whitespace only) and ``--ter-tercom`` (tercom 0.8.0's
own search, as MultEval runs it).

TER is compared from mtsig's per-segment statistics truncated to integers as MultEval does (``TER.java``
stores each segment's edits and average reference length as ``int``); mtsig's own TER (floats) is printed
beside it and differs on the four-reference configurations by what the truncation takes away.
Last run: 273 of 273 numbers equal.

    python benchmarks/multeval_regtest.py --tools /tmp/tools [--meteor-jar JAR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

import mtsig


def configurations(reg: Path) -> list[tuple[str, list[Path], Path]]:
    """(label, reference files, hypothesis file) for every configuration reg-test.sh checks."""
    s1, s2 = reg / "set1", reg / "set2"
    out = []
    for run in range(4):
        for ref in range(4):
            out.append((f"set1 run {run} ref {ref}", [s1 / f"set1.ref{ref}"], s1 / f"set1.out.{run}"))
    for run in range(4):
        out.append((f"set1 run {run} 4 refs", [s1 / f"set1.ref{r}" for r in range(4)], s1 / f"set1.out.{run}"))
    out.append(("set2 run 0 ref 0", [s2 / "set2.ref0"], s2 / "set2.out.0"))
    return out


_NUM = r"([0-9.]+|NaN)"


def multeval_numbers(me_dir: Path, meteor_jar: Path, refs: list[Path], hyp: Path) -> dict[str, float]:
    """MultEval's BLEU, lengths, n-gram counts, TER and Length for one hypothesis file."""
    java = shutil.which("java")
    if java is None:
        raise SystemExit("java not found on PATH")
    cp = ":".join([str(me_dir / "build"), *(str(p) for p in sorted((me_dir / "lib").glob("*.jar"))), str(meteor_jar)])
    cmd = [java, "-Dfile.encoding=UTF8", "-cp", cp, "multeval.MultEval", "eval", "--metrics", "bleu", "ter",
           "length", "--boot-samples", "1", "--bleu.verbosity", "1", "--verbosity", "1",
           "--refs", *map(str, refs), "--hyps-baseline", str(hyp)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=str(me_dir))
    text = done.stdout + done.stderr  # the verbose lines go to stderr
    got: dict[str, float] = {}
    m = re.search(r"ref_words = (\d+), hyp_words = (\d+)", text)
    if m is None:
        raise SystemExit(f"MultEval printed no brevity-penalty line for {hyp}:\n{text[-2000:]}")
    got["ref_len"], got["hyp_len"] = float(m.group(1)), float(m.group(2))
    for n in range(1, 5):
        m = re.search(rf"{n}-grams: (\d+)/(\d+)", text)
        got[f"match{n}"], got[f"total{n}"] = float(m.group(1)), float(m.group(2))
    for name, key in (("BLEU", "bleu"), ("TER", "ter"), ("Length", "length")):
        m = re.search(rf"RESULT: baseline: {name}: OptRun 0: {_NUM}", text)
        got[key] = float(m.group(1))
    return got


def mtsig_numbers(refs: list[Path], hyp: Path) -> dict[str, float]:
    """The same numbers from mtsig, and TER from its statistics truncated to integers as MultEval stores them."""
    t = mtsig.compute([str(r) for r in refs], {"h": str(hyp)}, ["bleu", "ter", "length"],
                      tokenize="multeval", ter_tercom=True)  # fmt: skip
    b = t.stats["bleu"]["h"][0]
    names = t.metrics["bleu"].stat_names
    got = {"bleu": t.metrics["bleu"].corpus_score(b)}
    col = {n: i for i, n in enumerate(names)}
    sums = b.sum(axis=0)
    got["hyp_len"], got["ref_len"] = float(sums[col["hyp_len"]]), float(sums[col["ref_len"]])
    for n in range(1, 5):
        got[f"match{n}"], got[f"total{n}"] = float(sums[col[f"match_{n}"]]), float(sums[col[f"total_{n}"]])
    ter = t.stats["ter"]["h"][0]
    got["ter"] = t.metrics["ter"].corpus_score(ter)
    trunc = np.trunc(ter).sum(axis=0)
    got["ter_int"] = 100.0 * trunc[0] / trunc[1]
    got["length"] = t.metrics["length"].corpus_score(t.stats["length"]["h"][0])
    return got


#: (key, what, decimals compared; None: exact integers)
COMPARED = [
    ("bleu", "BLEU", 6),
    ("ref_len", "reference length", None),
    ("hyp_len", "hypothesis length", None),
    *((f"match{n}", f"{n}-gram matches", None) for n in range(1, 5)),
    *((f"total{n}", f"{n}-grams", None) for n in range(1, 5)),
    ("length", "Length", 6),
    ("ter", "TER (integer statistics, as MultEval)", 6),
]


def compare(me: dict[str, float], ms: dict[str, float]) -> list[tuple[str, float, float, bool]]:
    rows = []
    for key, what, dec in COMPARED:
        ours = ms["ter_int"] if key == "ter" else ms[key]
        equal = ours == me[key] if dec is None else round(ours, dec) == round(me[key], dec)
        rows.append((what, me[key], ours, equal))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tools", type=Path, required=True, help="folder holding multeval/ (see above)")
    ap.add_argument("--meteor-jar", type=Path, default=None, help="METEOR 1.5 jar (default: pycocoevalcap's)")
    ap.add_argument("--json", type=Path, default=None, help="write every number to this file")
    a = ap.parse_args()
    me_dir = a.tools / "multeval"
    jar = a.meteor_jar
    if jar is None:
        from mtsig.meteor.resources import find_jar  # noqa: PLC0415 - pycocoevalcap's jar, as mtsig finds it

        jar = find_jar(None)
    if not (me_dir / "build" / "multeval" / "MultEval.class").exists():
        raise SystemExit(f"MultEval not compiled in {me_dir}/build (see this script's help)")
    total = equal = 0
    report = []
    for label, refs, hyp in configurations(me_dir / "reg-test"):
        me, ms = multeval_numbers(me_dir, jar, refs, hyp), mtsig_numbers(refs, hyp)
        rows = compare(me, ms)
        total += len(rows)
        equal += sum(r[3] for r in rows)
        diff = [f"{w}: MultEval {x:.6f}, mtsig {y:.6f}" for w, x, y, ok in rows if not ok]
        print(f"{label:18s} BLEU {me['bleu']:9.6f} {ms['bleu']:9.6f}  TER {me['ter']:9.6f} {ms['ter_int']:9.6f} "
              f"(mtsig's own {ms['ter']:9.6f})  Length {me['length']:10.6f} {ms['length']:10.6f}  "
              f"{sum(r[3] for r in rows)}/{len(rows)} equal" + ("; " + "; ".join(diff) if diff else ""))  # fmt: skip
        report.append({"configuration": label, "multeval": me, "mtsig": ms})
        sys.stdout.flush()
    print(f"\n{equal} of {total} numbers equal (BLEU, TER and Length to MultEval's 6 decimals, counts exactly)")
    if a.json:
        a.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
