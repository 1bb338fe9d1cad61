"""``mtsig serve`` against an adversary and against faults (issue 59's list, each case one that the server before
it failed): another site's requests (DNS rebinding, a form of another origin), uploads beyond the limit however they
are sent, errors that are not the user's, a full queue, malformed bundles, hidden files, tokens that are not
ASCII or sit in the address, and runs that take too long or too much memory."""

from __future__ import annotations

import errno
import json
import time

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from mtsig.serve.app import Config, create_app  # noqa: E402
from mtsig.serve.jobs import Limits  # noqa: E402
from tests.test_serve import EX, client, example_files, submit, wait  # noqa: E402


def _work_empty(tmp_path) -> bool:
    return not any((tmp_path / "results" / ".work").iterdir())


def test_another_host_name_is_refused_on_every_route(tmp_path):
    """DNS rebinding: a page of attacker.example whose name now points here sends Host: attacker.example."""
    with client(tmp_path) as c:
        loc = submit(c, example_files()).headers["location"]
        wait(c, loc)
        for url in ("/", loc, loc + "/status", loc + "/files/result.json", loc + "/files/view.html"):
            r = c.get(url, headers={"host": "rebind.attacker.example"})
            assert r.status_code == 421 and "does not answer to the name" in r.text, url
            assert c.get(url, headers={"host": "localhost:8000"}).status_code == 200, url
        r = c.post(loc + "/cancel", data={"csrf": c.cookies.get("mtsig_csrf")},
                   headers={"host": "rebind.attacker.example"})  # fmt: skip
        assert r.status_code == 421
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf")}, files=example_files(),
                   headers={"host": "rebind.attacker.example:8000"})  # fmt: skip
        assert r.status_code == 421
    assert _work_empty(tmp_path)


def test_allowed_hosts_are_the_loopback_names_the_host_and_those_given():
    from mtsig.serve.app import allowed_hosts

    assert set(allowed_hosts("127.0.0.1")) == {"localhost", "127.0.0.1", "::1"}
    assert "mt.example.org" in allowed_hosts("127.0.0.1", ("MT.example.org",))
    assert "10.0.0.5" in allowed_hosts("10.0.0.5")
    assert "0.0.0.0" not in allowed_hosts("0.0.0.0")


def test_a_post_from_another_origin_is_refused_before_its_body_is_read(tmp_path):
    with client(tmp_path) as c:
        c.get("/")
        for headers in ({"origin": "http://evil.example"}, {"origin": "null"}, {"sec-fetch-site": "cross-site"}):
            r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf")}, files=example_files(), headers=headers)
            assert r.status_code == 403, headers
        same = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "metrics": "bleu"}, files=example_files(),
                      headers={"origin": "http://127.0.0.1:8000", "sec-fetch-site": "same-origin"},
                      follow_redirects=False)  # fmt: skip
        assert same.status_code == 303
        wait(c, same.headers["location"])
    assert _work_empty(tmp_path)


def _chunks(total: int, size: int = 64 * 1024):
    sent = 0
    while sent < total:
        n = min(size, total - sent)
        sent += n
        yield b"x" * n


def _multipart(total: int, boundary: str = "b0undary"):
    yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nTOKEN\r\n--{boundary}\r\n"
           'Content-Disposition: form-data; name="ref"; filename="huge.en"\r\nContent-Type: text/plain\r\n\r\n'
           ).encode()  # fmt: skip
    yield from _chunks(total)
    yield f"\r\n--{boundary}--\r\n".encode()


def test_a_chunked_upload_beyond_the_limit_is_refused_as_it_streams(tmp_path):
    """No Content-Length (chunked): the limit is counted on the bytes received; nothing of it is kept."""
    with client(tmp_path, max_upload_bytes=2**20) as c:
        c.get("/")
        body = b"".join(_multipart(8 * 2**20)).replace(b"TOKEN", c.cookies.get("mtsig_csrf").encode())
        r = c.post("/runs", content=iter([body[i : i + 65536] for i in range(0, len(body), 65536)]),
                   headers={"content-type": "multipart/form-data; boundary=b0undary"})  # fmt: skip
        assert r.status_code == 413 and "larger than this server takes (1 MB)" in r.text
        r = c.post("/runs", content=b"x", headers={"content-type": "multipart/form-data; boundary=b0undary",
                                                   "content-length": str(2**30)})  # fmt: skip
        assert r.status_code == 413  # a Content-Length beyond the limit: refused before a byte is read
    assert _work_empty(tmp_path)
    assert not [p for p in (tmp_path / "results").rglob("*") if p.is_file() and p.suffix == ".en"]


def test_without_the_csrf_cookie_nothing_of_the_body_is_read(tmp_path):
    seen = []

    def body():
        for chunk in _chunks(4 * 2**20):
            seen.append(len(chunk))
            yield chunk

    with client(tmp_path, max_upload_bytes=2**30) as c:
        r = c.post("/runs", content=body(), headers={"content-type": "multipart/form-data; boundary=x"})
    assert r.status_code == 403 and "CSRF" in r.text
    assert _work_empty(tmp_path)


