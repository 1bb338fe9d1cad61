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
                   help="where runs are kept, one bundle each (default: ./mtsig-results)")  # fmt: skip
    p.add_argument("--token", default=os.environ.get("MTSIG_TOKEN"), metavar="T", help="required of every "
                   "request (default: $MTSIG_TOKEN); needed for a non-loopback --host")  # fmt: skip
    p.add_argument("--max-upload-mb", type=int, default=50, metavar="MB", help="largest upload per run (default 50)")
    p.add_argument("--max-files", type=int, default=20, metavar="N", help="most files per run (default 20)")
    p.add_argument("--jobs", "-j", type=int, default=2, help="runs at a time; the others wait (default 2)")


def run(a: argparse.Namespace, table, prog) -> int:
    from pathlib import Path

    from mtsig.errors import InputError

    try:
        import uvicorn

        from mtsig.serve.app import Config, check_bind, create_app
    except ImportError as exc:
        raise InputError(f"mtsig serve needs its extra: pip install 'mtsig[serve]' ({exc})") from None
    check_bind(a.host, a.token)
    if a.data is not None and not os.path.isdir(a.data):
        raise InputError(f"--data {a.data}: not a folder")
    for flag, v in (("--max-upload-mb", a.max_upload_mb), ("--max-files", a.max_files), ("--jobs", a.jobs)):
        if v < 1:
            raise InputError(f"{flag} must be at least 1, got {v}")
    config = Config(results=Path(a.results), data=Path(a.data) if a.data else None, token=a.token,
                    max_upload_bytes=a.max_upload_mb * 2**20, max_files=a.max_files, jobs=a.jobs)  # fmt: skip
    url = f"http://{a.host}:{a.port}/" + (f"?token={a.token}" if a.token else "")
    print(f"mtsig serve: {url} (results in {config.results})", file=sys.stderr)
    uvicorn.run(create_app(config), host=a.host, port=a.port, log_level="warning")
    return 0
