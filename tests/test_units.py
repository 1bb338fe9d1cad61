"""WMT XML input, test sets by name, and documents as the resampling unit (issue 26).

The WMT22 de-fr XML (real documents and domains) is read as sacreBLEU reads it: every system's BLEU, chrF and
TER equal sacreBLEU's on the texts sacreBLEU's own reader extracts. Resampling by document is checked against
what it must be: one segment per document gives the segment-level numbers exactly, identical systems p = 1,
results reproducible from the seed and independent of processes and chunk sizes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

import mtsig
from mtsig.cli import main
from mtsig.errors import InputError
from tests.data import WMT_XML, need

SYSTEMS = ["LT22", "Online-A", "Online-B", "Online-G", "Online-W", "Online-Y"]


@pytest.fixture(scope="module")
def xml():
    return str(need(WMT_XML))


@pytest.fixture(scope="module")
def sacrebleu_fields(xml):
    """The fields sacreBLEU's own WMT XML reader extracts (source, references, systems, docid, domain)."""
    from sacrebleu.dataset.wmt_xml import WMTXMLDataset

    return WMTXMLDataset._unwrap_wmt21_or_later(xml)


@pytest.fixture(scope="module")
def table(xml):
    return mtsig.compute(xml, xml, ["bleu", "chrf", "ter"])


def test_wmt_xml_scores_equal_sacrebleu(table, sacrebleu_fields):
    import sacrebleu

    clean = [" ".join(x.split()) for x in sacrebleu_fields["ref:A"]]
    res = mtsig.score(stats=table)
    assert sorted(s.name for s in res.systems) == sorted(SYSTEMS)
    for s in res.systems:
        hyp = [" ".join(x.split()) for x in sacrebleu_fields[s.name]]
        want = {  # TER's parity with sacreBLEU is tested segment by segment in tests/metrics/test_ter_chrf.py
            "bleu": sacrebleu.corpus_bleu(hyp, [clean]).score,
            "chrf": sacrebleu.corpus_chrf(hyp, [clean]).score,
        }
        for m, v in want.items():
            assert s.scores[m].score == pytest.approx(v, abs=1e-9), (s.name, m)


def test_documents_and_domains_counted(table, sacrebleu_fields):
    docs, domains = table.units["document"], table.units["domain"]
    assert table.n_segments == 1984 == len(sacrebleu_fields["docid"])
    assert docs == sacrebleu_fields["docid"]
    assert len(set(docs)) == 271
    per_doc = dict(zip(docs, domains))
    assert Counter(per_doc.values()) == {"conversation": 161, "news": 44, "social": 37, "ecommerce": 29}


def test_one_system_of_the_file_and_translators(xml):
    res = mtsig.score(xml, [f"{xml}:Online-B", f"B2={xml}:Online-B"], ref_translator=["A"])
    a, b = (s.scores["bleu"].score for s in res.systems)
    assert a == b and [s.name for s in res.systems] == ["Online-B", "B2"]
    with pytest.raises(InputError, match="no reference by translator 'Z'; the file has: 'A'"):
        mtsig.score(xml, xml, ref_translator=["Z"])
    with pytest.raises(InputError, match="no system 'nope'"):
        mtsig.score(xml, f"{xml}:nope")


def test_document_unit_changes_the_intervals_not_the_scores(table):
    seg = mtsig.score(stats=table, ci=True)
    doc = mtsig.score(stats=table, ci=True, resample_unit="document")
    assert doc.settings.resample_unit == "document" and doc.settings.n_units == 271
    assert seg.settings.resample_unit == "segment" and seg.settings.n_units == 1984
    for s, d in zip(seg.systems, doc.systems):
        for m in ("bleu", "chrf", "ter"):
            a, b = s.scores[m], d.scores[m]
            assert a.score == pytest.approx(b.score, rel=1e-12)
            # documents are not independent here: the cluster bootstrap's interval is wider
            assert (b.ci.high - b.ci.low) > 1.2 * (a.ci.high - a.ci.low), (s.name, m)


def test_one_segment_per_document_is_the_segment_level_result(xml):
    """Every segment its own document: the same draws, so exactly the segment-level p-values and intervals."""
    seg = mtsig.compare(xml, [f"{xml}:LT22", f"{xml}:Online-A"], test=["ar", "paired-bootstrap", "ttest"],
                        n_resamples=500)  # fmt: skip
    t = mtsig.compute(xml, [f"{xml}:LT22", f"{xml}:Online-A"])
    t.units["document"] = [str(i) for i in range(t.n_segments)]
    doc = mtsig.compare(stats=t, test=["ar", "paired-bootstrap", "ttest"], n_resamples=500, resample_unit="document")
    for a, b in zip(seg.comparisons, doc.comparisons):
        assert a.result.p_value == pytest.approx(b.result.p_value, rel=1e-12, abs=0), a.result.test
        assert a.result.delta_ci.low == pytest.approx(b.result.delta_ci.low, rel=1e-9)
        assert a.result.score_b == pytest.approx(b.result.score_b, rel=1e-12)


