"""``mtsig serve`` under load on loopback, two ways.

``--clients N --seconds S`` (default 100 clients for 60 s): each client loads the home page, submits a small
comparison (the shipped example: 40 segments, two systems, BLEU and chrF), follows it to the end, and fetches its
page and JSON; a full queue answers 429 (the bounded queue at work: the client waits and goes on). Prints p50, p95 and
p99 latency per request kind and of whole runs, the 429s, the errors (anything else that is not an answer), the
server's peak memory and the deepest queue seen.

``--slow N`` (e.g. 300): N clients that open connections and send their headers a byte every two seconds (and come
back when the server closes them), against a server with an open-files limit of 256 (``ulimit -n 256``), while a
client holding the token asks for the home page every half second. Prints that client's latencies and failures, the
server's open files and what it logged.

    python benchmarks/serve_load.py [--clients 100] [--seconds 60] [--jobs 2]
    python benchmarks/serve_load.py --slow 300 [--seconds 60]
"""

from __future__ import annotations

import argparse
import os
import resource
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

    def timed(kind: str, fn):
        t = time.perf_counter()
        r = fn()
        with lock:
            out[kind].append(time.perf_counter() - t)
        return r

    with httpx.Client(base_url=base, timeout=120) as c:
        while time.time() < stop:
            try:
                timed("home", lambda: c.get("/")).raise_for_status()
                t1 = time.perf_counter()
                r = timed("submit", lambda: c.post(
                    "/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "metrics": ["bleu", "chrf"], "seed": "12345"},
                    files=[("ref", ("ref.A.en", files["ref.A.en"])), ("systems", ("base.en", files["base.en"])),
                           ("systems", ("new.en", files["new.en"]))]))  # fmt: skip
                if r.status_code == 429:  # the queue is full: come back later
                    with lock:
                        out["refused"] += 1
                    time.sleep(2)
                    continue
                if r.status_code != 303:
                    raise RuntimeError(f"submit: {r.status_code} {r.text[:200]}")
                loc = r.headers["location"]
                while True:
                    s = timed("status", lambda loc=loc: c.get(loc + "/status")).json()
                    with lock:
                        out["queue"] = max(out["queue"], s.get("position", 0))
                    if s["state"] not in ("queued", "running"):
                        break
                    time.sleep(0.3)
                if s["state"] != "done":
                    raise RuntimeError(f"run {loc}: {s}")
                with lock:
                    out["run"].append(time.perf_counter() - t1)
                timed("page", lambda loc=loc: c.get(loc)).raise_for_status()
                timed("json", lambda loc=loc: c.get(loc + "/files/result.json")).raise_for_status()
            except Exception as exc:  # noqa: BLE001 - counted and shown
                with lock:
                    out["errors"].append(str(exc))


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def _start(port: int, results: Path, *extra: str, nofile: int | None = None) -> subprocess.Popen:
    def limit() -> None:
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    server = subprocess.Popen([sys.executable, "-m", "mtsig", "serve", "--port", str(port), "--results", str(results),
                               *extra], stderr=subprocess.PIPE, preexec_fn=limit if nofile else None)  # fmt: skip
    for _ in range(200):
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1, headers={"authorization": "Bearer t0ken"})
            return server
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def load(a: argparse.Namespace) -> int:
    port = _port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        server = _start(port, Path(tmp) / "results", "--jobs", str(a.jobs))
        try:
            out: dict = {k: [] for k in ("home", "submit", "status", "run", "page", "json", "errors")}
            out["queue"], out["refused"] = 0, 0
            lock = threading.Lock()
            stop = time.time() + a.seconds
            threads = [threading.Thread(target=_client, args=(base, stop, out, lock)) for _ in range(a.clients)]
            peak = 0.0
            for t in threads:
                t.start()
            while any(t.is_alive() for t in threads):
                peak = max(peak, _rss_mb(server.pid))
                time.sleep(0.5)
            bundles = sum(1 for p in (Path(tmp) / "results").iterdir() if p.is_dir() and p.name != ".work")
            left = list((Path(tmp) / "results" / ".work").iterdir())
        finally:
            server.terminate()
            server.wait(timeout=20)
    print(f"{a.clients} clients, {a.seconds:g} s, --jobs {a.jobs}: {len(out['run'])} runs completed, "
          f"{out['refused']} submissions refused with 429 (queue full), {len(out['errors'])} errors, "
          f"{bundles} bundles, "
          f"{len(left)} work folders left\n")  # fmt: skip
    print("| request | n | p50 | p95 | p99 |\n|---|---|---|---|---|")
    for k in ("home", "submit", "status", "page", "json", "run"):
        label = k if k != "run" else "whole run (submit to done)"
        xs = out[k]
        print(f"| {label} | {len(xs)} | {_pct(xs, .5) * 1000:.0f} ms | {_pct(xs, .95) * 1000:.0f} ms | "
              f"{_pct(xs, .99) * 1000:.0f} ms |")  # fmt: skip
    print(f"\nserver memory (RSS) at most {peak:.0f} MB; deepest queue seen: {out['queue']} waiting")
    for e in out["errors"][:5]:
        print("error:", e)
    return 1 if out["errors"] else 0


