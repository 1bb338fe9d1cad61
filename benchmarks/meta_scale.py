"""Meta-evaluation at WMT's scale (issue 61): time and peak memory of ``mtsig meta`` on mt-metrics-eval folders,
before and after, and with more workers.

    python benchmarks/meta_scale.py segment [--mtme DIR] [--lp en-de] [--metrics 6] [--before]
    python benchmarks/meta_scale.py tasks [--mtme DIR] [--lps en-de] [--triple] [--k 1000] [-j 1] [--dask ADDR]
    python benchmarks/meta_scale.py workers [--mtme DIR] [--triple] [--k 1000]

- ``segment``: ``meta --mtme DIR --lp LP --level segment`` (acc23 under PERM-BOTH, every hybrid's tie threshold
  calibrated anew) on a copy of the folder that keeps the first ``--metrics`` primary metrics of the pair, with the
  compiled acc23 kernel and without it (``--before``: the numpy path of the release before it, the reference);
  both JSON outputs are compared, and must be equal.
- ``tasks``: ``meta --mtme DIR --task wmt23 --k 1000`` in a fresh process: wall time and peak memory (the largest
  resident set of the process and its children). ``--triple`` runs it on a copy of the folder where every system that
  is not a reference is there three times: itself, and two copies whose scores (every metric's and the human
  scores, at every level) are shifted by +2% and -2% of that score file's spread (the steering check's recipe).
- ``workers``: ``tasks`` with one process, ``-j 2``, and Dask ``local:1``, ``local:2``, ``local:4``; the JSON of each
  must equal the single process's (the settings line naming the workers aside).

The default folder is ``../shared/data/mtme-wmt23-ende/wmt23`` (WMT23 en-de in mt-metrics-eval's layout).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
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
            if label == "before":
                original = _compiled.load
                _compiled.load = lambda name: None if name == "_meta" else original(name)
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
        folder = Path(a.mtme)
        if a.triple:
            folder = triple(folder, Path(tmp) / "wmt23", a.lps)
        args = ["meta", "--mtme", str(folder), "--task", "wmt23", "--lps", *a.lps, "--k", str(a.k), "-f", "json", "-q"]
        if a.jobs > 1:
            args += ["-j", str(a.jobs)]
        if a.dask:
            args += ["--dask", a.dask]
        dt, peak, _ = run_cli(args)
        print(f"task set wmt23 ({', '.join(a.lps)}{', tripled' if a.triple else ''}), k = {a.k}"
              f"{f', -j {a.jobs}' if a.jobs > 1 else ''}{f', --dask {a.dask}' if a.dask else ''}: "
              f"{dt:.1f} s, peak {peak:.2f} GB")  # fmt: skip


def workers(a: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(a.mtme)
        if a.triple:
            folder = triple(folder, Path(tmp) / "wmt23", a.lps)
        base = ["meta", "--mtme", str(folder), "--task", "wmt23", "--lps", *a.lps, "--k", str(a.k), "-f", "json", "-q"]
        ref = None
        for extra in ([], ["-j", "2"], ["--dask", "local:1"], ["--dask", "local:2"], ["--dask", "local:4"]):
            dt, peak, out = run_cli(base + extra)
            d = _without_workers(out)
            ref = d if ref is None else ref
            print(f"{' '.join(extra) or 'one process':16s} {dt:7.1f} s  peak {peak:.2f} GB  same JSON: {d == ref}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("segment", "tasks", "workers"))
    ap.add_argument("--mtme", default=str(DEFAULT))
    ap.add_argument("--lp", default="en-de")
    ap.add_argument("--lps", nargs="+", default=["en-de"])
    ap.add_argument("--metrics", type=int, default=6)
    ap.add_argument("--before", action="store_true")
    ap.add_argument("--triple", action="store_true")
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--dask", default=None)
    a = ap.parse_args()
    os.environ.setdefault("PYTHONHASHSEED", "0")
    {"segment": segment, "tasks": tasks, "workers": workers}[a.what](a)


if __name__ == "__main__":
    main()