def test_identical_systems_p_one_by_document(xml):
    res = mtsig.compare(xml, {"A": f"{xml}:LT22", "B": f"{xml}:LT22"}, test=["ar", "paired-bootstrap", "bootstrap",
                        "ttest", "wilcoxon"], resample_unit="document", n_resamples=300)  # fmt: skip
    for c in res.comparisons:
        assert c.result.p_value == 1.0, c.result.test


def _compare_json(xml, *extra):
    args = ["compare", "-r", xml, "-s", xml, "-m", "bleu", "chrf", "--resample-unit", "document", "--test", "ar",
            "paired-bootstrap", "--n-resamples", "400", "-f", "json", "-q", *extra]  # fmt: skip
    proc = subprocess.run([sys.executable, "-m", "mtsig", *args], capture_output=True, text=True, check=True)
    return proc.stdout


def test_document_results_reproducible_and_independent_of_jobs_and_chunks(xml):
    one = _compare_json(xml, "-j", "1")
    assert one == _compare_json(xml, "-j", "2")
    d = json.loads(one)
    assert d["settings"]["resample_unit"] == "document" and d["settings"]["n_units"] == 271
    small = mtsig.compare(xml, [f"{xml}:LT22", f"{xml}:Online-W"], resample_unit="document", n_resamples=400,
                          test=["ar", "paired-bootstrap"], chunk_bytes=4096)  # fmt: skip
    big = mtsig.compare(xml, [f"{xml}:LT22", f"{xml}:Online-W"], resample_unit="document", n_resamples=400,
                        test=["ar", "paired-bootstrap"])  # fmt: skip
    assert small.to_dict() == big.to_dict()
    other = mtsig.compare(xml, [f"{xml}:LT22", f"{xml}:Online-W"], resample_unit="document", n_resamples=400,
                          test=["ar", "paired-bootstrap"], seed=7)  # fmt: skip
    assert other.to_dict()["settings"]["seed"] == 7
    assert other.comparisons[1].result.delta_ci != big.comparisons[1].result.delta_ci


def test_units_travel_in_statistics_files(table, tmp_path):
    path = tmp_path / "s.npz"
    table.save(str(path))
    back = mtsig.StatsTable.load(str(path))
    assert back.units == table.units
    a = mtsig.compare(stats=back.select(["bleu"]), resample_unit="domain", n_resamples=200, baseline="LT22")
    assert a.settings.n_units == 4 and a.settings.resample_unit == "domain"
    with pytest.raises(InputError, match="a bootstrap interval needs at least 10 domains; the test set has 4"):
        mtsig.score(stats=back, ci=True, resample_unit="domain")


