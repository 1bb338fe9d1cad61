"""``mtsig serve``: mtsig in a browser on this machine."""

from __future__ import annotations

import argparse
import os
import sys


def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine "
                   "only; another address needs --token)")  # fmt: skip
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument("--data", default=None, metavar="DIR", help="a folder whose files the page offers as inputs")
    p.add_argument("--results", default="mtsig-results", metavar="DIR",
                   help="where runs are kept, one bundle each, and the list of runs (default: "
                   "./mtsig-results)")  # fmt: skip
    p.add_argument("--token", default=os.environ.get("MTSIG_TOKEN"), metavar="T", help="required of every "
                   "request (default: $MTSIG_TOKEN); needed for a non-loopback --host")  # fmt: skip
    p.add_argument("--allow-host", nargs="+", default=[], metavar="NAME",
                   help="names the server also answers to (a reverse proxy's host name); requests naming any other "
                   "host are refused (default: the loopback names and --host)")  # fmt: skip
    g = p.add_argument_group("limits")
    g.add_argument("--max-upload-mb", type=int, default=50, metavar="MB", help="largest upload per run (default 50)")
    g.add_argument("--max-files", type=int, default=20, metavar="N", help="most files per run (default 20)")
    g.add_argument("--jobs", "-j", type=int, default=2, help="runs at a time; the others wait (default 2)")
    g.add_argument("--max-queue", type=int, default=16, metavar="N",
                   help="runs that may wait; one more is refused until one ends (default 16)")  # fmt: skip
    g.add_argument("--max-run-minutes", type=float, default=60.0, metavar="M",
                   help="a run still going after this long is stopped (default 60)")  # fmt: skip
    g.add_argument("--max-run-memory-gb", type=float, default=None, metavar="GB",
                   help="a run's memory (address space) limit (default: the machine's memory divided by --jobs, at "
                   "least 2)")  # fmt: skip
    g.add_argument("--max-connections", type=int, default=None, metavar="N",
                   help="connections at once; one more closes the one that waited longest on its client (default: "
                   "the open-files limit less 64, at most 1000)")  # fmt: skip
    g.add_argument("--header-timeout", type=float, default=10.0, metavar="S",
                   help="seconds a request's headers may take (default 10)")  # fmt: skip


def _memory_default(jobs: int) -> int:
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 * 2**30
    return max(2 * 2**30, int(total / max(1, jobs)))


def check(a: argparse.Namespace) -> None:
    from mtsig.errors import InputError

    if a.data is not None and not os.path.isdir(a.data):
        raise InputError(f"--data {a.data}: not a folder")
    for flag, v in (("--max-upload-mb", a.max_upload_mb), ("--max-files", a.max_files), ("--jobs", a.jobs),
                    ("--max-queue", a.max_queue), ("--max-run-minutes", a.max_run_minutes),
                    ("--header-timeout", a.header_timeout)):  # fmt: skip
        if not v > 0:
            raise InputError(f"{flag} must be above 0, got {v}")
    if a.max_run_memory_gb is not None and not a.max_run_memory_gb >= 0.25:
        raise InputError(f"--max-run-memory-gb must be at least 0.25, got {a.max_run_memory_gb}")
    if a.max_connections is not None and a.max_connections < 8:
        raise InputError(f"--max-connections must be at least 8, got {a.max_connections}")
    if not 0 < a.port < 65536:
        raise InputError(f"--port must be between 1 and 65535, got {a.port}")


def run(a: argparse.Namespace, table, prog) -> int:
    from pathlib import Path

    from mtsig.errors import InputError

    try:
        import uvicorn

        from mtsig.serve.app import Config, allowed_hosts, check_bind, create_app
        from mtsig.serve.jobs import Limits
        from mtsig.serve.protocol import RESERVE_FDS, configure, raise_fd_limit
    except ImportError as exc:
        raise InputError(f"mtsig serve needs its extra: pip install 'mtsig[serve]' ({exc})") from None
    check_bind(a.host, a.token)
    memory = int(a.max_run_memory_gb * 2**30) if a.max_run_memory_gb else _memory_default(a.jobs)
    config = Config(results=Path(a.results), data=Path(a.data) if a.data else None, token=a.token,
                    max_upload_bytes=a.max_upload_mb * 2**20, max_files=a.max_files, jobs=a.jobs,
                    max_waiting=a.max_queue, limits=Limits(a.max_run_minutes * 60, memory),
                    hosts=allowed_hosts(a.host, tuple(a.allow_host)))  # fmt: skip
    fds = raise_fd_limit()
    most = a.max_connections or max(8, min(1000, fds - RESERVE_FDS))
    if most > fds - RESERVE_FDS // 2:
        raise InputError(f"--max-connections {most}: the open-files limit is {fds} (ulimit -n); give at most "
                         f"{fds - RESERVE_FDS // 2}")  # fmt: skip
    protocol = configure(header_timeout=a.header_timeout, max_connections=most)
    shown = "localhost" if a.host in ("0.0.0.0", "::") else a.host
    url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{a.port}/" + (f"?token={a.token}" if a.token else "")
    print(f"mtsig serve: {url} (results in {config.results})", file=sys.stderr)
    server = uvicorn.Server(uvicorn.Config(create_app(config), host=a.host, port=a.port, http=protocol,
                                           log_level="error", access_log=False, timeout_keep_alive=5,
                                           timeout_graceful_shutdown=5, backlog=2048))  # fmt: skip
    server.run()
    return 0
