"""The ``mtsig serve`` application (Starlette): its pages, its checks, and where it keeps things."""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
import secrets
import time
import uuid
from dataclasses import dataclass
from functools import partial
from html import escape
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mtsig.serve.jobs import Job, Jobs
from mtsig.serve.worker import EXPORTS, file_name

#: the files of a bundle a browser may fetch, with their types
FILES = {**{n: "text/plain; charset=utf-8" for n in EXPORTS}, "result.json": "application/json",
         "report.html": "text/html; charset=utf-8", "view.html": "text/html; charset=utf-8",
         "manifest.json": "application/json"}  # fmt: skip
_ID = re.compile(r"^[0-9]{8}-[0-9]{6}-[0-9a-f]{8}$")
CSRF_COOKIE, TOKEN_COOKIE = "mtsig_csrf", "mtsig_token"
METRICS = ("bleu", "chrf", "ter")
TESTS = ("ar", "paired-bootstrap", "bootstrap", "ttest")
#: how ``human`` ranks (mtsig's tests, or WMT's procedure of a year)
PROTOCOLS = ("mtsig", "wmt22", "wmt24", "wmt25")
#: the levels meta evaluates at
LEVELS = ("system", "segment")
#: the analyses the page offers (those that need no file of their own)
BY = ("ref-length", "length-diff", "sentence-score", "word-frequency", "ngrams", "examples")


@dataclass(frozen=True)
class Config:
    results: Path
    data: Path | None = None
    #: required on every request when set (a non-loopback address needs one)
    token: str | None = None
    max_upload_bytes: int = 50 * 2**20
    max_files: int = 20
    jobs: int = 2


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """A non-loopback address serves anyone who can reach it: refused without a token."""
    from mtsig.errors import InputError

    if not is_loopback(host) and not token:
        raise InputError(f"--host {host} is reachable from other machines: give --token (or bind 127.0.0.1)")


def create_app(config: Config) -> Starlette:
    config.results.mkdir(parents=True, exist_ok=True)
    jobs = Jobs(config.results, config.jobs)

    def bound(fn, *extra):
        return partial(fn, config=config, jobs=jobs) if not extra else partial(fn, config=config)

    app = Starlette(routes=[
        Route("/", bound(_home)),
        Route("/runs", bound(_submit), methods=["POST"]),
        Route("/runs/{id}", bound(_run_page)),
        Route("/runs/{id}/status", bound(_status)),
        Route("/runs/{id}/cancel", bound(_cancel), methods=["POST"]),
        Route("/runs/{id}/files/{name}", bound(_file, "config only")),
    ], exception_handlers={HTTPException: _error})  # fmt: skip
    app.add_middleware(_Guard, config=config)
    app.state.jobs = jobs
    return app


class _Guard:
    """Every request: the token where one is set (a query's ``token`` is kept in a cookie); every POST: the CSRF
    token of its form equal to the cookie's (a page of another site cannot read the cookie); no page framed by
    another site; nothing loaded from elsewhere."""

    def __init__(self, app, config: Config):
        self.app, self.config = app, config

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        token = self.config.token
        set_token = None
        if token:
            given = request.query_params.get("token") or request.cookies.get(TOKEN_COOKIE) or ""
            bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
            if not (hmac.compare_digest(given, token) or hmac.compare_digest(bearer, token)):
                refused = _plain(403, "a token is needed: open the address mtsig serve printed")
                return await refused(scope, receive, send)
            set_token = request.query_params.get("token")

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"content-security-policy", b"default-src 'self'; img-src 'self' data:; style-src "
                             b"'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; frame-ancestors 'self'"),
                            (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]  # fmt: skip
                if set_token:
                    headers.append((b"set-cookie", f"{TOKEN_COOKIE}={set_token}; HttpOnly; SameSite=Strict; "
                                    "Path=/".encode()))  # fmt: skip
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _plain(status: int, text: str) -> Response:
    return Response(text + "\n", status_code=status, media_type="text/plain; charset=utf-8")


async def _error(request: Request, exc: Exception) -> Response:
    code = getattr(exc, "status_code", 500)
    return _plain(code, str(getattr(exc, "detail", "")) or "error")


