"""``mtsig serve``: a run from a form to a bundle, the same JSON as the command line it shows for every command, the
queue, cancelling, restarts (the run store), a form that comes back with its error beside the field, and the
command line's numbers in the run's page. The guards are in tests/test_serve_guards.py, the real server's life
(kill, SIGTERM, slow clients) in tests/test_serve_process.py, the browser in tests/test_serve_browser.py."""

from __future__ import annotations

import html
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


def client(tmp_path: Path, **kw) -> TestClient:
    return TestClient(create_app(Config(results=tmp_path / "results", **kw)), base_url="http://127.0.0.1")


def files_of(*names: tuple[str, str, Path]):
    return [(field, (name, path.read_bytes())) for field, name, path in names]


def submit(c: TestClient, files, **data):
    c.get("/")
    form = {"csrf": c.cookies.get("mtsig_csrf"), "metrics": ["bleu", "chrf"], "test": "ar", "seed": "12345",
            "keep_texts": "1", **data}  # fmt: skip
    return c.post("/runs", data=form, files=files, follow_redirects=False)


def example_files():
    return files_of(("ref", "ref.A.en", EX / "ref.A.en"), ("systems", "base.en", EX / "base.en"),
                    ("systems", "new.en", EX / "new.en"))  # fmt: skip


def wait(c: TestClient, location: str, timeout: float = 120) -> dict:
    end = time.time() + timeout
    while time.time() < end:
        s = c.get(location + "/status").json()
        if s["state"] not in ("queued", "running"):
            return s
        time.sleep(0.1)
    raise AssertionError(f"{location} still running after {timeout} s")


def view_of(html: str) -> dict:
    return json.loads(html.split('id="mtsig-view">', 1)[1].split("</script>", 1)[0])


