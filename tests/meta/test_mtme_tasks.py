"""mt-metrics-eval directories and the WMT metrics tasks (``mtsig meta --mtme DIR [--task wmt23|wmt24]``).

Parity: every task statistic of ``tasks.WMT23(['en-de'], k=0)`` and ``tasks.WMT24OnWMT23(['en-de'], k=0)`` on the
shared WMT23 en-de folder, as mt-metrics-eval computed them (``data/mtme_wmt23_ende_k0.json``, written by
``benchmarks/mtme_tasks_oracle.py --json``, its systems in name order). Properties of the permutations on a small
folder made here: reproducible from the seed, the same with worker processes, p = 1 for a metric against its copy.
Bad input: one ``mtsig: error:`` line each."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.metaeval.tasks import PCE_PERMUTATIONS, assign_ranks, run_task_set, task_set
from tests.data import DATA, need

ORACLE = json.loads((Path(__file__).parent / "data" / "mtme_wmt23_ende_k0.json").read_text(encoding="utf-8"))
WMT23 = DATA / "mtme-wmt23-ende" / "wmt23"


@pytest.mark.slow
def test_wmt23_en_de_every_statistic_as_mt_metrics_eval():
    got = run_task_set(need(WMT23), "wmt23", ["en-de"], k=0).to_dict()
    want = ORACLE["wmt23"]
    assert [(t["lp"], t["level"], t["statistic"]) for t in got["tasks"]] == [
        ("en-de", "sys", "accuracy"), ("en-de", "sys", "pearson"), ("en-de", "seg", "pearson"),
        ("en-de", "seg", "KendallWithTiesOpt")]  # fmt: skip
    assert [t["weight"] for t in got["tasks"]] == pytest.approx(want["weights"], abs=1e-15)
    for tg, tw in zip(got["tasks"], want["tasks"], strict=True):
        assert set(tg["metrics"]) == set(tw["metrics"]) and len(tw["metrics"]) == 32
        for m, v in tw["metrics"].items():
            assert tg["metrics"][m] == pytest.approx(v, abs=1e-12), (tw["statistic"], m)
        assert tg["ranks"] == tw["ranks"]
        assert list(tg["metrics"]) == list(tw["metrics"])  # the order: value, then name
    for m, v in want["average"].items():
        assert got["average"][m] == pytest.approx(v, abs=1e-12), m
    assert list(got["average"]) == list(want["average"])
    assert got["average_ranks"] == pytest.approx(want["average_ranks"], abs=1e-12)


@pytest.mark.slow
def test_wmt24_task_set_on_wmt23_soft_pairwise_accuracy_within_one_count():
    """acc-eq to 1e-12. pce: mt-metrics-eval sums in float32, so a tie between a permutation's difference and the
    observed one falls either way by rounding; mtsig sums in float64 and counts decimal ties as ties. They differ by
    at most one permutation in one system pair: 1 / (1000 x 66) on a metric's value."""
    got = run_task_set(need(WMT23), "wmt24", ["en-de"], k=0).to_dict()
    want = ORACLE["wmt24"]
    pce, acc = got["tasks"]
    assert (pce["statistic"], acc["statistic"]) == ("pce", "KendallWithTiesOpt")
    one = 1.0 / (PCE_PERMUTATIONS * 66)
    for m, v in want["tasks"][0]["metrics"].items():
        assert abs(pce["metrics"][m] - v) <= one + 1e-12, m
    for m, v in want["tasks"][1]["metrics"].items():
        assert acc["metrics"][m] == pytest.approx(v, abs=1e-12), m
    assert acc["ranks"] == want["tasks"][1]["ranks"]


