"""A real ``mtsig serve`` (uvicorn, its own process) through faults: killed with SIGKILL or stopped with SIGTERM
while a run is going, then started again on the same results folder (every run accounted for, no upload left, no
worker left); clients that send their headers or bodies slowly; a crowd of idle connections beside one that sends
its request at once; an upload streamed far beyond the limit."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

EX = Path(__file__).resolve().parents[1] / "examples"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, results: Path, *extra: str) -> None:
        self.port = _free_port()
        self.results = results
        self.proc = subprocess.Popen([sys.executable, "-m", "mtsig", "serve", "--port", str(self.port), "--results",
                                      str(results), *extra], stderr=subprocess.PIPE)  # fmt: skip
        self.base = f"http://127.0.0.1:{self.port}"
        end = time.time() + 30
        while time.time() < end:
            try:
                urllib.request.urlopen(self.base + "/", timeout=2).read()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise AssertionError(self.proc.stderr.read().decode()) from None
                time.sleep(0.2)
        raise AssertionError("mtsig serve did not answer")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.base + path, timeout=10) as r:
                return r.status, r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8")

    def submit(self, **fields: str) -> str:
        """A compare of the shipped example (a slow one: many resamples), as a browser posts it; the run's id."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", "/")
        r = conn.getresponse()
        r.read()
        csrf = re.search(r"mtsig_csrf=([^;]+)", r.getheader("set-cookie")).group(1)
        boundary = "mtsigtestboundary"
        parts = [("csrf", None, csrf.encode()), ("command", None, b"compare"), ("metrics", None, b"bleu")]
        parts += [(k, None, v.encode()) for k, v in fields.items()]
        parts += [("ref", "ref.A.en", (EX / "ref.A.en").read_bytes()), ("systems", "base.en", (EX / "base.en")
                  .read_bytes()), ("systems", "new.en", (EX / "new.en").read_bytes())]  # fmt: skip
        body = b""
        for name, filename, data in parts:
            disp = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
            body += f"--{boundary}\r\nContent-Disposition: {disp}\r\n\r\n".encode() + data + b"\r\n"
        body += f"--{boundary}--\r\n".encode()
        conn.request("POST", "/runs", body=body, headers={"content-type": f"multipart/form-data; boundary={boundary}",
                                                          "cookie": f"mtsig_csrf={csrf}"})  # fmt: skip
        r = conn.getresponse()
        r.read()
        assert r.status == 303, r.status
        return r.getheader("location").rsplit("/", 1)[1]

    def status(self, run: str) -> dict:
        return json.loads(self.get(f"/runs/{run}/status")[1])

    def wait_state(self, run: str, states: tuple[str, ...], timeout: float = 60) -> dict:
        end = time.time() + timeout
        while time.time() < end:
            s = self.status(run)
            if s["state"] in states:
                return s
            time.sleep(0.1)
        raise AssertionError(f"{run}: {s}")


def _workers(run: str) -> list[int]:
    """The processes still running for a run (its worker and whatever it started)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"mtsig.serve.worker" in cmd and run.encode() in cmd:
            out.append(int(pid))
    return out


def _gone(run: str, timeout: float = 10) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if not _workers(run):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_a_server_stopped_mid_run_leaves_no_worker_and_its_runs_are_accounted_for(tmp_path, how):
    results = tmp_path / "results"
    server = Server(results, "--jobs", "1")
    try:
        running = server.submit(n_resamples="9000000")
        queued = server.submit()
        server.wait_state(running, ("running",))
        time.sleep(1.0)  # well into its work
        assert _workers(running) and server.status(queued)["state"] == "queued"
        server.proc.send_signal(getattr(signal, how))
        server.proc.wait(timeout=20)
        assert _gone(running), f"a worker outlived the server: {_workers(running)}"
    finally:
        server.stop()
    again = Server(results, "--jobs", "1")
    try:
        for run, when in ((running, "running"), (queued, "waiting in the queue")):
            s = again.status(run)
            assert s["state"] == "interrupted" and when in s["error"], s
            assert not (results / run).exists()  # no bundle of a run that did not end
        code, home = again.get("/")
        assert code == 200 and running in home and queued in home
    finally:
        again.stop()
    assert not any((results / ".work").iterdir())  # no upload left


def test_slow_headers_lose_their_connection(tmp_path):
    server = Server(tmp_path / "results", "--header-timeout", "1")
    try:
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and nothing more
        s.settimeout(5)
        t = time.time()
        assert s.recv(100) == b""  # closed by the server
        assert time.time() - t < 3
        s.close()
    finally:
        server.stop()


def test_a_crowd_of_idle_connections_does_not_lock_out_a_request(tmp_path):
    """120 connections that send nothing, with room for 24: the request that comes next is answered at once, and
    the server holds no more than its limit."""
    server = Server(tmp_path / "results", "--max-connections", "24", "--header-timeout", "30")
    idle = []
    try:
        for _ in range(120):
            c = socket.create_connection(("127.0.0.1", server.port))
            c.sendall(b"GET / HTTP/1.1\r\n")  # a request begun and never finished
            idle.append(c)
        time.sleep(0.5)
        t = time.time()
        code, text = server.get("/")
        assert code == 200 and "<h1>mtsig</h1>" in text and time.time() - t < 5
        fds = len(os.listdir(f"/proc/{server.proc.pid}/fd"))
        assert fds < 24 + 40, fds  # its own files and at most its limit of connections
    finally:
        for c in idle:
            c.close()
        server.stop()


def test_an_upload_streamed_beyond_the_limit_is_cut_off_in_bounded_memory(tmp_path):
    server = Server(tmp_path / "results", "--max-upload-mb", "1")
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", "/")
        r = conn.getresponse()
        r.read()
        csrf = re.search(r"mtsig_csrf=([^;]+)", r.getheader("set-cookie")).group(1)
        rss0 = _rss(server.proc.pid)

        def body():
            yield (f'--b\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{csrf}\r\n--b\r\nContent-Disposition: '
                   'form-data; name="ref"; filename="big.en"\r\n\r\n').encode()  # fmt: skip
            for _ in range(400):  # 100 MB, chunked (no Content-Length)
                yield b"x" * (256 * 1024)

        sent = 0
        try:
            conn.putrequest("POST", "/runs")
            conn.putheader("content-type", "multipart/form-data; boundary=b")
            conn.putheader("cookie", f"mtsig_csrf={csrf}")
            conn.putheader("transfer-encoding", "chunked")
            conn.endheaders()
            for chunk in body():
                conn.send(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                sent += len(chunk)
            conn.send(b"0\r\n\r\n")
            status = conn.getresponse().status
        except (BrokenPipeError, ConnectionResetError):
            status = 413  # the server answered and closed before the client had sent it all
        assert status == 413
        assert sent < 100 * 2**20 or _rss(server.proc.pid) - rss0 < 50 * 2**20
        assert _rss(server.proc.pid) - rss0 < 50 * 2**20  # never the upload in memory
        assert not [p for p in (tmp_path / "results").rglob("big.en")]
    finally:
        server.stop()


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0
