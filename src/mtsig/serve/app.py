"""The ``mtsig serve`` application (Starlette): its pages, its guards, and where it keeps things.

Each form is a command's schema (:mod:`mtsig.serve.forms`); a submitted form becomes the command line it stands
for (:func:`mtsig.surface.argv_of`), which a worker process checks (parsed, checked and its inputs read as the
command line does) before the run is queued, and then runs as ``mtsig`` runs it. What the page shows, the
command line prints.

Guards, on every request: the ``Host`` header must name this server (a page of another site reached by DNS
rebinding cannot read anything); the token where one is set (compared as bytes; taken once from the address and kept
in a cookie, the address then cleaned of it). On every POST: an ``Origin`` of this server (when the browser sends
one) and the CSRF cookie's token in the form. Uploads are counted as they stream (never more than the limit in memory
or on disk), the queue is bounded, each run has a time and a memory limit, and slow clients lose their connections
(:mod:`mtsig.serve.protocol`)."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import os
import re
import secrets
import shutil
import socket
import sys
import time
import uuid
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mtsig.serve.forms import ABOUT, FORM_CSS, Picks, form_html
from mtsig.serve.jobs import Job, Jobs, Limits, QueueFull, kill_group, worker_env
from mtsig.serve.store import Store
from mtsig.serve.upload import FormError, read_form, unique
from mtsig.serve.worker import EXPORTS

#: the files of a bundle a browser may fetch, with their types
FILES = {**{n: "text/plain; charset=utf-8" for n in EXPORTS}, "result.json": "application/json",
         "report.html": "text/html; charset=utf-8", "view.html": "text/html; charset=utf-8",
         "manifest.json": "application/json"}  # fmt: skip
_ID = re.compile(r"^[0-9]{8}-[0-9]{6}-[0-9a-f]{8}$")
CSRF_COOKIE, TOKEN_COOKIE = "mtsig_csrf", "mtsig_token"
#: the names every server answers to (besides its --host and --allow-host)
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: the most files and folders ``--data`` lists (more: the paths are typed)
DATA_LISTED = 1000
#: how long a listing of ``--data`` is reused (seconds)
DATA_FRESH = 15.0
#: the fields of a form that are the page's, not the command's
PAGE_FIELDS = ("csrf", "command", "keep_texts")


@dataclass(frozen=True)
class Config:
    results: Path
    data: Path | None = None
    #: required on every request when set (a non-loopback address needs one)
    token: str | None = None
    max_upload_bytes: int = 50 * 2**20
    max_files: int = 20
    jobs: int = 2
    #: runs that may wait beyond those running (one more is refused: 429)
    max_waiting: int = 16
    #: each run's limits
    limits: Limits = Limits()
    #: the names this server answers to besides the loopback ones (its --host, --allow-host)
    hosts: tuple[str, ...] = ()
    #: seconds a request's body may take (uploads)
    upload_seconds: float = 600.0
    #: seconds the check of a form's inputs may take before the run is queued
    check_seconds: float = 120.0
    #: checks at a time (each a short process)
    checks: int = 2
    forms: tuple[str, ...] = field(default=("compare", "analyze", "score", "human", "meta"))


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


def allowed_hosts(host: str, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The names a server bound to ``host`` answers to: the loopback names, ``host`` itself, ``extra``
    (--allow-host: the names a reverse proxy or other machines use) and, bound to every address, this machine's
    own names."""
    out = [*LOOPBACK_NAMES, host.strip("[]").lower(), *(h.lower() for h in extra)]
    if host in ("0.0.0.0", "::", ""):
        with contextlib.suppress(OSError):
            out += [socket.gethostname().lower(), socket.getfqdn().lower()]
    return tuple(dict.fromkeys(h for h in out if h and h not in ("0.0.0.0", "::")))