def test_task_sets_as_tasks_py():
    tasks, w = task_set("wmt23", ["zh-en", "en-de", "he-en"])
    assert [t.lp for t in tasks][:2] == ["en-de,he-en,zh-en", "en-de"]
    assert len(tasks) == 10 and w[0] == pytest.approx(3 / 12) and w[1] == pytest.approx(1 / 12)
    assert tasks[0].human and not tasks[1].human and tasks[4].human  # he-en: human translations as systems
    tasks, w = task_set("wmt24", ["en-es", "en-de"])
    assert [(t.lp, t.statistic) for t in tasks] == [("en-de", "pce"), ("en-de", "KendallWithTiesOpt"),
                                                    ("en-es", "pce"), ("en-es", "KendallWithTiesOpt")]  # fmt: skip
    assert w == [0.25] * 4 and tasks[0].human and not tasks[2].human
    assert tasks[1].range == (0.0, 1.0) and task_set("wmt23", ["en-de"])[0][1].range == (-1.0, 1.0)
    with pytest.raises(InputError, match="wmt26"):
        task_set("wmt26")


def test_assign_ranks_is_wmts_greedy_rule():
    sig = np.ones((4, 4))
    sig[0, 2] = 0.01  # 0 beats 2: 2 starts rank 2; 1 stays with 0
    sig[2, 3] = 0.04
    assert assign_ranks(sig) == [1, 1, 2, 3]
    assert assign_ranks(np.zeros((3, 3))) == [1, 2, 3]  # k = 0: ranks by value


# ------------------------------------------------------------------------------------------------ a small folder
SYSTEMS = ["sysA", "sysB", "sysC", "sysD", "sysE", "sysF"]


