"""The work of ``mtsig serve`` outside the server, in a process of its own, in the folder holding the run's inputs
(so the paths a result records are the names the command line shows):

- ``python -m mtsig.serve.worker check SPEC``: the command line a form stands for (:func:`mtsig.surface.argv_of`),
  parsed and checked as the command line checks it, and its inputs read (files, line counts, documents), before the
  run is queued. Prints ``{"argv": [...]}``, or ``{"error": ..., "field": ...}`` (exit status 2).
- ``python -m mtsig.serve.worker run SPEC OUT``: the command line run (:func:`mtsig.cli.prepare` and the command's
  ``run``, as ``mtsig`` runs it), one JSON line per progress update on standard output (``{"progress": [label, done,
  total, stage, stages]}``), every file of the bundle written into the folder ``OUT``. The server moves ``OUT`` to its
  place when the run ends and was not cancelled.

Whatever it starts (analyze's forked workers) is in its process group, which the server ends with it; and it ends
that group itself when the server goes away (:func:`_watch_parent`)."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

#: the formats of a bundle, by file name (the JSON is what the command line prints with ``-f json``)
EXPORTS = {"result.json": "json", "result.txt": "text", "result.csv": "csv", "result.tex": "latex"}


_SAY = threading.Lock()


def _say(**msg: Any) -> None:
    """One JSON line on standard output (whole, whatever thread says it: analyze tests on two)."""
    line = json.dumps(msg) + "\n"
    with _SAY:
        sys.stdout.write(line)
        sys.stdout.flush()


# ------------------------------------------------------------------------------------------------ check
def check(spec: dict[str, Any]) -> list[str]:
    """The command line of a form (``spec``: ``command``, ``values`` and ``paths`` by field name), checked: parsed,
    the command's checks, its inputs read. Returns the argv (after ``mtsig``), without ``-f json``."""
    from mtsig.cli import parse, prepare
    from mtsig.declare import check_given
    from mtsig.surface import argv_of, parser_of, schema

    argv = argv_of(schema(spec["command"]), spec.get("values") or {}, spec.get("paths") or {})
    a = parse([*argv, "-f", "json"])
    check_given(parser_of(spec["command"]), a)
    prepare(a, check_only=True)
    return argv


def field_of(message: str, spec: dict[str, Any], params: tuple[str, ...] = ()) -> str | None:
    """The form field an error concerns: the parameter it names, a file of the field's, or the field's flag."""
    from mtsig.surface import schema

    sch = schema(spec["command"])
    for p in params:
        f = sch.by_dest(p) or next((x for x in sch.fields if x.name == p), None)
        if f is not None:
            return f.name
    for name, paths in sorted((spec.get("paths") or {}).items(), key=lambda kv: kv[0] == "ref"):
        if any(p and (p in message) for p in paths):
            return name
    for f in sch.fields:
        if f.flag and (f"{f.flag} " in message or f"{f.flag}:" in message or message.startswith(f"argument {f.flag}")):
            return f.name
        if f"{f.name}:" in message[:60] or f"{f.dest} " in message[:40]:
            return f.name
    return None


# ------------------------------------------------------------------------------------------------ run
class _Stages:
    """Progress lines: each ``progress(label, total)`` the command opens is a stage, numbered as it begins
    (``{"progress": [label, done, total, stage]}``); a command's count of its own parts (analyze's ``analyses``) is
    the whole run's (``{"overall": [label, done, total]}``), said beside the stage at hand."""

    OVERALL = ("analyses",)

    def __init__(self) -> None:
        self.stage = 0
        self.lock = threading.Lock()

    def __call__(self, label: str, total: int):
        done = [0]
        if label in self.OVERALL:

            def overall(n: int) -> None:
                with self.lock:
                    done[0] += n
                    _say(overall=[label, done[0], total])

            overall(0)
            return overall
        with self.lock:
            self.stage += 1
            stage = self.stage

        def advance(n: int) -> None:
            with self.lock:
                done[0] += n
                _say(progress=[label, done[0], total, stage])

        advance(0)
        return advance


def _view_texts(table) -> dict[str, Any] | None:
    """The texts of a table read from text (references and each system's first run), for the segment views."""
    if table is None or table.texts is None:
        return None
    refs, systems = table.texts
    return {"ref": list(refs[0].lines), "outputs": {s.name: list(s.runs[0].lines) for s in systems}}


def run(spec: dict[str, Any], out: Path) -> None:
    """The command line ``spec["argv"]`` run as ``mtsig`` runs it; its bundle written into ``out``."""
    from mtsig.cli import parse, prepare
    from mtsig.surface import command_line

    argv = list(spec["argv"])
    shown = [*argv, "-f", "json"]
    command = command_line(shown)
    a = parse(shown)
    module, table = prepare(a)
    human_segments = a.command == "human" and not a.segments
    if human_segments:
        a.segments = True  # for the view: each segment's judgment per system (left out of the command's JSON)
    res = module.run(a, table, _Stages())
    view_of = res
    if human_segments:
        from dataclasses import replace

        res = replace(res, segments=None)
    report = module.report(res, command) if hasattr(module, "report") else None
    _write(out, spec, command, (a, res), report, _view(a, view_of, table, spec, command))


