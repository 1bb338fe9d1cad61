"""Koehn's validation experiments as studies: samples, and on the WMT22 systems what must hold (sample scores
equal to direct scoring, coverage near the nominal level, conclusions growing with test-set size, levels),
the command line with its figures, reproducibility from the seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mtsig.cli import main
from mtsig.report.render import render as render_study
from mtsig.studies import koehn
from tests.data import WMT, WMT_SYSTEMS, need, wmt_hyp, wmt_ref


def test_blocks_and_broad_samples_partition_the_first_segments():
    b, r = koehn.block_samples(103, 10), koehn.broad_samples(103, 10)
    assert b.shape == r.shape == (10, 10)
    assert sorted(b.ravel()) == sorted(r.ravel()) == list(range(100))
    assert (np.diff(b, axis=1) == 1).all() and (np.diff(r, axis=1) == 10).all()
    assert r[3].tolist() == list(range(3, 100, 10))
    with pytest.raises(Exception, match="cannot cut"):
        koehn.block_samples(5, 10)


def test_random_samples_are_distinct_and_do_not_depend_on_how_many_are_drawn():
    a = koehn.random_samples(500, 40, 5, seed=7)
    b = koehn.random_samples(500, 40, 9, seed=7)
    assert np.array_equal(a, b[:5])
    assert all(len(set(row)) == 40 and (np.diff(row) > 0).all() for row in a)
    assert not np.array_equal(a, koehn.random_samples(500, 40, 5, seed=8))


@pytest.fixture(scope="module")
def wmt():
    from mtsig.api import compute

    d = need(WMT)
    return compute([wmt_ref(d, "A")], [f"{s}={wmt_hyp(d, s)}" for s in WMT_SYSTEMS], ["bleu"])


def test_sampling_scores_are_the_scores_of_those_segments(wmt):
    res = koehn.sampling(wmt, koehn.SamplingDesign(samples=8))
    m, S = wmt.metrics["bleu"], wmt.stats["bleu"]["LT22"][0]
    broad = koehn.broad_samples(wmt.n_segments, 8)
    got = res.data["scores"]["LT22"]["broad"]
    assert got == pytest.approx([float(m.score(S[i].sum(axis=0))) for i in broad])
    assert res.data["scores"]["LT22"]["full"] == pytest.approx(float(m.score(S.sum(axis=0))))
    d = res.data["differences"]["JDExploreAcademy vs LT22"]
    assert d["full"] == pytest.approx(
        res.data["scores"]["LT22"]["full"] - res.data["scores"]["JDExploreAcademy"]["full"]
    )


@pytest.mark.slow
def test_coverage_is_near_the_nominal_level(wmt):
    res = koehn.coverage(wmt, koehn.CoverageDesign(size=100, samples=200, n_bootstrap=500))
    rows = {r[0]: r for r in res.tables[0].rows}
    for method in ("percentile", "t", "bca", "studentized"):
        _, n, covered, rate, lo, hi, nominal, expected = rows[method]
        assert n == 800 and covered == round(rate * n / 100)
        assert 90.0 <= rate <= 99.0 and hi >= 92.0  # 95% nominal (95.6% expected without replacement)
        assert nominal == 95.0 and 95.0 < expected < 96.0


def test_testsize_conclusions_grow_with_size_and_are_correct_for_clear_differences(wmt):
    res = koehn.testsize(wmt)
    assert res.settings["sizes"] == [100, 300, 600, 992]
    for pair, pts in res.data["curves"].items():
        correct = [p[1] for p in pts]
        assert correct == sorted(correct), (pair, correct)  # monotone in size
    for row in res.tables[0].rows:
        pair, delta, size, n, correct, wrong = row
        if abs(delta) > 5:  # LT22 against any other: 6.5 to 7.7 BLEU
            assert correct == 100.0 and wrong == 0.0


def test_levels_bin_every_conclusion_and_high_levels_are_right(wmt):
    res = koehn.levels(wmt)
    cs = koehn._conclusions(wmt, [100, 300, 600, 992], koehn.LevelsDesign())[1]
    rows = res.tables[0].rows
    assert sum(r[1] for r in rows) == sum(1 for c in cs if c["delta"] != 0 and 1 - c["p"] / 2 >= 0.5)
    assert rows[0][0] == "99.9-100%" and rows[0][2] >= 95.0


@pytest.mark.slow
@pytest.mark.parametrize("study", ["sampling", "coverage", "testsize", "levels"])
def test_study_command_writes_tables_and_figure(tmp_path, study):
    d = need(WMT)
    fig, out = tmp_path / "f.png", tmp_path / "r.json"
    args = ["study", study, "-r", wmt_ref(d, "A"), "-s", *(f"{s}={wmt_hyp(d, s)}" for s in WMT_SYSTEMS[:3]),
            "--samples", "20", "--plot", str(fig), "-f", "json", "-o", str(out)]  # fmt: skip
    assert main(args) == 0
    assert fig.stat().st_size > 10_000
    res = json.loads(out.read_text())
    assert res["study"] == study and res["tables"] and res["tables"][0]["rows"]
    again = tmp_path / "r2.json"
    assert main([*args[:-1], str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()  # same seed, same bytes


def test_study_renders_in_every_format(wmt):
    res = koehn.sampling(wmt, koehn.SamplingDesign(samples=4))
    for fmt in ("text", "markdown", "latex", "csv", "json"):
        text = render_study(res, fmt)
        assert "JDExploreAcademy" in text
    assert "\\begin{tabular}" in render_study(res, "latex")
    assert render_study(res, "csv").startswith("# bleu: per-sample scores")


def test_bad_study_inputs_are_one_line_errors(wmt, capsys):
    with pytest.raises(Exception, match="no system"):
        koehn.sampling(wmt, koehn.SamplingDesign(pairs=(("LT22", "nobody"),)))
    with pytest.raises(Exception, match="sample sizes must lie"):
        koehn.testsize(wmt, koehn.TestsizeDesign(sizes=(5000,)))
    with pytest.raises(Exception, match="unknown test 'stratified-ar'"):
        koehn.TestsizeDesign(test="stratified-ar")  # single outputs: stratified randomization is not offered
