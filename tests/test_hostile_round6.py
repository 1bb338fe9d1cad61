"""Issue 60's inputs, each a test: a correct result, or one ``mtsig: error:`` line and exit 2, never a traceback, a
hang or a silent wrong number. (ASO's family error: tests/stats/test_aso_family.py; Ctrl-C: tests/test_interrupt.py.)"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.cli import main
from mtsig.errors import InputError
from tests.data import DATA, need
from tests.test_hostile_round5 import _one_error

EX = Path(__file__).resolve().parents[1] / "examples"
MTME = DATA / "mtme-wmt23-ende" / "wmt23"


def _seg_scores(path: Path, systems: int = 3, segments: int = 40) -> str:
    rng = np.random.default_rng(1)
    rows = ["SYS SID RAW.SCR Z.SCR N"]
    for k in range(systems):
        rows += [f"S{k} {i} {rng.integers(0, 100)} {rng.normal(0.1 * k):.4f} 1" for i in range(1, segments + 1)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------------------------------ tracebacks
def test_compare_aso_with_runs_prints_its_runs_table_and_the_gate(capsys):
    runs = {s: ",".join(str(EX / "runs" / f"{s}.run{i}.en") for i in (1, 2, 3)) for s in ("base", "new")}
    argv = ["compare", "-r", str(EX / "ref.A.en"), "-s", *(f"{s}={r}" for s, r in runs.items()), "--test", "aso"]
    assert main([*argv, "--baseline", "base"]) == 0
    out = capsys.readouterr().out
    assert "p: ASO's permutation gate" in out and "every split, 20 splits of the pooled runs" in out
    assert "gate 0.1000" in out and "no system can be declared better than another here" in out


def test_a_wmt_protocol_refuses_protocol_mtsig_s_settings_by_name(tmp_path, capsys):
    seg = _seg_scores(tmp_path / "ad-seg-scores-x-en.csv")
    _one_error(capsys, ["human", seg, "--protocol", "wmt22", "--test", "paired-bootstrap"],
               "protocol wmt22 runs WMT's own tests")  # fmt: skip
    _one_error(capsys, ["human", seg, "--protocol", "wmt25", "--correction", "bonferroni"], "--correction")
    assert main(["human", seg, "--protocol", "wmt22"]) == 0


def test_meta_plot_draws_an_interval_that_leaves_out_its_estimate(tmp_path):
    """A percentile interval can lie to one side of its estimate (WMT23 he-en BLEU: 0.828, [0.837, 0.939]): the
    figure draws it from its ends (matplotlib refused negative half-widths) and the notes say it."""
    pytest.importorskip("matplotlib")
    from mtsig.metaeval.run import _outside_notes
    from mtsig.report.paper import plot_meta
    from tests.meta.test_mtme_tasks import make_folder

    res = mtsig.meta(mtme=str(make_folder(tmp_path)), lp="xx-yy", n_bootstrap=100, n_resamples=200)
    m = res.metrics[0]
    v = m.values[res.statistic]
    moved = replace(m, ci={**m.ci, res.statistic: [v + 0.01, v + 0.1]})
    fig = plot_meta(replace(res, metrics=(moved, *res.metrics[1:])))
    fig.savefig(tmp_path / "m.png")
    notes = _outside_notes({m.name: m.values}, {m.name: moved.ci})
    assert len(notes) == 1 and "leaves out the estimate itself" in notes[0]


def test_human_s_paired_tests_stay_within_their_memory_budget_and_give_the_same_numbers(tmp_path, monkeypatch):
    """1,000 systems asked for 60 GiB in one product: products are now cut to PRODUCT_FLOATS, and processes share
    the pairs; the numbers do not depend on either."""
    import mtsig.humaneval.engine as engine
    import mtsig.humaneval.protocols as protocols

    rng = np.random.default_rng(4)
    rows = ["system\tsegment\tscore"]
    for k in range(40):
        rows += [f"s{k}\t{i}\t{rng.normal(0.05 * k):.4f}" for i in range(1, 31)]
    path = tmp_path / "h.tsv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    base = mtsig.human([str(path)], n_resamples=3000, n_bootstrap=400).to_dict()
    seen = []
    original = engine.PairTests._products

    def watched(self, *a, **k):
        for lo, hi, prod in original(self, *a, **k):
            seen.append(prod.size)
            yield lo, hi, prod

    monkeypatch.setattr(engine, "PRODUCT_FLOATS", 5000)
    monkeypatch.setattr(engine.PairTests, "_products", watched)
    small = mtsig.human([str(path)], n_resamples=3000, n_bootstrap=400).to_dict()
    assert seen and max(seen) <= 5000 and small == base
    monkeypatch.setattr(protocols, "MIN_PARALLEL_WORK", 0)
    two = mtsig.human([str(path)], n_resamples=3000, n_bootstrap=400, jobs=2).to_dict()
    assert two == base


# ------------------------------------------------------------------------------------------ silent results
def test_wmt_segment_scores_say_they_resample_segments_in_every_format(tmp_path, capsys):
    seg = _seg_scores(tmp_path / "ad-seg-scores-x-en.csv")
    for fmt in ("text", "json", "csv", "markdown"):
        assert main(["human", seg, "-f", fmt]) == 0
        out = capsys.readouterr().out
        assert "WMT's segment-score file names no documents" in out, fmt


def test_item_averaged_pearson_finds_constant_items_from_their_values():
    from scipy.stats import pearsonr

    from mtsig.metaeval.stats import pearson

    x = np.full(7, 0.1) * 3  # a constant whose centred sum of squares rounding leaves above 0 (2e-32)
    assert ((x - x.mean()) ** 2).sum() > 0
    rng = np.random.default_rng(2)
    X = np.stack([x, rng.normal(size=7)])
    Y = rng.normal(size=(1, 2, 7))
    got = pearson(X, Y, np.ones_like(X, dtype=bool))
    assert np.isnan(got[0, 0])
    assert got[0, 1] == pytest.approx(pearsonr(X[1], Y[0, 1])[0], abs=1e-12)
    # and a constant found among values whose centred sum is ~1e-28, not 0
    for c in (0.3, 1 / 3, 0.7, 123.456):  # each leaves 1e-32 to 1e-27 after centring 11 copies
        v = np.full(11, c)
        assert np.isnan(pearson(v[None], rng.normal(size=(1, 1, 11)), np.ones((1, 11), bool))[0, 0])


def test_meta_task_set_with_one_permutation_warns(capsys):
    need(MTME)
    assert main(["meta", "--task", "wmt23", "--mtme", str(MTME), "--lps", "en-de", "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert "k = 1 permutation(s) per task" in out and "mean nothing" in out


def test_meta_refuses_an_unknown_reference_or_system_and_two_systems(capsys):
    need(MTME)
    base = ["meta", "--mtme", str(MTME), "--lp", "en-de"]
    _one_error(capsys, [*base, "--ref", "refZ"], "--ref refZ: no such reference of en-de")
    _one_error(capsys, [*base, "--exclude", "NOPE"], "--exclude NOPE: not a system of en-de")
    keep = ["ONLINE-W", "ONLINE-Y"]
    others = [p.stem for p in (MTME / "system-outputs" / "en-de").glob("*.txt") if p.stem not in keep]
    _one_error(capsys, [*base, "--exclude", *others], "needs at least 3")


def test_a_renamed_mtme_folder_asks_for_its_reference_and_gold(tmp_path, capsys):
    need(MTME)
    renamed = tmp_path / "my-copy"
    os.symlink(MTME.resolve(), renamed)
    _one_error(capsys, ["meta", "--mtme", str(renamed), "--lp", "en-de"], "give --ref")
    _one_error(capsys, ["meta", "--mtme", str(renamed), "--lp", "en-de", "--ref", "refA"], "give --gold")
    quick = ["--n-resamples", "100", "--n-bootstrap", "50", "-f", "json"]
    assert main(["meta", "--mtme", str(renamed), "--lp", "en-de", "--ref", "refA", "--gold", "mqm", *quick]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("esa_score", 1e308, "outside ESA's scale of 0 to 100"),
        ("esa_score", 150, "outside ESA's scale"),
        ("esa_score", -5, "outside ESA's scale"),
        ("line_id", -1, "line_id -1 is not a segment number"),
        ("line_id", "abc", 'line_id "abc" is not a segment number'),
        ("domain", None, "domain null is not a name"),
        ("system", "", 'system "" is not a name'),
    ],
)
def test_the_wmt24_esa_jsonl_reader_refuses_what_the_other_readers_refuse(tmp_path, capsys, field, value, words):
    rows = [{"langs": "en-cs", "doc_id": f"d{d}", "line_id": ln, "system": s, "esa_score": 50 + (d * 7 + ln) % 40,
             "domain": "news", "annotator": "u1"} for d in range(6) for ln in range(3) for s in "ABC"]  # fmt: skip
    rows[4][field] = value
    path = tmp_path / "wmt24_esa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _one_error(capsys, ["human", str(path)], words)


def test_a_duplicated_esa_judgment_is_refused(tmp_path, capsys):
    rows = [{"langs": "en-cs", "doc_id": f"d{d}", "line_id": ln, "system": s, "esa_score": 60, "domain": "news",
             "annotator": "u1"} for d in range(6) for ln in range(3) for s in "ABC"]  # fmt: skip
    path = tmp_path / "wmt24_esa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*rows, rows[3]]), encoding="utf-8")
    _one_error(capsys, ["human", str(path)], "repeats the judgment of line 4")


def test_thresholds_take_one_metric_or_one_accuracy():
    one = mtsig.thresholds("chrf", 80).to_dict()["thresholds"]
    assert set(one) == {"chrf"} and set(one["chrf"]) == {"80"}
    with pytest.raises(InputError, match="metrics must be one or a list of metric names"):
        mtsig.thresholds(5)


def test_tsv_ids_from_zero_are_placed_with_docs(tmp_path, capsys):
    docs = tmp_path / "t.docs"
    docs.write_text("".join(f"news doc{i // 3}\n" for i in range(36)), encoding="utf-8")
    rng = np.random.default_rng(3)
    rows = ["system\tsegment\tscore"] + [f"{s}\t{i}\t{rng.normal():.3f}" for s in "ABC" for i in range(36)]
    tsv = tmp_path / "h.tsv"
    tsv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["human", str(tsv), "--docs", str(docs), "-f", "json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert any("segment ids read as indices of its lines from 0" in n for n in res["notes"])
    assert res["settings"]["resample_unit"] == "document"


def test_meta_bootstrap_is_withdrawn_with_its_reason():
    from mtsig.metaeval.core import MetaOptions

    with pytest.raises(InputError, match="rejected 0.20-0.33 at 0.05"):
        MetaOptions(test="bootstrap")


def test_rank_sets_say_their_measured_joint_level(tmp_path, capsys):
    rng = np.random.default_rng(6)
    rows = ["system\tsegment\tscore"] + [f"S{k}\t{i}\t{rng.normal(0.1 * k):.3f}" for k in range(4) for i in range(40)]
    tsv = tmp_path / "h.tsv"
    tsv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["human", str(tsv)]) == 0
    assert "held jointly 0.933-0.939 of the time at 95%" in capsys.readouterr().out
