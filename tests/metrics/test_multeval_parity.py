"""MultEval's per-run BLEU and Length (and their mean / s_opt) on its own example, to 6 decimals."""

from __future__ import annotations

import re

import pytest

import mtsig


def parse_multeval(path):
    rows = {}
    for m in re.finditer(r"^\s+(BLEU|TER|METEOR|Length)\s+(baseline|sys1)\s+([\d.\s]+)$", path.read_text(), re.M):
        vals = m.group(3).split()
        rows[(m.group(1).lower(), m.group(2))] = vals
    return rows


@pytest.fixture(scope="module")
def multeval_result(multeval):
    refs = [str(multeval / "refs.test2010.lc.tok.en.0")]
    systems = [f"{s}={multeval}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1", "sys2")]
    return mtsig.score(refs, systems, ["bleu", "length"], tokenize="none")


@pytest.mark.parametrize("metric", ["bleu", "length"])
@pytest.mark.parametrize("system", ["baseline", "sys1"])
def test_per_run_scores_mean_and_s_opt(multeval, multeval_result, metric, system):
    exp = parse_multeval(multeval / "EXPECTED-multeval.txt")[(metric, system)]
    e = next(s for s in multeval_result.to_dict()["systems"] if s["name"] == system)["scores"][metric]
    got = [f"{x:.6f}" for x in e["runs"]] + [f"{e['mean']:.6f}", f"{e['s_test']:.6f}"]
    assert got == exp


def test_sys2_identical_to_baseline(multeval_result):
    by = {s["name"]: s["scores"] for s in multeval_result.to_dict()["systems"]}
    assert by["sys2"]["bleu"]["runs"] == by["baseline"]["bleu"]["runs"]


@pytest.fixture(scope="module")
def multeval_ter(multeval):
    refs = [str(multeval / "refs.test2010.lc.tok.en.0")]
    systems = [f"{s}={multeval}/hyps.lc.tok.en.{s}.opt*" for s in ("baseline", "sys1")]
    return {
        search: mtsig.score(refs, systems, ["ter"], tokenize="multeval", ter_tercom=search == "tercom").to_dict()
        for search in ("tercom", "sacrebleu")
    }


@pytest.mark.parametrize("system", ["baseline", "sys1"])
def test_ter_with_tercoms_search_equals_multeval(multeval, multeval_ter, system):
    """MultEval runs tercom 0.8.0: ``ter_tercom`` gives its six per-run TERs, mean and s_opt to 6 decimals;
    sacreBLEU's search (the default) does not on three of the six runs."""
    exp = parse_multeval(multeval / "EXPECTED-multeval.txt")[("ter", system)]

    def row(search: str) -> list[str]:
        e = next(s for s in multeval_ter[search]["systems"] if s["name"] == system)["scores"]["ter"]
        return [f"{x:.6f}" for x in e["runs"]] + [f"{e['mean']:.6f}", f"{e['s_test']:.6f}"]

    assert row("tercom") == exp
    assert row("sacrebleu") != exp