def _host_of(value: str) -> str:
    """The name in a Host header or an origin's netloc, without its port."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def create_app(config: Config) -> Starlette:
    config.results.mkdir(parents=True, exist_ok=True)
    store = Store(config.results)
    jobs = Jobs(config.results, store, config.jobs, config.max_waiting, config.limits)
    state = _State(config, jobs, store)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        state.recovered = store.recover()  # what a stopped server left queued or running
        jobs.sweep()  # and its uploads
        try:
            yield
        finally:
            await jobs.shutdown()
            for p in list(state.checking):
                kill_group(p)
            store.close()

    def bound(fn):
        async def endpoint(request: Request) -> Response:
            return await fn(request, state)

        return endpoint

    app = Starlette(routes=[
        Route("/", bound(_home)),
        Route("/runs", bound(_submit), methods=["POST"]),
        Route("/runs/{id}", bound(_run_page)),
        Route("/runs/{id}/status", bound(_status)),
        Route("/runs/{id}/cancel", bound(_cancel), methods=["POST"]),
        Route("/runs/{id}/files/{name}", bound(_file)),
        Route("/favicon.ico", _no_icon),
    ], exception_handlers={HTTPException: _error, Exception: _failure}, lifespan=lifespan)  # fmt: skip
    app.add_middleware(_Guard, config=config)
    app.state.jobs = jobs
    app.state.store = store
    return app


@dataclass
class _State:
    config: Config
    jobs: Jobs
    store: Store
    recovered: list = field(default_factory=list)
    checking: set = field(default_factory=set)
    _check_slots: asyncio.Semaphore | None = None
    _waiting_checks: int = 0
    _data: tuple[float, Picks] | None = None

    @property
    def check_slots(self) -> asyncio.Semaphore:
        if self._check_slots is None:
            self._check_slots = asyncio.Semaphore(self.config.checks)
        return self._check_slots


# ------------------------------------------------------------------------------------------------ guards
class _Guard:
    """Every request: a Host this server answers to; the token where one is set (a query's ``token`` is kept in a
    cookie and the address cleaned of it); every POST: an Origin of this server; no page framed by another site;
    nothing loaded from elsewhere."""

    def __init__(self, app, config: Config):
        self.app, self.config = app, config
        self.hosts = set(config.hosts or LOOPBACK_NAMES)
        self.token = config.token.encode("utf-8") if config.token else None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        refused = self._refused(request)
        if refused is not None:
            return await refused(scope, receive, send)
        if self.token is not None and request.method == "GET" and "token" in request.query_params:
            rest = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
            to = request.url.path + (f"?{rest}" if rest else "")
            out = RedirectResponse(to, status_code=303)  # the token leaves the address (and the history)
            out.set_cookie(TOKEN_COOKIE, _cookie_of(self.token), httponly=True, samesite="strict")
            return await _with_headers(out)(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + _SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _refused(self, request: Request) -> Response | None:
        host = _host_of(request.headers.get("host", ""))
        if host not in self.hosts:
            return _with_headers(_plain(421, f"this server does not answer to the name {host!r}: open the address "
                                        "mtsig serve printed (or start it with --allow-host NAME)"))  # fmt: skip
        if self.token is not None and not self._has_token(request):
            return _with_headers(_plain(403, "a token is needed: open the address mtsig serve printed"))
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("origin")
            site = request.headers.get("sec-fetch-site")
            if origin is not None and (origin == "null" or _host_of(urlsplit(origin).netloc) not in self.hosts):
                return _with_headers(_plain(403, "a form of another site: refused"))
            if site == "cross-site":
                return _with_headers(_plain(403, "a request from another site: refused"))
        return None

    def _has_token(self, request: Request) -> bool:
        """The token as bytes (any characters): in the cookie (its digest), the Authorization header (Bearer; the
        header's bytes) or, on a GET, the address (UTF-8, as a browser sends it)."""
        assert self.token is not None
        cookie = request.cookies.get(TOKEN_COOKIE, "")
        if cookie and hmac.compare_digest(cookie.encode("ascii", "replace"), _cookie_of(self.token).encode()):
            return True
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if bearer and hmac.compare_digest(bearer.encode("latin-1", "replace"), self.token):
            return True
        query = request.query_params.get("token", "") if request.method == "GET" else ""
        return bool(query) and hmac.compare_digest(query.encode("utf-8", "replace"), self.token)


def _cookie_of(token: bytes) -> str:
    """What the token cookie holds: a digest of the token (ASCII whatever the token's characters; not the token)."""
    import hashlib

    return hashlib.sha256(b"mtsig serve token\0" + token).hexdigest()


_SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
     b"script-src 'self' 'unsafe-inline'; frame-ancestors 'self'; form-action 'self'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]  # fmt: skip


def _with_headers(response: Response) -> Response:
    for k, v in _SECURITY_HEADERS:
        response.headers[k.decode()] = v.decode()
    return response


def _plain(status: int, text: str) -> Response:
    return Response(text + "\n", status_code=status, media_type="text/plain; charset=utf-8")


async def _error(request: Request, exc: Exception) -> Response:
    code = getattr(exc, "status_code", 500)
    detail = str(getattr(exc, "detail", "")) or "error"
    return _message_page(code, detail)


async def _failure(request: Request, exc: Exception) -> Response:
    """Anything the handlers did not expect: a page that says so (the server's log has the rest), never a
    traceback."""
    print(f"mtsig serve: {request.method} {request.url.path}: {type(exc).__name__}: {exc}", file=sys.stderr)
    return _message_page(500, f"the server could not do this ({type(exc).__name__}); nothing was kept")


# ------------------------------------------------------------------------------------------------ pages
_PAGE_CSS = (".bar{background:#ddd;height:1em;width:100%;max-width:30em}.bar>div{background:#1a4fa0;height:100%}"
             ".muted{color:#555}table{max-width:100%}td{overflow-wrap:anywhere}"
             "iframe{width:100%;height:85vh;border:1px solid #ccc}"
             "@media (max-width:600px){body{margin:.5em}table{font-size:90%}}")  # fmt: skip


def _page(title: str, body: str, csrf: str | None = None, status: int = 200) -> HTMLResponse:
    from mtsig.report.html import _CSS

    html = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            'content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
            f"<title>{escape(title)}</title><style>{_CSS}{FORM_CSS}{_PAGE_CSS}"
            f'</style></head><body>\n<main>{body}</main>\n</body></html>\n')  # fmt: skip
    response = HTMLResponse(html, status_code=status)
    if csrf is not None:
        response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
    return response


