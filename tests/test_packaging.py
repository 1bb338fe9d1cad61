"""The sdist carries everything needed to build and test mtsig (every test file, the example, the C sources and
their header, the license) and the metadata PyPI shows (license expression, classifiers); the wheel carries
the compiled parts. Builds with `python -m build` in a temporary folder."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("dist")
    p = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], capture_output=True,
                       text=True, timeout=900)  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    return out


def test_sdist_is_complete(dist):
    (sdist,) = dist.glob("mtsig-*.tar.gz")
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
        pkg_info = t.extractfile(next(m for m in t.getmembers() if m.name.endswith("/PKG-INFO"))).read().decode()
    want = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")}
    want |= {str(p.relative_to(ROOT)) for p in (ROOT / "examples").rglob("*") if p.is_file()}
    want |= {
        str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }
    want |= {"LICENSE", "README.md", "setup.py", "pyproject.toml", "src/mtsig/_checks.h"}
    want |= {str(p.relative_to(ROOT)) for p in (ROOT / "src" / "mtsig").glob("*.c")}
    assert want - names == set()
    assert "License-Expression: MIT" in pkg_info
    assert "Classifier: Intended Audience :: Science/Research" in pkg_info


def test_wheel_has_the_compiled_parts_and_the_license(dist):
    (wheel,) = dist.glob("mtsig-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    for part in ("_tok", "_ter", "_plan", "_meteor"):
        assert any(n.startswith(f"mtsig/{part}.") and n.endswith((".so", ".pyd")) for n in names), part
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert not any(n.startswith("tests/") for n in names)