# ------------------------------------------------------------------------------------------------ pages
def _page(title: str, body: str, csrf: str | None = None) -> HTMLResponse:
    from mtsig.report.html import _CSS

    css = ("form{margin:1em 0}label{display:block;margin:.4em 0}.bar{background:#ddd;height:1em;width:100%;"
           "max-width:30em}.bar>div{background:#3366aa;height:100%}.muted{color:#666}"
           "@media (max-width:600px){body{margin:.5em}table{font-size:90%}}")  # fmt: skip
    html = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            'content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
            f"<title>{escape(title)}</title><style>{_CSS}{css}"
            f"</style></head><body>\n{body}\n</body></html>\n")  # fmt: skip
    response = HTMLResponse(html)
    if csrf is not None:
        response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
    return response


def _csrf_of(request: Request) -> str:
    return request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)


def _bundles(config: Config) -> list[dict[str, Any]]:
    out = []
    for d in sorted(config.results.iterdir(), reverse=True):
        m = d / "manifest.json"
        if _ID.match(d.name) and m.is_file():
            try:
                out.append(json.loads(m.read_text(encoding="utf-8")))
            except ValueError:
                continue
    return out


def _data_files(config: Config) -> list[str]:
    if config.data is None:
        return []
    root = config.data.resolve()
    files = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink() and p.resolve().is_relative_to(root):
            files.append(str(p.relative_to(root)))
        if len(files) >= 1000:
            break
    return files


async def _home(request: Request, config: Config, jobs: Jobs) -> Response:
    token = _csrf_of(request)
    csrf, picks = escape(token), _Picks(config)
    waiting = sum(j.state == "queued" for j in jobs.jobs.values())
    body = (
        _compare_form(csrf, picks) + _human_form(csrf, picks) + _meta_form(csrf, picks)
        + f'<p class="muted">{jobs.running()} running, {waiting} waiting (at most {jobs.limit} at a time). '
        f"Runs are kept in {escape(str(config.results))}: the inputs' SHA-256, the numbers and, where you ask for "
        "it, the segments of a comparison's view; never the files themselves.</p>"
        "<h2>Runs</h2>" + _runs_table(config)
    )  # fmt: skip
    return _page("mtsig", body, token)


class _Picks:
    """Selects of the files under ``--data`` for a form's file fields (nothing without ``--data``)."""

    def __init__(self, config: Config) -> None:
        self.data = _data_files(config)
        self.where = escape(str(config.data))
        self.options = _options(self.data)

    def __call__(self, *fields: tuple[str, str, bool]) -> str:
        if not self.data:
            return ""
        rows = "".join(f'<label>{label} <select name="data_{key}"{" multiple size=4" if many else ""}>'
                       f'{"" if many else "<option value=></option>"}{self.options}</select></label>'
                       for key, label, many in fields)  # fmt: skip
        return f"<fieldset><legend>or files under {self.where}</legend>{rows}</fieldset>"


def _options(values) -> str:
    return "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)


def _form_open(csrf: str, command: str | None = None) -> str:
    """A form's opening: multipart, posted to /runs, its CSRF token and (hidden) the command it runs."""
    hidden = f'<input type="hidden" name="command" value="{command}">' if command else ""
    return (f'<form method="post" action="/runs" enctype="multipart/form-data">'
            f'<input type="hidden" name="csrf" value="{csrf}">{hidden}')  # fmt: skip


_SEED = '<label>seed <input type="number" name="seed" value="12345" min="0"></label>'