def _message_page(status: int, message: str, back: str = "/") -> HTMLResponse:
    body = (f'<p><a href="{escape(back)}">← back to the form</a></p><h1>Not done</h1>'
            f'<p role=alert id=message>{escape(message)}</p>')  # fmt: skip
    return _page(f"mtsig: {status}", body, status=status)


def _csrf_of(request: Request) -> str:
    return request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)


def _tabs(current: str, forms: tuple[str, ...]) -> str:
    links = "".join(f'<a href="/?command={c}"{" aria-current=page" if c == current else ""}>{c}</a>' for c in forms)
    return f'<nav class=tabs aria-label="commands">{links}</nav>'


async def _home(request: Request, state: _State) -> Response:
    config = state.config
    command = request.query_params.get("command") or config.forms[0]
    if command not in config.forms:
        raise HTTPException(404, f"no form {command!r}: {', '.join(config.forms)}")
    token = _csrf_of(request)
    picks = await _picks(state)
    body = _home_body(state, command, form_html(_schema(command), token, picks), picks)
    return _page("mtsig", body, token)


def _schema(command: str):
    from mtsig.surface import schema

    return schema(command)


def _home_body(state: _State, command: str, form: str, picks: Picks) -> str:
    jobs, config = state.jobs, state.config
    cut = (f'<p class=muted>--data holds more than {DATA_LISTED:,} files: the first {DATA_LISTED:,} (by name) are '
           "listed; type any other path under it.</p>" if picks.cut else "")  # fmt: skip
    return (
        "<h1>mtsig</h1>" + _tabs(command, config.forms)
        + f"<h2>{escape(command)}</h2><p>{escape(ABOUT.get(command, ''))} The settings are the command line's "
        f"(<code>mtsig {escape(command)} --help</code>); the page shows the command it runs.</p>" + cut + form
        + f'<p class=muted>{jobs.running()} running, {jobs.waiting()} waiting (at most {jobs.limit} at a time, '
        f"{jobs.max_waiting} waiting). Runs are kept in {escape(str(config.results))}: the inputs' SHA-256, the "
        "numbers and, where you ask for it, the segments of a comparison's view; never the files themselves.</p>"
        "<h2>Runs</h2>" + _runs_table(state)
    )  # fmt: skip


