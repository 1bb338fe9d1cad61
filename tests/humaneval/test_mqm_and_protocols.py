"""MQM segment scores equal Google's published averages; the default protocol's properties (identical systems p = 1,
seeds, documents as units, rank sets hold the observed order); wmt24 and wmt25 against scipy computed directly."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import norm, wilcoxon

import mtsig
from mtsig.cli import main
from mtsig.io.human import read_human
from tests.data import DATA, need

MQM = DATA / "mqm-ted-zhen"
#: the annotation file calls the references ref and refB, the averages file ref-A and ref-B
RENAMED = {"ref": "ref-A", "refB": "ref-B"}


@pytest.fixture(scope="module")
def mqm():
    return read_human(str(need(MQM / "mqm_ted_zhen.tsv")))


def test_every_mqm_segment_score_equals_the_published_average(mqm):
    assert mqm.input_format == "mqm" and mqm.documents is not None
    rows = [ln.split() for ln in open(need(MQM / "mqm_ted_zhen.avg_seg_scores.tsv"), encoding="utf-8")][1:]
    ours = {(RENAMED.get(s, s), g): mqm.scores[k, i] for k, s in enumerate(mqm.systems)
            for i, g in enumerate(mqm.segments)}  # fmt: skip
    compared = 0
    for system, value, seg in rows:
        x = ours.get((system, seg), np.nan)
        if value == "None":
            assert not np.isfinite(x), (system, seg)
        else:
            assert x == pytest.approx(float(value), abs=1e-12), (system, seg)
            compared += 1
    assert compared == 7935 and len(mqm.systems) == 15


def test_mqm_system_scores_and_ranking_by_documents(mqm):
    res = mtsig.human(mqm, resample_unit="document", n_resamples=2000, n_bootstrap=500)
    for s in res.systems:
        k = mqm.index(s.name)
        assert s.score == pytest.approx(float(np.nanmean(mqm.scores[k])), rel=1e-12)
    assert res.settings["resample_unit"] == "document" and res.settings["n_units"] == len(set(mqm.documents))
    assert [s.score for s in res.systems] == sorted((s.score for s in res.systems), reverse=True)
    # the references are the best-rated outputs of this set (Freitag et al. 2021)
    assert {res.systems[0].name, res.systems[1].name} & {"ref", "refB"}


def _tsv(tmp_path, table: dict[str, list[float]], name="s.tsv", docs=None, domains=None):
    head = ["system", "segment", "score"] + (["doc"] if docs else []) + (["domain"] if domains else [])
    lines = ["\t".join(head)]
    for s, xs in table.items():
        for i, x in enumerate(xs):
            if x is None:
                continue
            row = [s, str(i), repr(float(x))] + ([docs[i]] if docs else []) + ([domains[i]] if domains else [])
            lines.append("\t".join(row))
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(p)


def test_identical_systems_get_p_1_and_share_every_rank(tmp_path):
    rng = np.random.default_rng(0)
    x = list(rng.normal(size=200))
    res = mtsig.human(_tsv(tmp_path, {"a": x, "b": x, "c": list(np.array(x) + 1.0)}), n_bootstrap=400)
    ab = res.get("a", "b")
    assert ab.p_value == 1.0 and ab.p_adjusted == 1.0 and not ab.significant and ab.delta == 0
    assert res.systems[0].name == "c" and res.systems[0].rank_range == (1, 1)
    assert {s.rank_range for s in res.systems[1:]} == {(2, 3)}
    assert res.clusters == (("c",), ("a", "b"))


def test_seed_reproduces_and_is_reported(tmp_path):
    rng = np.random.default_rng(1)
    path = _tsv(tmp_path, {s: list(rng.normal(0.05 * i, 1, 150)) for i, s in enumerate("abcd")})
    r1, r2 = mtsig.human(path, seed=9, n_bootstrap=300), mtsig.human(path, seed=9, n_bootstrap=300)
    assert r1.to_dict() == r2.to_dict() and r1.settings["seed"] == 9
    r3 = mtsig.human(path, seed=10, n_bootstrap=300)
    assert [c.p_value for c in r3.comparisons] != [c.p_value for c in r1.comparisons]


def test_the_ar_p_value_equals_a_direct_sign_flip_count(tmp_path):
    """The vectorized randomization equals counting sign flips of the paired differences one resample at a time
    with the same masks."""
    from mtsig.resample import Resampling

    rng = np.random.default_rng(2)
    a, b = rng.normal(0, 1, 120), rng.normal(0.2, 1, 120)
    res = mtsig.human(_tsv(tmp_path, {"a": list(a), "b": list(b)}), n_resamples=999, n_bootstrap=100)
    c = res.comparisons[0]
    d = (b - a) if c.a == "b" else (a - b)
    W = np.vstack(list(Resampling(999, 12345).plan("randomization", 120, 999).chunks()))
    flips = np.array([np.sum(np.where(w > 0, -d, d)) for w in W])
    count = np.count_nonzero(np.abs(flips) >= abs(d.sum()) - 1e-12 * max(1, abs(d.sum())))
    assert c.p_value == pytest.approx((count + 1) / 1000, rel=1e-12)


def test_a_pair_with_too_few_common_segments_is_not_tested_and_says_so(tmp_path):
    rng = np.random.default_rng(3)
    a = list(rng.normal(size=60))
    b = [None] * 55 + list(rng.normal(size=5))  # judged on 5 segments only, all shared with a
    c = list(rng.normal(size=60))
    res = mtsig.human(_tsv(tmp_path, {"a": a, "b": b, "c": c}), n_bootstrap=200)
    ab = res.get("a", "b")
    assert ab.p_value is None and ab.n_common == 5 and "fewer than 10" in ab.note and not ab.significant
    assert any("not tested" in n for n in res.notes)
    assert res.get("a", "c").p_value is not None
    from mtsig.report.render import render

    out = json.loads(render(res, "json"))  # strict JSON: the untested pair's p-values are null
    untested = [x for x in out["comparisons"] if {x["a"], x["b"]} == {"a", "b"}][0]
    assert untested["p_value"] is None and untested["note"].startswith("not tested")


def test_segments_judged_for_one_system_only_are_not_paired(tmp_path):
    a = [1.0, 2.0, 3.0] * 10 + [None] * 10
    b = [None] * 10 + [1.5, 2.5, 3.5] * 10
    res = mtsig.human(_tsv(tmp_path, {"a": a, "b": b}), n_bootstrap=200, n_resamples=500)
    c = res.comparisons[0]
    assert c.n_common == 20 and c.delta_common is not None
    # the system scores use all their own segments, and the result says what the tests use
    assert res.system("a").n_segments == 30 and res.system("b").n_segments == 30
    assert any("judged for one system only" in n and "tested on the segments both" in n for n in res.notes)


def test_wmt24_and_its_signed_variant_are_stouffer_over_domain_wilcoxons(tmp_path):
    rng = np.random.default_rng(4)
    n = 90
    doms = ["news", "social", "speech"] * 30
    a, b = rng.normal(0.3, 1, n), rng.normal(0, 1, n)
    path = _tsv(tmp_path, {"a": list(a), "b": list(b)}, domains=doms)
    signed = mtsig.human(path, protocol="wmt24-signed", n_bootstrap=100)
    wmt24 = mtsig.human(path, protocol="wmt24", n_bootstrap=100)
    zs, unsigned = [], []
    for d in ("news", "social", "speech"):
        sel = np.array(doms) == d
        p = wilcoxon(a[sel], b[sel]).pvalue
        zs.append(np.sign(np.mean(a[sel] - b[sel])) * norm.isf(p / 2))
        unsigned.append(norm.ppf(1 - p))
    expected = 2 * norm.sf(abs(sum(zs) / np.sqrt(3)))
    assert signed.get("a", "b").p_value == pytest.approx(expected, rel=1e-12)
    # WMT24's own: unsigned z = Φ⁻¹(1 - p), one-sided combined p (tools.py's weighted_wilcoxon_signed_rank_test)
    assert wmt24.get("a", "b").p_value == pytest.approx(1 - norm.cdf(sum(unsigned) / np.sqrt(3)), rel=1e-12)


def test_wmt25_tests_one_sided_at_half_alpha_without_waves(tmp_path):
    rng = np.random.default_rng(5)
    base = rng.normal(0, 1, 100)
    table = {"a": list(base + 1.0), "b": list(base + 0.9 + rng.normal(0, 0.3, 100)), "c": list(base)}
    res = mtsig.human(_tsv(tmp_path, table), protocol="wmt25", n_bootstrap=100)
    assert [(c.a, c.b) for c in res.comparisons] == [("a", "b"), ("a", "c"), ("b", "c")]
    x = np.array(table["b"])
    p = wilcoxon(x, base, alternative="greater").pvalue
    assert res.get("b", "c").p_value == pytest.approx(p, rel=1e-12) and res.get("b", "c").significant == (p < 0.025)
    assert res.clusters[-1] == ("c",)


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown", "latex"])
def test_every_format_and_the_html_report(tmp_path, capsys, fmt):
    rng = np.random.default_rng(6)
    path = _tsv(tmp_path, {s: list(rng.normal(0.2 * i, 1, 80)) for i, s in enumerate(["x<1>", "y", "z"])})
    html = tmp_path / "r.html"
    assert main(["human", path, "-f", fmt, "--n-bootstrap", "200", "--html", str(html)]) == 0
    out = capsys.readouterr().out
    assert "x<1>" in out or "x\\textless{}1\\textgreater{}" in out
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "x&lt;1&gt;" in page and "x<1>" not in page


def test_the_mann_whitney_p_values_equal_scipys_r_compatible_ones():
    """WMT22's test without scipy.stats at start-up: equal to scipy's ``mannwhitneyu`` (asymptotic with continuity,
    or exact for small samples without ties: R's ``wilcox.test`` rule) on 400 random samples with and without
    ties."""
    from scipy.stats import mannwhitneyu

    from mtsig.humaneval.protocols import mann_whitney_greater

    rng = np.random.default_rng(7)
    for _ in range(400):
        n1, n2 = rng.integers(2, 300, 2)
        x = np.round(rng.normal(size=n1), rng.integers(0, 3))
        y = np.round(rng.normal(0.1, size=n2), rng.integers(0, 3))
        exact = n1 < 50 and n2 < 50 and np.unique(np.r_[x, y]).size == n1 + n2
        method = "exact" if exact else "asymptotic"
        got = mann_whitney_greater(x, y)
        for p, (u, v) in zip(got, ((x, y), (y, x))):
            ref = mannwhitneyu(u, v, alternative="greater", use_continuity=True, method=method).pvalue
            assert p == pytest.approx(ref, rel=1e-12, abs=1e-300)