def _compare_form(csrf: str, picks: _Picks) -> str:
    """compare and analyze: texts (or a test set, or scores alone), metrics, the run, the test and its settings."""
    metrics = "".join(f'<label><input type="checkbox" name="metrics" value="{m}"{" checked" if m == "bleu" else ""}>'
                      f" {m}</label>" for m in METRICS)  # fmt: skip
    by = "".join(f'<label><input type="checkbox" name="by" value="{b}"> {b}</label>' for b in BY)
    return (
        "<h1>mtsig</h1><p>Is the difference between MT systems real? Upload a reference and two or more system "
        "outputs (one segment per line, the same number of lines), choose metrics and a test.</p>"
        + _form_open(csrf)
        + '<label>reference <input type="file" name="ref"></label>'
        '<label>or a test set sacreBLEU knows <input type="text" name="test_set" placeholder="wmt22" size="10"></label>'
        '<label>of the language pair <input type="text" name="test_langpair" placeholder="de-en" size="8"></label>'
        '<label>systems (two or more; each named after its file) <input type="file" name="systems" multiple></label>'
        '<fieldset><legend>segment scores (optional)</legend><label>files of COMET, MetricX, BLEURT ... scores '
        "(a table with a column per system, COMET's JSON, or one file per system named after it); without a "
        'reference and outputs, the scores alone are compared <input type="file" name="seg_scores" multiple></label>'
        '<label>their name <input type="text" name="seg_name" placeholder="from the file, or seg"></label>'
        '<label><input type="checkbox" name="seg_lower" value="1"> lower is better</label>'
        "<label>or WMT25's automatic scores (its automatic_scores/SYSTEM.jsonl files) "
        '<input type="file" name="wmt25_scores" multiple></label><label>of the language pair '
        '<input type="text" name="langpair" placeholder="en-cs_CZ"></label></fieldset>'
        '<label>documents (optional: the document id of each segment, one per line; SGML and WMT XML bring theirs) '
        '<input type="file" name="docids"></label>'
        + picks(("ref", "reference", False), ("systems", "systems", True), ("seg_scores", "segment scores", True),
                ("wmt25_scores", "WMT25's automatic scores", True), ("docids", "documents", False))
        + f"<fieldset><legend>metrics</legend>{metrics}</fieldset>"
        '<fieldset><legend>run</legend><label><input type="radio" name="command" value="compare" checked> compare: '
        'paired tests between the systems</label><label><input type="radio" name="command" value="analyze"> '
        "analyze: where they differ, bucket by bucket (by default every analysis below)</label>"
        f"{by}</fieldset>"
        f'<label>test <select name="test">{_options(TESTS)}</select></label>'
        + _SEED
        + '<label>baseline (optional: a system name) <input type="text" name="baseline"></label>'
        '<label><input type="checkbox" name="keep_texts" value="1" checked> keep the segments in the run\'s view '
        "(unticked: only the inputs' SHA-256 and the numbers are kept)</label>"
        '<button type="submit">run</button></form>'
    )  # fmt: skip


def _human_form(csrf: str, picks: _Picks) -> str:
    return (
        "<h2>Human judgments</h2><p>Rank systems from human judgments (WMT DA, MQM, ESA, or a TSV with system, "
        "segment and score columns): scores, intervals, paired tests, clusters and rank ranges.</p>"
        + _form_open(csrf, "human")
        + '<label>judgments <input type="file" name="judgments"></label>'
        + picks(("judgments", "judgments", False))
        + f'<label>protocol <select name="protocol">{_options(PROTOCOLS)}</select></label>'
        + _SEED + '<button type="submit">rank</button></form>'
    )  # fmt: skip


def _meta_form(csrf: str, picks: _Picks) -> str:
    return (
        "<h2>Metrics against humans</h2><p>How well metrics agree with human judgments (mtsig meta): each metric's "
        "correlation with its interval, every pair of metrics tested, clusters. Metric files hold SYSTEM score "
        "lines (once per system: system level; once per segment, in test-set order: segment level).</p>"
        + _form_open(csrf, "meta")
        + '<label>human judgments <input type="file" name="judgments"></label>'
        '<label>metric scores (each named after its file) <input type="file" name="metric_files" multiple></label>'
        + picks(("judgments", "human judgments", False), ("metric_files", "metric scores", True))
        + f'<label>level <select name="level">{_options(LEVELS)}</select></label>'
        '<label>lower is better (metric names) <input type="text" name="lower" placeholder="TER MetricX"></label>'
        + _SEED + '<button type="submit">evaluate</button></form>'
    )  # fmt: skip