def _runs_table(state: _State) -> str:
    """Every run, newest first: the store's (every state) and bundles on disk it does not know (older servers);
    a manifest that cannot be read is left out and said."""
    rows, seen, bad = [], set(), 0
    for r in state.store.rows():
        seen.add(r.id)
        s = r.summary
        link = f'<a href="/runs/{escape(r.id)}">{escape(r.id)}</a>'
        rows.append((r.id, link, r.command, r.state, s.get("systems") or [], s.get("metrics") or [],
                     s.get("tests") or []))  # fmt: skip
    for d in sorted(state.config.results.iterdir(), reverse=True):
        if not _ID.match(d.name) or d.name in seen or not (d / "manifest.json").is_file():
            continue
        m = _manifest(d)
        if m is None:
            bad += 1
            continue
        rows.append((d.name, f'<a href="/runs/{escape(d.name)}">{escape(d.name)}</a>', str(m.get("run", "compare")),
                     "done", m.get("systems", []), m.get("metrics", []), m.get("tests", [])))  # fmt: skip
    note = f"<p class=muted>{bad} bundle(s) with a manifest that cannot be read are left out.</p>" if bad else ""
    if not rows:
        return "<p>none yet</p>" + note
    rows.sort(key=lambda r: r[0], reverse=True)
    body = "".join(f"<tr><td>{r[1]}</td><td>{escape(r[2])}</td><td>{escape(r[3])}</td>"
                   f"<td>{escape(', '.join(map(str, r[4])))}</td><td>{escape(', '.join(map(str, r[5])))}</td>"
                   f"<td>{escape(', '.join(map(str, r[6])))}</td></tr>" for r in rows)  # fmt: skip
    return ("<div class=wrap><table id=runs><thead><tr><th scope=col>run</th><th scope=col>command</th>"
            "<th scope=col>state</th><th scope=col>systems</th><th scope=col>metrics</th><th scope=col>tests</th>"
            f"</tr></thead><tbody>{body}</tbody></table></div>{note}")  # fmt: skip


def _manifest(bundle: Path) -> dict[str, Any] | None:
    """A bundle's manifest, or None where it is not one (malformed, not an object, no list of systems)."""
    try:
        m = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(m, dict) or not isinstance(m.get("command"), str):
        return None
    for k in ("systems", "metrics", "tests"):
        if not isinstance(m.get(k, []), list):
            return None
    if not isinstance(m.get("inputs", {}), dict):
        return None
    return m


# ------------------------------------------------------------------------------------------------ --data
async def _picks(state: _State) -> Picks:
    """The listing of ``--data``, made off the event loop and reused for a few seconds."""
    config = state.config
    if config.data is None:
        return Picks()
    now = time.monotonic()
    if state._data is not None and now - state._data[0] < DATA_FRESH:
        return state._data[1]
    picks = await asyncio.to_thread(list_data, config.data)
    state._data = (time.monotonic(), picks)
    return picks


