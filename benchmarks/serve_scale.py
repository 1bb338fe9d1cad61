"""``mtsig serve`` at scale: 60 systems x 2,000 segments of segment scores (a leaderboard's COMET, made up here with
systems of close quality), every pair compared and Holm-corrected, through a real server on loopback: upload,
run, page and view. Per test: the run's time from submission to its bundle, and beside it the same command run by
``mtsig compare`` in a shell (what the page's time adds: starting a worker, the bundle's five files and view).

    python benchmarks/serve_scale.py [--systems 60] [--segments 2000] [--tests ar paired-bootstrap bootstrap]
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx  # the test extra's HTTP client (httpx's successor, the same API)
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_load import _port  # noqa: E402


def _table(folder: Path, k: int, n: int) -> Path:
    rng = np.random.default_rng(0)
    x = rng.normal(0.8, 0.1, (n, 1)) + rng.normal(0, 0.02, k) + rng.normal(0, 0.05, (n, k))
    path = folder / "comet.tsv"
    head = "\t".join(f"sys{j:02d}" for j in range(k))
    path.write_text(head + "\n" + "".join("\t".join(f"{v:.4f}" for v in r) + "\n" for r in x), encoding="utf-8")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=60)
    ap.add_argument("--segments", type=int, default=2000)
    ap.add_argument("--tests", nargs="+", default=["ar", "paired-bootstrap", "bootstrap"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        table = _table(folder, a.systems, a.segments)
        port = _port()
        server = subprocess.Popen([sys.executable, "-m", "mtsig", "serve", "--port", str(port), "--results",
                                   str(folder / "results")], stderr=subprocess.DEVNULL)  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        rows = []
        try:
            with httpx.Client(base_url=base, timeout=60) as c:
                for _ in range(100):
                    try:
                        c.get("/")
                        break
                    except httpx.TransportError:
                        time.sleep(0.1)
                for test in a.tests:
                    t0 = time.perf_counter()
                    form = {"csrf": c.cookies["mtsig_csrf"], "seg_name": "COMET", "test": test, "seed": "1"}
                    r = c.post("/runs", data=form, files=[("seg_scores", ("comet.tsv", table.read_bytes()))])
                    loc = r.headers["location"]
                    while (st := c.get(loc + "/status").json())["state"] in ("queued", "running"):
                        time.sleep(0.2)
                    web = time.perf_counter() - t0
                    assert st["state"] == "done", st
                    t1 = time.perf_counter()
                    page = c.get(loc)
                    view = c.get(loc + "/files/view.html")
                    fetch = time.perf_counter() - t1
                    result = c.get(loc + "/files/result.json").json()
                    command = c.get(loc + "/files/manifest.json").json()["command"]
                    t2 = time.perf_counter()
                    out = subprocess.run([sys.executable, "-m", "mtsig", *shlex.split(command)[1:], "-q"], cwd=folder,
                                         capture_output=True, check=True).stdout  # fmt: skip
                    cli = time.perf_counter() - t2
                    same = out == c.get(loc + "/files/result.json").content
                    n_sig = sum(x["significant"] for x in result["comparisons"])
                    n_res = result["settings"]["n_resamples"].get(test, "-")
                    rows.append((test, n_res, len(result["comparisons"]), n_sig, web, cli, fetch,
                                 len(view.content) / 2**20, same, page.status_code))  # fmt: skip
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"{a.systems} systems x {a.segments} segments, every pair, Holm, alpha 0.05 (2 cores)")
    print(f"{'test':18} {'resamples':>9} {'pairs':>6} {'signif.':>7} {'web run s':>9} {'CLI s':>7} "
          f"{'page+view s':>11} {'view MB':>7} {'same JSON':>9}")  # fmt: skip
    for test, n_res, pairs, sig, web, cli, fetch, mb, same, _ in rows:
        print(f"{test:18} {n_res:>9} {pairs:>6} {sig:>7} {web:>9.1f} {cli:>7.1f} {fetch:>11.2f} {mb:>7.2f} "
              f"{'yes' if same else 'NO':>9}")  # fmt: skip


if __name__ == "__main__":
    main()