def _view(a, res, table, spec: dict[str, Any], command: str) -> dict[str, Any] | None:
    """What the run's page explores beside its report (None: nothing but the report)."""
    from mtsig.report.explore import human_view, members_of, meta_view, segment_data

    if a.command == "human":
        result, segments = human_view(res)
        return {"kind": "compare", "result": result, "segments": segments}
    if a.command == "meta":
        result, segments = meta_view(res)
        return {"kind": "compare", "result": result, "segments": segments}
    if a.command not in ("compare", "analyze") or table is None:
        return None
    texts = _view_texts(table) if spec.get("keep_texts", True) else None
    why = "the scores came without texts" if table.texts is None else "the texts were not kept (as the run asked)"
    data = {"kind": a.command, "result": res.to_dict(), "segments": segment_data(table, texts, why),
            "cli": pair_commands(spec, a, table)}  # fmt: skip
    if a.command == "analyze":
        data["members"] = members_of(res)
    return data


def pair_commands(spec: dict[str, Any], a, table) -> dict[str, Any]:
    """How the view writes the commands of one pair: the run's command line without its systems, metrics, tests,
    baseline and correction (``inputs``, as ``compare`` takes them), each system's ``-s`` argument alone, and the
    metric's ``-m``."""
    from mtsig.surface import argv_of, holds_systems, schema

    sch = schema("compare")
    values = {k: v for k, v in (spec.get("values") or {}).items()
              if k not in ("metrics", "test", "baseline", "correction") and _in(sch, k)}  # fmt: skip
    paths = {k: v for k, v in (spec.get("paths") or {}).items() if k != "systems" and _in(sch, k)}
    inputs = argv_of(sch, values, paths)[1:]
    named = {x.split("=", 1)[0]: x for x in getattr(a, "systems", None) or [] if "=" in x}

    def arg(s) -> str:
        if s.name in named:
            return named[s.name]
        if s.files and holds_systems(s.files[0]):
            return f"{s.files[0]}:{s.name}"
        return s.name  # picked by name (segment scores alone, a test set's folder)

    systems = {s.name: arg(s) for s in table.systems}
    return {"by_metric": {m: {"inputs": inputs, "systems": systems, "metric": ["-m", m]} for m in table.metrics},
            "tail": ["-f", "json"]}  # fmt: skip


def _in(sch, name: str) -> bool:
    try:
        sch.field(name)
    except KeyError:
        return False
    return True


def _summary(a, res) -> dict[str, Any]:
    """What the list of runs shows: the systems, the metrics and the tests or protocol."""
    d = res.to_dict()
    st = d.get("settings") or {}
    if a.command == "meta":
        return {"systems": [], "metrics": [m["name"] for m in d.get("metrics", [])],
                "tests": [str(st.get("test") or "")], "seed": st.get("seed")}  # fmt: skip
    if a.command == "human":
        return {"systems": [s["name"] for s in d.get("systems", [])], "metrics": ["human"],
                "tests": [str(d.get("protocol") or st.get("protocol") or "")], "seed": st.get("seed")}  # fmt: skip
    systems = [s["name"] if isinstance(s, dict) else str(s) for s in d.get("systems", [])]
    metrics = list(getattr(res, "metrics", None) or st.get("metrics") or [])
    tests = st.get("tests") or ([st["test"]] if st.get("test") else [])
    return {"systems": systems, "metrics": [str(m) for m in metrics], "tests": [str(t) for t in tests],
            "seed": st.get("seed")}  # fmt: skip


def _inputs_sha(spec: dict[str, Any]) -> dict[str, str]:
    from mtsig.io.text import sha256_file

    out: dict[str, str] = {}
    for names in (spec.get("paths") or {}).values():
        for n in names:
            if os.path.isdir(n):
                out[n] = "(a folder under --data)"
            elif n not in out:
                out[n] = sha256_file(n)
    return out


def _write(out: Path, spec: dict[str, Any], command: str, ran: tuple, report: str | None, view: dict | None) -> None:
    """Every file of the bundle into ``out`` (the server moves it to its place); ``ran``: the parsed command line
    and its result."""
    a, res = ran
    import mtsig
    from mtsig.report.explore import with_explorer
    from mtsig.report.render import render

    out.mkdir()
    for name, fmt in EXPORTS.items():
        (out / name).write_text(render(res, fmt), encoding="utf-8")
    if report is not None:
        (out / "report.html").write_text(report, encoding="utf-8")
        if view is not None:
            (out / "view.html").write_text(with_explorer(report, view, command), encoding="utf-8")
    manifest = {"id": spec["id"], "command": command, "run": a.command, "created": spec["created"],
                **_summary(a, res), "mtsig": mtsig.__version__, "inputs": _inputs_sha(spec)}  # fmt: skip
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# ------------------------------------------------------------------------------------------------ the process
def _watch_parent() -> None:
    """End this run's process group (this process and whatever it forked) when the server is gone (killed, even
    with SIGKILL): its parent then changes."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.25)
            if os.getppid() != parent:
                try:
                    os.killpg(os.getpgrp(), signal.SIGKILL)
                finally:
                    os._exit(137)

    threading.Thread(target=watch, name="mtsig-serve-parent", daemon=True).start()


def main(argv: list[str]) -> int:
    from mtsig.errors import MtsigError

    what, spec_path, *rest = argv
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    _watch_parent()
    memory = os.environ.get("MTSIG_SERVE_MEMORY")
    if memory:  # the server's limit of a run (address space: what numpy's allocations count against)
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (int(memory), int(memory)))
    try:
        if what == "check":
            _say(argv=check(spec))
        else:
            run(spec, Path(rest[0]).resolve())
    except MtsigError as exc:  # the user's inputs: said on the page, beside the field it concerns
        from mtsig.cli import message_of

        text = message_of(exc)
        _say(error=text, field=field_of(text, spec, getattr(exc, "params", ())) if what == "check" else None)
        return 2
    except MemoryError:
        _say(error="the run needed more memory than its limit (mtsig serve --max-run-memory-gb)")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
