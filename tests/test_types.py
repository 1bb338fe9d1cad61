"""The package ships ``py.typed``: its annotations are checked by mypy under the configuration in pyproject.toml
(``[tool.mypy]``), and every error fails this test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_finds_no_error_in_src(tmp_path):
    p = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "src"], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)  # fmt: skip
    errors = [ln for ln in p.stdout.splitlines() if ": error:" in ln]
    assert p.returncode == 0 and not errors, "mypy found errors:\n" + "\n".join(errors or [p.stdout, p.stderr])
    assert "Success: no issues found" in p.stdout
