"""mtsig against the tools users run today, side by side, end to end, one table.

Every row runs the other tool and the equivalent mtsig command alternately in fresh processes, ``--repeat``
times each, and prints the medians and their ratio (other / mtsig). The other tools are not dependencies
of mtsig and are not in this repository; put them in a scratch folder and point at it with ``--tools``:

    DIR/mteval-v13a.pl                                       (Moses: scripts/generic/mteval-v13a.pl; Perl XML::Twig)
    DIR/bootstrap-hypothesis-difference-significance.pl      (Moses: scripts/analysis/)
    DIR/cmt-venv/bin/compare-mt                              (python -m venv DIR/cmt-venv; pip install compare-mt six)
    DIR/multeval/                                            (MultEval sources compiled with javac into build/, its
                                                              lib/*.jar, and a METEOR 1.5 jar: --meteor-jar)

sacreBLEU is taken from PATH (it is installed with mtsig). A row whose tool is missing is printed as skipped.

Data: ``shared/data`` beside the repository. WMT22 de-en (1,984 segments, two references, four systems) for
the detokenized rows; sixteen pseudo-systems of 3,000 segments built from the WMT22 outputs (segment-wise
mixtures, seed 0) for the many-system rows; MultEval's example (3 systems x 3 runs x 2,489 segments,
tokenized and lowercased) for the tools that expect tokenized text (compare-mt, Moses' script, MultEval).

    python benchmarks/bench_tools.py --tools /tmp/tools [--repeat 3] [--only ROW ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from _common import DATA, SYSTEMS, WMT

ME = DATA / "multeval-example"
ME_SYSTEMS = ("baseline", "sys1", "sys2")


@dataclass
class Row:
    name: str
    workload: str
    other: str  # the other tool's name
    other_cmd: list[str]
    mtsig_cmd: list[str]
    target: float
    missing: str = ""  # why the other tool cannot run here
    other_cwd: str | None = None
    times: dict[str, list[float]] = field(default_factory=dict)


# Bytecode caches as a user's install has them (an environment with PYTHONDONTWRITEBYTECODE would otherwise
# recompile mtsig's sources in every run: about 0.1 s that no installed copy pays)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str], cwd: str | None = None) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=cwd, env=ENV)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return dt


# ------------------------------------------------------------------------------------------- inputs


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _sgml(path: Path, kind: str, sets: dict[str, list[str]]) -> None:
    """A NIST SGML file: ``kind`` srcset/refset/tstset, one set per entry of ``sets`` (one document each)."""
    out = ["<mteval>"] if kind != "srcset" else []
    for sysid, lines in sets.items():
        attrs = 'setid="wmt22" srclang="de" trglang="en"' + (f' sysid="{sysid}"' if kind != "srcset" else "")
        out.append(f"<{kind} {attrs}>")
        out.append(f'<doc docid="d1" genre="text"{f" sysid={chr(34)}{sysid}{chr(34)}" if kind != "srcset" else ""}>')
        out += [f'<seg id="{i + 1}">{_esc(s)}</seg>' for i, s in enumerate(lines)]
        out += ["</doc>", f"</{kind}>"]
    if kind != "srcset":
        out.append("</mteval>")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def sixteen_systems(tmp: Path) -> tuple[Path, list[Path]]:
    """16 pseudo-systems x 3,000 segments from the real WMT22 outputs (segment-wise mixtures, seed 0)."""
    import numpy as np

    rng = np.random.default_rng(0)
    ref = _lines(WMT / "generaltest2022.de-en.ref.A.en")
    outs = [_lines(WMT / f"generaltest2022.de-en.hyp.{s}.en") for s in SYSTEMS]
    n = 3000
    idx = np.arange(n) % len(ref)
    rpath = tmp / "ref16.txt"
    rpath.write_text("\n".join(ref[i] for i in idx) + "\n", encoding="utf-8")
    paths = []
    for k in range(16):
        pick = rng.integers(0, len(outs), size=n)
        p = tmp / f"sys{k:02d}.txt"
        p.write_text("\n".join(outs[j][i] for j, i in zip(pick, idx)) + "\n", encoding="utf-8")
        paths.append(p)
    return rpath, paths


# ------------------------------------------------------------------------------------------- rows


def rows(tools: Path, tmp: Path, meteor_jar: Path) -> list[Row]:
    mt = shutil.which("mtsig")
    sb = shutil.which("sacrebleu")
    if not mt or not sb:
        sys.exit("needs the mtsig and sacrebleu commands on PATH (pip install -e . in this repository)")
    perl = shutil.which("perl") or "perl"
    java = shutil.which("java") or "java"
    q = ["-q", "-o", "/dev/null"]

    # NIST SGML for mteval-v13a (and the same files for mtsig)
    src, ref, tst = tmp / "src.sgm", tmp / "ref.sgm", tmp / "tst.sgm"
    _sgml(src, "srcset", {"src": _lines(WMT / "generaltest2022.de-en.src.de")})
    _sgml(ref, "refset", {r: _lines(WMT / f"generaltest2022.de-en.ref.{r}.en") for r in "AB"})
    _sgml(tst, "tstset", {s: _lines(WMT / f"generaltest2022.de-en.hyp.{s}.en") for s in SYSTEMS})
    ref16, sys16 = sixteen_systems(tmp)
    wref = str(WMT / "generaltest2022.de-en.ref.A.en")
    wa, wb = (str(WMT / f"generaltest2022.de-en.hyp.{s}.en") for s in ("LT22", "PROMT"))
    mref = str(ME / "refs.test2010.lc.tok.en.0")
    m0, m1 = (str(ME / f"hyps.lc.tok.en.{s}.opt0") for s in ("baseline", "sys1"))
    runs = [f"{s}={','.join(str(ME / f'hyps.lc.tok.en.{s}.opt{k}') for k in range(3))}" for s in ME_SYSTEMS]

    mteval = tools / "mteval-v13a.pl"
    moses = tools / "bootstrap-hypothesis-difference-significance.pl"
    cmt = tools / "cmt-venv" / "bin" / "compare-mt"
    me_dir = tools / "multeval"
    me_cp = ":".join(
        [str(me_dir / "build"), *(str(p) for p in sorted((me_dir / "lib").glob("*.jar"))), str(meteor_jar)]
    )
    multeval = [java, "-Dfile.encoding=UTF8", "-cp", me_cp, "multeval.MultEval", "eval"]
    me_args = ["--refs", mref] + [
        a for s in ME_SYSTEMS for a in (f"--hyps-{s}", *(str(ME / f"hyps.lc.tok.en.{s}.opt{k}") for k in range(3)))
    ]
    me_missing = (
        ""
        if (me_dir / "build" / "multeval" / "MultEval.class").exists() and meteor_jar.exists()
        else (f"MultEval not compiled in {me_dir}/build or METEOR jar {meteor_jar} missing")
    )

    def need(p: Path, what: str) -> str:
        return "" if p.exists() else f"{what} not found at {p}"

    w = str.split  # fixed words of a command line
    return [
        Row(
            "mteval",
            "BLEU+NIST, 4 WMT22 systems, 2 refs (SGML)",
            "mteval-v13a.pl",
            [perl, str(mteval), "-s", str(src), "-r", str(ref), "-t", str(tst)],
            [mt, "score", "-r", str(ref), "-s", str(tst), *w("-m bleu nist --tokenize mteval-13a"), *q],
            100,
            need(mteval, "mteval-v13a.pl"),
        ),
        Row(
            "score16",
            "BLEU, 16 systems x 3,000 segments",
            "sacrebleu",
            [sb, str(ref16), "-i", *map(str, sys16), "-m", "bleu"],
            [mt, "score", "-r", str(ref16), "-s", *map(str, sys16), "-m", "bleu", *q],
            8,
        ),
        Row(
            "bs16",
            "paired bootstrap 1k, 16 systems vs baseline",
            "sacrebleu --paired-bs",
            [sb, str(ref16), "-i", *map(str, sys16), *w("-m bleu --paired-bs --paired-bs-n 1000")],
            [mt, "compare", "-r", str(ref16), "-s", *map(str, sys16), *w("-m bleu --test bootstrap --n-resamples 1000"),
             *w("--baseline sys00"), *q],
            12,
        ),
        Row(
            "ar16",
            "AR 10k, 16 systems vs baseline",
            "sacrebleu --paired-ar",
            [sb, str(ref16), "-i", *map(str, sys16), *w("-m bleu --paired-ar --paired-ar-n 10000")],
            [mt, "compare", "-r", str(ref16), "-s", *map(str, sys16), *w("-m bleu --test ar --n-resamples 10000"),
             *w("--baseline sys00"), *q],
            40,
        ),
        Row(
            "comparemt",
            "one pair, BLEU bootstrap 1k (MultEval example, 2,489 segments)",
            "compare-mt",
            [str(cmt), mref, m0, m1, "--compare_scores", "score_type=bleu,bootstrap=1000,prob_thresh=0.05",
             *w("--compare_word_accuracies --compare_src_word_accuracies --compare_ngrams"),
             *w("--compare_sentence_buckets --compare_sentence_examples")],
            [mt, "compare", "-r", mref, "-s", m0, m1, *w("-m bleu --tokenize none --test bootstrap --n-resamples 1000"),
             *q],
            40,
            need(cmt, "compare-mt"),
        ),
        Row(
            "moses",
            "one pair, BLEU+NIST bootstrap 1k (MultEval example, 2,489 segments)",
            "Moses bootstrap .pl",
            [perl, str(moses), m0, m1, mref],
            [mt, "compare", "-r", mref, "-s", m0, m1,
             *w("-m bleu nist --tokenize none --test bootstrap --n-resamples 1000"), *q],
            60,
            need(moses, "Moses' bootstrap script"),
        ),
        Row(
            "ar1",
            "AR 10k, one pair, WMT22 (1,984 segments)",
            "sacrebleu --paired-ar",
            [sb, wref, "-i", wa, wb, *w("-m bleu --paired-ar --paired-ar-n 10000")],
            [mt, "compare", "-r", wref, "-s", wa, wb, *w("-m bleu --test ar --n-resamples 10000"), *q],
            12,
        ),
        Row(
            "multeval",
            "BLEU+TER+Length, 3 systems x 3 runs, 10k bootstrap + 10k stratified AR",
            "MultEval",
            [*multeval, *w("--metrics bleu ter length --boot-samples 10000 --ar-shuffles 10000"), *me_args],
            [mt, "compare", "-r", mref, "-s", *runs, *w("-m bleu ter length --tokenize none --baseline baseline"),
             *w("--test stratified-ar --n-bootstrap 10000 --n-resamples 10000"), *q],
            20,
            me_missing,
            str(me_dir),  # MultEval reads its file "constants" from the working directory
        ),
    ]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tools", type=Path, default=Path(os.environ.get("MTSIG_BENCH_TOOLS", "/tmp/tools")))
    ap.add_argument("--meteor-jar", type=Path, default=None, help="a METEOR 1.5 jar for compiling/running MultEval")
    ap.add_argument("--repeat", type=int, default=3, help="paired runs per row (medians are printed)")
    ap.add_argument("--only", nargs="*", default=None, help="row names to run")
    ap.add_argument("--mtsig-only", action="store_true", help="time only the mtsig commands (while optimizing)")
    a = ap.parse_args()
    if not WMT.exists() or not ME.exists():
        sys.exit(f"benchmark data not found under {DATA} (shared/ beside the repository)")
    jar = a.meteor_jar or a.tools / "coco" / "pycocoevalcap" / "meteor" / "meteor-1.5.jar"
    with tempfile.TemporaryDirectory() as d:
        todo = [r for r in rows(a.tools, Path(d), jar) if a.only is None or r.name in a.only]
        for r in todo:
            if r.missing and not a.mtsig_only:
                continue
            _run(r.mtsig_cmd)  # warm the page cache and the bytecode caches
            r.times = {"other": [], "mtsig": []}
            for _ in range(a.repeat):
                if not a.mtsig_only:
                    r.times["other"].append(_run(r.other_cmd, r.other_cwd))
                r.times["mtsig"].append(_run(r.mtsig_cmd))
            other = f"{statistics.median(r.times['other']):.2f} s" if r.times["other"] else "-"
            print(f"  {r.name}: {other} vs {statistics.median(r.times['mtsig']):.3f} s", file=sys.stderr)
    if a.mtsig_only:
        return
    print(f"medians of {a.repeat} paired runs, fresh processes, {os.cpu_count()} cores")
    print("| workload | other tool | other | mtsig | ratio | target |")
    print("|---|---|---|---|---|---|")
    for r in todo:
        if r.missing:
            print(f"| {r.workload} | {r.other} | skipped: {r.missing} | | | >= {r.target:g}x |")
            continue
        o, m = statistics.median(r.times["other"]), statistics.median(r.times["mtsig"])
        ok = "met" if o / m >= r.target else "not met"
        print(f"| {r.workload} | {r.other} | {o:.2f} s | {m:.3f} s | {o / m:.1f}x | >= {r.target:g}x ({ok}) |")


if __name__ == "__main__":
    main()