def list_data(root: Path) -> Picks:
    """The files and folders under ``root`` (not hidden, not through links, none leading out), by name; at most
    :data:`DATA_LISTED` of each, and whether more were left."""
    root = root.resolve()
    files: list[str] = []
    folders: list[str] = []
    cut = False
    for here, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(here, d)))
        rel = os.path.relpath(here, root)
        if rel != ".":
            if len(folders) < DATA_LISTED:
                folders.append(rel)
        for n in sorted(names):
            if n.startswith("."):
                continue
            p = os.path.join(here, n)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            if len(files) >= DATA_LISTED:
                cut = True
                break
            files.append(os.path.relpath(p, root))
        if cut:
            break
    return Picks(tuple(files), tuple(folders), cut, str(root))


def confined(config: Config, relative: str, folder: bool = False) -> Path:
    """A file (``folder``: a folder) under ``--data``: no absolute path, no ``..``, nothing hidden, no symbolic
    link leading out."""
    from mtsig.errors import InputError

    if config.data is None:
        raise InputError("this server has no --data folder to pick files from")
    if len(relative) > 1000 or any(ord(c) < 32 for c in relative):
        raise InputError(f"{relative[:60]!r}: not a path under the data folder")
    root = config.data.resolve()
    rel = Path(relative)
    if rel.is_absolute() or ".." in rel.parts:
        raise InputError(f"{relative!r}: a path under the data folder, without '..'")
    if any(part.startswith(".") for part in rel.parts):
        raise InputError(f"{relative!r}: hidden files are not offered")
    p = (root / rel).resolve()
    if not p.is_relative_to(root):
        raise InputError(f"{relative!r} leads out of the data folder")
    if not (p.is_dir() if folder else p.is_file()):
        raise InputError(f"{relative!r}: no such {'folder' if folder else 'file'} under the data folder")
    return p


# ------------------------------------------------------------------------------------------------ submitting
def _new_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:8]


async def _submit(request: Request, state: _State) -> Response:
    jobs = state.jobs
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not cookie:
        raise HTTPException(403, "missing or wrong CSRF token: reload the page and submit again")
    if not jobs.room():
        return _busy(f"the queue is full ({jobs.max_waiting} runs waiting): try again when one has finished")
    run_id = _new_id()
    work = jobs.work / run_id
    try:
        return await _take(request, state, run_id, work, cookie)
    except FormError as exc:
        return _message_page(exc.status, str(exc))
    except OSError as exc:
        import errno

        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return _message_page(507, "the server's disk is full: nothing was kept")
        return _message_page(500, f"the server could not keep the upload ({exc.strerror or exc}): nothing was kept")
    except HTTPException:
        raise
    except Exception as exc:  # noqa: BLE001 - the server's own failure: said in one line, the run's files removed
        return await _failure(request, exc)
    finally:
        if not (work / "queued").exists():
            shutil.rmtree(work, ignore_errors=True)  # every path but a queued run: nothing of it is kept


def _busy(message: str) -> Response:
    page = _message_page(429, message)
    page.headers["retry-after"] = "30"
    return page


