"""Meta-evaluation at WMT's scale (issue 61): time and peak memory of ``mtsig meta`` on mt-metrics-eval folders,
before and after, and with more workers.

    python benchmarks/meta_scale.py segment [--mtme DIR] [--lp en-de] [--metrics 6] [--before]
    python benchmarks/meta_scale.py tasks [--mtme DIR] [--lps en-de] [--wmt23-size] [--triple] [--k 1000] [-j 1]
        [--dask ADDR]
    python benchmarks/meta_scale.py workers [--mtme DIR] [--triple] [--k 1000] [--figure OUT.svg]

- ``segment``: ``meta --mtme DIR --lp LP --level segment`` (acc23 under PERM-BOTH, every hybrid's tie threshold
  calibrated anew) on a copy of the folder that keeps the first ``--metrics`` primary metrics of the pair, with the
  compiled acc23 kernel and without it (``--before``: the numpy path of the release before it, the reference);
  both JSON outputs are compared, and must be equal.
- ``tasks``: ``meta --mtme DIR --task wmt23 --k 1000`` in a fresh process: wall time and peak memory (the largest
  resident set of the process and its children). ``--triple`` runs it on a copy of the folder where every system that
  is not a reference is there three times: itself, and two copies whose scores (every metric's and the human
  scores, at every level) are shifted by +2% and -2% of that score file's spread (the steering check's recipe).
- ``workers``: ``tasks`` with one process, ``-j 2``, and Dask ``local:1``, ``local:2``, ``local:4``, every process on
  one thread (so that n processes use n cores), and with ``--k 0`` (the part that stays in the main process); the
  JSON of each must equal the single process's; ``--figure`` draws the times and the model ``t0 + (t1 - t0) / n``.

The default folder is ``../shared/data/mtme-wmt23-ende/wmt23`` (WMT23 en-de in mt-metrics-eval's layout).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
DEFAULT = ROOT.parent / "shared" / "data" / "mtme-wmt23-ende" / "wmt23"


# ------------------------------------------------------------------------------------------------ folders
def _score_lines(path: Path) -> list[tuple[list[str], float | None]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        *key, value = line.split("\t")
        rows.append((key, None if value == "None" else float(value)))
    return rows


def triple(src: Path, dst: Path, lps: list[str]) -> Path:
    """A copy of the mt-metrics-eval folder ``src`` in ``dst`` whose every non-reference system appears three times
    (itself, ``NAME+2`` and ``NAME-2``: its scores shifted by +2% and -2% of the score file's spread)."""
    shutil.copytree(src, dst, symlinks=False, ignore=shutil.ignore_patterns("system-outputs"))
    for lp in lps:
        refs = {p.name.split(".")[1] for p in (src / "references").glob(f"{lp}.*.txt")}
        out_dir = dst / "system-outputs" / lp
        out_dir.mkdir(parents=True)
        for p in (src / "system-outputs" / lp).glob("*.txt"):
            shutil.copy(p, out_dir / p.name)
            if p.stem not in refs:
                for tag in ("+2", "-2"):
                    shutil.copy(p, out_dir / f"{p.stem}{tag}.txt")
        files = list((dst / "human-scores").glob(f"{lp}.*.score")) + list((dst / "metric-scores" / lp).glob("*.score"))
        for f in files:
            rows = _score_lines(f)
            values = [v for _, v in rows if v is not None]
            spread = (max(values) - min(values)) if values else 0.0
            out = []
            for key, v in rows:
                out.append("\t".join([*key, "None" if v is None else repr(v)]))
            for key, v in rows:
                system = key[-1]
                if system in refs or system.startswith("ref"):
                    continue
                for tag, sign in (("+2", 1), ("-2", -1)):
                    shifted = None if v is None else v + sign * 0.02 * spread
                    out.append("\t".join([*key[:-1], system + tag, "None" if shifted is None else repr(shifted)]))
            f.write_text("\n".join(out) + "\n", encoding="utf-8")
    return dst


def stretch(folder: Path, src_lp: str, lp: str, times: int) -> None:
    """Language pair ``lp`` in ``folder``, made from ``src_lp``'s files with every segment there ``times`` times (the
    documents renamed per copy): a pair of WMT23 he-en's or zh-en's size (1,900-2,000 segments) from en-de's 557,
    its system- and domain-level scores as they are. Only the shape is realistic (the copies repeat the scores)."""

    def lines(p: Path) -> list[str]:
        return p.read_text(encoding="utf-8").splitlines()

    def write(p: Path, rows: list[str]) -> None:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n".join(rows) + "\n", encoding="utf-8")

    n = len(lines(folder / "sources" / f"{src_lp}.txt"))
    write(folder / "sources" / f"{lp}.txt", lines(folder / "sources" / f"{src_lp}.txt") * times)
    docs = lines(folder / "documents" / f"{src_lp}.docs")
    write(folder / "documents" / f"{lp}.docs", [f"{d}.{c}" for c in range(times) for d in docs])
    for p in (folder / "references").glob(f"{src_lp}.*.txt"):
        write(p.with_name(lp + p.name[len(src_lp) :]), lines(p) * times)
    for p in (folder / "system-outputs" / src_lp).glob("*.txt"):
        write(folder / "system-outputs" / lp / p.name, lines(p) * times)
    files = [(p, p.with_name(lp + p.name[len(src_lp) :])) for p in (folder / "human-scores").glob(f"{src_lp}.*.score")]
    files += [(p, folder / "metric-scores" / lp / p.name) for p in (folder / "metric-scores" / src_lp).glob("*.score")]
    for p, q in files:
        rows = lines(p)
        if p.name.endswith(".seg.score"):  # each system's n segments, in order: each system's block repeated
            blocks: dict[str, list[str]] = {}
            for r in rows:
                blocks.setdefault(r.split("\t")[0], []).append(r)
            assert all(len(b) == n for b in blocks.values()), p
            rows = [r for b in blocks.values() for r in b * times]
        write(q, rows)


def keep_metrics(src: Path, dst: Path, lp: str, n: int) -> tuple[Path, list[str]]:
    """A copy of ``src`` whose pair ``lp`` keeps the first ``n`` metrics (by name) with segment scores."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("metric-scores"))
    names = sorted({p.name[: -len(".seg.score")] for p in (src / "metric-scores" / lp).glob("*.seg.score")})
    primary = [x for x in names if re.search(r"-(refA|src)$", x)][:n]
    (dst / "metric-scores" / lp).mkdir(parents=True)
    for name in primary:
        for level in ("seg", "sys", "domain"):
            f = src / "metric-scores" / lp / f"{name}.{level}.score"
            if f.exists():
                shutil.copy(f, dst / "metric-scores" / lp / f.name)
    return dst, primary


# ------------------------------------------------------------------------------------------------ runs
def run_cli(args: list[str]) -> tuple[float, float, str]:
    """``mtsig ARGS`` in a fresh process: wall seconds, peak resident memory (GB, the largest process of the run
    and its children), and stdout."""
    code = (
        "import resource, sys, runpy; sys.argv = ['mtsig'] + sys.argv[1:]\n"
        "from mtsig.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "sys.stdout.flush()\n"
        "peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
        " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "print(f'PEAK {peak}', file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"mtsig {' '.join(args)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    peak = max(int(m) for m in re.findall(r"PEAK (\d+)", p.stderr)) / 2**20
    return dt, peak, p.stdout


def _without_workers(out: str) -> dict:
    """The JSON with the settings that name where the work ran left out."""
    d = json.loads(out)
    for key in ("jobs", "dask", "executor"):
        d.get("settings", {}).pop(key, None)
    return d


def segment(a: argparse.Namespace) -> None:
    from mtsig import _compiled
    from mtsig.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        folder, names = keep_metrics(Path(a.mtme), Path(tmp) / "wmt23", a.lp, a.metrics)
        args = ["meta", "--mtme", str(folder), "--lp", a.lp, "--level", "segment", "-f", "json", "-q"]
        results = {}
        for label in (["before"] if a.before else []) + ["after"]:
            original = _compiled.load
            if label == "before":
                _compiled.load = lambda name, load=original: None if name == "_meta" else load(name)
            out = Path(tmp) / f"{label}.json"
            t0 = time.perf_counter()
            rc = main([*args, "-o", str(out)])
            dt = time.perf_counter() - t0
            if label == "before":
                _compiled.load = original
            assert rc == 0
            results[label] = json.loads(out.read_text())
            s = results[label]["settings"]
            print(f"{label:6s} {a.lp} segment acc23, {len(names)} metrics, {s['n_items']} items, "
                  f"{len(s['systems'])} systems, {s['n_resamples']:,} permutations per pair: {dt:.1f} s")  # fmt: skip
        if a.before:
            same = results["before"] == results["after"]
            print(f"before == after (the whole JSON): {same}")
            if not same:
                sys.exit(1)


def tasks(a: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder, lps = Path(a.mtme), list(a.lps)
        if a.wmt23_size:  # zh-en and ja-en of WMT23's size (MQM and DA gold) made from en-de, beside it
            shutil.copytree(folder, Path(tmp) / "big" / "wmt23")
            folder = Path(tmp) / "big" / "wmt23"
            for lp in ("zh-en", "ja-en"):
                stretch(folder, "en-de", lp, 3)  # en-de's MQM and DA files: zh-en's and ja-en's gold
            lps = ["en-de", "ja-en", "zh-en"]
        if a.triple:
            folder = triple(folder, Path(tmp) / "wmt23", lps)
        args = ["meta", "--mtme", str(folder), "--task", "wmt23", "--lps", *lps, "--k", str(a.k), "-f", "json", "-q"]
        if a.jobs > 1:
            args += ["-j", str(a.jobs)]
        if a.dask:
            args += ["--dask", a.dask]
        dt, peak, _ = run_cli(args)
        print(f"task set wmt23 ({', '.join(lps)}{', tripled' if a.triple else ''}), k = {a.k}"
              f"{f', -j {a.jobs}' if a.jobs > 1 else ''}{f', --dask {a.dask}' if a.dask else ''}: "
              f"{dt:.1f} s, peak {peak:.2f} GB")  # fmt: skip


def workers(a: argparse.Namespace) -> None:
    """The task set with 1, 2 and 4 worker processes, every process on one thread (OMP/OpenBLAS threads 1, and the
    acc23 kernel's), so that n processes use n cores; with ``k = 0`` for the part that stays in the main process
    (reading, the statistics, the clusters). The model: ``t(n) = t0 + (t1 - t0) / n``."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "MTSIG_THREADS"):
        os.environ[var] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(a.mtme)
        if a.triple:
            folder = triple(folder, Path(tmp) / "wmt23", a.lps)
        base = ["meta", "--mtme", str(folder), "--task", "wmt23", "--lps", *a.lps, "-f", "json", "-q"]
        t0, _, _ = run_cli([*base, "--k", "0"])
        print(f"k = 0 (the main process's part): {t0:.1f} s")
        ref, points = None, []
        for n, extra in ((1, []), (2, ["-j", "2"]), (1, ["--dask", "local:1"]), (2, ["--dask", "local:2"]),
                         (4, ["--dask", "local:4"])):  # fmt: skip
            dt, peak, out = run_cli([*base, "--k", str(a.k), *extra])
            d = _without_workers(out)
            ref = d if ref is None else ref
            points.append((n, dt, " ".join(extra) or "one process"))
            print(f"{' '.join(extra) or 'one process':16s} {dt:7.1f} s  peak {peak:.2f} GB  same JSON: {d == ref}")
        if a.figure:
            _figure(a.figure, t0, points, a)


def _figure(path: str, t0: float, points: list, a: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    t1 = points[0][1]
    n = np.arange(1, 65)
    fig, ax = plt.subplots(figsize=(3.3, 2.4), layout="constrained")
    ax.plot(n, t0 + (t1 - t0) / n, color="0.3", lw=1, label=f"model {t0:.0f} s + {t1 - t0:.0f} s / n")
    styles = {"one process": ("o", "C0"), "-j 2": ("s", "C1")}
    for k, t, label in points:
        marker, color = styles.get(label, ("^", "C2"))
        ax.plot([k], [t], marker, color=color, ms=4, label=label if label in styles else None)
    ax.plot([], [], "^", color="C2", ms=4, label="--dask local:n")
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, 2, 4, 8, 16, 32, 64], ["1", "2", "4", "8", "16", "32", "64"])
    ax.set_xlabel("worker processes (one core each)", fontsize=7)
    ax.set_ylabel("seconds", fontsize=7)
    ax.set_ylim(0, None)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=6, frameon=False)
    ax.set_title(f"WMT23 task set, {', '.join(a.lps)}{' tripled' if a.triple else ''}, k = {a.k}", fontsize=7)
    fig.savefig(path)
    print(f"figure: {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("segment", "tasks", "workers"))
    ap.add_argument("--mtme", default=str(DEFAULT))
    ap.add_argument("--lp", default="en-de")
    ap.add_argument("--lps", nargs="+", default=["en-de"])
    ap.add_argument("--metrics", type=int, default=6)
    ap.add_argument("--before", action="store_true")
    ap.add_argument("--triple", action="store_true")
    ap.add_argument(
        "--wmt23-size",
        action="store_true",
        help="tasks: add zh-en and ja-en of WMT23's size (en-de's segments three times, MQM and DA gold)",
    )
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--dask", default=None)
    ap.add_argument("--figure", default=None, help="workers: draw time against workers and the model (.svg, .png)")
    a = ap.parse_args()
    os.environ.setdefault("PYTHONHASHSEED", "0")
    {"segment": segment, "tasks": tasks, "workers": workers}[a.what](a)


if __name__ == "__main__":
    main()