def test_docids_for_plain_text(tmp_path):
    refs = [f"the cat sat on mat number {i}" for i in range(40)]
    ref, hyp, ids = tmp_path / "ref", tmp_path / "hyp", tmp_path / "ids"
    ref.write_text("".join(r + "\n" for r in refs))
    hyp.write_text("".join(r.replace("cat", "dog") + "\n" if i % 3 else r + "\n" for i, r in enumerate(refs)))
    ids.write_text("".join(f"d{i // 4}\n" for i in range(40)))
    res = mtsig.score(str(ref), str(hyp), ci=True, resample_unit="document", docids=str(ids), n_bootstrap=100)
    assert res.settings.n_units == 10
    ids.write_text("d1\n" * 39)
    with pytest.raises(InputError, match=r"ids has 39 lines but reference .*ref has 40"):
        mtsig.score(str(ref), str(hyp), docids=str(ids))
    with pytest.raises(InputError, match="needs the document of every segment, and the input has none"):
        mtsig.score(str(ref), str(hyp), ci=True, resample_unit="document")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('<?xml version="1.0"?>\n<dataset>\n<collection>\n<doc id="x">\n</collection>\n',
         r"bad.xml: line 5: malformed WMT XML \(mismatched tag\); it is not read as plain text"),
        ('<?xml version="1.0"?>\n<foo/>', r"bad.xml: XML, but neither a WMT XML test set"),
        ('<dataset><collection><doc id="a"><src><p><seg id="1">x</seg></p></src></doc></collection></dataset>',
         r"bad.xml: no segment has a reference translation"),
    ],
)  # fmt: skip
def test_bad_xml_is_a_one_line_error(tmp_path, capsys, content, message):
    p = tmp_path / "bad.xml"
    p.write_text(content)
    assert main(["score", "-r", str(p), "-s", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    import re

    assert re.search(message, err), err


def test_dash_t_is_the_test_set(xml, capsys):
    assert main(["compare", "-r", xml, "-s", xml, "-t", "ar"]) == 2
    assert "-t is --test-set" in capsys.readouterr().err


def test_test_set_by_name_offline_from_a_cache(xml, tmp_path):
    """``-t wmt22 -l de-fr`` through sacreBLEU's registry, served from a cache the test builds (no network)."""
    raw = tmp_path / "wmt22" / "raw"
    (raw / "wmt22-news-systems-1.1" / "xml").mkdir(parents=True)
    shutil.copy(xml, raw / "wmt22-news-systems-1.1" / "xml" / "wmttest2022.de-fr.all.xml")
    (raw / "wmt22.v1.1.tar.gz").write_text("already downloaded and extracted")  # sacreBLEU checks it exists
    hyp = tmp_path / "LT22.txt"
    from sacrebleu.dataset.wmt_xml import WMTXMLDataset

    hyp.write_text("".join(x + "\n" for x in WMTXMLDataset._unwrap_wmt21_or_later(xml)["LT22"]))
    env = {**os.environ, "SACREBLEU": str(tmp_path)}
    cmd = [sys.executable, "-m", "mtsig", "score", "-t", "wmt22", "-l", "de-fr", "-s", f"LT22={hyp}", "--ci",
           "--resample-unit", "document", "-f", "json", "-q"]  # fmt: skip
    out = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
    direct = mtsig.score(xml, f"{xml}:LT22", ci=True, resample_unit="document")
    assert out["systems"][0]["scores"]["bleu"]["score"] == pytest.approx(direct.systems[0].scores["bleu"].score)
    assert out["settings"]["n_units"] == 271
    bad = subprocess.run([*cmd[:7], "de-en", *cmd[8:]], env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "is not in sacreBLEU's cache" in bad.stderr
    unknown = subprocess.run([*cmd[:5], "wmt99", *cmd[6:]], env=env, capture_output=True, text=True)
    assert unknown.returncode == 2 and "unknown test set 'wmt99'" in unknown.stderr


@pytest.mark.slow
def test_study_units_document_tests_hold_their_level(xml):
    """A reduced run of the study (300 null pairs): the document-level tests hold α under the document-level
    null; the segment-level ones do not on this test set (LT22 against Online-A); document-level intervals cover
    more often than segment-level ones."""
    from mtsig.studies.documents import UnitsDesign
    from mtsig.studies.nulls import binomial_interval
    from mtsig.studies.registry import run_study

    t = mtsig.compute(xml, [f"{xml}:LT22", f"{xml}:Online-A"])
    res = run_study("units", t, UnitsDesign(replicates=300, n_resamples=500, n_bootstrap=500))
    for unit, test, alpha, k, n, *_ in res.tables[0].rows:
        lo, hi = binomial_interval(k, n)
        if unit == "document":
            assert lo <= alpha <= hi, (test, alpha, k, n)
        else:
            assert lo > alpha, (test, alpha, k, n)
    cov = {r[0]: r[3] for r in res.tables[1].rows}
    assert cov["document"] > cov["segment"] + 5
    assert res.to_dict()["design"]["replicates"] == 300
    again = run_study("units", t, UnitsDesign(replicates=20, n_resamples=200, n_bootstrap=200))
    assert again.to_dict() == run_study("units", t, UnitsDesign(replicates=20, n_resamples=200,
                                                                 n_bootstrap=200)).to_dict()  # fmt: skip
    assert np.isfinite(cov["document"])


def test_studies_run_on_documents(xml):
    from mtsig.studies.registry import run_study
    from mtsig.studies.riezler import Type1Design

    t = mtsig.compute(xml, [f"{xml}:LT22", f"{xml}:Online-A"])
    res = run_study("type1", t, Type1Design(replicates=30, n_resamples=200, n_bootstrap=200), resample_unit="document")
    assert res.settings["resample unit"] == "document" and res.settings["units"] == 271
    assert res.settings["segments"] == 271  # the study saw documents as its rows, and the note says so
    assert "Run on 271 documents (the 1984 segments summed per document)" in res.notes[-1]
    with pytest.raises(InputError, match="compares the resampling units itself"):
        run_study("units", t, resample_unit="document")


def _wmt_file(path, docs, systems=("S",), translators=("A",)):
    """A small WMT XML file: ``docs`` maps a document id to its number of segments."""
    out = ['<?xml version="1.0" encoding="utf-8"?>', '<dataset id="t"><collection id="c">']
    for d, n in docs.items():
        segs = lambda w, d=d, n=n: "".join(f'<seg id="{i}">{w} {d} {i}</seg>' for i in range(1, n + 1))  # noqa: E731
        out.append(f'<doc id="{d}" domain="news" origlang="de"><src lang="de"><p>{segs("quelle")}</p></src>')
        out += [f'<ref lang="en" translator="{t}"><p>{segs("the reference of")}</p></ref>' for t in translators]
        out += [f'<hyp lang="en" system="{s}"><p>{segs("a hypothesis of")}</p></hyp>' for s in systems]
        out.append("</doc>")
    out.append("</collection></dataset>")
    path.write_text("\n".join(out), encoding="utf-8")
    return str(path)


def test_mismatched_documents_between_xml_files(tmp_path):
    ref = _wmt_file(tmp_path / "ref.xml", {"d1": 3, "d2": 2}, systems=())
    ok = _wmt_file(tmp_path / "ok.xml", {"d1": 3, "d2": 2}, systems=("X", "Y"))
    res = mtsig.score(ref, ok)
    assert [s.name for s in res.systems] == ["X", "Y"]
    missing = _wmt_file(tmp_path / "missing.xml", {"d1": 3}, systems=("X",))
    with pytest.raises(InputError, match=r"missing.xml has no segment '1' of document 'd2'"):
        mtsig.score(ref, missing)
    extra = _wmt_file(tmp_path / "extra.xml", {"d1": 3, "d2": 2, "d3": 1}, systems=("X",))
    with pytest.raises(InputError, match=r"extra.xml has an extra segment '1' of document 'd3'"):
        mtsig.score(ref, extra)
    with pytest.raises(InputError, match=r"no system output \(<hyp>\) in this WMT XML file"):
        mtsig.score(ref, ref)
    plain = tmp_path / "plain.txt"
    plain.write_text("a\nb\nc\nd\ne\n")
    assert mtsig.score(ref, str(plain)).settings.n_segments == 5  # plain text aligned by position


def test_a_test_set_by_name_keeps_its_domains_when_one_document_has_none(xml, tmp_path):
    """sacreBLEU's extracted domain file drops every domain when the last document has none; ``-t`` reads the
    domains from the cached XML itself, the domain-less document in ``(no domain)``."""
    import re
    from pathlib import Path

    text = Path(xml).read_text(encoding="utf-8")
    last = [m.start() for m in re.finditer(r"<doc ", text)][-1]
    end = text.index(">", last)
    head = re.sub(r' domain="[^"]*"', "", text[last:end])
    raw = tmp_path / "wmt22" / "raw"
    (raw / "wmt22-news-systems-1.1" / "xml").mkdir(parents=True)
    (raw / "wmt22-news-systems-1.1" / "xml" / "wmttest2022.de-fr.all.xml").write_text(
        text[:last] + head + text[end:], encoding="utf-8"
    )
    (raw / "wmt22.v1.1.tar.gz").write_text("already downloaded and extracted")
    hyp = tmp_path / "LT22.txt"
    from sacrebleu.dataset.wmt_xml import WMTXMLDataset

    hyp.write_text("".join(x + "\n" for x in WMTXMLDataset._unwrap_wmt21_or_later(xml)["LT22"]))
    env = {**os.environ, "SACREBLEU": str(tmp_path)}
    cmd = [sys.executable, "-m", "mtsig", "compare", "-t", "wmt22", "-l", "de-fr", "-s", f"LT22={hyp}",
           f"copy={hyp}", "--resample-unit", "domain", "-q"]  # fmt: skip
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert r.returncode == 2 and "documents without a domain attribute" in r.stderr, r.stderr
    cmd[cmd.index("--resample-unit") : cmd.index("--resample-unit") + 2] = ["--resample-unit", "document"]
    cmd[3] = "analyze"
    out = subprocess.run([*cmd, "--by", "labels", "-f", "json"], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    labels = [b["label"] for b in json.loads(out.stdout)["analyses"][1]["buckets"]]
    assert "(no domain)" in labels and len(labels) >= 3
