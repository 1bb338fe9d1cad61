"""One run of ``mtsig serve``, in its own process: ``python -m mtsig.serve.worker SPEC.json WORKDIR BUNDLE``.

It reads the run's specification, runs the comparison with a progress factory that prints one JSON line per
update on standard output (``{"progress": [label, done, total]}``), writes every file of the bundle into
``WORKDIR/bundle`` and moves that folder to ``BUNDLE`` in one step: a run killed at any point leaves no bundle,
only its work folder, which the server removes."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from mtsig.io.text import sha256_file

#: the formats of a bundle, by file name (the JSON is what ``mtsig compare -f json`` prints)
EXPORTS = {"result.json": "json", "result.txt": "text", "result.csv": "csv", "result.tex": "latex"}


def command_of(spec: dict[str, Any]) -> str:
    """The command line that prints the bundle's JSON, with the files as the user named them."""
    if spec.get("command") == "human":
        return shlex.join(["mtsig", "human", spec["judgments"], "--protocol", spec["protocol"], "--seed",
                           str(spec["seed"]), "-f", "json"])  # fmt: skip
    systems = [f"{name}={path}" for name, path in spec["systems"].items()]
    argv = ["mtsig", spec.get("command", "compare"), "-r", spec["ref"], "-s", *systems, "-m", *spec["metrics"],
            "--test", *spec["tests"], "--seed", str(spec["seed"])]  # fmt: skip
    if spec.get("baseline"):
        argv += ["--baseline", spec["baseline"]]
    if spec.get("by"):
        argv += ["--by", *spec["by"]]
    return shlex.join([*argv, "-f", "json"])


def _progress(label: str, total: int):
    done = [0]

    def advance(n: int) -> None:
        done[0] += n
        print(json.dumps({"progress": [label, done[0], total]}), flush=True)

    advance(0)
    return advance


def run(spec: dict[str, Any], work: Path, bundle: Path) -> None:
    import mtsig

    work, bundle = work.resolve(), bundle.resolve()
    os.chdir(work / "inputs")  # the inputs by the names the command shows (the JSON records them)

    command = command_of(spec)
    if spec.get("command") == "human":
        from mtsig.report.human import render_human_html

        res = mtsig.human(spec["judgments"], protocol=spec["protocol"], seed=spec["seed"], progress=_progress)
        _write(work, bundle, spec, command, res, render_human_html(res, command))
        return
    inputs = ([spec["ref"]], dict(spec["systems"]), list(spec["metrics"]))
    settings = {"seed": spec["seed"], "baseline": spec.get("baseline"), "progress": _progress}
    if spec.get("command") == "analyze":
        from mtsig.report.analyze_html import render_analyze_html

        res = mtsig.analyze(*inputs, test=spec["tests"][0], by=tuple(spec.get("by") or ()), **settings)
        report = render_analyze_html(res, command)
    else:
        res = mtsig.compare(*inputs, test=list(spec["tests"]), **settings)
        report = mtsig.report_html(res, command)
    _write(work, bundle, spec, command, res, report)


def _write(work: Path, bundle: Path, spec: dict[str, Any], command: str, res: Any, report: str) -> None:
    """Every file of the bundle into the work folder, then the folder to its place in one step."""
    import mtsig
    from mtsig.report.render import render

    out = work / "bundle"
    out.mkdir()
    for name, fmt in EXPORTS.items():
        (out / name).write_text(render(res, fmt), encoding="utf-8")
    (out / "report.html").write_text(report, encoding="utf-8")
    files = [spec["judgments"]] if spec.get("command") == "human" else [spec["ref"], *spec["systems"].values()]
    systems = [s.name for s in res.systems] if spec.get("command") == "human" else list(spec["systems"])
    manifest = {
        "id": bundle.name, "command": command, "run": spec.get("command", "compare"), "by": spec.get("by") or [],
        "created": spec["created"], "metrics": spec.get("metrics") or ["human"], "systems": systems,
        "tests": spec.get("tests") or [spec.get("protocol", "")], "seed": spec["seed"],
        "baseline": spec.get("baseline"), "mtsig": mtsig.__version__, "inputs": {p: sha256_file(p) for p in files},
    }  # fmt: skip
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(out, bundle)  # the bundle appears whole or not at all


def main(argv: list[str]) -> int:
    from mtsig.errors import MtsigError

    spec_path, work, bundle = argv
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    try:
        run(spec, Path(work), Path(bundle))
    except MtsigError as exc:  # the user's inputs: said on the page
        print(json.dumps({"error": str(exc)}), flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