async def _take(request: Request, state: _State, run_id: str, work: Path, cookie: str) -> Response:
    from mtsig.errors import InputError

    config = state.config
    inputs = work / "inputs"
    inputs.mkdir(parents=True)
    form = await read_form(request, inputs, max_bytes=config.max_upload_bytes, max_files=config.max_files,
                           deadline=config.upload_seconds)  # fmt: skip
    if not hmac.compare_digest(form.get("csrf").encode("utf-8"), cookie.encode("utf-8")):
        raise HTTPException(403, "missing or wrong CSRF token: reload the page and submit again")
    command = form.get("command") or config.forms[0]
    if command not in config.forms:
        raise FormError(400, f"unknown command {command!r}: {', '.join(config.forms)}")
    sch = _schema(command)
    values = {k: v for k, v in form.fields.items() if k not in PAGE_FIELDS and not k.startswith("data_")}
    try:
        paths = _paths(form, sch, config, inputs)
        _known(sch, values, paths)
    except InputError as exc:
        return _again(state, command, values, {}, str(exc), _csrf_of(request))
    keep = bool(form.get("keep_texts")) or command not in ("compare", "analyze")
    spec = {"command": command, "values": values, "paths": paths, "keep_texts": keep, "id": run_id,
            "created": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip
    checked = await _check(state, spec, work)
    if "error" in checked:
        errors = {checked["field"]: checked["error"]} if checked.get("field") else {}
        return _again(state, command, values, errors, None if errors else checked["error"], _csrf_of(request))
    argv = [str(x) for x in checked["argv"]]
    spec["argv"] = argv
    try:
        state.jobs.submit(Job(run_id, spec), command, argv)
    except QueueFull as exc:
        return _busy(str(exc))
    (work / "queued").touch()  # from here the run's folder is the queue's
    return RedirectResponse(f"/runs/{run_id}", status_code=303)


def _paths(form, sch, config: Config, inputs: Path) -> dict[str, list[str]]:
    """Every file of the run by its field: the uploads (saved as they came) and the picks under ``--data``
    (linked into the inputs folder), by the names the command line shows."""
    from mtsig.errors import InputError

    fields = {f.name: f for f in sch.paths}
    paths: dict[str, list[str]] = {}
    for name, saved in form.files.items():
        if name not in fields:
            raise InputError(f"{sch.command} takes no file {name!r} (its files: {', '.join(fields)})")
        if fields[name].kind == "dir":
            raise InputError(f"{name}: a folder is picked under --data, not uploaded")
        paths.setdefault(name, []).extend(_same_once(inputs, saved))
    for key, given in form.fields.items():
        if not key.startswith("data_"):
            continue
        name = key[5:]
        if name not in fields:
            raise InputError(f"{sch.command} takes no file {name!r} (its files: {', '.join(fields)})")
        for v in (x.strip() for g in given for x in g.splitlines()):
            if not v:
                continue
            target = confined(config, v, folder=fields[name].kind == "dir")
            if (inputs / v).is_symlink() and (inputs / v).resolve() == target:  # picked for two fields: one link
                kept = v
            else:
                kept = unique(inputs, v)
                (inputs / kept).parent.mkdir(parents=True, exist_ok=True)
                (inputs / kept).symlink_to(target, target_is_directory=target.is_dir())
            paths.setdefault(name, []).append(kept)
    return paths


def _same_once(inputs: Path, saved: list[str]) -> list[str]:
    """Uploads of one file under one name for two fields (a WMT XML test set as the references and the systems):
    kept once, under its own name."""
    import filecmp

    out = []
    for name in saved:
        m = re.fullmatch(r"(.*)_([0-9]+)(\.[^.]*)?", name)
        first = f"{m.group(1)}{m.group(3) or ''}" if m else None
        if first and (inputs / first).is_file() and filecmp.cmp(inputs / first, inputs / name, shallow=False):
            (inputs / name).unlink()
            name = first
        out.append(name)
    return out


def _known(sch, values: dict[str, list[str]], paths: dict[str, list[str]]) -> None:
    from mtsig.errors import InputError

    names = {f.name for f in sch.fields}
    unknown = sorted(k for k in values if k not in names)
    if unknown:
        raise InputError(f"{sch.command} has no setting {', '.join(unknown)}")
    for f in sch.fields:
        if not f.is_path and f.name in paths:
            raise InputError(f"{f.name} is a setting, not a file")


async def _check(state: _State, spec: dict[str, Any], work: Path) -> dict[str, Any]:
    """The worker's check of a run, in a process of its own in the run's inputs folder: ``{"argv": ...}`` or
    ``{"error": ..., "field": ...}``."""
    if state._waiting_checks >= 4 * state.config.checks:
        raise FormError(429, "too many runs are being checked at once: try again in a moment")
    path = work / "check.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    state._waiting_checks += 1
    try:
        async with state.check_slots:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "mtsig.serve.worker", "check", str(path), cwd=work / "inputs",
                env=worker_env(), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True)  # fmt: skip
            state.checking.add(proc)
            try:
                out, err = await asyncio.wait_for(proc.communicate(), timeout=state.config.check_seconds)
            except asyncio.TimeoutError:
                kill_group(proc)
                await proc.wait()
                return {"error": f"reading the inputs took longer than {state.config.check_seconds:g} s"}
            finally:
                state.checking.discard(proc)
    finally:
        state._waiting_checks -= 1
    for line in reversed(out.decode("utf-8", "replace").splitlines()):
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict) and ("argv" in msg or "error" in msg):
            return msg
    tail = [x for x in err.decode("utf-8", "replace").splitlines() if x.strip()]
    return {"error": f"the check of the inputs failed ({tail[-1] if tail else f'status {proc.returncode}'})"}