def make_folder(root: Path, lp: str = "xx-yy", n: int = 40, seed: int = 1, drop: dict | None = None) -> Path:
    """An mt-metrics-eval test-set folder: 2 domains, 4 documents, 6 systems and refA, MQM-like gold scores (some
    None), metrics good (noisy gold), good-copy (the same scores), noise (unrelated) and a QE metric."""
    rng = random.Random(seed)
    d = root / "toy"
    for sub in ("documents", "sources", "references", f"system-outputs/{lp}", "human-scores", f"metric-scores/{lp}"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    docs = [("news" if i < n // 2 else "social", f"doc{i // (n // 4)}") for i in range(n)]
    (d / "documents" / f"{lp}.docs").write_text("".join(f"{a} {b}\n" for a, b in docs), encoding="utf-8")
    (d / "sources" / f"{lp}.txt").write_text("".join(f"source {i}\n" for i in range(n)), encoding="utf-8")
    (d / "references" / f"{lp}.refA.txt").write_text("".join(f"ref {i}\n" for i in range(n)), encoding="utf-8")
    for s in [*SYSTEMS, "refA"]:
        (d / "system-outputs" / lp / f"{s}.txt").write_text("".join(f"{s} {i}\n" for i in range(n)), encoding="utf-8")
    quality = {s: -i for i, s in enumerate(SYSTEMS)}
    gold = {s: [None if (i % 9 == 4 and s != "sysA") else round(quality[s] + rng.gauss(0, 3), 1) for i in range(n)]
            for s in SYSTEMS}  # fmt: skip
    metrics = {"good-refA": {s: [(g if g is not None else quality[s]) + rng.gauss(0, 2) for g in gold[s]]
                             for s in SYSTEMS}}  # fmt: skip
    metrics["goodcopy-refA"] = metrics["good-refA"]
    metrics["noise-refA"] = {s: [rng.gauss(0, 1) for _ in range(n)] for s in SYSTEMS}
    metrics["qe-src"] = {s: [quality[s] + rng.gauss(0, 4) for _ in range(n)] for s in SYSTEMS}

    def write(path: Path, scores: dict, level: str):
        lines = []
        for s, v in scores.items():
            if level == "sys":
                ok = [x for x in v if x is not None]
                lines.append(f"{s}\t{sum(ok) / len(ok)!r}\n")
            else:
                lines += [f"{s}\t{'None' if x is None else repr(x)}\n" for x in v]
        path.write_text("".join(lines), encoding="utf-8")

    for level in ("sys", "seg"):
        write(d / "human-scores" / f"{lp}.mqm.{level}.score", gold, level)
        for m, sc in metrics.items():
            sc = {s: v for s, v in sc.items() if (drop or {}).get(m) != s}
            write(d / "metric-scores" / lp / f"{m}.{level}.score", sc, level)
    return d


def test_small_folder_permutations_reproducible_and_a_copy_is_never_better(tmp_path):
    d = make_folder(tmp_path)
    a = run_task_set(d, "wmt23", ["xx-yy"], k=300, seed=7)
    b = run_task_set(d, "wmt23", ["xx-yy"], k=300, seed=7)
    assert a.to_dict() == b.to_dict() and a.clusters is not None
    for t in a.tasks:
        names = list(t.values)
        i, j = sorted((names.index("good"), names.index("goodcopy")))
        assert t.p_values[i, j] == 1.0  # identical scores: every draw reaches the observed 0
        assert t.values["good"] == t.values["goodcopy"]
    assert any("good" in c and "goodcopy" in c for c in a.clusters)
    # the good metric is ahead of noise on every task, and the test says so at system level on 6 systems
    assert all(t.values["good"] > t.values["noise"] for t in a.tasks)
    c = run_task_set(d, "wmt23", ["xx-yy"], k=300, seed=8)
    assert c.to_dict()["tasks"][0]["p_values"] != a.to_dict()["tasks"][0]["p_values"]


def test_workers_give_the_same_result(tmp_path):
    from mtsig.executor import ProcessExecutor

    d = make_folder(tmp_path)
    serial = run_task_set(d, "wmt24", ["xx-yy"], k=200, seed=3)
    forked = run_task_set(d, "wmt24", ["xx-yy"], k=200, seed=3, executor=ProcessExecutor(2))
    assert serial.to_dict() == forked.to_dict()


@pytest.mark.slow
def test_dask_gives_the_same_result(tmp_path):
    from tests.data import unavailable

    try:
        import distributed  # noqa: F401
    except ImportError:
        unavailable("Dask distributed is not installed (pip install 'mtsig[dask]')")
    from mtsig.executor import DaskExecutor

    d = make_folder(tmp_path)
    serial = run_task_set(d, "wmt23", ["xx-yy"], k=200, seed=3)
    with DaskExecutor("local:2") as ex:
        on_dask = run_task_set(d, "wmt23", ["xx-yy"], k=200, seed=3, executor=ex)
    assert serial.to_dict() == on_dask.to_dict()


def test_pce_gaps_of_some_systems_noted(tmp_path):
    d = make_folder(tmp_path)
    res = run_task_set(d, "wmt24", ["xx-yy"], k=0)
    assert any("judged for every system" in n for n in res.notes)  # sysA has scores where the others have None


def test_cli_task_json_and_text(tmp_path, capsys):
    from mtsig.cli import main

    d = make_folder(tmp_path)
    assert main(["meta", "--mtme", str(d), "--task", "wmt23", "--lps", "xx-yy", "--k", "100", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"tasks", "average", "average_ranks", "clusters"}
    assert [t["statistic"] for t in out["tasks"]] == ["accuracy", "pearson", "pearson", "KendallWithTiesOpt"]
    assert "qe[noref]" in out["average"]
    main(["meta", "--mtme", str(d), "--task", "wmt23", "--lps", "xx-yy", "--k", "0"])
    text = capsys.readouterr().out
    assert "xx-yy seg acc-eq" in text and "avg corr" in text


def test_cli_one_pair_meta_from_the_folder(tmp_path, capsys):
    from mtsig.cli import main

    d = make_folder(tmp_path)
    main(["meta", "--mtme", str(d), "--lp", "xx-yy", "--level", "segment", "-f", "json", "--n-resamples", "200",
          "--n-bootstrap", "100"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    names = {m["name"] for m in out["metrics"]}
    assert names == {"good", "goodcopy", "noise", "qe[noref]"}


@pytest.mark.parametrize(
    "case, message",
    [
        ("missing-system", "no scores of sysC"),
        ("none-metric", "None scores"),
        ("no-lp", "no language pair 'zz-yy'"),
        ("mixed", "two test sets mixed"),
        ("truncated", "truncated line"),
        ("unknown-system", "not a system of"),
    ],
)
def test_bad_folders_one_error_line(tmp_path, case, message, capsys):
    from mtsig.cli import main

    d = make_folder(tmp_path, drop={"good-refA": "sysC"} if case == "missing-system" else None)
    lp = "xx-yy"
    seg = d / "metric-scores" / lp / "noise-refA.seg.score"
    if case == "none-metric":
        lines = seg.read_text().splitlines()
        lines[3] = lines[3].split("\t")[0] + "\tNone"
        seg.write_text("\n".join(lines) + "\n")
    elif case == "no-lp":
        lp = "zz-yy"
    elif case == "mixed":
        (d / "references" / "xx-yy.refA.txt").write_text("a\nb\n")
    elif case == "truncated":
        lines = seg.read_text().splitlines()
        seg.write_text("\n".join(lines[:-1] + [lines[-1].split("\t")[0]]) + "\n")
    elif case == "unknown-system":
        seg.write_text(seg.read_text() + "ghost\t0.5\n" * 40)
    rc = main(["meta", "--mtme", str(d), "--task", "wmt23", "--lps", lp, "--k", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("mtsig: error:") and message in err[0], err


def test_api_refuses_bad_k(tmp_path):
    d = make_folder(tmp_path)
    for bad in (-1, 2.5, "100"):
        with pytest.raises(InputError, match="k must be"):
            run_task_set(d, "wmt23", ["xx-yy"], k=bad)
    with pytest.raises(InputError, match="metric"):
        run_task_set(d, "wmt23", ["xx-yy"], only=["nosuch"])


# ------------------------------------------------------------------------------------------------ human files
def test_mtme_human_files_read_directly():
    from mtsig.io.human import read_human

    hs = need(WMT23 / "human-scores")
    seg = read_human(str(hs / "en-de.mqm.seg.score"))
    rating = read_human(str(hs / "en-de.mqm.merged.seg.rating"))
    assert (seg.input_format, rating.input_format) == ("mtme-seg", "mtme-rating")
    assert sorted(seg.systems) == sorted(rating.systems) and seg.scores.shape == (13, 460)
    order = [rating.systems.index(s) for s in seg.systems]
    cols = [rating.segments.index(g) for g in seg.segments]
    r = rating.scores[order][:, cols]
    assert np.array_equal(np.isfinite(seg.scores), np.isfinite(r))
    ok = np.isfinite(seg.scores)
    assert np.abs(seg.scores[ok] - r[ok]).max() < 1e-9  # minus the sum of the errors' scores


def test_meta_human_seg_score_file_keeps_the_sign(capsys):
    """mt-metrics-eval's metric files store MetricX negated: no --lower-is-better, Pearson positive."""
    from mtsig.cli import main

    d = need(WMT23)
    rc = main(["meta", "--human", str(d / "human-scores" / "en-de.mqm.seg.score"), "--metric",
               f"MetricX={d / 'metric-scores' / 'en-de' / 'MetricX-23-refA.seg.score'}",
               f"BLEU={d / 'metric-scores' / 'en-de' / 'BLEU-refA.seg.score'}", "-f", "json", "-q",
               "--n-bootstrap", "100", "--n-resamples", "200"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    r = {m["name"]: m["pearson"] for m in out["metrics"]}
    assert r["MetricX"] > 0.9 and r["BLEU"] > 0.8


@pytest.mark.parametrize(
    "text, message",
    [
        ('sysA\t{"errors": []}\nsysA\t{"errors": [{"severity": "major"\n', "truncated"),
        ('sysA\t{"errors": []}\nsysB\t{"errors": []}\nsysA\tNone\n', "different numbers of lines"),
        ('sysA\t{"errors": []}\nsysA\n', "truncated"),
    ],
)
def test_bad_rating_files(tmp_path, text, message):
    from mtsig.io.human import read_human

    p = tmp_path / "xx-yy.mqm.seg.rating"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_human(str(p))


def test_mtme_seg_file_one_line_per_system_is_system_level(tmp_path):
    from mtsig.io.human import read_human

    p = tmp_path / "x.seg.score"
    p.write_text("sysA 1.0\nsysB 2.0\n", encoding="utf-8")
    with pytest.raises(InputError, match="system-level"):
        read_human(str(p), input_format="mtme-seg")


def test_human_ranks_an_mtme_folder(capsys):
    """``mtsig human --mtme DIR --lp LP``: the year's gold segment scores with the folder's documents, the outliers
    left out; each system's score is the mean of its non-None lines of the .seg.score file."""
    from mtsig.cli import main

    d = need(WMT23)
    assert main(["human", "--mtme", str(d), "--lp", "en-de", "--n-bootstrap", "200", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows: dict[str, list[float]] = {}
    for ln in (d / "human-scores" / "en-de.mqm.seg.score").read_text().splitlines():
        name, v = ln.split("\t")
        if v != "None":
            rows.setdefault(name, []).append(float(v))
    got = {s["name"]: s["score"] for s in out["systems"]}
    assert set(got) == set(rows) - {"synthetic_ref"}
    for name, score in got.items():
        assert score == pytest.approx(np.mean(rows[name]), abs=1e-12)
    assert any("outliers left out: synthetic_ref" in n for n in out["notes"])
    assert any("190 documents" in n or "documents: 190" in n for n in out["notes"])
    main(["human", "--mtme", str(d), "--lp", "en-de", "--gold", "da-sqm", "--exclude", "refA", "--protocol",
          "wmt22", "-f", "json"])  # fmt: skip
    names = {s["name"] for s in json.loads(capsys.readouterr().out)["systems"]}
    assert "refA" not in names and "ONLINE-W" in names


@pytest.mark.parametrize(
    "args, message",
    [
        (["--gold", "xx"], "no segment-level human scores 'xx' for en-de (it has da-sqm, mqm)"),
        (["--exclude", "nobody"], "--exclude 'nobody': not a system of"),
        (["--lp", "zz-yy"], "no language pair 'zz-yy'"),
        (["--docs", "x.docs"], "leave out FILE, --docs and --input-format"),
    ],
)
def test_human_mtme_bad_input_one_error_line(args, message, capsys):
    from mtsig.cli import main

    argv = ["human", "--mtme", str(need(WMT23)), *args]
    if "--lp" not in args:
        argv += ["--lp", "en-de"]
    rc = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("mtsig: error:") and message in err[0], err
    rc = main(["human", "--exclude", "x"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and "--exclude belongs to --mtme" in err[0]


@pytest.mark.slow
def test_compare_reads_an_mtme_folder(capsys):
    """``compare --mtme DIR -l LP``: the standard reference, the folder's documents, every output but the references
    and the outliers; BLEU as sacreBLEU computes it on the same files."""
    import sacrebleu

    from mtsig.cli import main

    d = need(WMT23)
    assert main(["compare", "--mtme", str(d), "-l", "en-de", "-m", "bleu", "--resample-unit", "document",
                 "--n-resamples", "200", "-f", "json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    names = {c[k] for c in out["comparisons"] for k in ("a", "b")}
    outputs = {p.stem for p in (d / "system-outputs" / "en-de").glob("*.txt")}
    assert names == outputs - {"refA", "synthetic_ref"}
    docs = [ln.split()[1] for ln in (d / "documents" / "en-de.docs").read_text().splitlines()]
    assert out["settings"]["n_units"] == len(set(docs))
    ref = (d / "references" / "en-de.refA.txt").read_text(encoding="utf-8").splitlines()
    hyp = (d / "system-outputs" / "en-de" / "ONLINE-W.txt").read_text(encoding="utf-8").splitlines()
    import mtsig

    got = mtsig.score(None, ["ONLINE-W"], ["bleu"], mtme=str(d), langpair="en-de")
    assert got.systems[0].scores["bleu"].score == pytest.approx(sacrebleu.corpus_bleu(hyp, [ref]).score, abs=1e-9)


@pytest.mark.parametrize(
    "args, message",
    [
        (["-l", "xx-yy", "-s", "sysA", "sysB"], "has 1 segment(s) '[No translation supplied]'"),
        (["-s", "sysA", "sysB"], "give its language pair"),
        (["-l", "xx-yy", "-r", "ref.txt"], "give -r or --mtme"),
        (["-l", "xx-yy", "--ref-translator", "refB"], "no reference 'refB' of xx-yy (it has refA)"),
        (["-l", "zz-yy"], "no language pair 'zz-yy'"),
        (["-l", "xx-yy", "-t", "wmt22"], "not both"),
    ],
)
def test_compare_mtme_bad_input_one_error_line(tmp_path, args, message, capsys):
    from mtsig.cli import main

    d = make_folder(tmp_path)
    out = d / "system-outputs" / "xx-yy" / "sysB.txt"
    lines = out.read_text().splitlines()
    lines[5] = "[No translation supplied]"
    out.write_text("\n".join(lines) + "\n")
    rc = main(["compare", "--mtme", str(d), *args, "-m", "bleu"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("mtsig: error:") and message in err[0], err


def test_compare_mtme_picks_systems_and_keeps_own_files(tmp_path):
    import mtsig

    d = make_folder(tmp_path)
    mine = tmp_path / "mine.txt"
    mine.write_text("".join(f"ref {i}\n" for i in range(40)))
    res = mtsig.compare(None, ["sysA", "sysC", f"mine={mine}"], ["chrf"], mtme=str(d), langpair="xx-yy",
                        n_resamples=200)  # fmt: skip
    assert {c.result.a for c in res.comparisons} | {c.result.b for c in res.comparisons} == {"sysA", "sysC", "mine"}
    every = mtsig.score(None, None, ["chrf"], mtme=str(d), langpair="xx-yy")
    assert {s.name for s in every.systems} == set(SYSTEMS)


THREE_PAIRS = json.loads((Path(__file__).parent / "data" / "mtme_wmt23_three_pairs_k0.json").read_text("utf-8"))


@pytest.mark.slow
def test_three_language_pairs_as_mt_metrics_eval(tmp_path):
    """What only WMT23's three pairs exercise: pairwise accuracy pooled over pairs, the weights of tasks of several
    pairs, he-en's two references (refB the standard one, refA a human translation scored as a system). The shared
    folder has en-de only, so zh-en and he-en are made from it (``tests/meta/mtme_fake.py``: en-de's files, the MQM
    scores moved by seeded noise; he-en's references renamed, its refA with scores of its own), and held to
    ``tasks.WMT23(k=0)`` and ``WMT24OnWMT23`` on the same folder (``data/mtme_wmt23_three_pairs_k0.json``: ``python
    -m tests.meta.mtme_fake OUT``, then ``HOME=EMPTY python benchmarks/mtme_tasks_oracle.py --data OUT --lps en-de
    he-en zh-en [--task wmt24] --json``)."""
    from tests.meta.mtme_fake import make_pair

    make_pair(need(WMT23), tmp_path, "zh-en")
    root = make_pair(need(WMT23), tmp_path, "he-en", seed=1)
    got = run_task_set(root, "wmt23", k=0).to_dict()  # the year's pairs: en-de, he-en, zh-en
    want = THREE_PAIRS["wmt23"]
    assert [(t["lp"], t["statistic"]) for t in got["tasks"]] == [(t["lp"], t["statistic"]) for t in want["tasks"]]
    assert got["tasks"][0]["lp"] == "en-de,he-en,zh-en" and len(got["tasks"]) == 10
    assert [t["weight"] for t in got["tasks"]] == pytest.approx(want["weights"], abs=1e-15)
    for tg, tw in zip(got["tasks"], want["tasks"], strict=True):
        for m, v in tw["metrics"].items():
            assert tg["metrics"][m] == pytest.approx(v, abs=1e-12), (tw["lp"], tw["statistic"], m)
        assert tg["ranks"] == tw["ranks"]
    # the pooled accuracy is not en-de's: the made pairs' human rankings differ
    assert want["tasks"][0]["metrics"] != ORACLE["wmt23"]["tasks"][0]["metrics"]
    for m, v in want["average"].items():
        assert got["average"][m] == pytest.approx(v, abs=1e-12), m
    assert got["average_ranks"] == pytest.approx(want["average_ranks"], abs=1e-12)
    # WMT24's tasks on this folder score he-en's refA as a system too (WMT23's references decide, as in
    # mt-metrics-eval's WMT24OnWMT23): 13 systems there, 78 pairs
    got24 = run_task_set(root, "wmt24", ["en-de", "he-en", "zh-en"], k=0).to_dict()
    for tg, tw in zip(got24["tasks"], THREE_PAIRS["wmt24"]["tasks"], strict=True):
        pairs = 78 if tw["lp"] == "he-en" else 66
        one = 1.0 / (PCE_PERMUTATIONS * pairs) if tw["statistic"] == "pce" else 0.0  # see the test above
        for m, v in tw["metrics"].items():
            assert abs(tg["metrics"][m] - v) <= one + 1e-12, (tw["lp"], tw["statistic"], m)


def test_api_meta_reads_an_mtme_folder_as_the_command_does(tmp_path, capsys):
    """``mtsig.meta(mtme=DIR, lp=LP)``: the same JSON as ``mtsig meta --mtme DIR --lp LP``; wrong mixes refused."""
    import mtsig
    from mtsig.cli import main
    from mtsig.errors import InputError

    d = make_folder(tmp_path)
    main(["meta", "--mtme", str(d), "--lp", "xx-yy", "--level", "segment", "-f", "json", "--n-resamples", "200",
          "--n-bootstrap", "100", "--seed", "4"])  # fmt: skip
    cli = json.loads(capsys.readouterr().out)
    res = mtsig.meta(mtme=str(d), lp="xx-yy", level="segment", n_resamples=200, n_bootstrap=100, seed=4)
    assert json.loads(json.dumps(res.to_dict())) == cli
    excluded = mtsig.meta(mtme=str(d), lp="xx-yy", exclude=["sysA"], n_bootstrap=100)
    assert "sysA" in res.to_dict()["settings"]["systems"] and "sysA" not in excluded.to_dict()["settings"]["systems"]
    with pytest.raises(InputError, match="give lp"):
        mtsig.meta(mtme=str(d))
    with pytest.raises(InputError, match="leave out human"):
        mtsig.meta("human.tsv", mtme=str(d), lp="xx-yy")
    with pytest.raises(InputError, match="gold belongs to mtme"):
        mtsig.meta("human.tsv", ["m=m.txt"], gold="mqm")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_per_metric_products_give_the_per_pair_draws(tmp_path, seed):
    """Issue 61: acc-eq's and Pearson's draws from one product per metric (``U_a - U_b``) and the pooled accuracy's
    from the four outcomes of each system pair equal the per-pair reference paths (``_acc_eq_draws``,
    ``_pearson_draws``, hybrids compared pair by pair) to rounding, so every p-value is the same count."""
    from mtsig.metaeval import tasks as T

    d = make_folder(tmp_path, seed=seed)
    res = T.run_task_set(d, "wmt23", ["xx-yy"], k=0)
    tasks, _ = T.task_set("wmt23", ["xx-yy"], "wmt23")
    for index, t in enumerate(tasks):
        ti = T._inputs(t, {"xx-yy": T.read_evalset(d, "xx-yy")}, {})
        job = T.draw_job(ti, 257, seed, index)
        m = len(ti.names)
        pairs = [(a, b) for a in range(m) for b in range(m) if a != b]
        if job.statistic in T.BY_METRIC:
            got = T.pairs_from_products(job, T.metric_products((job, list(range(m)))), pairs)
            ref = (T._acc_eq_draws if job.statistic == "KendallWithTiesOpt" else T._pearson_draws)(job, pairs)
        else:
            got = T.pair_draws((job, pairs))
            M = job.rng((job.k, job.prepared[0].size))
            ref = (np.array([got[0][n] for n in range(len(pairs))]),
                   np.array([T._stats_scores(job, np.where(M, job.prepared[a], job.prepared[b]))
                             - T._stats_scores(job, np.where(M, job.prepared[b], job.prepared[a]))
                             for a, b in pairs]))  # fmt: skip
        assert np.allclose(got[0], ref[0], rtol=0, atol=1e-13) and np.allclose(got[1], ref[1], rtol=0, atol=1e-13)
        counts = (got[1] >= got[0][:, None] - T.TIE).sum(1)
        assert np.array_equal(counts, (ref[1] >= ref[0][:, None] - T.TIE).sum(1))
    assert res.tasks


def test_packed_rows_are_the_masks():
    from mtsig.metaeval.tasks import DrawJob

    job = DrawJob("pearson", 37, 5, 2, [], {})
    M = job.rng((37, 29))
    packed = job.packed(37 * 29)
    for lo, hi in ((0, 37), (3, 4), (5, 21), (36, 37)):
        assert np.array_equal(job.rows(packed, 29, lo, hi), M[lo:hi])


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("slurm:0", "--dask slurm:N needs a number of workers of at least 1, got 'slurm:0'"),
        ("pbs:two", "--dask pbs:N needs a number of workers of at least 1, got 'pbs:two'"),
    ],
)
def test_batch_cluster_addresses_are_checked_in_one_line(tmp_path, capsys, where, message):
    from mtsig.cli import main

    d = make_folder(tmp_path)
    assert main(["meta", "--mtme", str(d), "--task", "wmt23", "--lps", "xx-yy", "--k", "10", "--dask", where]) == 2
    assert capsys.readouterr().err.strip() == f"mtsig: error: {message}"


def test_batch_cluster_without_its_submit_command_says_where_to_run(tmp_path, capsys, monkeypatch):
    pytest.importorskip("dask_jobqueue")
    from mtsig.cli import main

    monkeypatch.setenv("PATH", str(tmp_path))  # no sbatch, no qsub
    d = make_folder(tmp_path)
    assert main(["meta", "--mtme", str(d), "--task", "wmt23", "--lps", "xx-yy", "--k", "10",
                 "--dask", "sge:2"]) == 2  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert err.startswith("mtsig: error: --dask sge:2: qsub is not on this machine's PATH"), err


def test_meta_help_says_how_to_run_on_slurm(capsys):
    from mtsig.cli import main

    with pytest.raises(SystemExit):
        main(["meta", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "On a Slurm cluster (pip install 'mtsig[cluster]'): mtsig meta --mtme DIR --task wmt25 --dask slurm:16" \
        in out  # fmt: skip
    for flag in ("--job-cores", "--job-memory", "--job-walltime", "--job-queue", "--job-account", "--job-directive"):
        assert flag in out


@pytest.mark.parametrize("jobs", [1, 2, "dask"])
def test_the_progress_bar_counts_work_not_items(tmp_path, jobs):
    """Issue 61: the task set's bar is in per mille of the work, each item weighted by its cost (pce's blocks of
    draws cost far more than a per-metric product): the advances add up to the whole, with one process or two
    (workers finish in any order: each advance is its own item's weight)."""
    from mtsig.executor import DaskExecutor, ProcessExecutor
    from mtsig.metaeval.tasks import PROGRESS_UNITS, run_task_set

    calls: list[tuple[str, int]] = []
    steps: list[float] = []

    def factory(label: str, total: int):
        calls.append((label, total))
        return steps.append

    d = make_folder(tmp_path, seed=4)
    ex = DaskExecutor("local:2") if jobs == "dask" else ProcessExecutor(jobs)
    try:
        run_task_set(d, "wmt24", ["xx-yy"], k=120, seed=2, executor=ex, progress=factory)
    finally:
        if jobs == "dask":
            ex.close()
    assert len(calls) == 1 and calls[0][1] == PROGRESS_UNITS and "per mille of the work" in calls[0][0]
    assert sum(steps) == PROGRESS_UNITS and all(isinstance(n, int) for n in steps)
    assert len(set(steps)) > 1  # unlike items, unlike weights
