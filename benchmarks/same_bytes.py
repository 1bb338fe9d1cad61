"""Do two versions of mtsig print the same bytes? Runs representative commands with both and diffs them.

    python benchmarks/same_bytes.py                 # the commit HEAD~ (or --before REV) against the work tree
    python benchmarks/same_bytes.py --before 755d704 --after HEAD

Each version is exported from git (``--after`` defaults to the working tree), its C extension built in
place, and every command below run with ``PYTHONPATH=<version>/src python -m mtsig.cli ...`` on
``../shared/data``. Compared: exit status, stdout, stderr, and every file a command writes (statistics
files by their meta JSON and arrays, since a zip archive carries timestamps). Prints one line per command
and a summary; exits 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
WMT = DATA / "wmt22-de-en"
ME = DATA / "multeval-example"
SYSTEMS = ["JDExploreAcademy", "LT22", "Online-B", "PROMT"]


def _refs(*names: str) -> list[str]:
    return [str(WMT / f"generaltest2022.de-en.ref.{r}.en") for r in names]


def _hyps() -> list[str]:
    return [f"{s}={WMT / f'generaltest2022.de-en.hyp.{s}.en'}" for s in SYSTEMS]


def _runs(*systems: str) -> list[str]:
    return [f"{s}={ME}/hyps.lc.tok.en.{s}.opt*" for s in systems]


def _write_side_inputs(tmp: Path) -> None:
    """A segment-score table and two small CoNLL-U files (deterministic), for seg and depf."""
    n = sum(1 for _ in open(_refs("A")[0], encoding="utf-8"))
    rng = np.random.default_rng(5)
    cols = {s: rng.normal(0.5 + 0.01 * i, 0.2, n) for i, s in enumerate(SYSTEMS)}
    with open(tmp / "seg.tsv", "w", encoding="utf-8") as fh:
        fh.write("\t".join(SYSTEMS) + "\n")
        for i in range(n):
            fh.write("\t".join(f"{cols[s][i]:.6f}" for s in SYSTEMS) + "\n")
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran"]
    rels = ["det", "nsubj", "root", "case", "det", "obl"]
    for name, shift in (("ref", 0), ("hyp", 3)):
        lines = []
        for k in range(40):
            lines.append(f"# text = sentence {k}")
            for j in range(6):
                w = words[(k + j * (1 + (shift and j % 2))) % len(words)]
                head = 0 if j == 2 else 3
                lines.append(f"{j + 1}\t{w}\t{w}\tX\tX\t_\t{head}\t{rels[j]}\t_\t_")
            lines.append("")
        (tmp / f"{name}.conllu").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # NIST SGML: both references in one refset file, the systems in one tstset file (entities escaped)
    tst = {s: str(WMT / f"generaltest2022.de-en.hyp.{s}.en") for s in SYSTEMS}
    for kind, files in (("refset", {r: _refs(r)[0] for r in "AB"}), ("tstset", tst)):
        out = [f'<{kind} setid="t" srclang="de" trglang="en">']
        for sysid, path in files.items():
            segs = open(path, encoding="utf-8").read().splitlines()
            out.append(f'<doc docid="d1" sysid="{sysid}">')
            esc = (x.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for x in segs)
            out += [f'<seg id="{i + 1}">{x}</seg>' for i, x in enumerate(esc)]
            out.append("</doc>")
        out.append(f"</{kind}>")
        (tmp / f"{kind[:3]}.sgm").write_text("\n".join(out) + "\n", encoding="utf-8")


def commands(tmp: Path) -> list[tuple[str, list[str], list[str]]]:
    """(label, argv, files the command writes, relative to its output folder)."""
    r2, r1, h = _refs("A", "B"), _refs("A"), _hyps()
    me_ref = [str(ME / "refs.test2010.lc.tok.en.0")]
    runs = _runs("baseline", "sys1", "sys2")
    all5 = ["ar", "bootstrap", "paired-bootstrap", "ttest", "wilcoxon"]
    return [
        ("score text", ["score", "-r", *r2, "-s", *h, "-m", "bleu", "nist", "mbleu", "length"], []),
        ("score json", ["score", "-r", *r2, "-s", *h, "-m", "bleu", "nist", "mbleu", "length", "-f", "json"], []),
        (
            "score ci bca json",
            [
                "score",
                "-r",
                *r2,
                "-s",
                *h,
                "--ci",
                "--ci-method",
                "bca",
                "--n-bootstrap",
                "500",
                "--seed",
                "7",
                "-f",
                "json",
            ],
            [],
        ),
        (
            "score ci t csv",
            ["score", "-r", *r1, "-s", *h, "-m", "bleu", "nist", "--ci", "--ci-method", "t", "-f", "csv"],
            [],
        ),
        ("score ci percentile latex", ["score", "-r", *r1, "-s", *h, "--ci", "-f", "latex"], []),
        ("score ci markdown", ["score", "-r", *r1, "-s", *h, "--ci", "-f", "markdown", "--confidence", "0.9"], []),
        (
            "score mteval-13a lc",
            [
                "score",
                "-r",
                *r2,
                "-s",
                *h,
                "-m",
                "bleu",
                "nist",
                "--tokenize",
                "mteval-13a",
                "--lowercase",
                "-f",
                "json",
            ],
            [],
        ),
        ("score mteval-intl", ["score", "-r", *r2, "-s", *h, "-m", "bleu", "--tokenize", "mteval-intl"], []),
        (
            "score bleu options",
            [
                "score",
                "-r",
                *r1,
                "-s",
                *h,
                "-m",
                "bleu",
                "--bleu-order",
                "2",
                "--smooth",
                "floor",
                "--smooth-value",
                "0.2",
                "-f",
                "json",
            ],
            [],
        ),
        ("score ter chrf", ["score", "-r", *r1, "-s", *h, "-m", "ter", "chrf", "chrf++", "-f", "markdown"], []),
        (
            "score chrf options",
            [
                "score",
                "-r",
                *r2,
                "-s",
                *h,
                "-m",
                "chrf",
                "--chrf-word-order",
                "2",
                "--chrf-beta",
                "1",
                "--chrf-eps-smoothing",
                "-f",
                "json",
            ],
            [],
        ),
        (
            "score seg",
            ["score", "-r", *r1, "-s", *h, "-m", "seg", "--seg-scores", str(tmp / "seg.tsv"), "--ci", "-f", "json"],
            [],
        ),
        (
            "score depf",
            [
                "score",
                "-r",
                str(tmp / "ref.conllu"),
                "-s",
                f"x={tmp / 'hyp.conllu'}",
                f"y={tmp / 'ref.conllu'}",
                "-m",
                "depf",
                "bleu",
                "-f",
                "json",
            ],
            [],
        ),
        ("compare 5 tests text", ["compare", "-r", *r2, "-s", *h, "--test", *all5, "--n-resamples", "2000"], []),
        (
            "compare 5 tests json",
            ["compare", "-r", *r2, "-s", *h, "-m", "bleu", "nist", "--test", *all5, "-f", "json"],
            [],
        ),
        (
            "compare baseline markdown",
            [
                "compare",
                "-r",
                *r1,
                "-s",
                *h,
                "-b",
                "JDExploreAcademy",
                "--test",
                "ar",
                "paired-bootstrap",
                "-f",
                "markdown",
                "--seed",
                "99",
            ],
            [],
        ),
        (
            "compare latex bonferroni",
            [
                "compare",
                "-r",
                *r1,
                "-s",
                *h,
                "-m",
                "bleu",
                "length",
                "--correction",
                "bonferroni",
                "-f",
                "latex",
                "--n-resamples",
                "3000",
            ],
            [],
        ),
        (
            "compare csv bh greater",
            [
                "compare",
                "-r",
                *r1,
                "-s",
                *h,
                "--correction",
                "bh",
                "--alternative",
                "greater",
                "--test",
                "ar",
                "bootstrap",
                "-f",
                "csv",
            ],
            [],
        ),
        (
            "compare sidak alpha ci",
            [
                "compare",
                "-r",
                *r1,
                "-s",
                *h,
                "--correction",
                "sidak",
                "--alpha",
                "0.01",
                "--confidence",
                "0.9",
                "--n-bootstrap",
                "300",
                "--test",
                "ar",
                "ttest",
                "-f",
                "json",
            ],
            [],
        ),
        (
            "compare less none",
            [
                "compare",
                "-r",
                *r1,
                "-s",
                *h,
                "--correction",
                "none",
                "--alternative",
                "less",
                "--test",
                "paired-bootstrap",
                "wilcoxon",
            ],
            [],
        ),
        (
            "compare chrf ter",
            [
                "compare",
                "-r",
                *r1,
                "-s",
                *h,
                "-m",
                "chrf",
                "ter",
                "--test",
                "ar",
                "-f",
                "json",
                "--n-resamples",
                "2000",
            ],
            [],
        ),
        (
            "compare seg",
            [
                "compare",
                "-r",
                *r1,
                "-s",
                *h,
                "-m",
                "comet",
                "--seg-name",
                "comet",
                "--seg-scores",
                str(tmp / "seg.tsv"),
                "--test",
                "ar",
                "ttest",
                "-f",
                "json",
            ],
            [],
        ),
        (
            "stats write",
            ["stats", "-r", *r2, "-s", *h, "-m", "bleu", "nist", "length", "-o", "OUT/stats.npz"],
            ["stats.npz"],
        ),
        (
            "compare integer metrics ar json",  # whole-number statistics: one drawing of shuffles for all three
            [
                "compare",
                "-r",
                *r1,
                "-s",
                *h,
                "-m",
                "bleu",
                "mbleu",
                "length",
                "--test",
                "ar",
                "--n-resamples",
                "3000",
                "-f",
                "json",
            ],
            [],
        ),
        ("compare from stats", ["compare", "--stats", "OUT/stats.npz", "--test", "ar", "bootstrap", "-f", "json"], []),
        ("score from stats", ["score", "--stats", "OUT/stats.npz", "-m", "bleu", "--ci", "-f", "json"], []),
        (
            "score sgml mteval-13a",
            [
                "score",
                "-r",
                str(tmp / "ref.sgm"),
                "-s",
                str(tmp / "tst.sgm"),
                "-m",
                "bleu",
                "nist",
                "--tokenize",
                "mteval-13a",
            ],
            [],
        ),
        (
            "runs stratified-ar ter",
            [
                *("compare", "-r", *me_ref, "-s", *runs),
                *"-m bleu ter length --tokenize none -b baseline".split(),
                *"--test stratified-ar --n-bootstrap 1000 --n-resamples 1000".split(),
            ],
            [],
        ),
        (
            "runs text",
            [
                "compare",
                "-r",
                *me_ref,
                "-s",
                *runs,
                "-m",
                "bleu",
                "length",
                "--tokenize",
                "none",
                "-b",
                "baseline",
                "--n-bootstrap",
                "2000",
                "--n-resamples",
                "2000",
            ],
            [],
        ),
        (
            "runs json",
            [
                "compare",
                "-r",
                *me_ref,
                "-s",
                *runs,
                "-m",
                "bleu",
                "ter",
                "--tokenize",
                "none",
                "-b",
                "baseline",
                "--n-bootstrap",
                "1000",
                "--n-resamples",
                "1000",
                "-f",
                "json",
            ],
            [],
        ),
        (
            "runs latex",
            [
                "compare",
                "-r",
                *me_ref,
                "-s",
                *runs,
                "-m",
                "bleu",
                "--tokenize",
                "none",
                "-b",
                "baseline",
                "--n-resamples",
                "1000",
                "-f",
                "latex",
            ],
            [],
        ),
        (
            "runs markdown all pairs",
            [
                "compare",
                "-r",
                *me_ref,
                "-s",
                *runs,
                "-m",
                "bleu",
                "--tokenize",
                "none",
                "--n-resamples",
                "1000",
                "-f",
                "markdown",
            ],
            [],
        ),
        (
            "runs unequal + rank-dir",
            [
                "compare",
                "-r",
                *me_ref,
                "-s",
                f"baseline={ME}/hyps.lc.tok.en.baseline.opt0,{ME}/hyps.lc.tok.en.baseline.opt1",
                *_runs("sys1"),
                "-m",
                "bleu",
                "--tokenize",
                "none",
                "-b",
                "baseline",
                "--n-resamples",
                "1000",
                "--rank-dir",
                "OUT/rank",
                "-f",
                "json",
            ],
            ["rank/bleu.sys1.tsv"],
        ),
        (
            "runs dev score",
            [
                "score",
                "-r",
                *me_ref,
                "-s",
                *_runs("baseline", "sys1"),
                "-m",
                "bleu",
                "--tokenize",
                "none",
                "--dev-refs",
                *me_ref,
                "-d",
                *_runs("baseline", "sys1"),
                "-f",
                "json",
            ],
            [],
        ),
        ("runs score text", ["score", "-r", *me_ref, "-s", *runs, "-m", "bleu", "length", "--tokenize", "none"], []),
        (
            "example quick start",
            [
                "compare",
                "-r",
                "examples/ref.A.en",
                "examples/ref.B.en",
                "-s",
                "base=examples/base.en",
                "new=examples/new.en",
                "-m",
                "bleu",
                "nist",
                "--test",
                "ar",
                "paired-bootstrap",
            ],
            [],
        ),
        ("error missing file", ["score", "-r", *r1, "-s", "nope.txt"], []),
        ("error unknown metric", ["score", "-r", *r1, "-s", *h, "-m", "blue"], []),
        ("error line counts", ["score", "-r", *r1, "-s", str(ME / "refs.test2010.lc.tok.en.0")], []),
        ("metrics list", ["metrics"], []),
        (
            "compare maxt",
            [
                "compare",
                "-r",
                *r1,
                "-s",
                *h,
                "--test",
                "ar",
                "--correction",
                "maxt",
                "--n-resamples",
                "2000",
                "-f",
                "json",
            ],
            [],
        ),
        *study_commands(r1, h, me_ref, runs),
        *analyze_commands(r2, h, tmp),
        *human_meta_commands(r2, h),
        *width_commands(r2, h),
        *thresholds_commands(),
    ]


ANALYZE_FORMATS = ("text", "json", "csv", "markdown", "latex")


def analyze_commands(r2: list[str], h: list[str], tmp: Path) -> list:
    """analyze in every format: every default analysis of the four systems, and BLEU/chrF/TER by sentence score and
    word frequency against a baseline with the paired bootstrap; and the HTML report."""
    out = []
    for fmt in ANALYZE_FORMATS:
        out.append((f"analyze default {fmt}", ["analyze", "-r", *r2, "-s", *h, "-f", fmt, "-j", "1"], []))
        argv = ["analyze", "-r", r2[0], "-s", *h, "-m", "bleu", "chrf", "ter", "--by", "sentence-score",
                "word-frequency", "ref-length", "--test", "paired-bootstrap", "-b", "PROMT", "--seed", "4", "-f", fmt,
                "-j", "1"]  # fmt: skip
        out.append((f"analyze baseline {fmt}", argv, []))
    out.append(("analyze html", ["analyze", "-r", r2[0], "-s", *h[:2], "--by", "ref-length", "ngrams", "examples",
                                 "--html", "OUT/analyze.html", "-j", "1"], ["analyze.html"]))  # fmt: skip
    return out


HUMAN = DATA / "wmt22-humaneval-toen"


def width_commands(r2: list[str], h: list[str]) -> list:
    """``-w`` (decimals) in every command that takes it, in text, JSON and CSV: JSON and CSV round the scores."""
    de = str(HUMAN / "de-en" / "ad-seg-scores-de-en.csv")
    runs = [["score", "-r", *r2, "-s", *h, "-m", "bleu", "chrf", "--ci", "--n-bootstrap", "300"],
            ["compare", "-r", *r2, "-s", *h, "--test", "ar", "paired-bootstrap", "--n-resamples", "500"],
            ["analyze", "-r", r2[0], "-s", *h[:2], "--by", "ref-length", "ngrams", "-j", "1"],
            ["human", de, "--n-resamples", "300", "--n-bootstrap", "300"],
            ["meta", "--human", de, "-r", r2[0], "-s", *h, "-m", "bleu", "chrf", "--n-bootstrap", "300"]]  # fmt: skip
    return [(f"{argv[0]} -w {w} {fmt}", [*argv, "-w", w, "-f", fmt], [])
            for argv in runs for w, fmt in (("1", "text"), ("1", "json"), ("3", "csv"), ("0", "latex"))]  # fmt: skip


def human_meta_commands(r2: list[str], h: list[str]) -> list:
    """human (WMT22's protocol on uk-en in every format; mtsig's on de-en) and meta (BLEU and chrF against de-en's
    human scores) in text, JSON and LaTeX."""
    uk, de = str(HUMAN / "uk-en" / "ad-seg-scores-uk-en.csv"), str(HUMAN / "de-en" / "ad-seg-scores-de-en.csv")
    out = [(f"human wmt22 {fmt}", ["human", uk, "--protocol", "wmt22", "-f", fmt], []) for fmt in ANALYZE_FORMATS]
    out.append(("human mtsig json", ["human", de, "--n-resamples", "500", "-f", "json"], []))
    for fmt in ("text", "json", "latex"):
        out.append((f"meta {fmt}", ["meta", "--human", de, "-r", r2[0], "-s", *h, "-m", "bleu", "chrf", "-f", fmt], []))
    return out


def thresholds_commands() -> list:
    """thresholds in every format, with -w, other accuracies and names, and its two errors."""
    out = [(f"thresholds {fmt}", ["thresholds", "-m", "bleu", "chrf", "comet", "-f", fmt], []) for fmt in STUDY_FORMATS]
    out += [(f"thresholds -w {w} {fmt}", ["thresholds", "-w", w, "-f", fmt], [])
            for w, fmt in (("2", "json"), ("1", "csv"), ("0", "text"), ("4", "latex"))]  # fmt: skip
    out.append(
        ("thresholds accuracies", ["thresholds", "--accuracy", "60", "70", "91", "-m", "metricx", "comet22"], [])
    )
    out += [("thresholds unknown metric", ["thresholds", "-m", "nosuch"], []),
            ("thresholds accuracy 0.5", ["thresholds", "--accuracy", "0.5"], [])]  # fmt: skip
    return out


#: every study, small enough to run in seconds, each in every output format
STUDY_ARGS = {
    "type1": "--replicates 40 --n-resamples 400 --n-bootstrap 200",
    "multiplicity": "--replicates 40 --n-resamples 300 --null-systems 4",
    "sensitivity": "-m bleu chrf --n-resamples 500",
    "power": "--replicates 30 --n-resamples 200 --sizes 300 900",
    "sampling": "--samples 8",
    "coverage": "--samples 40 --size 150 --n-bootstrap 200",
    "testsize": "--samples 20 --sizes 200 600 --n-resamples 300",
    "levels": "--samples 20 --sizes 200 600 --n-resamples 300",
}
STUDY_FORMATS = ("text", "json", "csv", "markdown", "latex")


def study_commands(r1: list[str], h: list[str], me_ref: list[str], runs: list[str]) -> list:
    out = []
    for study, args in STUDY_ARGS.items():
        for fmt in STUDY_FORMATS:
            argv = ["study", study, "-r", *r1, "-s", *h, *args.split(), "-f", fmt, "-j", "1"]
            out.append((f"study {study} {fmt}", argv, []))
    chrf = ["study", "type1", "-r", *r1, "-s", *h, "-m", "chrf", "--replicates", "30", "--n-resamples", "300"]
    out.append(("study type1 chrf json", [*chrf, "--n-bootstrap", "100", "-f", "json", "-j", "1"], []))
    runs_args = "-m bleu --tokenize none --replicates 20 --n-resamples 200".split()
    for fmt in STUDY_FORMATS:
        out.append(
            (f"study runs {fmt}", ["study", "runs", "-r", *me_ref, "-s", *runs, *runs_args, "-f", fmt, "-j", "1"], [])
        )
    return out


def export(rev: str | None, dest: Path) -> Path:
    """The source tree of ``rev`` (None: the working tree) in ``dest``, with its C extension built."""
    if rev is None:
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(".git", ".venv*", "build", "*.so", "__pycache__"))
    else:
        dest.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=dest, check=True, capture_output=True
    )
    return dest


def _file_digest(path: Path) -> str:
    if not path.exists():
        return "<missing>"
    if path.suffix == ".npz":
        z = np.load(path, allow_pickle=False)
        parts = [str(z["meta"])] + [
            f"{k}:{z[k].dtype}:{z[k].shape}:{z[k].tobytes().hex()}" for k in sorted(z.files) if k != "meta"
        ]
        return "\n".join(parts)
    return path.read_text(encoding="utf-8")


def run_all(tree: Path, tmp: Path, tag: str) -> list[dict]:
    out_dir = tmp / tag
    out_dir.mkdir()
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "COLUMNS": "250"}
    results = []
    for label, argv, files in commands(tmp):
        argv = [a.replace("OUT/", f"{out_dir}/") for a in argv]
        p = subprocess.run(
            [sys.executable, "-m", "mtsig.cli", *argv], cwd=ROOT, env=env, capture_output=True, text=True
        )
        # the paths of the two exported trees and output folders are the only expected difference
        norm = [x.replace(str(out_dir), "OUT").replace(str(tree), "TREE") for x in (p.stdout, p.stderr)]
        results.append(
            {
                "label": label,
                "rc": p.returncode,
                "stdout": norm[0],
                "stderr": norm[1],
                "files": {f: _file_digest(out_dir / f).replace(str(out_dir), "OUT") for f in files},
            }
        )
    return results


def time_all(trees: dict[str, Path], tmp: Path, repeat: int) -> None:
    """Best wall time of every command with each version (runs alternate, so load affects both alike)."""
    import time

    print(f"\nwall time, best of {repeat} fresh processes per version")
    print(f"{'before':>8s} {'after':>8s} {'ratio':>6s}  command")
    tot = {k: 0.0 for k in trees}
    for label, argv, _ in commands(tmp):
        best = {k: float("inf") for k in trees}
        for _ in range(repeat):
            for tag, tree in trees.items():
                out_dir = tmp / f"time-{tag}"
                out_dir.mkdir(exist_ok=True)
                args = [a.replace("OUT/", f"{out_dir}/") for a in argv]
                env = {**os.environ, "PYTHONPATH": str(tree / "src")}
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "mtsig.cli", *args], cwd=ROOT, env=env, capture_output=True)
                best[tag] = min(best[tag], time.perf_counter() - t0)
        for k in trees:
            tot[k] += best[k]
        print(f"{best['before']:8.3f} {best['after']:8.3f} {best['after'] / best['before']:6.2f}  {label}")
    print(f"{tot['before']:8.3f} {tot['after']:8.3f} {tot['after'] / tot['before']:6.2f}  all commands")


def _json_keys_differing(o: dict, n: dict) -> str:
    """For a command whose output is a JSON object in both versions: the top-level keys that differ."""
    try:
        a, b = json.loads(o["stdout"]), json.loads(n["stdout"])
    except ValueError:
        return ""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return ""
    keys = sorted(k for k in set(a) | set(b) if a.get(k, "<absent>") != b.get(k, "<absent>"))
    return f" (JSON differs only in: {', '.join(keys)})" if keys else ""


#: LaTeX's escapes of special characters (as mtsig's escaper writes them), to tell an escaping change from any other
_TEX_ESCAPES = {
    r"\textbackslash{}": "\\", r"\&": "&", r"\%": "%", r"\$": "$", r"\#": "#", r"\_": "_", r"\{": "{",
    r"\}": "}", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^", r"\textbar{}": "|", r"\textless{}": "<",
    r"\textgreater{}": ">", r"$\Delta$": "Δ", r"$\alpha$": "α", r"$\uparrow$": "↑", r"$\downarrow$": "↓",
    r"$\rightarrow$": "→", r"$\leq$": "≤", r"$\geq$": "≥", r"$\propto$": "∝", r"$\surd$": "√",
}  # fmt: skip


def _latex_escaping_only(o: dict, n: dict) -> str:
    """For LaTeX outputs: whether they are the same text once every escape is undone."""
    if "\\begin{tabular}" not in o["stdout"] + n["stdout"]:
        return ""

    def plain(t: str) -> str:
        for seq in sorted(_TEX_ESCAPES, key=len, reverse=True):
            t = t.replace(seq, _TEX_ESCAPES[seq])
        return t

    return " (LaTeX: the same text once unescaped; escaping only)" if plain(o["stdout"]) == plain(n["stdout"]) else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", default="HEAD~", help="git revision of the old code (HEAD~)")
    ap.add_argument("--after", default=None, help="git revision of the new code (default: the working tree)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    ap.add_argument(
        "--time",
        type=int,
        default=0,
        metavar="K",
        help="also time every command K times per version, alternating, and print the best of each",
    )
    a = ap.parse_args()
    if not WMT.exists() or not ME.exists():
        print(f"needs {DATA} (shared/ beside the repository)", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="mtsig-same-bytes-"))
    try:
        _write_side_inputs(tmp)
        trees = {"before": export(a.before, tmp / "before"), "after": export(a.after, tmp / "after")}
        old = run_all(trees["before"], tmp, "out-before")
        new = run_all(trees["after"], tmp, "out-after")
        differ = 0
        for o, n in zip(old, new):
            same = o == n
            differ += not same
            what = "" if same else "  <-- " + ", ".join(k for k in ("rc", "stdout", "stderr", "files") if o[k] != n[k])
            what += "" if same else _json_keys_differing(o, n) + _latex_escaping_only(o, n)
            print(f"{'same' if same else 'DIFF'}  rc={o['rc']}  {len(o['stdout']):7d} B  {o['label']}{what}")
        print(
            f"\n{len(old)} commands, {len(old) - differ} byte-identical, {differ} different "
            f"(before: {a.before}, after: {a.after or 'working tree'})"
        )
        if a.time:
            time_all(trees, tmp, a.time)
        if a.keep:
            print(f"outputs kept in {tmp}")
            with open(tmp / "results.json", "w", encoding="utf-8") as fh:
                json.dump({"before": old, "after": new}, fh, indent=1)
        return 1 if differ else 0
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
