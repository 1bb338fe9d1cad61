"""The compiled parts under AddressSanitizer and UndefinedBehaviorSanitizer, in CI (issue 40): the build the way
``pip install`` builds (a current setuptools, whatever the environment's own), then the tests that fuzz every C
entry point against its Python reference and throw hostile sizes, offsets and indices at it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the fuzzing and hostile-offset tests of each compiled part (the parity tests run unsanitized in the suite)
SUBSET = "fuzz or offset or hostile"


def _has_sanitizers(cc: str) -> bool:
    lib = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    return os.path.isabs(lib) and os.path.exists(lib)


@pytest.mark.slow
@pytest.mark.sanitize
def test_compiled_parts_hold_under_asan_and_ubsan():
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None or not _has_sanitizers(cc):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the sanitizers: {cc} with libasan is missing")
        pytest.skip(f"{cc} with its sanitizer runtimes is not installed")
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "sanitize.py"), "-k", SUBSET],
                       capture_output=True, text=True, timeout=1200)  # fmt: skip
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "sanitizer reports: 0" in r.stdout
    assert "passed" in r.stdout and " failed" not in r.stdout
