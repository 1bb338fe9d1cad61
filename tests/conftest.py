"""Shared fixtures over the real data (see tests/data.py for the paths)."""

from __future__ import annotations

import os

import pytest

# Text output follows the terminal's width (COLUMNS); the tests expect the default layout unless they set it.
os.environ.pop("COLUMNS", None)

from tests.data import MULTEVAL, WMT, WMT_SYSTEMS, need, wmt_hyp, wmt_ref


@pytest.fixture(scope="session")
def wmt():
    return need(WMT)


@pytest.fixture(scope="session")
def multeval():
    return need(MULTEVAL)


@pytest.fixture(scope="session")
def wmt_bleu_stats(wmt):
    """BLEU, NIST, Modified BLEU and length statistics (13a, cased, both references) of the four WMT22
    systems, computed once."""
    import mtsig

    return mtsig.compute(
        [wmt_ref(wmt, "A"), wmt_ref(wmt, "B")],
        {s: wmt_hyp(wmt, s) for s in WMT_SYSTEMS},
        ["bleu", "nist", "mbleu", "length"],
    )
