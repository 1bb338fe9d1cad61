"""Scale: ``mtsig score`` on a million segments, wall time and peak memory of all its processes together.

The corpus is generated from WMT22 de-en (two systems, one reference) repeated until it has ``--segments``
lines, each line given a suffix ``(#i)`` so that no two segments are equal; files go to a scratch folder
(``--work``, default a temporary one), never into the repository. Memory is sampled every 20 ms over the
whole process tree (the command and its forked workers) as the sum of proportional set sizes (PSS: a page
shared by k processes counts 1/k in each, so shared copy-on-write pages are not counted twice), and as
the sum of resident set sizes for comparison.

    python benchmarks/bench_million.py [--segments 1000000] [--metrics bleu nist ter chrf] [--jobs 2]
        [--command score|compare|analyze] [--by ANALYSIS ...] [--input text|xml] [--n-resamples R]

``--command compare`` runs the default test (approximate randomization, Holm) on the two systems; ``--command
analyze`` every analysis that needs no extra file (or ``--by``'s). ``--input xml`` writes the corpus as one WMT XML
file (documents of 20 segments, two domains) and reads references and systems from it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import WMT, need_data  # noqa: E402


def generate(folder: Path, n: int) -> list[Path]:
    """ref, A, B: the WMT22 files repeated to ``n`` lines, line i suffixed with ``(#i)``."""
    names = ["ref.A.en", "hyp.JDExploreAcademy.en", "hyp.PROMT.en"]
    out = []
    for name in names:
        src = (WMT / f"generaltest2022.de-en.{name}").read_text(encoding="utf-8").splitlines()
        path = folder / f"{name}.{n}"
        if not path.exists():
            with open(path, "w", encoding="utf-8") as fh:
                for i in range(n):
                    fh.write(f"{src[i % len(src)]} (#{i})\n")
        out.append(path)
    return out


def generate_xml(folder: Path, n: int) -> Path:
    """The corpus of :func:`generate` as one WMT XML file: documents of 20 segments, alternately in two domains."""
    from xml.sax.saxutils import escape

    ref, a, b = (p.read_text(encoding="utf-8").splitlines() for p in generate(folder, n))
    path = folder / f"corpus.{n}.xml"
    if path.exists():
        return path
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="utf-8"?>\n<dataset id="bench"><collection id="c">\n')
        for d, start in enumerate(range(0, n, 20)):
            rows = range(start, min(start + 20, n))

            def segs(lines, rows=rows):
                return "".join(f'<seg id="{i - rows[0] + 1}">{escape(lines[i])}</seg>' for i in rows)

            dom = "news" if d % 2 else "social"
            fh.write(f'<doc id="d{d}" domain="{dom}" origlang="de"><src lang="de"><p>{segs(ref)}</p></src>'
                     f'<ref lang="en" translator="A"><p>{segs(ref)}</p></ref>'
                     f'<hyp system="A"><p>{segs(a)}</p></hyp>'
                     f'<hyp system="B"><p>{segs(b)}</p></hyp></doc>\n')  # fmt: skip
        fh.write("</collection></dataset>\n")
    return path


def _tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def _kib(pid: int, path: str, key: str) -> int:
    try:
        with open(f"/proc/{pid}/{path}") as fh:
            for line in fh:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Sampler(threading.Thread):
    """Peak of the summed PSS and RSS of a process tree."""

    def __init__(self, pid: int, every: float = 0.02):
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.peak_pss = self.peak_rss = self.peak_procs = 0
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            pids = _tree(self.pid)
            pss = sum(_kib(p, "smaps_rollup", "Pss:") for p in pids)
            rss = sum(_kib(p, "status", "VmRSS:") for p in pids)
            self.peak_pss, self.peak_rss = max(self.peak_pss, pss), max(self.peak_rss, rss)
            self.peak_procs = max(self.peak_procs, len(pids))
            time.sleep(self.every)


def measure(cmd: list[str]) -> tuple[float, Sampler, str]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = Sampler(proc.pid)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    sampler.done.set()
    sampler.join()
    if proc.returncode != 0:
        sys.exit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    return wall, sampler, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--segments", type=int, default=1_000_000)
    ap.add_argument("--metrics", nargs="+", default=["bleu", "nist", "ter", "chrf"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", default=None, help="folder for the generated files (default: a temporary one)")
    ap.add_argument("--command", choices=["score", "compare", "analyze"], default="score")
    ap.add_argument("--by", nargs="+", default=None, help="analyze: the analyses (default: analyze's default)")
    ap.add_argument("--input", choices=["text", "xml"], default="text")
    ap.add_argument("--n-resamples", type=int, default=None,
                    help="compare/analyze: the test's resamples (default: mtsig's); memory does not depend on it "
                         "(weights are drawn in chunks of a fixed size), only the time")  # fmt: skip
    a = ap.parse_args()
    need_data()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(a.work or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if a.input == "xml":
            x = str(generate_xml(folder, a.segments))
            inputs = ["-r", x, "-s", f"{x}:A", f"{x}:B"]
        else:
            ref, sys_a, sys_b = generate(folder, a.segments)
            inputs = ["-r", str(ref), "-s", f"A={sys_a}", f"B={sys_b}"]
        cmd = [sys.executable, "-m", "mtsig", a.command, *inputs, "-m", *a.metrics, "--jobs", str(a.jobs), "-q"]
        if a.by:
            cmd += ["--by", *a.by]
        if a.n_resamples:
            cmd += ["--n-resamples", str(a.n_resamples)]
        wall, s, out = measure(cmd)
    print(out[-2000:])
    print(
        f"mtsig {a.command}: {a.segments:,} segments x 2 systems x {len(a.metrics)} metrics "
        f"({' '.join(a.metrics)}), --jobs {a.jobs}, {a.input} input"
        + (f", --by {' '.join(a.by)}" if a.by else "")
        + (f", --n-resamples {a.n_resamples}" if a.n_resamples else "")
    )
    print(f"wall {wall:.1f} s; peak memory of all processes together: PSS {s.peak_pss / 2**20:.2f} GiB "
          f"(RSS summed {s.peak_rss / 2**20:.2f} GiB; up to {s.peak_procs} processes)")  # fmt: skip


if __name__ == "__main__":
    main()
