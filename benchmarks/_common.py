"""Helpers shared by the benchmark scripts: data paths and timing of commands in fresh processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
WMT = DATA / "wmt22-de-en"
SYSTEMS = ["JDExploreAcademy", "LT22", "Online-B", "PROMT"]


def need_data() -> None:
    if not WMT.exists():
        sys.exit(f"benchmark data not found: {WMT} (shared/ beside the repository)")


def refs(n: int = 2) -> list[str]:
    return [str(WMT / f"generaltest2022.de-en.ref.{r}.en") for r in "AB"[:n]]


def hyps() -> list[str]:
    return [str(WMT / f"generaltest2022.de-en.hyp.{s}.en") for s in SYSTEMS]


def timed(cmd: list[str], repeat: int = 1, env: dict | None = None) -> tuple[float, str]:
    """Best wall time of ``cmd`` over ``repeat`` runs in fresh processes (after one untimed run), and its last
    stdout. Python may write its bytecode caches (``PYTHONDONTWRITEBYTECODE`` is dropped): tools installed by
    pip start from compiled bytecode, and so does each tool here after the first run."""
    best, out = float("inf"), ""
    full = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | (env or {})
    subprocess.run(cmd, capture_output=True, text=True, env=full)
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, env=full)
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
        best, out = min(best, dt), p.stdout
    return best, out


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]
