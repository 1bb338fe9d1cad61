"""``mtsig serve``: a run from uploads to bundle, the same JSON as the command line, the queue, cancelling, a bundle
after a restart, and each safety case (each gets its 4xx or refusal)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")  # the serve extra (in the test extra: present in CI)
from starlette.testclient import TestClient  # noqa: E402

from mtsig.cli import main  # noqa: E402
from mtsig.serve.app import Config, check_bind, create_app  # noqa: E402

EX = Path(__file__).resolve().parents[1] / "examples"


def _client(tmp_path: Path, **kw) -> TestClient:
    return TestClient(create_app(Config(results=tmp_path / "results", **kw)))


def _files(*names: tuple[str, str, Path]):
    return [(field, (name, path.read_bytes())) for field, name, path in names]


def _submit(c: TestClient, files, **data):
    c.get("/")
    form = {
        "csrf": c.cookies.get("mtsig_csrf"),
        "metrics": ["bleu", "chrf"],
        "test": "ar",
        "seed": "12345",
        "keep_texts": "1",
        **data,
    }
    return c.post("/runs", data=form, files=files, follow_redirects=False)


def _example_files():
    return _files(("ref", "ref.A.en", EX / "ref.A.en"), ("systems", "base.en", EX / "base.en"),
                  ("systems", "new.en", EX / "new.en"))  # fmt: skip


def _wait(c: TestClient, location: str, timeout: float = 120) -> dict:
    end = time.time() + timeout
    while time.time() < end:
        s = c.get(location + "/status").json()
        if s["state"] not in ("queued", "running"):
            return s
        time.sleep(0.2)
    raise AssertionError(f"{location} still running after {timeout} s")


def test_a_run_is_a_bundle_with_the_command_line_s_json(tmp_path):
    with _client(tmp_path) as c:
        r = _submit(c, _example_files())
        assert r.status_code == 303
        loc = r.headers["location"]
        assert _wait(c, loc)["state"] == "done"
        page = c.get(loc).text
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        for name in ("result.txt", "result.csv", "result.tex", "report.html"):
            assert c.get(f"{loc}/files/{name}").status_code == 200
    assert manifest["command"] == ("mtsig compare -r ref.A.en -s base=base.en new=new.en -m bleu chrf --test ar "
                                   "--seed 12345 -f json")  # fmt: skip
    assert manifest["command"] in page.replace("&#x27;", "'") and "SHA-256" in page
    # the command, run where the files are, prints the bundle's JSON byte for byte
    folder = tmp_path / "cli"
    folder.mkdir()
    for n in ("ref.A.en", "base.en", "new.en"):
        shutil.copy(EX / n, folder / n)
    argv = manifest["command"].split()[1:]
    out = subprocess.run([sys.executable, "-m", "mtsig", *argv], cwd=folder, capture_output=True, check=True).stdout
    assert out == web
    # nothing but the bundle is kept: no input text, no work folder
    results = tmp_path / "results"
    assert sorted(p.name for p in results.iterdir()) == [".work", loc.rsplit("/", 1)[1]]
    assert not any((results / ".work").iterdir())
    assert not any(p.suffix == ".en" for p in results.rglob("*"))


def test_an_analysis_is_a_bundle_with_the_command_line_s_json(tmp_path):
    with _client(tmp_path) as c:
        loc = _submit(c, _example_files(), command="analyze", by=["ref-length", "ngrams"]).headers["location"]
        assert _wait(c, loc)["state"] == "done"
        web = c.get(loc + "/files/result.json").content
        command = c.get(loc + "/files/manifest.json").json()["command"]
        report = c.get(loc + "/files/report.html")
    assert report.status_code == 200 and "mtsig analyze -r ref.A.en" in report.text  # the analysis's own report
    assert command.startswith("mtsig analyze -r ref.A.en -s base=base.en new=new.en")
    assert "--by ref-length ngrams" in command
    folder = tmp_path / "cli"
    folder.mkdir()
    for n in ("ref.A.en", "base.en", "new.en"):
        shutil.copy(EX / n, folder / n)
    out = subprocess.run([sys.executable, "-m", "mtsig", *command.split()[1:]], cwd=folder, capture_output=True,
                         check=True).stdout  # fmt: skip
    assert out == web and json.loads(web)["settings"]["analyses"] == ["corpus", "ref-length", "ngrams"]


def test_human_judgments_are_ranked_with_the_command_line_s_json(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    judged = tmp_path / "judged.tsv"
    judged.write_text("system\tsegment\tscore\n" + "".join(f"{s}\t{i}\t{rng.normal() + k:.3f}\n"
                      for k, s in enumerate(("low", "mid", "high")) for i in range(30)), encoding="utf-8")  # fmt: skip
    with _client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "command": "human", "protocol": "mtsig",
                                  "seed": "7"}, files=_files(("judgments", "judged.tsv", judged)),
                   follow_redirects=False)  # fmt: skip
        loc = r.headers["location"]
        assert _wait(c, loc)["state"] == "done"
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        assert "mtsig human judged.tsv" in c.get(loc + "/files/report.html").text
        view = c.get(loc + "/files/view.html").text
    assert manifest["command"] == "mtsig human judged.tsv --protocol mtsig --seed 7 -f json"
    data = json.loads(view.split('id="mtsig-view">', 1)[1].split("</script>", 1)[0])
    assert data["segments"]["n"] == 30 and len(data["result"]["comparisons"]) == 3
    low_high = next(x for x in data["result"]["comparisons"] if {x["a"], x["b"]} == {"low", "high"})
    by = json.loads(web)
    scores = {s["name"]: s["score"] for s in by["systems"]}
    assert low_high["delta"] == pytest.approx(scores[low_high["b"]] - scores[low_high["a"]])  # B − A, as compare's
    judged_rows = judged.read_text(encoding="utf-8").splitlines()[1:]
    first = {r.split("\t")[0]: float(r.split("\t")[2]) for r in judged_rows if r.split("\t")[1] == "0"}
    assert {s: v[0] for s, v in data["segments"]["scores"]["human"].items()} == first  # each segment's judgments
    assert manifest["systems"] == ["high", "mid", "low"]
    out = subprocess.run([sys.executable, "-m", "mtsig", *manifest["command"].split()[1:]], cwd=tmp_path,
                         capture_output=True, check=True).stdout  # fmt: skip
    assert out == web


def _cli_bytes(command: str, folder: Path) -> bytes:
    return subprocess.run([sys.executable, "-m", "mtsig", *shlex.split(command)[1:]], cwd=folder, capture_output=True,
                          check=True).stdout  # fmt: skip


def test_segment_scores_alone_are_compared_with_the_command_line_s_json(tmp_path):
    import numpy as np

    rng = np.random.default_rng(5)
    x = rng.normal(0.8, 0.1, (60, 1)) + rng.normal(0, 0.05, (60, 4)) + np.array([0, 0.01, 0.04, 0.05])
    table = tmp_path / "comet scores.tsv"  # a space in the name: the command quotes it
    table.write_text("\t".join(("a", "b", "c", "d")) + "\n" + "".join("\t".join(f"{v:.4f}" for v in r) + "\n"
                     for r in x), encoding="utf-8")  # fmt: skip
    column = tmp_path / "e.txt"
    column.write_text("".join(f"{v:.4f}\n" for v in x[:, 0] + 0.02), encoding="utf-8")
    with _client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "seg_name": "COMET", "test": "ar",
                                  "seed": "3"}, files=_files(("seg_scores", table.name, table),
                                                             ("seg_scores", "e.txt", column)),
                   follow_redirects=False)  # fmt: skip
        loc = r.headers["location"]
        assert _wait(c, loc)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
    assert manifest["command"] == ("mtsig compare --seg-scores 'comet_scores.tsv' e=e.txt --seg-name COMET "
                                   "--test ar --seed 3 -f json").replace("'", "")  # fmt: skip
    assert manifest["systems"] == ["a", "b", "c", "d", "e"] and len(json.loads(web)["comparisons"]) == 10
    shutil.copy(table, tmp_path / "comet_scores.tsv")
    assert _cli_bytes(manifest["command"], tmp_path) == web
    data = json.loads(view.split('id="mtsig-view">', 1)[1].split("</script>", 1)[0])
    assert data["segments"]["texts"] is None and len(data["segments"]["scores"]["COMET"]["e"]) == 60
    assert data["cli"]["by_metric"]["COMET"]["systems"]["a"] == "a"  # a pair's command picks the scores by name


def test_wmt25_s_automatic_scores_are_compared_by_document_with_the_command_line_s_json(tmp_path):
    from tests.meta.test_wmt25_scores import make

    _, auto, _ = make(tmp_path)
    files = [("wmt25_scores", p.name, p) for p in sorted(auto.glob("*.jsonl"))]
    with _client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "langpair": "en-cs_CZ", "test": "ar",
                                  "seed": "5"}, files=_files(*files), follow_redirects=False)  # fmt: skip
        loc = r.headers["location"]
        assert _wait(c, loc)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
        no_lp = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf")}, files=_files(*files))
    assert manifest["command"].startswith("mtsig compare --wmt25-scores A.jsonl B.jsonl C.jsonl D.jsonl E.jsonl -l "
                                          "en-cs_CZ --test ar --seed 5")  # fmt: skip
    assert manifest["metrics"] == ["exact", "negx", "noise"] and manifest["systems"] == list("ABCDE")
    assert _cli_bytes(manifest["command"], auto) == web
    data = json.loads(view.split('id="mtsig-view">', 1)[1].split("</script>", 1)[0])
    assert sorted(set(data["segments"]["domains"])) == ["news", "social", "speech"]  # the domain filter's choices
    assert len(set(data["segments"]["docs"])) == 3
    assert no_lp.status_code == 400 and "need the language pair" in no_lp.text


def test_metrics_are_evaluated_against_humans_with_the_command_line_s_json(tmp_path):
    import numpy as np

    rng = np.random.default_rng(2)
    names = [f"sys{k}" for k in range(6)]
    quality = np.linspace(0, 1, 6)
    judged = tmp_path / "human.tsv"
    judged.write_text("system\tsegment\tscore\n" + "".join(f"{s}\t{i}\t{q + rng.normal(0, .5):.3f}\n"
                      for s, q in zip(names, quality) for i in range(40)), encoding="utf-8")  # fmt: skip
    files = []
    for metric, noise in (("good", 0.05), ("poor", 0.6)):
        f = tmp_path / f"{metric}.sys"
        f.write_text("".join(f"{s} {q + rng.normal(0, noise):.4f}\n" for s, q in zip(names, quality)))
        files.append(("metric_files", f.name, f))
    with _client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "command": "meta", "level": "system",
                                  "seed": "4"}, files=_files(("judgments", "human.tsv", judged), *files),
                   follow_redirects=False)  # fmt: skip
        loc = r.headers["location"]
        assert _wait(c, loc)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        assert "mtsig meta --human human.tsv" in c.get(loc + "/files/report.html").text
        view = c.get(loc + "/files/view.html").text
        bad = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "command": "meta", "lower": "nope"},
                     files=_files(("judgments", "human.tsv", judged), *files))  # fmt: skip
    assert manifest["command"] == ("mtsig meta --human human.tsv --metric good=good.sys poor=poor.sys --level system "
                                   "--seed 4 -f json")  # fmt: skip
    assert manifest["metrics"] == ["good", "poor"]
    assert _cli_bytes(manifest["command"], tmp_path) == web
    data = json.loads(view.split('id="mtsig-view">', 1)[1].split("</script>", 1)[0])
    (pair,) = data["result"]["comparisons"]
    (test,) = json.loads(web)["comparisons"]
    assert (pair["a"], pair["b"], pair["p_adjusted"]) == (test["a"], test["b"], test["p_adjusted"])
    assert pair["delta"] == -test["delta"]  # B − A, as compare's
    assert bad.status_code == 400 and "nope is none of the metrics (good, poor)" in bad.text


def test_an_analysis_s_buckets_open_their_segments(tmp_path):
    with _client(tmp_path) as c:
        loc = _submit(c, _example_files(), command="analyze", by=["ref-length", "length-diff"]).headers["location"]
        assert _wait(c, loc)["state"] == "done"
        view = c.get(loc + "/files/view.html").text
        page = c.get(loc).text
    assert 'src="' + loc + '/files/view.html"' in page
    data = json.loads(view.split('id="mtsig-view">', 1)[1].split("</script>", 1)[0])
    kinds = [a["kind"] for a in data["result"]["analyses"]]
    members = dict(zip(kinds, data["members"]))
    from mtsig.tokenize import sacrebleu_13a

    lengths = [len(sacrebleu_13a(x)) for x in data["segments"]["texts"]["ref"]]  # words as BLEU tokenizes them
    ref_length = next(a for a in data["result"]["analyses"] if a["kind"] == "ref-length")
    for k, b in enumerate(ref_length["buckets"]):  # each segment in the bucket its reference length says
        inside = [i for i, m in enumerate(members["ref-length"]) if m == k]
        assert len(inside) == b["n_segments"]
        low, high = b["lower"], b["upper"]
        assert all((low is None or lengths[i] >= low) and (high is None or lengths[i] < high) for i in inside)
    assert set(members["length-diff"]) == {"base", "new"}  # a bucket of each system's own output


def test_a_bundle_reopens_after_a_restart(tmp_path):
    with _client(tmp_path) as c:
        loc = _submit(c, _example_files()).headers["location"]
        _wait(c, loc)
    with _client(tmp_path) as c:  # a new server on the same results folder
        home = c.get("/").text
        assert loc.rsplit("/", 1)[1] in home
        assert c.get(loc).status_code == 200 and c.get(loc + "/status").json()["state"] == "done"


def test_the_queue_holds_runs_beyond_its_limit_and_cancel_leaves_no_bundle(tmp_path):
    with _client(tmp_path, jobs=1) as c:
        first = _submit(c, _example_files()).headers["location"]
        second = _submit(c, _example_files()).headers["location"]
        s = c.get(second + "/status").json()
        assert s["state"] == "queued" and s["position"] == 1
        c.post(second + "/cancel", data={"csrf": c.cookies.get("mtsig_csrf")}, follow_redirects=False)
        assert c.get(second + "/status").json()["state"] == "cancelled"
        assert _wait(c, first)["state"] == "done"
    assert not (tmp_path / "results" / second.rsplit("/", 1)[1]).exists()
    assert not any((tmp_path / "results" / ".work").iterdir())


def test_a_run_with_bad_inputs_says_why(tmp_path):
    short = tmp_path / "short.en"
    short.write_text("one line\n", encoding="utf-8")
    with _client(tmp_path) as c:
        loc = _submit(c, _files(("ref", "ref.A.en", EX / "ref.A.en"), ("systems", "base.en", EX / "base.en"),
                                ("systems", "short.en", short))).headers["location"]  # fmt: skip
        s = _wait(c, loc)
    assert s["state"] == "failed" and "short.en" in s["error"] and "Traceback" not in s["error"]


# ------------------------------------------------------------------------------------------------ safety
def test_a_post_without_its_csrf_token_is_refused(tmp_path):
    with _client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", data={"metrics": ["bleu"]}, files=_example_files(), follow_redirects=False)
        assert r.status_code == 403 and "CSRF" in r.text
        r = c.post("/runs", data={"csrf": "forged"}, files=_example_files(), follow_redirects=False)
        assert r.status_code == 403


def test_paths_picked_under_data_stay_there(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for n in ("ref.A.en", "base.en", "new.en"):
        shutil.copy(EX / n, data / n)
    secret = tmp_path / "secret.txt"
    secret.write_text("\n".join(["secret"] * 40) + "\n", encoding="utf-8")
    (data / "link.en").symlink_to(secret)
    with _client(tmp_path, data=data) as c:
        home = c.get("/").text
        assert "base.en" in home and "link.en" not in home  # a link leading out is not offered
        for bad in ("../secret.txt", str(secret), "link.en", "sub/../../secret.txt"):
            r = _submit(c, [], data_ref="ref.A.en", data_systems=["base.en", bad])
            assert r.status_code == 400, bad
        r = _submit(c, [], data_ref="ref.A.en", data_systems=["base.en", "new.en"])
        assert r.status_code == 303 and _wait(c, r.headers["location"])["state"] == "done"
        for field in ("judgments", "metric_files", "seg_scores", "docids", "wmt25_scores"):  # every file field
            r = _submit(c, [], command="meta", **{f"data_{field}": "../secret.txt"})
            assert r.status_code == 400 and "without '..'" in r.text, field
        assert 'name="data_metric_files"' in home and 'name="data_judgments"' in home


def test_uploads_are_limited_in_size_and_number(tmp_path):
    big = tmp_path / "big.en"
    big.write_bytes(b"x" * (2 * 2**20))
    with _client(tmp_path, max_upload_bytes=2**20, max_files=5) as c:
        r = _submit(c, _files(("ref", "ref.A.en", EX / "ref.A.en"), ("systems", "big.en", big),
                              ("systems", "new.en", EX / "new.en")))  # fmt: skip
        assert r.status_code == 413
        many = [("systems", (f"s{i}.en", b"a\n")) for i in range(1000)]
        r = _submit(c, many)
        assert 400 <= r.status_code < 500 and "Traceback" not in r.text


def test_malformed_multipart_is_a_400_with_a_message(tmp_path):
    with _client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", content=b"--xyz\r\nContent-Disposition: form-data; name=\"ref\"\r\n\r\nno end",
                   headers={"content-type": "multipart/form-data; boundary=xyz"})  # fmt: skip
        assert 400 <= r.status_code < 500 and "Traceback" not in r.text


def test_markup_in_a_system_name_is_shown_as_text(tmp_path):
    evil = tmp_path / "evil.en"
    lines = (EX / "new.en").read_text(encoding="utf-8").splitlines()
    lines[0] = "<img src=x onerror=alert(1)> </script><script>alert(2)</script> \u202e"  # markup in a segment too
    evil.write_text("\n".join(lines) + "\n", encoding="utf-8")
    name = "<script>alert(1)</script>‮.en"
    with _client(tmp_path) as c:
        loc = _submit(c, _files(("ref", "ref.A.en", EX / "ref.A.en"), ("systems", "base.en", EX / "base.en"),
                                ("systems", name, evil))).headers["location"]  # fmt: skip
        assert _wait(c, loc)["state"] == "done"
        view = c.get(loc + "/files/view.html").text
        pages = c.get("/").text + c.get(loc).text + c.get(loc + "/files/report.html").text + view
    assert "<script>alert" not in pages and "<img" not in pages and "\u202e" not in pages
    data = json.loads(view.split('id="mtsig-view">', 1)[1].split("</script>", 1)[0])
    assert next(iter(data["segments"]["texts"]["outputs"].values()))  # the texts are there, as JSON strings
    assert lines[0] in [o[0] for o in data["segments"]["texts"]["outputs"].values()]


def test_a_non_loopback_address_needs_a_token(tmp_path, capsys):
    from mtsig.errors import InputError

    with pytest.raises(InputError, match="--token"):
        check_bind("0.0.0.0", None)
    check_bind("127.0.0.1", None)
    check_bind("0.0.0.0", "s3cret")
    assert main(["serve", "--host", "0.0.0.0", "--results", str(tmp_path / "r")]) == 2
    assert "--token" in capsys.readouterr().err
    with _client(tmp_path, token="s3cret") as c:
        assert c.get("/").status_code == 403
        assert c.get("/?token=wrong").status_code == 403
        assert c.get("/?token=s3cret").status_code == 200
        assert c.get("/").status_code == 200  # the token kept in a cookie


# ------------------------------------------------------------------------------------------------ real server
@pytest.mark.slow
def test_the_json_is_the_command_line_s_on_wmt22(tmp_path):
    from tests.data import WMT, WMT_SYSTEMS, need, wmt_hyp, wmt_ref

    wmt = need(WMT)
    ref, a, b = Path(wmt_ref(wmt, "A")), Path(wmt_hyp(wmt, WMT_SYSTEMS[0])), Path(wmt_hyp(wmt, WMT_SYSTEMS[1]))
    with _client(tmp_path) as c:
        loc = _submit(c, _files(("ref", ref.name, ref), ("systems", a.name, a), ("systems", b.name, b)),
                      metrics=["bleu", "chrf", "ter"]).headers["location"]  # fmt: skip
        assert _wait(c, loc, 600)["state"] == "done"
        web = c.get(loc + "/files/result.json").content
        command = c.get(loc + "/files/manifest.json").json()["command"]
    folder = tmp_path / "cli"
    folder.mkdir()
    for p in (ref, a, b):
        os.symlink(p, folder / p.name)
    out = subprocess.run([sys.executable, "-m", "mtsig", *command.split()[1:]], cwd=folder, capture_output=True,
                         check=True).stdout  # fmt: skip
    assert out == web


@pytest.mark.slow
def test_a_wmt_xml_test_set_alone_gives_its_systems_documents_and_domains(tmp_path):
    from tests.data import WMT_XML, need

    xml = need(WMT_XML)
    with _client(tmp_path) as c:
        loc = _submit(c, _files(("ref", xml.name, xml)), metrics=["bleu"], test="ttest").headers["location"]
        assert _wait(c, loc, 600)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
    assert manifest["command"] == f"mtsig compare -r {xml.name} -s {xml.name} -m bleu --test ttest --seed 12345 -f json"
    assert sorted(manifest["systems"]) == ["LT22", "Online-A", "Online-B", "Online-G", "Online-W", "Online-Y"]
    assert list(manifest["inputs"]) == [xml.name]  # one file, hashed once
    folder = tmp_path / "cli"
    folder.mkdir()
    os.symlink(xml, folder / xml.name)
    assert _cli_bytes(manifest["command"], folder) == web
    data = json.loads(view.split('id="mtsig-view">', 1)[1].split("</script>", 1)[0])
    seg = data["segments"]
    assert len(set(seg["docs"])) == 271 and sorted(set(seg["domains"])) == ["conversation", "ecommerce", "news",
                                                                             "social"]  # fmt: skip
    assert seg["n"] == 1984 and len(seg["texts"]["outputs"]["LT22"]) == 1984
    pair = data["cli"]["by_metric"]["bleu"]["systems"]
    assert pair["LT22"] == f"{xml.name}:LT22"  # one system of the file, as the command line names it


@pytest.mark.slow
def test_a_test_set_by_name_from_sacrebleu_s_cache(tmp_path, monkeypatch):
    """``-t wmt22 -l de-fr`` from a cache the test builds (no network), as tests/test_units.py does; a pair that is
    not cached fails with sacreBLEU's reason on the page."""
    from sacrebleu.dataset.wmt_xml import WMTXMLDataset

    from tests.data import WMT_XML, need

    xml = need(WMT_XML)
    raw = tmp_path / "cache" / "wmt22" / "raw"
    (raw / "wmt22-news-systems-1.1" / "xml").mkdir(parents=True)
    shutil.copy(xml, raw / "wmt22-news-systems-1.1" / "xml" / xml.name)
    (raw / "wmt22.v1.1.tar.gz").write_text("already downloaded and extracted")
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "cache"))  # the worker inherits it
    unwrapped = WMTXMLDataset._unwrap_wmt21_or_later(str(xml))
    files = []
    for name in ("LT22", "Online-A"):
        (tmp_path / f"{name}.txt").write_text("".join(x + "\n" for x in unwrapped[name]), encoding="utf-8")
        files.append(("systems", f"{name}.txt", tmp_path / f"{name}.txt"))
    with _client(tmp_path) as c:
        loc = _submit(c, _files(*files), test_set="wmt22", test_langpair="de-fr", test="ttest").headers["location"]
        assert _wait(c, loc, 600)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
        missing = _submit(c, _files(*files), test_set="wmt22", test_langpair="de-en").headers["location"]
        failed = _wait(c, missing)
        both = _submit(c, _example_files(), test_set="wmt22", test_langpair="de-fr")
    assert manifest["command"].startswith("mtsig compare -t wmt22 -l de-fr -s LT22=LT22.txt Online-A=Online-A.txt")
    assert _cli_bytes(manifest["command"], tmp_path) == web
    data = json.loads(view.split('id="mtsig-view">', 1)[1].split("</script>", 1)[0])
    assert len(set(data["segments"]["docs"])) == 271 and data["segments"]["texts"]["ref"][0]
    assert data["cli"]["by_metric"]["bleu"]["inputs"] == ["-t", "wmt22", "-l", "de-fr"]
    assert failed["state"] == "failed" and "is not in sacreBLEU's cache" in failed["error"]
    assert both.status_code == 400 and "a reference or a test set by name, not both" in both.text


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.browser
@pytest.mark.slow
def test_in_a_browser_upload_compare_read_reload_and_reopen(tmp_path):
    """Debian's chromium through Playwright against a real server (``mtsig serve``): upload a reference and two
    systems, compare, read the report, export, reload, reopen the run from the list; no console error and no
    request to anywhere else. ``MTSIG_SCREENSHOTS=DIR`` keeps screenshots at 1280 and 390 px."""
    from tests.report.test_browser import _chromium

    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "mtsig", "serve", "--port", str(port), "--results",
                               str(tmp_path / "results")], stderr=subprocess.PIPE)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    errors: list[str] = []
    requests: list[str] = []
    shots = os.environ.get("MTSIG_SCREENSHOTS")
    try:
        _wait_for(base)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            for width in (1280, 390):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.on("request", lambda r: requests.append(r.url))
                page.goto(base + "/")
                page.set_input_files("input[name=ref]", str(EX / "ref.A.en"))
                page.set_input_files("input[name=systems]", [str(EX / "base.en"), str(EX / "new.en")])
                page.set_input_files("input[name=docids]", str(EX / "ref.docids"))
                page.check("input[value=chrf]")
                page.click("button[type=submit]")
                page.wait_for_selector("iframe#report", timeout=120_000)
                report = page.frame_locator("iframe#report")
                report.locator("#mtsig-command").wait_for()
                assert "base" in report.locator("table").first.inner_text()
                _explore(report, shots, width)
                assert "mtsig compare -r ref.A.en -s base=base.en new=new.en -m bleu chrf --docids ref.docids" in (
                    page.inner_text("#command"))  # fmt: skip
                with page.expect_download() as dl:
                    page.click("a[href$='result.json']")
                assert json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))["settings"]["seed"] == 12345
                if shots:
                    Path(shots).mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(Path(shots) / f"serve-run-{width}.png"), full_page=True)
                run_url = page.url
                page.reload()
                page.wait_for_selector("iframe#report")
                page.goto(base + "/")
                if shots:
                    page.screenshot(path=str(Path(shots) / f"serve-home-{width}.png"), full_page=True)
                page.click(f"a[href='{run_url.removeprefix(base)}']")
                page.wait_for_selector("iframe#report")
                assert page.evaluate("document.documentElement.scrollWidth") <= width + 1  # no sideways scrolling
                page.close()
            _bucket_in_a_browser(browser.new_page(viewport={"width": 1280, "height": 900}), base, errors)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert not errors, errors
    assert all(u.startswith(base + "/") for u in requests), [u for u in requests if not u.startswith(base)]