def _runs_table(config: Config) -> str:
    """The bundles in ``--results``, newest first."""
    rows = "".join(
        f'<tr><td><a href="/runs/{escape(b["id"])}">{escape(b["id"])}</a></td><td>{escape(b.get("run", "compare"))}'
        f"</td><td>{escape(', '.join(b['systems']))}"
        f"</td><td>{escape(', '.join(b['metrics']))}</td><td>{escape(', '.join(b['tests']))}</td></tr>"
        for b in _bundles(config)
    )
    if not rows:
        return "<p>none yet</p>"
    return ("<table id=runs><thead><tr><th>run</th><th>kind</th><th>systems</th><th>metrics</th><th>tests</th></tr>"
            f"</thead><tbody>{rows}</tbody></table>")  # fmt: skip


def _new_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:8]


async def _form(request: Request, config: Config):
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > config.max_upload_bytes):
        raise HTTPException(413, f"upload larger than {config.max_upload_bytes // 2**20} MB")
    try:
        return await request.form(max_files=config.max_files, max_fields=200, max_part_size=config.max_upload_bytes)
    except HTTPException:
        raise
    except Exception as exc:  # malformed multipart: said, never a traceback
        raise HTTPException(400, f"malformed form: {exc}") from None


async def _submit(request: Request, config: Config, jobs: Jobs) -> Response:
    from mtsig.errors import InputError

    form = await _form(request, config)
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not cookie or not hmac.compare_digest(str(form.get("csrf", "")), cookie):
        raise HTTPException(403, "missing or wrong CSRF token: reload the page and submit again")
    run_id = _new_id()
    work = jobs.work / run_id
    work.mkdir(parents=True)
    try:
        spec = _spec(form, config, work)
    except InputError as exc:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
        raise HTTPException(400, str(exc)) from None
    jobs.submit(Job(run_id, spec))
    return RedirectResponse(f"/runs/{run_id}", status_code=303)


