"""The anytime ranking (``--protocol mtsig`` on a Pearmut log, ``--anytime`` elsewhere) and ``study adaptive``:
sequences per pair, rank sets from the resolved pairs, their coverage under Pearmut's adaptive assignment, and
clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mtsig
from mtsig.errors import InputError
from mtsig.humaneval.policy import Matrix
from mtsig.studies.adaptive import AdaptiveJob
from tests.humaneval.pearmut_log import write_log


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    return str(write_log(tmp_path_factory.mktemp("pearmut") / "annotations.json"))


def test_a_pearmut_log_is_ranked_by_the_anytime_procedure(log):
    res = mtsig.human(log, lp="en-cs")
    assert res.settings["anytime"] and res.settings["sequence"] == "betting" and res.settings["screens"] > 400
    resolved = [c for c in res.comparisons if c.significant]
    assert 0 < len(resolved) < len(res.comparisons) == 78
    for c in res.comparisons:
        lo, hi = c.cs
        assert lo <= c.delta_common <= hi
        assert c.significant == (lo > 0 or hi < 0) and (c.resolved_at is not None) == c.significant
        if c.significant:
            assert 1 <= c.resolved_at <= res.settings["screens"]
    for s in res.systems:  # a rank set counts the systems surely better and surely worse
        worse = sum(1 for c in resolved if (c.a == s.name and c.cs[1] < 0) or (c.b == s.name and c.cs[0] > 0))
        better = sum(1 for c in resolved if (c.b == s.name and c.cs[1] < 0) or (c.a == s.name and c.cs[0] > 0))
        assert s.rank_range == (better + 1, len(res.systems) - worse)
    d = res.to_dict()
    assert {"a", "b", "n_documents", "more_documents"} <= set(d["next"][0]) and "cs" in d["comparisons"][0]
    eb = mtsig.human(log, lp="en-cs", sequence="eb")  # the closed form is wider: never more resolved
    assert sum(c.significant for c in eb.comparisons) <= len(resolved)


def _tsv(tmp_path, rows):
    p = tmp_path / "h.tsv"
    p.write_text("system\tsegment\tdoc\tscore\n" + "".join(f"{s}\t{g}\t{d}\t{x}\n" for s, g, d, x in rows), "utf-8")
    return str(p)


def test_identical_systems_are_never_resolved_and_bounds_are_needed(tmp_path):
    rng = np.random.default_rng(0)
    rows = []
    for g in range(200):
        x = float(rng.integers(0, 101))
        rows += [("A", g, f"d{g // 4}", x), ("B", g, f"d{g // 4}", x), ("C", g, f"d{g // 4}", min(100.0, x + 30))]
    path = _tsv(tmp_path, rows)
    with pytest.raises(InputError, match="--score-range"):
        mtsig.human(path, anytime=True)
    res = mtsig.human(path, anytime=True, score_range=(0, 100))
    ab = res.get("A", "B")
    assert not ab.significant and ab.cs[0] <= 0 <= ab.cs[1] and ab.resolved_at is None
    assert res.get("C", "A").significant and res.systems[0].name == "C" and res.systems[0].rank_range == (1, 1)
    with pytest.raises(InputError, match="outside the range 0 to 50"):
        mtsig.human(path, anytime=True, score_range=(0, 50))
    with pytest.raises(InputError, match="two numbers"):
        mtsig.human(path, anytime=True, score_range=(0, 50, 100))


@pytest.mark.parametrize(("settings", "message"), [
    ({"protocol": "wmt26"}, "anytime belongs to protocol mtsig"),
    ({"test": "paired-bootstrap"}, "runs no resampling test"),
])  # fmt: skip
def test_anytime_refuses_what_it_does_not_do(tmp_path, settings, message):
    path = _tsv(tmp_path, [(s, g, f"d{g // 3}", 50 + (s == "A")) for s in "AB" for g in range(30)])
    with pytest.raises(InputError, match=message):
        mtsig.human(path, anytime=True, score_range=(0, 100), **settings)


def _matrix(seed: int, K: int = 6, D: int = 40, spread: float = 4.0) -> Matrix:
    rng = np.random.default_rng(seed)
    quality = spread * np.arange(K)[::-1]
    scores = [np.clip(np.round(60 + quality[:, None] + rng.normal(0, 6) + rng.normal(0, 15, (K, int(n)))), 0, 100)
              for n in rng.integers(1, 4, D)]  # fmt: skip
    return Matrix(tuple(f"s{k}" for k in range(K)), tuple(f"d{d}" for d in range(D)), scores)


@pytest.mark.slow
def test_anytime_rank_sets_cover_at_every_stopping_time_under_pearmuts_policy():
    """200 replays of Pearmut's dynamic policy on a matrix of six systems, some close: joint coverage of the anytime
    rank sets at every screen at least 1 - alpha (its binomial upper bound), at 0.05 and 0.01 (the study's 1,000
    replays per cell on real matrices are in docs/adaptive.md)."""
    m = _matrix(1, spread=1.0)
    job = AdaptiveJob(m, "pearmut", (0.05, 0.01), 3, 5, 11)
    n = 200
    res = [job.replicate(r) for r in range(n)]
    for a in ("0.05", "0.01"):
        k = sum(r[a]["anytime_covered"] for r in res)
        assert k / n >= 1 - float(a) - 3 * np.sqrt(float(a) * (1 - float(a)) / n), (a, k)


def test_study_adaptive_same_numbers_with_any_number_of_processes(tmp_path):
    from mtsig.cli import main

    m = _matrix(2, K=5, D=24)
    rows = [(s, f"{d}-{j}", d, float(m.scores[i][k, j])) for i, d in enumerate(m.docs)
            for k, s in enumerate(m.systems) for j in range(m.scores[i].shape[1])]  # fmt: skip
    path = _tsv(tmp_path, rows)
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"s{jobs}.json"
        assert main(["study", "adaptive", path, "--replicates", "20", "--coldstart", "5", "-j", jobs, "-q",
                     "--format", "json", "-o", str(out)]) == 0  # fmt: skip
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    d = json.loads(outs[0])
    assert set(d["data"]["coverage"]) == {"mtsig anytime rank sets", "fixed-sample rank sets, 10 looks", "wmt26"}
    assert set(d["data"]["annotations_to_resolve"]) == {"pearmut", "uniform", "top-two", "successive-rejects"}
    for per in d["data"]["annotations_to_resolve"].values():
        for v in per.values():
            assert 0 <= v["reached"] <= 1 and len(v["per_replay"]) == 20
    assert all(c["replays"] == 20 for cs in d["data"]["coverage"].values() for c in cs)


def test_the_html_report_shows_what_the_text_shows(log):
    from mtsig.report.human import render_human_html, tests_table

    res = mtsig.human(log, lp="en-cs")
    page = render_human_html(res)
    assert "sequence of Δ low" in page and "resolved at screen" in page and "bootstrap resamples" not in page
    first = tests_table(res).rows[0][5]  # the text's sequence of the first pair, e.g. "[-19.400, +15.200]"
    lo = first.strip("[]*").split(",")[0]
    assert f">{float(lo):.3f}<" in page or f">{lo}<" in page
    w = render_human_html(mtsig.human(log, lp="en-cs", protocol="wmt26", n_bootstrap=50))
    assert "line below" in w and "yes_cluster" in w