def _bucket_in_a_browser(page, base: str, errors: list[str]) -> None:
    """An analysis's bucket opens the segments in it."""
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/")
    page.set_input_files("input[name=ref]", str(EX / "ref.A.en"))
    page.set_input_files("input[name=systems]", [str(EX / "base.en"), str(EX / "new.en")])
    page.check("input[name=command][value=analyze]")
    page.check("input[name=by][value=ref-length]")
    page.check("input[name=by][value=ngrams]")
    page.click("button[type=submit]")
    page.wait_for_selector("iframe#report", timeout=120_000)
    view = page.frame_locator("iframe#report")
    row = view.locator("table[data-kind=ref-length] tr.click").first
    label = row.get_attribute("data-bucket")
    row.click()
    view.locator("#segments-title").wait_for()
    assert view.locator("#segments-title").inner_text().startswith(f"ref-length {label}: base vs new")
    data = json.loads(view.locator("#mtsig-view").text_content())
    analysis = next(a for a in data["result"]["analyses"] if a["kind"] == "ref-length")
    bucket = next(b for b in analysis["buckets"] if b["label"] == label)
    assert view.locator("#segment-list .seg").count() == min(50, bucket["n_segments"])
    assert "ngrams" in view.locator("#listed-elsewhere").inner_text()  # the analyses without buckets are named


