"""Shared fixtures. Real-data tests read ../shared/data beside the repository; the data is never copied in.

When the data is missing the tests fail under CI (CI=true) and are skipped elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
WMT = DATA / "wmt22-de-en"
MULTEVAL = DATA / "multeval-example"
WMT_SYSTEMS = ["JDExploreAcademy", "LT22", "Online-B", "PROMT"]


def _need(path: Path) -> Path:
    if not path.exists():
        msg = f"real-data test needs {path} (shared/ beside the repository)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def wmt() -> Path:
    return _need(WMT)


@pytest.fixture(scope="session")
def multeval() -> Path:
    return _need(MULTEVAL)


def wmt_ref(d: Path, r: str) -> str:
    return str(d / f"generaltest2022.de-en.ref.{r}.en")


def wmt_hyp(d: Path, s: str) -> str:
    return str(d / f"generaltest2022.de-en.hyp.{s}.en")


@pytest.fixture(scope="session")
def wmt_bleu_stats(wmt):
    """BLEU statistics (13a, cased, both references) of the four WMT22 systems, computed once."""
    import mtsig

    table = mtsig.compute(
        [wmt_ref(wmt, "A"), wmt_ref(wmt, "B")],
        {s: wmt_hyp(wmt, s) for s in WMT_SYSTEMS},
        ["bleu", "nist", "mbleu", "length"],
    )
    return table