def _again(state: _State, command: str, values, errors: dict[str, str], message: str | None, csrf: str) -> Response:
    """The form again, with what was typed and each error beside its field (files must be given again)."""
    sch = _schema(command)
    if errors and any(f.is_path for f in sch.fields if f.name in errors):
        message = (message + " " if message else "") + "Files are not kept: give them again."
    picks = state._data[1] if state._data is not None else Picks()
    form = form_html(sch, csrf, picks, values, errors, message)
    body = ('<p><a href="/">← mtsig: the forms and the runs</a></p>' + _tabs(command, state.config.forms)
            + f"<h1>mtsig {escape(command)}</h1>" + form)  # fmt: skip
    return _page(f"mtsig {command}: not started", body, csrf, status=400)


# ------------------------------------------------------------------------------------------------ a run
def _job_or_row(request: Request, state: _State):
    run_id = request.path_params["id"]
    if not _ID.match(run_id):
        raise HTTPException(404, "no such run")
    bundle = state.config.results / run_id
    job = state.jobs.jobs.get(run_id)
    row = state.store.get(run_id)
    has_bundle = (bundle / "manifest.json").is_file()
    if job is None and row is None and not has_bundle:
        raise HTTPException(404, "no such run")
    return run_id, job, row, bundle if has_bundle else None


async def _status(request: Request, state: _State) -> Response:
    run_id, job, row, bundle = _job_or_row(request, state)
    if job is not None:
        return JSONResponse(job.status(state.jobs.position(job)))
    if row is not None and not (row.state == "done" and bundle is None):
        out = {"id": run_id, "state": row.state}
        if row.error:
            out["error"] = row.error
        return JSONResponse(out)
    return JSONResponse({"id": run_id, "state": "done" if bundle is not None else "failed"})


async def _cancel(request: Request, state: _State) -> Response:
    form = await read_form(request, None, max_bytes=64 * 1024, max_files=0, deadline=30)
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not cookie or not hmac.compare_digest(form.get("csrf").encode("utf-8"), cookie.encode("utf-8")):
        raise HTTPException(403, "missing or wrong CSRF token: reload the page and submit again")
    run_id, job, _, _ = _job_or_row(request, state)
    if job is not None:
        await state.jobs.cancel(job)
    return RedirectResponse(f"/runs/{run_id}", status_code=303)