def _explore(view, shots: str | None, width: int) -> None:
    """The run's view: a matrix cell opens the pair's segments (the words the reference lacks marked, the pair's
    commands), the filters narrow what is shown."""
    cell = view.locator("#matrix td[data-a]").first
    cell.click()
    view.locator("#segments-title").wait_for()
    assert view.locator("#segments-title").inner_text() == "base vs new: segments (bleu)"
    assert view.locator("#segment-list .seg").count() == 40 and view.locator("#segment-list mark").count() > 0
    commands = view.locator("pre.segment-command").all_inner_texts()
    assert commands[0].startswith("mtsig compare -r ref.A.en --docids ref.docids -s base=base.en new=new.en -m bleu "
                                  "--test ar")  # fmt: skip
    assert commands[1].startswith("mtsig score -r ref.A.en --docids ref.docids -s base=base.en new=new.en -m bleu "
                                  "--sentence-level")  # fmt: skip
    docs = view.locator("#filter-document option").all_inner_texts()
    assert docs[0] == "every document" and len(docs) == 1 + len(set((EX / "ref.docids").read_text().split()))
    view.locator("#filter-document").select_option(docs[1])
    in_doc = (EX / "ref.docids").read_text().split().count(docs[1])
    assert view.locator("#segment-list .seg").count() == in_doc
    assert all(f"document {docs[1]}" in t for t in view.locator("#segment-list .seg .head").all_inner_texts())
    view.locator("#filter-document").select_option("")
    if shots:
        view.locator("#segments").screenshot(path=str(Path(shots) / f"serve-segments-{width}.png"))
    view.locator("#filter-better").select_option("a")  # the segments where base is better
    better_a = view.locator("#segment-list .seg").count()
    assert 0 < better_a < 40
    view.locator("#filter-metric").select_option("chrf")
    assert "chrf" in view.locator("#segments-title").inner_text()
    view.locator("#filter-significant").check()
    assert view.locator("#comparisons tbody tr").count() == 1  # new is significantly better in chrF too
    view.locator("#filter-systems input[data-system=base]").uncheck()
    assert view.locator("#matrix td[data-a]").count() == 0 and view.locator("#comparisons tbody tr").count() == 0
    view.locator("#systems-none").click()
    assert view.locator("#matrix tbody tr").count() == 0
    view.locator("#systems-all").click()
    assert view.locator("#matrix td[data-a]").count() == 2
    view.locator("#close-segments").click()
    assert view.locator("#segments").is_hidden()


def _wait_for(base: str) -> None:
    import urllib.request

    end = time.time() + 30
    while time.time() < end:
        try:
            urllib.request.urlopen(base + "/", timeout=1).read()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"mtsig serve did not answer at {base}")