def test_errors_that_are_not_the_users_leave_nothing_behind(tmp_path, monkeypatch):
    import mtsig.serve.app as app

    with client(tmp_path) as c:
        c.get("/")
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "metrics": "bleu"},
                   files=[("ref", ("r" * 2000 + ".en", (EX / "ref.A.en").read_bytes())), *example_files()[1:]],
                   follow_redirects=False)  # fmt: skip
        assert r.status_code == 303  # a long name is shortened, not a failure
        command = json.loads(c.get(r.headers["location"] + "/status").text)
        assert wait(c, r.headers["location"])["state"] == "done", command
        r = c.post("/runs", data={"csrf": c.cookies.get("mtsig_csrf"), "metrics": "bleu"},
                   files=[("ref", ("a" * 20000 + ".en", (EX / "ref.A.en").read_bytes())), *example_files()[1:]],
                   follow_redirects=False)  # fmt: skip
        assert r.status_code == 400 and "headers longer than this server takes" in r.text  # said, never a 500

        async def full(*a, **k):
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(app, "read_form", full)
        r = submit(c, example_files())
        assert r.status_code == 507 and "disk is full" in r.text and "Traceback" not in r.text

        async def broken(*a, **k):
            raise RuntimeError("something the handlers did not expect")

        monkeypatch.setattr(app, "read_form", broken)
        r = submit(c, example_files())
        assert r.status_code == 500 and "RuntimeError" in r.text and "Traceback" not in r.text
    assert _work_empty(tmp_path)


def test_the_queue_is_bounded(tmp_path):
    with client(tmp_path, jobs=1, max_waiting=1) as c:
        first = submit(c, example_files(), n_resamples="3000000")
        second = submit(c, example_files())
        third = submit(c, example_files())
        assert (first.status_code, second.status_code, third.status_code) == (303, 303, 429)
        assert "queue is full" in third.text and third.headers["retry-after"]
        for r in (first, second):
            c.post(r.headers["location"] + "/cancel", data={"csrf": c.cookies.get("mtsig_csrf")})
    assert _work_empty(tmp_path)


def test_malformed_manifests_are_left_out_with_a_note(tmp_path):
    results = tmp_path / "results"
    for k, text in enumerate(("{}", "[]", "not json", '{"command": 3}', '{"command": "x", "systems": "ab"}')):
        d = results / f"20260101-00000{k}-0000000{k}"
        d.mkdir(parents=True)
        (d / "manifest.json").write_text(text)
    with client(tmp_path) as c:
        home = c.get("/")
        assert home.status_code == 200 and "5 bundle(s) with a manifest that cannot be read are left out" in home.text
        assert c.get("/runs/20260101-000000-00000000").status_code == 404


def test_the_data_listing_is_cut_and_says_so(tmp_path, monkeypatch):
    import mtsig.serve.app as app

    data = tmp_path / "data"
    data.mkdir()
    for k in range(12):
        (data / f"f{k:02d}.en").write_text("x\n")
    monkeypatch.setattr(app, "DATA_LISTED", 5)
    with client(tmp_path, data=data) as c:
        home = c.get("/").text
    assert "more than 5 files" in home and "type any other path" in home
    assert "<textarea" in home and "f11.en" not in home


def test_a_token_that_is_not_ascii_works_and_leaves_the_address(tmp_path):
    with client(tmp_path, token="pässwort") as c:
        assert c.get("/").status_code == 403
        assert c.get("/?token=wrong").status_code == 403
        r = c.get("/?token=pässwort&command=human", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/?command=human"  # the token leaves the address
        assert "mtsig_token" in r.headers["set-cookie"] and "httponly" in r.headers["set-cookie"].lower()
        assert c.get("/").status_code == 200  # the cookie carries it
    with TestClient(create_app(Config(results=tmp_path / "r2", token="pässwort")), base_url="http://127.0.0.1") as c:
        assert c.get("/", headers={"authorization": "Bearer pässwort".encode()}).status_code == 200
        assert c.get("/", headers={"authorization": b"Bearer passwort"}).status_code == 403


def test_a_run_over_its_time_is_stopped_and_says_why(tmp_path):
    with TestClient(create_app(Config(results=tmp_path / "results", limits=Limits(seconds=1.5))),
                    base_url="http://127.0.0.1") as c:  # fmt: skip
        loc = submit(c, example_files(), n_resamples="5000000").headers["location"]
        s = wait(c, loc, 60)
    assert s["state"] == "failed" and "took longer than this server allows" in s["error"]
    assert not (tmp_path / "results" / loc.rsplit("/", 1)[1]).exists()
    assert _work_empty(tmp_path)


def test_a_run_over_its_memory_is_stopped_and_says_why(tmp_path):
    t = time.time()
    with TestClient(create_app(Config(results=tmp_path / "results", limits=Limits(memory=100 * 2**20))),
                    base_url="http://127.0.0.1") as c:  # fmt: skip
        loc = submit(c, example_files()).headers["location"]
        s = wait(c, loc, 120)
    assert s["state"] == "failed" and "more memory than this server allows" in s["error"], s
    assert time.time() - t < 120
    assert _work_empty(tmp_path)


def test_cached_test_sets_are_told_from_a_lock_file_left_offline(tmp_path):
    """Offline, sacreBLEU takes its lock before it downloads and leaves the lock file: that is no cached copy."""
    from mtsig.io.testsets import _cached_files

    raw = tmp_path / "raw"
    raw.mkdir()

    class Older:  # a test set of the older formats: its raw folder stands for it
        _rawdir = str(raw)

        def _get_langpair_path(self, langpair):
            raise KeyError(langpair)

    (raw / "wmt20.tgz.lock").write_text("")
    (raw / "wmt20.tgz").write_text("")  # an attempt that failed: empty
    assert _cached_files(Older(), "de-en") is None
    (raw / "wmt20").mkdir()
    assert _cached_files(Older(), "de-en") == str(raw)