_POLL = """<script>
(function(){var box=document.getElementById('state'),fill=document.getElementById('fill');
function tick(){fetch(location.pathname+'/status').then(function(r){return r.json()}).then(function(s){var t=s.state;
if(s.position)t+=' (number '+s.position+' in the queue)';
var o=s.overall,p=s.progress,w=null;if(o){t+=': '+o.label+' '+o.done+' of '+o.total+' done';w=o.total?o.done/o.total:0}
if(p){t+=(o?'; now ':': ')+'step '+p.stage+', '+p.label+' '+p.done+' of '+p.total;
if(w===null){w=p.total?p.done/p.total:0}else if(o&&o.total){w+=(p.total?p.done/p.total:0)/o.total;w=Math.min(w,1)}}
if(w!==null){fill.style.width=(100*w)+'%';fill.parentNode.setAttribute('aria-valuenow',Math.round(100*w))}
if(s.error)t+=': '+s.error;box.textContent=t;
if(s.state==='queued'||s.state==='running'){setTimeout(tick,500)}else{location.reload()}})
.catch(function(){setTimeout(tick,2000)})}
tick()})();</script>"""


async def _run_page(request: Request, state: _State) -> Response:
    run_id, job, row, bundle = _job_or_row(request, state)
    csrf = _csrf_of(request)
    head = f'<p><a href="/">← mtsig</a></p><h1>Run {escape(run_id)}</h1>'
    if bundle is None:
        live = job is not None and job.state in ("queued", "running")
        st = job.status(state.jobs.position(job)) if job is not None else {"state": row.state, "error": row.error}
        command = row.argv if row is not None else []
        from mtsig.surface import command_line

        cmd = f"<h2>Command</h2><pre id=command>{escape(command_line([*command, '-f', 'json']))}</pre>" if command \
            else ""  # fmt: skip
        cancel = (f'<form method="post" action="/runs/{run_id}/cancel"><input type="hidden" name="csrf" '
                  f'value="{escape(csrf)}"><button type="submit">cancel</button></form>' if live else "")  # fmt: skip
        error = st.get("error")
        text = st["state"] + (f": {error}" if error else "")
        again = (f'<p><a href="/?command={escape(row.command)}">change the settings and run again</a></p>'
                 if not live and row is not None else "")  # fmt: skip
        bar = ('<div class=bar role=progressbar aria-label="progress" aria-valuemin=0 aria-valuemax=100>'
               '<div id=fill style="width:0"></div></div>' if live else "")  # fmt: skip
        body = (head + f"<p id=state role=status>{escape(text)}</p>{bar}{cancel}{again}{cmd}"
                + (_POLL if live else ""))  # fmt: skip
        return _page(f"mtsig run {run_id}", body, csrf)
    manifest = _manifest(bundle)
    if manifest is None:
        raise HTTPException(404, "this run's manifest cannot be read")
    shown = "view.html" if (bundle / "view.html").is_file() else "report.html"
    names = [n for n in (*EXPORTS, "report.html", "view.html") if (bundle / n).is_file()]
    links = " · ".join(f'<a href="/runs/{run_id}/files/{n}" download>{n}</a>' for n in names)
    inputs = "".join(f"<tr><td>{escape(str(k))}</td><td><code>{escape(str(v))}</code></td></tr>"
                     for k, v in manifest.get("inputs", {}).items())  # fmt: skip
    body = (head + f'<h2>Command</h2><pre id=command>{escape(manifest["command"])}</pre>'
            f"<p>Export: {links}</p><h2>Inputs (SHA-256)</h2><div class=wrap><table>{inputs}</table></div>"
            f'<h2>Results</h2><p><a href="/runs/{run_id}/files/{shown}">open the results in their own page</a></p>'
            f'<iframe id=report src="/runs/{run_id}/files/{shown}" title="the results of run {escape(run_id)}">'
            "</iframe>")  # fmt: skip
    return _page(f"mtsig run {run_id}", body, csrf)


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204)  # a report opened on its own asks for one: none, and no error


async def _file(request: Request, state: _State) -> Response:
    run_id, name = request.path_params["id"], request.path_params["name"]
    if not _ID.match(run_id) or name not in FILES:
        raise HTTPException(404, "no such file")
    path = state.config.results / run_id / name
    if not path.is_file():
        raise HTTPException(404, "no such file")
    return FileResponse(path, media_type=FILES[name])
