"""``mtsig serve`` under load on loopback: N clients for S seconds, each uploading a small comparison (the shipped
example: 40 segments, two systems, BLEU and chrF), following it to the end, and fetching its page and JSON, while
the server runs ``--jobs`` comparisons at a time. Prints p50 and p95 latency per request kind and of whole runs,
errors, the server's peak memory, and the deepest queue seen (the queue's limit at work: never more than ``--jobs``
running).

    python benchmarks/serve_load.py [--clients 20] [--seconds 60] [--jobs 2]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2 as httpx  # the test extra's HTTP client (httpx's successor, the same API)

EX = Path(__file__).resolve().parents[1] / "examples"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _client(base: str, stop: float, out: dict, lock: threading.Lock) -> None:
    files = {n: (EX / n).read_bytes() for n in ("ref.A.en", "base.en", "new.en")}
    with httpx.Client(base_url=base, timeout=120) as c:
        while time.time() < stop:
            try:
                t0 = time.perf_counter()
                c.get("/").raise_for_status()
                t1 = time.perf_counter()
                r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "metrics": ["bleu", "chrf"],
                                          "test": "ar", "seed": "12345"},
                           files=[("ref", ("ref.A.en", files["ref.A.en"])), ("systems", ("base.en", files["base.en"])),
                                  ("systems", ("new.en", files["new.en"]))])  # fmt: skip
                if r.status_code != 303:
                    raise RuntimeError(f"submit: {r.status_code} {r.text[:200]}")
                t2 = time.perf_counter()
                loc = r.headers["location"]
                while True:
                    ts = time.perf_counter()
                    s = c.get(loc + "/status").json()
                    with lock:
                        out["status"].append(time.perf_counter() - ts)
                        out["queue"] = max(out["queue"], s.get("position", 0))
                    if s["state"] not in ("queued", "running"):
                        break
                    time.sleep(0.2)
                if s["state"] != "done":
                    raise RuntimeError(f"run {loc}: {s}")
                t3 = time.perf_counter()
                c.get(loc).raise_for_status()
                t4 = time.perf_counter()
                c.get(loc + "/files/result.json").raise_for_status()
                t5 = time.perf_counter()
                with lock:
                    out["home"].append(t1 - t0)
                    out["submit"].append(t2 - t1)
                    out["run"].append(t3 - t1)
                    out["page"].append(t4 - t3)
                    out["json"].append(t5 - t4)
            except Exception as exc:  # noqa: BLE001 - counted and shown
                with lock:
                    out["errors"].append(str(exc))


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    port = _port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-m", "mtsig", "serve", "--port", str(port), "--jobs", str(a.jobs),
                                   "--results", str(Path(tmp) / "results")])  # fmt: skip
        try:
            for _ in range(100):
                try:
                    httpx.get(base + "/", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            out: dict = {k: [] for k in ("home", "submit", "status", "run", "page", "json", "errors")}
            out["queue"] = 0
            lock = threading.Lock()
            stop = time.time() + a.seconds
            threads = [threading.Thread(target=_client, args=(base, stop, out, lock)) for _ in range(a.clients)]
            peak = 0.0
            for t in threads:
                t.start()
            while any(t.is_alive() for t in threads):
                peak = max(peak, _rss_mb(server.pid))
                time.sleep(0.5)
            bundles = sum(1 for p in (Path(tmp) / "results").iterdir() if p.name != ".work")
            left = list((Path(tmp) / "results" / ".work").iterdir())
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"{a.clients} clients, {a.seconds:g} s, --jobs {a.jobs}: {len(out['run'])} runs completed, "
          f"{len(out['errors'])} errors, {bundles} bundles, {len(left)} work folders left\n")  # fmt: skip
    print("| request | n | p50 | p95 |\n|---|---|---|---|")
    for k in ("home", "submit", "status", "page", "json", "run"):
        label = k if k != "run" else "whole run (submit to done)"
        print(f"| {label} | {len(out[k])} | {_pct(out[k], 0.5) * 1000:.0f} ms | {_pct(out[k], 0.95) * 1000:.0f} ms |")
    print(f"\nserver memory (RSS) at most {peak:.0f} MB; deepest queue seen: {out['queue']} waiting")
    for e in out["errors"][:5]:
        print("error:", e)
    return 1 if out["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