def cli_bytes(command: str, folder: Path) -> bytes:
    """What the command prints, run in ``folder`` (to a pipe: the wide layout, whatever the terminal's width)."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return subprocess.run([sys.executable, "-m", "mtsig", *shlex.split(command)[1:]], cwd=folder, capture_output=True,
                          check=True, env=env).stdout  # fmt: skip


def copies(folder: Path, *paths: Path) -> Path:
    folder.mkdir(exist_ok=True)
    for p in paths:
        shutil.copy(p, folder / p.name)
    return folder


def test_a_run_is_a_bundle_with_the_command_line_s_json(tmp_path):
    with client(tmp_path) as c:
        r = submit(c, example_files())
        assert r.status_code == 303
        loc = r.headers["location"]
        assert wait(c, loc)["state"] == "done"
        page = c.get(loc).text
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        exports = {n: c.get(f"{loc}/files/{n}").text for n in ("result.txt", "result.csv", "result.tex")}
        view = c.get(loc + "/files/view.html").text
    assert (
        manifest["command"] == "mtsig compare -r ref.A.en -s base=base.en new=new.en -m bleu chrf --seed 12345 -f json"
    )
    assert manifest["command"] in page.replace("&#x27;", "'") and "SHA-256" in page
    folder = copies(tmp_path / "cli", EX / "ref.A.en", EX / "base.en", EX / "new.en")
    assert cli_bytes(manifest["command"], folder) == web  # the command, run where the files are: the bundle's JSON
    for name, fmt in (("result.txt", "text"), ("result.csv", "csv"), ("result.tex", "latex")):  # every format too
        other = cli_bytes(manifest["command"].replace("-f json", f"-f {fmt}"), folder).decode("utf-8")
        assert exports[name] == other, name
    # the page shows what the text shows: the clusters, the interval of Δ, the humans-agree column, the notes
    text = exports["result.txt"]
    assert "clusters (best first" in text and "{new}  >  {base}" in text
    assert "<h2>Clusters</h2>" in view and "humans agree" in view and "Δ low" in view and "<h2>Notes</h2>" in view
    result = json.loads(web)
    bleu = next(c for c in result["comparisons"] if c["metric"] == "bleu")
    low, high = bleu["delta_ci"][:2] if isinstance(bleu["delta_ci"], list) else (bleu["delta_ci"]["low"],
                                                                                 bleu["delta_ci"]["high"])  # fmt: skip
    assert f"{low:.2f}" in text and f">{low:.2f}<" in view and f">{high:.2f}<" in view
    assert f"{bleu['human_agreement']['accuracy']:.0%}" in text and f"{bleu['human_agreement']['accuracy']:.0%}" in view
    # nothing but the bundle and the store is kept: no input text, no work folder
    results = tmp_path / "results"
    assert sorted(p.name for p in results.iterdir() if not p.name.startswith("runs.sqlite")) == [
        ".work", loc.rsplit("/", 1)[1]]  # fmt: skip
    assert not any((results / ".work").iterdir())
    assert not any(p.suffix == ".en" for p in results.rglob("*"))


def test_an_analysis_is_a_bundle_with_the_command_line_s_json_and_its_decimals(tmp_path):
    with client(tmp_path) as c:
        loc = submit(c, example_files(), command="analyze", by=["ref-length", "ngrams"], test="ar",
                     metrics=["bleu", "chrf"]).headers["location"]  # fmt: skip
        assert wait(c, loc)["state"] == "done"
        web = c.get(loc + "/files/result.json").content
        command = c.get(loc + "/files/manifest.json").json()["command"]
        view = c.get(loc + "/files/view.html").text
    assert command == "mtsig analyze -r ref.A.en -s base=base.en new=new.en -m bleu chrf --by ref-length ngrams " \
        "--seed 12345 -f json"  # fmt: skip
    folder = copies(tmp_path / "cli", EX / "ref.A.en", EX / "base.en", EX / "new.en")
    assert cli_bytes(command, folder) == web
    result = json.loads(web)
    assert result["settings"]["analyses"] == ["corpus", "ref-length", "ngrams"]
    text = cli_bytes(command.replace("-f json", "-f text"), folder).decode("utf-8")
    for a in result["analyses"]:  # every analysis records its decimals; the view and the text show Δ with them
        assert a["decimals"] == (2 if a["metric"] in ("bleu", "chrf") else a["decimals"])
        for b in a.get("buckets", []):
            for comp in b["comparisons"]:
                assert f"{comp['delta']:+.{a['decimals']}f}" in text
    assert view_of(view)["result"] == result


def test_human_judgments_are_ranked_with_the_command_line_s_json(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    judged = tmp_path / "judged.tsv"
    judged.write_text("system\tsegment\tscore\n" + "".join(f"{s}\t{i}\t{rng.normal() + k:.3f}\n"
                      for k, s in enumerate(("low", "mid", "high")) for i in range(30)), encoding="utf-8")  # fmt: skip
    with client(tmp_path) as c:
        c.get("/?command=human")
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "command": "human", "protocol": "mtsig",
                                  "seed": "7", "input_format": "tsv"},
                   files=files_of(("judgments", "judged.tsv", judged)),
                   follow_redirects=False)  # fmt: skip
        loc = r.headers["location"]
        assert wait(c, loc)["state"] == "done"
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
    assert manifest["command"] == "mtsig human judged.tsv --input-format tsv --seed 7 -f json"
    data = view_of(view)
    assert data["segments"]["n"] == 30 and len(data["result"]["comparisons"]) == 3
    by = json.loads(web)
    scores = {s["name"]: s["score"] for s in by["systems"]}
    for x in by["comparisons"]:  # the result's Δ is B − A, as every table's
        assert x["delta"] == pytest.approx(scores[x["b"]] - scores[x["a"]])
    judged_rows = judged.read_text(encoding="utf-8").splitlines()[1:]
    first = {r.split("\t")[0]: float(r.split("\t")[2]) for r in judged_rows if r.split("\t")[1] == "0"}
    assert {s: v[0] for s, v in data["segments"]["scores"]["human"].items()} == first  # each segment's judgments
    assert manifest["systems"] == ["high", "mid", "low"] and "segments" not in by  # the view's, not the JSON's
    assert cli_bytes(manifest["command"], tmp_path) == web
    # the page has the ranking: rank ranges, intervals, clusters (as the text shows them)
    text = cli_bytes(manifest["command"].replace("-f json", "-f text"), tmp_path).decode("utf-8")
    for s in by["systems"]:
        lo, hi = s["rank_range"]
        rank = str(lo) if lo == hi else f"{lo}-{hi}"
        assert rank in text and f">{rank}<" in view, s
    assert "Δ (B − A)" in text and "Δ (B − A)" in view and "cluster" in view


def test_segment_scores_alone_are_compared_with_the_command_line_s_json(tmp_path):
    import numpy as np

    rng = np.random.default_rng(5)
    x = rng.normal(0.8, 0.1, (60, 1)) + rng.normal(0, 0.05, (60, 4)) + np.array([0, 0.01, 0.04, 0.05])
    table = tmp_path / "comet scores.tsv"  # a space in the name: kept as comet_scores.tsv
    table.write_text("\t".join(("a", "b", "c", "d")) + "\n" + "".join("\t".join(f"{v:.4f}" for v in r) + "\n"
                     for r in x), encoding="utf-8")  # fmt: skip
    column = tmp_path / "e.txt"
    column.write_text("".join(f"{v:.4f}\n" for v in x[:, 0] + 0.02), encoding="utf-8")
    with client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "seg_name": "COMET", "seed": "3"},
                   files=files_of(("seg_scores", table.name, table), ("seg_scores", "e.txt", column)),
                   follow_redirects=False)  # fmt: skip
        loc = r.headers["location"]
        assert wait(c, loc)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
    assert (
        manifest["command"] == "mtsig compare --seg-scores comet_scores.tsv e=e.txt --seg-name COMET --seed 3 -f json"
    )
    assert manifest["systems"] == ["a", "b", "c", "d", "e"] and len(json.loads(web)["comparisons"]) == 10
    shutil.copy(table, tmp_path / "comet_scores.tsv")
    assert cli_bytes(manifest["command"], tmp_path) == web
    data = view_of(view)
    assert data["segments"]["texts"] is None and len(data["segments"]["scores"]["COMET"]["e"]) == 60
    assert data["cli"]["by_metric"]["COMET"]["systems"]["a"] == "a"  # a pair's command picks the scores by name


def test_wmt25_s_automatic_scores_are_compared_by_document_with_the_command_line_s_json(tmp_path):
    from tests.meta.test_wmt25_scores import make

    _, auto, _ = make(tmp_path)
    files = [("wmt25_scores", p.name, p) for p in sorted(auto.glob("*.jsonl"))]
    with client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "langpair": "en-cs_CZ", "test": "ar",
                                  "seed": "5"}, files=files_of(*files), follow_redirects=False)  # fmt: skip
        loc = r.headers["location"]
        assert wait(c, loc)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
        no_lp = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf")}, files=files_of(*files))
    assert manifest["command"].startswith("mtsig compare --wmt25-scores A.jsonl B.jsonl C.jsonl D.jsonl E.jsonl "
                                          "--langpair en-cs_CZ --seed 5")  # fmt: skip
    assert manifest["metrics"] == ["exact", "negx", "noise"] and manifest["systems"] == list("ABCDE")
    assert cli_bytes(manifest["command"], auto) == web
    data = view_of(view)
    assert sorted(set(data["segments"]["domains"])) == ["news", "social", "speech"]  # the domain filter's choices
    assert len(set(data["segments"]["docs"])) == 3
    assert no_lp.status_code == 400 and "langpair" in no_lp.text  # the command line's own error, beside its field


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
        files.append(("metric", f.name, f))
    with client(tmp_path) as c:
        c.get("/?command=meta")
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "command": "meta", "level": "system",
                                  "seed": "4"}, files=files_of(("judgments", "human.tsv", judged), *files),
                   follow_redirects=False)  # fmt: skip
        loc = r.headers["location"]
        assert wait(c, loc)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
        bad = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "command": "meta", "lower_is_better": "nope"},
                     files=files_of(("judgments", "human.tsv", judged), *files))  # fmt: skip
    assert manifest["command"] == "mtsig meta --human human.tsv --metric good=good.sys poor=poor.sys --seed 4 -f json"
    assert manifest["metrics"] == ["good", "poor"]
    assert cli_bytes(manifest["command"], tmp_path) == web
    data = view_of(view)
    (pair,) = data["result"]["comparisons"]
    (test,) = json.loads(web)["comparisons"]
    assert (pair["a"], pair["b"], pair["p_adjusted"], pair["delta"]) == (test["a"], test["b"], test["p_adjusted"],
                                                                           test["delta"])  # B − A in both  # fmt: skip
    result = json.loads(web)
    for m in result["metrics"]:  # every statistic of the text is on the page, at its decimals
        assert f"{m['pearson']:.3f}" in view or f"{m['pearson']:.4f}" in view
    assert bad.status_code == 400 and "nope" in bad.text and 'id="f-lower_is_better-error"' in bad.text


def test_an_analysis_s_buckets_open_their_segments(tmp_path):
    with client(tmp_path) as c:
        loc = submit(c, example_files(), command="analyze", by=["ref-length", "length-diff"], metrics=["bleu"]
                     ).headers["location"]  # fmt: skip
        assert wait(c, loc)["state"] == "done"
        view = c.get(loc + "/files/view.html").text
        page = c.get(loc).text
    assert 'src="' + loc + '/files/view.html"' in page
    data = view_of(view)
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


def test_runs_outlive_a_restart_in_the_store(tmp_path):
    with client(tmp_path) as c:
        loc = submit(c, example_files()).headers["location"]
        wait(c, loc)
    with client(tmp_path) as c:  # a new server on the same results folder
        home = c.get("/").text
        assert loc.rsplit("/", 1)[1] in home
        assert c.get(loc).status_code == 200 and c.get(loc + "/status").json()["state"] == "done"


def test_a_run_left_running_by_a_stopped_server_is_interrupted_at_the_next_start(tmp_path):
    from mtsig.serve.store import Store

    results = tmp_path / "results"
    results.mkdir()
    store = Store(results)
    store.add("20260101-000000-0000beef", "compare", ["compare", "-r", "x"])
    store.add("20260101-000001-0000cafe", "compare", ["compare", "-r", "y"])
    store.started("20260101-000001-0000cafe")
    store.close()
    (results / ".work" / "20260101-000001-0000cafe" / "inputs").mkdir(parents=True)
    (results / ".work" / "20260101-000001-0000cafe" / "inputs" / "ref.en").write_text("left behind")
    with client(tmp_path) as c:
        queued = c.get("/runs/20260101-000000-0000beef/status").json()
        running = c.get("/runs/20260101-000001-0000cafe/status").json()
        page = c.get("/runs/20260101-000001-0000cafe").text
    assert queued["state"] == running["state"] == "interrupted"
    assert "waiting in the queue" in queued["error"] and "was running" in running["error"]
    assert "interrupted" in page and "change the settings and run again" in page
    assert not any((results / ".work").iterdir())  # the uploads a stopped server left are swept


def test_the_queue_holds_runs_beyond_its_limit_and_a_cancel_is_final(tmp_path):
    with client(tmp_path, jobs=1) as c:
        first = submit(c, example_files(), n_resamples="200000").headers["location"]
        second = submit(c, example_files()).headers["location"]
        s = c.get(second + "/status").json()
        assert s["state"] == "queued" and s["position"] == 1
        t = time.time()
        c.post(second + "/cancel", data={"csrf": c.cookies.get("mtsig_csrf")}, follow_redirects=False)
        assert time.time() - t < 2  # a waiting run leaves the queue at once
        assert c.get(second + "/status").json()["state"] == "cancelled"
        c.post(first + "/cancel", data={"csrf": c.cookies.get("mtsig_csrf")}, follow_redirects=False)
        assert c.get(first + "/status").json()["state"] == "cancelled"
        time.sleep(0.5)
        assert c.get(first + "/status").json()["state"] == "cancelled"  # nothing after a cancel changes it
        home = c.get("/").text
    for loc in (first, second):
        assert not (tmp_path / "results" / loc.rsplit("/", 1)[1]).exists()
        assert f'href="{loc}"' in home  # listed, with its state
    assert not any((tmp_path / "results" / ".work").iterdir())


def test_cancels_racing_the_end_never_leave_a_bundle(tmp_path):
    """Cancels at random moments around the end of 12 short runs: a run is either done (with its bundle) or
    cancelled (without one), never both."""
    import random

    rnd = random.Random(1)
    with client(tmp_path, jobs=2, max_waiting=20) as c:
        locs = [submit(c, example_files(), metrics=["bleu"], n_resamples="2000").headers["location"] for _ in range(12)]
        for loc in locs:
            time.sleep(rnd.uniform(0, 0.4))
            c.post(loc + "/cancel", data={"csrf": c.cookies.get("mtsig_csrf")}, follow_redirects=False)
        states = {loc: wait(c, loc)["state"] for loc in locs}
    for loc, state in states.items():
        bundle = tmp_path / "results" / loc.rsplit("/", 1)[1]
        assert (state == "done") == bundle.exists(), (state, bundle.exists())
        assert state in ("done", "cancelled")
    assert "cancelled" in states.values()


def test_bad_inputs_come_back_with_the_form_before_anything_is_queued(tmp_path):
    short = tmp_path / "short.en"
    short.write_text("one line\n", encoding="utf-8")
    with client(tmp_path) as c:
        r = submit(c, files_of(("ref", "ref.A.en", EX / "ref.A.en"), ("systems", "base.en", EX / "base.en"),
                               ("systems", "short.en", short)), alpha="0.05", baseline="base")  # fmt: skip
        unknown = submit(c, example_files(), metrics=["bleu"], nonsense="1")
        alpha = submit(c, example_files(), alpha="2")
        listed = c.get("/").text
    assert r.status_code == 400 and "short.en" in r.text and "Traceback" not in r.text
    assert 'id="f-systems-error"' in r.text  # beside the field whose file it is
    assert 'value="base"' in r.text and 'name="baseline"' in r.text  # what was typed is kept
    assert "Files are not kept: give them again" in r.text and 'href="/"' in r.text  # and the way back
    assert unknown.status_code == 400 and "no setting nonsense" in unknown.text
    assert alpha.status_code == 400 and 'id="f-alpha-error"' in alpha.text
    assert "none yet" in listed  # nothing was queued
    assert not any((tmp_path / "results" / ".work").iterdir())


def test_a_post_without_its_csrf_token_is_refused(tmp_path):
    with client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", data={"metrics": ["bleu"]}, files=example_files(), follow_redirects=False)
        assert r.status_code == 403 and "CSRF" in r.text
        r = c.post("/runs", data={"csrf": "forged"}, files=example_files(), follow_redirects=False)
        assert r.status_code == 403
    assert not any((tmp_path / "results" / ".work").iterdir())


def test_paths_picked_under_data_stay_there(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for n in ("ref.A.en", "base.en", "new.en"):
        shutil.copy(EX / n, data / n)
    (data / ".env").write_text("SECRET=1\n")
    (data / ".hidden").mkdir()
    (data / ".hidden" / "x.en").write_text("x\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("\n".join(["secret"] * 40) + "\n", encoding="utf-8")
    (data / "link.en").symlink_to(secret)
    with client(tmp_path, data=data) as c:
        home = c.get("/").text
        assert "base.en" in home and "link.en" not in home  # a link leading out is not offered
        assert ".env" not in home and ".hidden" not in home  # nor anything hidden
        for bad in ("../secret.txt", str(secret), "link.en", "sub/../../secret.txt", ".env", ".hidden/x.en",
                    "base.en\x00.txt"):  # fmt: skip
            r = submit(c, [], data_ref="ref.A.en", data_systems=["base.en", bad])
            assert r.status_code == 400 and "Traceback" not in r.text, bad
        r = submit(c, [], data_ref="ref.A.en", data_systems="base.en\nnew.en")  # one path per line
        assert r.status_code == 303 and wait(c, r.headers["location"])["state"] == "done"
        for command, field in (("meta", "judgments"), ("meta", "metric"), ("compare", "seg_scores"),
                               ("compare", "docids"), ("compare", "wmt25_scores"), ("human", "judgments")):  # fmt: skip
            r = submit(c, [], command=command, metrics=[], test="", **{f"data_{field}": "../secret.txt"})
            assert r.status_code == 400 and "without '..'" in html.unescape(r.text), field
        meta = c.get("/?command=meta").text
        assert 'name="data_metric"' in meta and 'name="data_judgments"' in meta


def test_a_non_loopback_address_needs_a_token(tmp_path, capsys):
    from mtsig.errors import InputError

    with pytest.raises(InputError, match="--token"):
        check_bind("0.0.0.0", None)
    check_bind("127.0.0.1", None)
    check_bind("0.0.0.0", "s3cret")
    assert main(["serve", "--host", "0.0.0.0", "--results", str(tmp_path / "r")]) == 2
    assert "--token" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ real data
@pytest.mark.slow
def test_the_json_is_the_command_line_s_on_wmt22(tmp_path):
    from tests.data import WMT, WMT_SYSTEMS, need, wmt_hyp, wmt_ref

    wmt = need(WMT)
    ref, a, b = Path(wmt_ref(wmt, "A")), Path(wmt_hyp(wmt, WMT_SYSTEMS[0])), Path(wmt_hyp(wmt, WMT_SYSTEMS[1]))
    with client(tmp_path) as c:
        loc = submit(c, files_of(("ref", ref.name, ref), ("systems", a.name, a), ("systems", b.name, b)),
                     metrics=["bleu", "chrf", "ter"]).headers["location"]  # fmt: skip
        assert wait(c, loc, 600)["state"] == "done"
        web = c.get(loc + "/files/result.json").content
        command = c.get(loc + "/files/manifest.json").json()["command"]
    folder = tmp_path / "cli"
    folder.mkdir()
    for p in (ref, a, b):
        os.symlink(p, folder / p.name)
    assert cli_bytes(command, folder) == web


@pytest.mark.slow
def test_a_wmt_xml_test_set_alone_gives_its_systems_documents_and_domains(tmp_path):
    from tests.data import WMT_XML, need

    xml = need(WMT_XML)
    with client(tmp_path) as c:
        loc = submit(c, files_of(("ref", xml.name, xml), ("systems", xml.name, xml)), metrics=["bleu"], test="ttest",
                     seed="").headers["location"]  # fmt: skip
        assert wait(c, loc, 600)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
    assert manifest["command"] == f"mtsig compare -r {xml.name} -s {xml.name} --test ttest -f json"  # one file, twice
    assert sorted(manifest["systems"]) == ["LT22", "Online-A", "Online-B", "Online-G", "Online-W", "Online-Y"]
    assert list(manifest["inputs"]) == [xml.name]  # one file, hashed once
    folder = tmp_path / "cli"
    folder.mkdir()
    os.symlink(xml, folder / xml.name)
    assert cli_bytes(manifest["command"], folder) == web
    data = view_of(view)
    seg = data["segments"]
    assert len(set(seg["docs"])) == 271 and sorted(set(seg["domains"])) == ["conversation", "ecommerce", "news",
                                                                             "social"]  # fmt: skip
    assert seg["n"] == 1984 and len(seg["texts"]["outputs"]["LT22"]) == 1984
    pair = data["cli"]["by_metric"]["bleu"]["systems"]
    assert pair["LT22"] == f"{xml.name}:LT22"  # one system of the file, as the command line names it


@pytest.mark.slow
def test_a_test_set_by_name_from_sacrebleu_s_cache(tmp_path, monkeypatch):
    """``-t wmt22 -l de-fr`` from a cache the test builds (no network), as tests/test_units.py does; a pair that is
    not cached comes back with sacreBLEU's reason before anything is queued."""
    from sacrebleu.dataset.wmt_xml import WMTXMLDataset

    from tests.data import WMT_XML, need

    xml = need(WMT_XML)
    raw = tmp_path / "cache" / "wmt22" / "raw"
    (raw / "wmt22-news-systems-1.1" / "xml").mkdir(parents=True)
    shutil.copy(xml, raw / "wmt22-news-systems-1.1" / "xml" / xml.name)
    (raw / "wmt22.v1.1.tar.gz").write_text("already downloaded and extracted")
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "cache"))  # the workers inherit it
    unwrapped = WMTXMLDataset._unwrap_wmt21_or_later(str(xml))
    files = []
    for name in ("LT22", "Online-A"):
        (tmp_path / f"{name}.txt").write_text("".join(x + "\n" for x in unwrapped[name]), encoding="utf-8")
        files.append(("systems", f"{name}.txt", tmp_path / f"{name}.txt"))
    with client(tmp_path) as c:
        loc = submit(c, files_of(*files), test_set="wmt22", langpair="de-fr", test="ttest").headers["location"]
        assert wait(c, loc, 600)["state"] == "done", c.get(loc + "/status").json()
        web = c.get(loc + "/files/result.json").content
        manifest = c.get(loc + "/files/manifest.json").json()
        view = c.get(loc + "/files/view.html").text
        missing = submit(c, files_of(*files), test_set="wmt22", langpair="de-en")
        both = submit(c, example_files(), test_set="wmt22", langpair="de-fr")
    assert manifest["command"].startswith("mtsig compare -s LT22=LT22.txt Online-A=Online-A.txt --test-set wmt22 "
                                          "--langpair de-fr")  # fmt: skip
    assert cli_bytes(manifest["command"], tmp_path) == web
    data = view_of(view)
    assert len(set(data["segments"]["docs"])) == 271 and data["segments"]["texts"]["ref"][0]
    assert data["cli"]["by_metric"]["bleu"]["inputs"] == [
        "--test-set",
        "wmt22",
        "--langpair",
        "de-fr",
        "--seed",
        "12345",
    ]  # the run's settings but its systems and tests
    assert missing.status_code == 400 and "is not in sacreBLEU's cache" in html.unescape(missing.text)
    assert both.status_code == 400 and "not both" in both.text
