"""``mtsig serve``: a run from uploads to bundle, the same JSON as the command line, the queue, cancelling, a bundle
after a restart, and each safety case (each gets its 4xx or refusal)."""

from __future__ import annotations

import json
import os
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
    form = {"csrf": c.cookies.get("mtsig_csrf"), "metrics": ["bleu", "chrf"], "test": "ar", "seed": "12345", **data}
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
    assert manifest["command"] == "mtsig human judged.tsv --protocol mtsig --seed 7 -f json"
    assert manifest["systems"] == ["high", "mid", "low"]
    out = subprocess.run([sys.executable, "-m", "mtsig", *manifest["command"].split()[1:]], cwd=tmp_path,
                         capture_output=True, check=True).stdout  # fmt: skip
    assert out == web


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
    shutil.copy(EX / "new.en", evil)
    name = "<script>alert(1)</script>‮.en"
    with _client(tmp_path) as c:
        loc = _submit(c, _files(("ref", "ref.A.en", EX / "ref.A.en"), ("systems", "base.en", EX / "base.en"),
                                ("systems", name, evil))).headers["location"]  # fmt: skip
        _wait(c, loc)
        pages = c.get("/").text + c.get(loc).text + c.get(loc + "/files/report.html").text
    assert "<script>alert" not in pages


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
                page.check("input[value=chrf]")
                page.click("button[type=submit]")
                page.wait_for_selector("iframe#report", timeout=120_000)
                report = page.frame_locator("iframe#report")
                report.locator("#mtsig-command").wait_for()
                assert "base" in report.locator("table").first.inner_text()
                assert "mtsig compare -r ref.A.en -s base=base.en new=new.en -m bleu chrf" in page.inner_text(
                    "#command"
                )
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
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert not errors, errors
    assert all(u.startswith(base + "/") for u in requests), [u for u in requests if not u.startswith(base)]


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