def _slow(port: int, stop: float, counts: dict, lock: threading.Lock) -> None:
    """A client that sends its headers a byte every two seconds, and comes back when it is closed."""
    line = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 10_000
    while time.time() < stop:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            time.sleep(0.5)
            continue
        with lock:
            counts["connections"] += 1
        try:
            for k in range(len(line)):
                if time.time() >= stop:
                    break
                s.sendall(line[k : k + 1])
                time.sleep(2)
        except OSError:
            with lock:
                counts["closed"] += 1
        finally:
            s.close()


def slow(a: argparse.Namespace) -> int:
    port = _port()
    with tempfile.TemporaryDirectory() as tmp:
        server = _start(port, Path(tmp) / "results", "--token", "t0ken", nofile=256)
        try:
            counts = {"connections": 0, "closed": 0}
            lock = threading.Lock()
            stop = time.time() + a.seconds
            threads = [threading.Thread(target=_slow, args=(port, stop, counts, lock), daemon=True)
                       for _ in range(a.slow)]  # fmt: skip
            for t in threads:
                t.start()
            time.sleep(3)  # the crowd in place
            lat, failed, fds = [], [], 0
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10,
                              headers={"authorization": "Bearer t0ken"}) as c:  # fmt: skip
                while time.time() < stop - 1:
                    t0 = time.perf_counter()
                    try:
                        r = c.get("/")
                        if r.status_code != 200:
                            failed.append(str(r.status_code))
                        lat.append(time.perf_counter() - t0)
                    except httpx.HTTPError as exc:
                        failed.append(type(exc).__name__)
                    fds = max(fds, len(os.listdir(f"/proc/{server.pid}/fd")))
                    time.sleep(0.5)
        finally:
            server.terminate()
            server.wait(timeout=20)
            log = server.stderr.read() if server.stderr else b""
    print(f"{a.slow} slow clients for {a.seconds:g} s against ulimit -n 256: {counts['connections']} connections "
          f"opened, {counts['closed']} closed by the server")  # fmt: skip
    print(f"the token holder: {len(lat)} requests, {len(failed)} failed; latency p50 {_pct(lat, .5) * 1000:.0f} ms, "
          f"p95 {_pct(lat, .95) * 1000:.0f} ms, max {max(lat) * 1000 if lat else float('nan'):.0f} ms")  # fmt: skip
    print(f"server: at most {fds} open files; {len(log):,} bytes logged")
    return 1 if failed or not lat else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--slow", type=int, default=0, help="slow clients (the second mode)")
    a = ap.parse_args()
    return slow(a) if a.slow else load(a)


if __name__ == "__main__":
    sys.exit(main())
