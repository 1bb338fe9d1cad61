"""METEOR on MultEval's example: its published column within 0.1, and identical systems get p = 1 under
stratified approximate randomization (sys2's runs are the baseline's, byte for byte)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mtsig.metrics import get_metric
from tests.data import MULTEVAL, need

pytestmark = pytest.mark.slow

# EXPECTED-multeval.txt, METEOR rows (MultEval 0.5.1)
EXPECTED = {"baseline": [29.330036, 29.255569, 29.340350], "sys1": [30.304878, 30.191196, 30.375191]}


def _lines(p):
    with open(p, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def test_multeval_meteor_column_within_a_tenth():
    me = need(MULTEVAL)
    m = get_metric("meteor")
    m.prepare([_lines(me / "refs.test2010.lc.tok.en.0")])
    for system, expected in EXPECTED.items():
        for k, e in enumerate(expected):
            got = m.corpus_score(m.stats(_lines(me / f"hyps.lc.tok.en.{system}.opt{k}")))
            print(f"{system} run {k}: mtsig {got:.6f} MultEval {e:.6f} gap {got - e:+.6f}")
            assert abs(got - e) <= 0.1  # the bound
            assert abs(got - e) < 5e-7  # measured: equal to the 6 decimals MultEval prints


def test_identical_systems_stratified_ar_p_is_one():
    me = need(MULTEVAL)
    out = subprocess.run(
        [sys.executable, "-m", "mtsig", "compare", "-r", str(me / "refs.test2010.lc.tok.en.0"), "-s",
         f"baseline={me}/hyps.lc.tok.en.baseline.opt*", f"sys2={me}/hyps.lc.tok.en.sys2.opt*",
         "-m", "meteor", "--tokenize", "none", "--test", "stratified-ar", "--n-resamples", "1000", "--format", "json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    comps = json.loads(out)["comparisons"]
    assert [c["p_value"] for c in comps] == [1.0]
    assert comps[0]["delta"] == 0.0
