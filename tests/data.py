"""Where the real data lives (../shared/data beside the repository; never copied in), and its file names.

A test that needs it calls :func:`need`: without the data it fails under CI (CI=true) and is skipped
elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
WMT = DATA / "wmt22-de-en"
MULTEVAL = DATA / "multeval-example"
WMT_XML = DATA / "wmt22-de-fr" / "wmttest2022.de-fr.all.xml"
WMT_SYSTEMS = ["JDExploreAcademy", "LT22", "Online-B", "PROMT"]
MULTEVAL_SYSTEMS = ["baseline", "sys1", "sys2"]


def unavailable(msg: str):
    """A test's prerequisite is missing: fail under CI (CI=true), skip elsewhere."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(msg)
    pytest.skip(msg)


def need(path: Path) -> Path:
    if not path.exists():
        unavailable(f"real-data test needs {path} (shared/ beside the repository)")
    return path


def wmt_ref(d: Path, r: str) -> str:
    return str(d / f"generaltest2022.de-en.ref.{r}.en")


def wmt_hyp(d: Path, s: str) -> str:
    return str(d / f"generaltest2022.de-en.hyp.{s}.en")


def multeval_ref(d: Path) -> str:
    return str(d / "refs.test2010.lc.tok.en.0")


def multeval_runs(d: Path, system: str) -> str:
    """``NAME=glob`` of a MultEval system's three optimizer runs."""
    return f"{system}={d}/hyps.lc.tok.en.{system}.opt*"
