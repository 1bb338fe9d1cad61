"""``mtsig human --protocol wmt22`` against WMT22's published numbers (../shared/data/wmt22-humaneval-toen): every
p-value of ``adwilcox-XXen.csv`` to 1e-9 relative (0.12 there means "not significant at 0.05": p >= 0.05), system z
scores to 1e-12, N, wins and clusters as ``clusters.csv``; and the judgment files read into the same segment scores
where the two files agree. SciPy's ``mannwhitneyu(x, y, alternative="greater", use_continuity=True,
method="asymptotic")`` is R's ``wilcox.test`` here (any SciPy >= 1.7, which has ``method``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mtsig
from mtsig.cli import main
from mtsig.io.human import read_human
from tests.data import DATA, need

HE = DATA / "wmt22-humaneval-toen"
PAIRS = ("de-en", "cs-en", "uk-en", "lv-en")


def _seg_file(pair: str) -> str:
    return str(need(HE / pair / f"ad-seg-scores-{pair}.csv"))


def _table(path) -> tuple[list[str], dict[str, list[str]]]:
    rows = [ln.split() for ln in open(path, encoding="utf-8").read().splitlines() if ln.strip()]
    return rows[0], {r[0]: r[1:] for r in rows[1:]}


@pytest.fixture(scope="module", params=PAIRS)
def wmt22(request):
    pair = request.param
    return pair, mtsig.human(_seg_file(pair), protocol="wmt22", n_bootstrap=200)


def test_every_published_p_value(wmt22):
    pair, res = wmt22
    src = pair.split("-")[0]
    cols, rows = _table(need(HE / pair / f"adwilcox-{src}en.csv"))
    checked = exact = 0
    for a, values in rows.items():
        for b, v in zip(cols, values):
            if a == b:
                continue
            p, published = res.get(a, b).p_value, float(v)
            if published == 0.12:  # WMT's "not significant at 0.05"
                assert p >= 0.05, (a, b, p)
            else:
                assert p == pytest.approx(published, rel=1e-9), (a, b)
                exact += 1
            checked += 1
    k = len(cols)
    assert checked == k * (k - 1) and exact > 0


def test_system_scores_and_counts(wmt22):
    pair, res = wmt22
    lines = open(need(HE / pair / f"ad-sys-scores-{pair}.csv"), encoding="utf-8").read().split("\n")[1:]
    published = {r[3]: (float(r[1]), int(r[2])) for r in (ln.split() for ln in lines) if r}
    assert {s.name for s in res.systems} == set(published)
    for s in res.systems:
        z, n = published[s.name]
        assert s.score == pytest.approx(z, rel=1e-12, abs=1e-15)
        assert s.n_segments == n


def test_wins_clusters_and_ranges_as_published(wmt22):
    pair, res = wmt22
    src, tgt = pair.split("-")
    rows = [ln.split() for ln in open(need(HE / "clusters.csv"), encoding="utf-8").read().splitlines()[1:]]
    mine = [r for r in rows if r[0] == src and r[1] == tgt]
    order = [s.name for s in res.systems]
    assert [r[7] for r in mine] == order  # the published order is the order by score
    position = {n: i + 1 for i, n in enumerate(order)}
    span = {n: (position[c[0]], position[c[-1]]) for c in res.clusters for n in c}
    for r in mine:
        s = res.system(r[7])
        assert s.wins == int(r[2]) and len(order) == int(r[3])
        assert span[s.name] == (int(r[4]), int(r[5]))
        assert (s.name == [c for c in res.clusters if s.name in c][0][-1]) == (r[6] == "True")


@pytest.mark.slow
def test_judgment_files_give_the_published_segment_scores_where_both_have_them():
    """de-en: 65 published segment rows have no judgment in the judgment file (WMT's file gives them score 0 and N
    0 or more): everywhere else the segment means are equal; what the 65 change is measured here."""
    seg = read_human(_seg_file("de-en"))
    judg = read_human(str(need(HE / "de-en" / "ad-deen-good-stnd.csv")))
    assert judg.input_format == "wmt-da" and "REF" in judg.notes[0]
    missing = 0
    for s in seg.systems:
        a, b = seg.scores[seg.index(s)], dict(zip(judg.segments, judg.scores[judg.index(s)]))
        for g, x in zip(seg.segments, a):
            if not np.isfinite(x):
                continue
            y = b.get(g, np.nan)
            if np.isfinite(y):
                assert y == pytest.approx(x, rel=1e-12, abs=1e-15)
            else:
                missing += 1
    assert missing == 65
    # what it changes: the system scores move by at most 0.001 z and every WMT22 decision stays the same
    r1 = mtsig.human(seg, protocol="wmt22", n_bootstrap=100)
    r2 = mtsig.human(judg, protocol="wmt22", n_bootstrap=100)
    assert max(abs(r1.system(n).score - r2.system(n).score) for n in seg.systems) < 1e-3
    assert r1.clusters == r2.clusters
    assert [s.wins for s in r1.systems] == [r2.system(s.name).wins for s in r1.systems]


def test_the_command_line_prints_the_protocol_in_json(capsys):
    assert main(["human", _seg_file("lv-en"), "--protocol", "wmt22", "-f", "json", "--n-bootstrap", "100"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["protocol"] == "wmt22" and out["settings"]["one_sided"] is True
    assert [c for c in out["clusters"]] == [["TartuNLP.1", "TAL-SJTU.3", "HuaweiTSC.0", "Liv4ever.4"], ["NiuTrans.2"]]
    assert {"name", "score", "ci", "n_segments", "wins", "cluster", "rank_range"} <= set(out["systems"][0])
    assert {"a", "b", "delta", "p_value", "p_adjusted", "significant"} <= set(out["comparisons"][0])


def test_human_scores_feed_compare_like_any_segment_score(capsys):
    """--seg-scores reads a human-judgment file itself (no copy): WMT's system names NAME.N match the systems, the
    unjudged segments are left out of every mean and resample, and the system scores are WMT's."""
    txt = need(HE / "de-en" / "txt")
    systems = [f"{s}={txt / f'generaltest2022.de-en.hyp.{s}.en'}" for s in ("Lan-Bridge", "PROMT", "Online-W")]
    assert main(["compare", "-r", str(txt / "generaltest2022.de-en.ref.A.en"), "-s", *systems, "-m", "seg",
                 "--seg-scores", _seg_file("de-en"), "-f", "json", "--n-resamples", "500"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    scores = {s["name"]: s["scores"]["human"]["score"] for s in out["systems"]}
    lines = open(need(HE / "de-en" / "ad-sys-scores-de-en.csv"), encoding="utf-8").read().split("\n")[1:]
    published = {r[3].rsplit(".", 1)[0]: float(r[1]) for r in (ln.split() for ln in lines) if r}
    for name, score in scores.items():
        assert score == pytest.approx(published[name], rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("pair", ["cs-en", "uk-en", "lv-en"])
def test_judgment_files_give_the_published_p_values(pair):
    """Segment means as WMT's R pipeline wrote them (R's mean, 15 significant digits): the judgment file gives the
    published p-values as the segment-score file does (de-en's judgment file lacks 65 published rows)."""
    src = pair.split("-")[0]
    res = mtsig.human(str(need(HE / pair / f"ad-{src}en-good-stnd.csv")), protocol="wmt22", n_bootstrap=50)
    cols, rows = _table(need(HE / pair / f"adwilcox-{src}en.csv"))
    exact = 0
    for a, values in rows.items():
        for b, v in zip(cols, values):
            if a != b and float(v) != 0.12:
                assert res.get(a, b).p_value == pytest.approx(float(v), rel=1e-9), (a, b)
                exact += 1
            elif a != b:
                assert res.get(a, b).p_value >= 0.05
    assert exact >= 6
