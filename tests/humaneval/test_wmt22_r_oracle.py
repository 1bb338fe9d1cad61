"""R's ``wilcox.test`` (the test WMT22's tables come from) as an oracle for ``--protocol wmt22``: every ordered
pair of the four WMT22 into-English pairs, including the cells WMT's files print as 0.12 (marked ``r``: CI
installs Debian's r-base-core; skipped elsewhere without Rscript)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

import mtsig
from tests.data import DATA, need

pytestmark = [pytest.mark.r, pytest.mark.slow]
HE = DATA / "wmt22-humaneval-toen"
SCRIPT = r"""
d <- read.table(commandArgs(trailingOnly = TRUE)[1], header = TRUE)
s <- unique(as.character(d$SYS))
for (a in s) for (b in s) if (a != b)
  cat(sprintf("%s\t%s\t%.17g\n", a, b, wilcox.test(d$Z.SCR[d$SYS == a], d$Z.SCR[d$SYS == b],
                                                  alternative = "greater")$p.value))
"""


@pytest.mark.parametrize("pair", ["de-en", "cs-en", "uk-en", "lv-en"])
def test_every_p_value_equals_rs_wilcox_test(pair, tmp_path):
    if shutil.which("Rscript") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Rscript is missing under CI (.ci/run installs r-base-core)")
        pytest.skip("Rscript is not installed")
    seg = need(HE / pair / f"ad-seg-scores-{pair}.csv")
    script = tmp_path / "w.R"
    script.write_text(SCRIPT, encoding="utf-8")
    out = subprocess.run(["Rscript", str(script), str(seg)], capture_output=True, text=True, check=True).stdout
    res = mtsig.human(str(seg), protocol="wmt22", n_bootstrap=100)
    rows = [x.split("\t") for x in out.splitlines() if x]
    k = len(res.systems)
    assert len(rows) == k * (k - 1)
    for a, b, p in rows:
        assert res.get(a, b).p_value == pytest.approx(float(p), rel=1e-9), (a, b)