def _spec(form, config: Config, work: Path) -> dict[str, Any]:
    """The run's specification from the form: the inputs saved into the run's work folder (uploads) or linked
    there (picks confined to ``--data``), each system named after its file, the settings checked."""
    from mtsig.errors import InputError

    saved = _inputs(form, config, work / "inputs")
    command = str(form.get("command") or "compare")
    if command == "human":
        return _human_spec(form, saved)
    if command == "meta":
        return _meta_spec(form, saved)
    if command not in ("compare", "analyze"):
        raise InputError(f"unknown run {command!r}: compare, analyze, human or meta")
    seed = _seed(form)
    seg = _score_inputs(form, saved)
    test = str(form.get("test") or "ar")
    if test not in TESTS:
        raise InputError(f"unknown test {test!r}: {', '.join(TESTS)}")
    if len(saved["docids"]) > 1:
        raise InputError("give one file of document ids")
    docids = {"docids": saved["docids"][0]} if saved["docids"] else {}
    if docids and "wmt25_scores" in seg:
        raise InputError("WMT25's scores bring their documents: no file of document ids")
    if seg and not saved["ref"] and not saved["systems"]:
        return {**_scores_spec(form, command, test, seed, seg), **docids}
    refs, systems = _texts(form, saved)
    by = [b for b in form.getlist("by") if b in BY] if command == "analyze" else []
    baseline = str(form.get("baseline") or "").strip() or None
    named = [x.split("=", 1)[0] for x in systems if "=" in x]
    if baseline is not None and len(named) == len(systems) and baseline not in named:
        raise InputError(f"baseline {baseline!r} is none of the systems ({', '.join(named)})")
    metrics = [m for m in form.getlist("metrics") if m in METRICS] + (["seg"] if seg else [])
    return {"command": command, "by": by, **refs, "systems": systems, "tests": [test],
            "seed": seed, "baseline": baseline, "metrics": metrics or ["bleu"], **seg, **docids,
            "keep_texts": bool(form.get("keep_texts")), "created": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip


def _texts(form, saved: dict[str, list[str]]) -> tuple[dict[str, Any], list[str]]:
    """The references (a file, or a test set by name) and the ``-s`` arguments of the outputs."""
    from mtsig.errors import InputError

    test_set = _test_set(form)
    if test_set and saved["ref"]:
        raise InputError("give a reference or a test set by name, not both")
    if len(saved["ref"]) != 1 and not test_set:
        raise InputError("give one reference (upload it, or pick it under --data, or name a test set), or segment "
                         "scores alone")  # fmt: skip
    if not saved["systems"] and saved["ref"] and _holds_systems(saved["ref"][0]):
        saved["systems"] = list(saved["ref"])  # a WMT XML test set alone: its references and its systems
    if len(saved["systems"]) < 2 and not any(_holds_systems(p) for p in saved["systems"]):
        raise InputError("give at least two system outputs")
    return {"ref": saved["ref"][0] if saved["ref"] else None, **test_set}, _system_specs(saved["systems"])


def _test_set(form) -> dict[str, str]:
    """A test set by name (sacreBLEU's, from its cache or downloaded) and its language pair; empty when none."""
    from mtsig.errors import InputError

    name = str(form.get("test_set") or "").strip()
    if not name:
        return {}
    lp = str(form.get("test_langpair") or "").strip()
    if not re.fullmatch(r"[\w.-]{1,40}", name) or not re.fullmatch(r"[a-z]{2,3}-[a-z]{2,3}", lp):
        raise InputError(f"a test set by name needs its name and language pair (wmt22, de-en), got {name!r}, {lp!r}")
    return {"test_set": name, "langpair": lp}


def _unused(name: str, taken: set[str]) -> str:
    """``name``, with ``_`` appended until no other input has it."""
    while name in taken:
        name += "_"
    return name


def _holds_systems(path: str) -> bool:
    """A WMT XML or SGML file may hold several systems: given as it is, it gives each of them."""
    return Path(path).suffix.lower() in (".xml", ".sgm", ".sgml")


def _system_specs(paths: list[str]) -> list[str]:
    """The ``-s`` arguments: a text file named after it (``NAME=FILE``), an XML/SGML file as it is (its systems)."""
    specs: list[str] = []
    names: set[str] = set()
    for path in paths:
        if _holds_systems(path):
            specs.append(path)
            continue
        name = _unused(file_name(path, "system"), names)
        names.add(name)
        specs.append(f"{name}={path}")
    return specs


def _score_inputs(form, saved: dict[str, list[str]]) -> dict[str, Any]:
    """The run's score files: segment scores (with their name and direction), or WMT25's automatic scores of a
    language pair (compared alone); empty without any."""
    from mtsig.errors import InputError

    if saved["wmt25_scores"]:
        lp = str(form.get("langpair") or "").strip()
        if not re.fullmatch(r"[a-z]{2,3}-[a-z]{2,3}(_[A-Za-z]{2})?", lp):
            raise InputError(f"WMT25's scores need the language pair (en-cs_CZ, or en-cs), got {lp!r}")
        if saved["ref"] or saved["systems"] or saved["seg_scores"]:
            raise InputError("WMT25's automatic scores are compared alone: no reference, outputs or other scores")
        return {"wmt25_scores": saved["wmt25_scores"], "langpair": lp}
    if not saved["seg_scores"]:
        return {}
    name = str(form.get("seg_name") or "").strip() or None
    if name and not re.fullmatch(r"[\w.+-]{1,40}", name):
        raise InputError("the scores' name: letters, digits, '.', '+', '-' or '_' (at most 40)")
    return {"seg_scores": saved["seg_scores"], "seg_name": name, "seg_lower": bool(form.get("seg_lower"))}


def _scores_spec(form, command: str, test: str, seed: int, seg: dict[str, Any]) -> dict[str, Any]:
    """A comparison of segment scores alone (no texts): the systems are those the scores name."""
    from mtsig.errors import InputError

    if command != "compare":
        raise InputError("analyze needs the texts: give a reference and the outputs beside the scores")
    baseline = str(form.get("baseline") or "").strip() or None
    metrics = [] if "wmt25_scores" in seg else ["seg"]
    return {"command": "compare", "ref": None, "systems": [], "metrics": metrics, "tests": [test], "seed": seed,
            "baseline": baseline, "by": [], **seg, "created": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip


def _seed(form) -> int:
    from mtsig.errors import InputError

    seed = str(form.get("seed") or "12345")
    if not seed.isdigit():
        raise InputError(f"the seed is a whole number, got {seed!r}")
    return int(seed)


def _meta_spec(form, saved: dict[str, list[str]]) -> dict[str, Any]:
    from mtsig.errors import InputError

    if len(saved["judgments"]) != 1 or not saved["metric_files"]:
        raise InputError("give one file of human judgments and at least one file of metric scores")
    level = str(form.get("level") or "system")
    if level not in LEVELS:
        raise InputError(f"unknown level {level!r}: {', '.join(LEVELS)}")
    files: dict[str, str] = {}
    for path in saved["metric_files"]:
        files[_unused(file_name(path, "metric", "+"), set(files))] = path
    lower = str(form.get("lower") or "").split()
    unknown = [n for n in lower if n not in files]
    if unknown:
        raise InputError(f"lower is better: {', '.join(unknown)} is none of the metrics ({', '.join(files)})")
    return {"command": "meta", "judgments": saved["judgments"][0], "metric_files": files, "level": level,
            "lower": lower, "seed": _seed(form), "created": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip


def _human_spec(form, saved: dict[str, list[str]]) -> dict[str, Any]:
    from mtsig.errors import InputError

    if len(saved["judgments"]) != 1 or saved["ref"] or saved["systems"] or saved["seg_scores"]:
        raise InputError("give one file of human judgments (and no reference or system output)")
    protocol = str(form.get("protocol") or "mtsig")
    if protocol not in PROTOCOLS:
        raise InputError(f"unknown protocol {protocol!r}: {', '.join(PROTOCOLS)}")
    return {"command": "human", "judgments": saved["judgments"][0], "protocol": protocol, "seed": _seed(form),
            "created": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip


def _inputs(form, config: Config, inputs: Path) -> dict[str, list[str]]:
    """Every input in the run's inputs folder by the name the command line shows (the run works there, so the paths
    its JSON records are those of the command: run in a folder holding the files, it prints the same bytes)."""
    from mtsig.errors import InputError

    uploads = [(k, v) for k, v in form.multi_items() if hasattr(v, "filename") and v.filename]
    if len(uploads) > config.max_files:
        raise InputError(f"at most {config.max_files} files per run")
    inputs.mkdir()
    saved: dict[str, list[str]] = {"ref": [], "systems": [], "judgments": [], "seg_scores": [], "metric_files": [],
                                   "wmt25_scores": [], "docids": []}  # fmt: skip
    total = 0
    for key, up in uploads:
        if key not in saved:
            raise InputError(f"unexpected file field {key!r}")
        data = up.file.read()
        total += len(data)
        if total > config.max_upload_bytes:
            raise InputError(f"uploads larger than {config.max_upload_bytes // 2**20} MB")
        name = _unique(inputs, _safe(Path(up.filename).name) or "file")
        (inputs / name).write_bytes(data)
        saved[key].append(name)
    picks = [(key, v) for key in saved for v in form.getlist(f"data_{key}")]
    for key, v in picks:
        if v:
            target = _confined(config, str(v))
            name = _unique(inputs, str(v))
            (inputs / name).parent.mkdir(parents=True, exist_ok=True)
            (inputs / name).symlink_to(target)
            saved[key].append(name)
    return saved


def _unique(folder: Path, name: str) -> str:
    """``name``, or ``stem_2.ext``, ... where a file of that name is already there."""
    if not (folder / name).exists():
        return name
    p = Path(name)
    k = 2
    while (folder / p.with_name(f"{p.stem}_{k}{p.suffix}")).exists():
        k += 1
    return str(p.with_name(f"{p.stem}_{k}{p.suffix}"))


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name)[:80]


def _confined(config: Config, relative: str) -> Path:
    """A file under ``--data``: no absolute path, no ``..``, no symbolic link leading out."""
    from mtsig.errors import InputError

    if config.data is None:
        raise InputError("this server has no --data folder to pick files from")
    root = config.data.resolve()
    rel = Path(relative)
    if rel.is_absolute() or ".." in rel.parts:
        raise InputError(f"{relative!r}: a path under the data folder, without '..'")
    p = (root / rel).resolve()
    if not p.is_relative_to(root):
        raise InputError(f"{relative!r} leads out of the data folder")
    if not p.is_file():
        raise InputError(f"{relative!r}: no such file under the data folder")
    return p


def _job_or_bundle(request: Request, config: Config, jobs: Jobs) -> tuple[str, Job | None, Path | None]:
    run_id = request.path_params["id"]
    if not _ID.match(run_id):
        raise HTTPException(404, "no such run")
    bundle = config.results / run_id
    job = jobs.jobs.get(run_id)
    if job is None and not (bundle / "manifest.json").is_file():
        raise HTTPException(404, "no such run")
    return run_id, job, bundle if (bundle / "manifest.json").is_file() else None


async def _status(request: Request, config: Config, jobs: Jobs) -> Response:
    run_id, job, bundle = _job_or_bundle(request, config, jobs)
    if job is None:
        return JSONResponse({"id": run_id, "state": "done"})
    return JSONResponse(job.status(jobs.position(job)))


async def _cancel(request: Request, config: Config, jobs: Jobs) -> Response:
    form = await _form(request, config)
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not cookie or not hmac.compare_digest(str(form.get("csrf", "")), cookie):
        raise HTTPException(403, "missing or wrong CSRF token: reload the page and submit again")
    run_id, job, _ = _job_or_bundle(request, config, jobs)
    if job is not None:
        await jobs.cancel(job)
    return RedirectResponse(f"/runs/{run_id}", status_code=303)


_POLL = """<script>
(function(){var box=document.getElementById('state');function tick(){fetch(location.pathname+'/status')
.then(function(r){return r.json()}).then(function(s){var t=s.state;
if(s.position)t+=' (number '+s.position+' in the queue)';
if(s.progress){var p=s.progress;t+=': '+p.label+' '+p.done+' of '+p.total;document.getElementById('fill').style.width=
(p.total?100*p.done/p.total:0)+'%'}if(s.error)t+=': '+s.error;box.textContent=t;
if(s.state==='queued'||s.state==='running'){setTimeout(tick,500)}else if(s.state==='done'){location.reload()}})}
tick()})();</script>"""


async def _run_page(request: Request, config: Config, jobs: Jobs) -> Response:
    run_id, job, bundle = _job_or_bundle(request, config, jobs)
    csrf = _csrf_of(request)
    if bundle is None:
        assert job is not None
        st = job.status(jobs.position(job))
        cancel = (f'<form method="post" action="/runs/{run_id}/cancel"><input type="hidden" name="csrf" '
                  f'value="{escape(csrf)}"><button type="submit">cancel</button></form>'
                  if job.state in ("queued", "running") else "")  # fmt: skip
        body = (f'<p><a href="/">mtsig</a></p><h1>Run {escape(run_id)}</h1><p id=state>{escape(st["state"])}'
                f'{": " + escape(job.error) if job.error else ""}</p><div class=bar><div id=fill style="width:0">'
                f"</div></div>{cancel}" + (_POLL if job.state in ("queued", "running") else ""))  # fmt: skip
        return _page(f"mtsig run {run_id}", body, csrf)
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    shown = "view.html" if (bundle / "view.html").is_file() else "report.html"
    names = (*EXPORTS, "report.html", *(["view.html"] if shown == "view.html" else []))
    links = " · ".join(f'<a href="/runs/{run_id}/files/{n}" download>{n}</a>' for n in names)
    inputs = "".join(f"<tr><td>{escape(k)}</td><td><code>{escape(v)}</code></td></tr>"
                     for k, v in manifest["inputs"].items())  # fmt: skip
    body = (f'<p><a href="/">mtsig</a></p><h1>Run {escape(run_id)}</h1>'
            f'<h2>Command</h2><pre id=command>{escape(manifest["command"])}</pre>'
            f"<p>Export: {links}</p><h2>Inputs (SHA-256)</h2><table>{inputs}</table>"
            f'<h2>Report</h2><iframe id=report src="/runs/{run_id}/files/{shown}" title="report" '
            'style="width:100%;height:80vh;border:1px solid #ccc"></iframe>')  # fmt: skip
    return _page(f"mtsig run {run_id}", body, csrf)


async def _file(request: Request, config: Config) -> Response:
    run_id, name = request.path_params["id"], request.path_params["name"]
    if not _ID.match(run_id) or name not in FILES:
        raise HTTPException(404, "no such file")
    path = config.results / run_id / name
    if not path.is_file():
        raise HTTPException(404, "no such file")
    return FileResponse(path, media_type=FILES[name])
