"""One run of ``mtsig serve``, in its own process: ``python -m mtsig.serve.worker SPEC.json WORKDIR BUNDLE``.

It reads the run's specification, runs the comparison with a progress factory that prints one JSON line per
update on standard output (``{"progress": [label, done, total]}``), writes every file of the bundle into
``WORKDIR/bundle`` and moves that folder to ``BUNDLE`` in one step: a run killed at any point leaves no bundle,
only its work folder, which the server removes."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from mtsig.io.text import sha256_file

#: the formats of a bundle, by file name (the JSON is what ``mtsig compare -f json`` prints)
EXPORTS = {"result.json": "json", "result.txt": "text", "result.csv": "csv", "result.tex": "latex"}


def seg_args(spec: dict[str, Any]) -> list[str]:
    """The arguments that give a run's segment-score files (none without them)."""
    if not spec.get("seg_scores"):
        return []
    out = ["--seg-scores", *spec["seg_scores"]]
    if spec.get("seg_name"):
        out += ["--seg-name", spec["seg_name"]]
    if spec.get("seg_lower"):
        out.append("--seg-lower-is-better")
    return out


def ref_args(spec: dict[str, Any]) -> list[str]:
    """The references: a file, or a test set by name."""
    return ["-t", spec["test_set"], "-l", spec["langpair"]] if spec.get("test_set") else ["-r", spec["ref"]]


def wmt25_args(spec: dict[str, Any]) -> list[str]:
    return ["--wmt25-scores", *spec["wmt25_scores"], "-l", spec["langpair"]]


def command_of(spec: dict[str, Any]) -> str:
    """The command line that prints the bundle's JSON, with the files as the user named them."""
    if spec.get("command") == "human":
        return shlex.join(["mtsig", "human", spec["judgments"], "--protocol", spec["protocol"], "--seed",
                           str(spec["seed"]), "-f", "json"])  # fmt: skip
    if spec.get("command") == "meta":
        metrics = [f"{name}={path}" for name, path in spec["metric_files"].items()]
        lower = ["--lower-is-better", *spec["lower"]] if spec.get("lower") else []
        return shlex.join(["mtsig", "meta", "--human", spec["judgments"], "--metric", *metrics, *lower, "--level",
                           spec["level"], "--seed", str(spec["seed"]), "-f", "json"])  # fmt: skip
    if spec.get("wmt25_scores"):
        argv = ["mtsig", "compare", *wmt25_args(spec)]
    elif spec.get("ref") is None and not spec.get("test_set"):  # segment scores alone
        argv = ["mtsig", "compare", *seg_args(spec)]
    else:
        argv = ["mtsig", spec.get("command", "compare"), *ref_args(spec), "-s", *spec["systems"], "-m",
                *spec["metrics"], *seg_args(spec)]  # fmt: skip
    if spec.get("docids"):
        argv += ["--docids", spec["docids"]]
    argv += ["--test", *spec["tests"], "--seed", str(spec["seed"])]
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

    if spec.get("seg_scores"):
        spec = {**spec, "seg_scores": _named_scores(spec["seg_scores"])}
    command = command_of(spec)
    if spec.get("command") == "human":
        from dataclasses import replace

        from mtsig.report.explore import View, human_view
        from mtsig.report.human import render_human_html

        judged = mtsig.human(spec["judgments"], protocol=spec["protocol"], seed=spec["seed"], segments=True,
                             progress=_progress)  # fmt: skip
        res = replace(judged, segments=None)  # the command's JSON (its segments are the view's)
        result, segments = human_view(judged)
        view = View("compare", result, command, segments, title="mtsig ranking from human judgments").html()
        _write(work, bundle, spec, command, res, render_human_html(res, command), view)
        return
    if spec.get("command") == "meta":
        from mtsig.report.meta import render_meta_html

        res = mtsig.meta(spec["judgments"], [f"{n}={p}" for n, p in spec["metric_files"].items()],
                         lower_is_better=tuple(spec.get("lower") or ()), level=spec["level"], seed=spec["seed"],
                         progress=_progress)  # fmt: skip
        from mtsig.report.explore import View, meta_view

        result, segments = meta_view(res)
        view = View("compare", result, command, segments, title="mtsig: metrics against humans").html()
        _write(work, bundle, spec, command, res, render_meta_html(res, command), view)
        return
    table, texts = _read(spec)
    settings = {"seed": spec["seed"], "baseline": spec.get("baseline"), "progress": _progress}
    from mtsig.report.explore import View, members_of, segment_data

    if spec.get("command") == "analyze":
        from mtsig.report.analyze_html import render_analyze_html

        refs = None if spec.get("test_set") else [spec["ref"]]
        loading = {k: spec[k] for k in ("test_set", "langpair", "docids") if spec.get(k)}
        res = mtsig.analyze(refs, list(spec["systems"]), list(spec["metrics"]), test=spec["tests"][0],
                            by=tuple(spec.get("by") or ()), **loading, **_seg_options(spec), **settings)  # fmt: skip
        report = render_analyze_html(res, command)
        view = View("analyze", res.to_dict(), command, segment_data(table, texts, _why(spec)), _cli(spec, table),
                    members_of(res)).html()  # fmt: skip
    else:
        res = mtsig.compare(stats=table, test=list(spec["tests"]), **settings)
        report = mtsig.report_html(res, command)
        view = View("compare", res.to_dict(), command, segment_data(table, texts, _why(spec)),
                    _cli(spec, table)).html()  # fmt: skip
    _write(work, bundle, spec, command, res, report, view)


def file_name(path: str, default: str, keep: str = "") -> str:
    """A name taken from a file's name (what the command line shows): its stem, other characters than letters,
    digits, ``.``, ``-`` and ``keep`` as ``_``, at most 64 characters."""
    return re.sub(rf"[^\w.{keep}-]", "_", Path(path).stem)[:64] or default


def _named_scores(files: list[str]) -> list[str]:
    """Each score file as ``--seg-scores`` takes it: a file of one system's scores (a column of numbers, MetricX's
    JSONL, COMET's output of one file) named after its file (``NAME=FILE``), a table or COMET's output of several
    systems as it is."""
    from mtsig.io.segscores import read_score_file

    out = []
    for path in files:
        one = read_score_file(path).kind in ("column", "metricx")
        out.append(f"{file_name(path, 'system')}={path}" if one else path)
    return out


def _why(spec: dict[str, Any]) -> str:
    """Why a view shows no texts."""
    if spec.get("ref") is None and not spec.get("test_set"):
        return "the scores came without texts"
    return "the texts were not kept (as the run asked)"


def _read(spec: dict[str, Any]):
    """The run's statistics, read once, and (unless the run keeps no text) its texts for the segment views."""
    import mtsig

    if spec.get("wmt25_scores"):
        from mtsig.io.wmt25scores import wmt25_table

        return wmt25_table(spec["wmt25_scores"], spec["langpair"])[0], None
    if spec.get("ref") is None and not spec.get("test_set"):
        return mtsig.compute(None, None, ["seg"], **_seg_options(spec), docids=spec.get("docids")), None
    from mtsig.executor import executor_for
    from mtsig.inputs import LoadOptions, resolve
    from mtsig.pipeline import compute_stats

    load = LoadOptions(docids=spec.get("docids"), test_set=spec.get("test_set"), langpair=spec.get("langpair"))
    refs = None if spec.get("test_set") else [spec["ref"]]
    inputs = resolve(refs, list(spec["systems"]), list(spec["metrics"]), load, _seg_options(spec))
    table = compute_stats(inputs.refs, list(inputs.systems), inputs.metrics,
                          executor_for(1, inputs.n_runs, inputs.work))  # fmt: skip
    if not spec.get("keep_texts", True):
        return table, None
    outputs = {s.name: list(s.runs[0].lines) for s in inputs.systems}
    return table, {"ref": list(inputs.refs.refs[0].lines), "outputs": outputs}


def _seg_options(spec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if spec.get("seg_scores"):
        out["seg_scores"] = list(spec["seg_scores"])
        if spec.get("seg_name"):
            out["seg_name"] = spec["seg_name"]
        if spec.get("seg_lower"):
            out["seg_lower_is_better"] = True
    return out


def _system_args(spec: dict[str, Any], table) -> dict[str, str]:
    """Each system's ``-s`` argument alone: its ``NAME=FILE``, or ``FILE.xml:NAME`` for one of a file's systems."""
    given = {x.split("=", 1)[0]: x for x in spec["systems"] if "=" in x}
    return {s.name: given.get(s.name) or f"{s.files[0]}:{s.name}" for s in table.systems}


def _cli(spec: dict[str, Any], table) -> dict[str, Any]:
    """How the view writes the commands of a pair: per metric, the inputs and each system's argument (segment
    scores by name, alone: a table of every system cannot go beside two outputs)."""
    names = [s.name for s in table.systems]
    by_metric: dict[str, dict[str, Any]] = {}
    for m, metric in table.metrics.items():
        if spec.get("wmt25_scores"):
            by_metric[m] = {"inputs": wmt25_args(spec), "systems": {n: n for n in names}, "metric": ["-m", m]}
        elif type(metric).name == "seg":
            extra = ["-m", "seg"] if spec.get("ref") is not None or spec.get("test_set") else []
            by_metric[m] = {"inputs": seg_args(spec), "systems": {n: n for n in names}, "metric": extra}
        else:
            by_metric[m] = {"inputs": ref_args(spec), "systems": _system_args(spec, table), "metric": ["-m", m]}
    docs = ["--docids", spec["docids"]] if spec.get("docids") else []
    for c in by_metric.values():
        c["inputs"] = c["inputs"] + docs
    return {"by_metric": by_metric, "tail": ["--seed", str(spec["seed"]), "-f", "json"]}


def _write(work: Path, bundle: Path, spec: dict[str, Any], command: str, res: Any, *pages: str) -> None:
    """Every file of the bundle into the work folder, then the folder to its place in one step."""
    import mtsig
    from mtsig.report.render import render

    out = work / "bundle"
    out.mkdir()
    for name, fmt in EXPORTS.items():
        (out / name).write_text(render(res, fmt), encoding="utf-8")
    for name, page in zip(("report.html", "view.html"), pages):  # the report, and the interactive view if any
        (out / name).write_text(page, encoding="utf-8")
    kind = spec.get("command", "compare")
    if kind == "human":
        files, systems = [spec["judgments"]], [s.name for s in res.systems]
    elif kind == "meta":
        files, systems = [spec["judgments"], *spec["metric_files"].values()], []
    else:
        files = ([spec["ref"]] if spec.get("ref") else []) + [x.split("=", 1)[-1] for x in spec.get("systems") or []]
        files = list(dict.fromkeys(files))  # a WMT XML file: the reference and the systems
        files += [p.split("=", 1)[-1] for p in spec.get("seg_scores") or []] + list(spec.get("wmt25_scores") or [])
        files += [spec["docids"]] if spec.get("docids") else []
        systems = [s["name"] for s in res.to_dict()["systems"]] if kind == "compare" else list(res.systems)
        spec = {**spec, "metrics": list(getattr(res, "metrics", None) or spec["metrics"])}  # as the result names them
    manifest = {
        "id": bundle.name, "command": command, "run": spec.get("command", "compare"), "by": spec.get("by") or [],
        "created": spec["created"], "systems": systems,
        "metrics": spec.get("metrics") or list(spec.get("metric_files") or ["human"]),
        "tests": spec.get("tests") or [spec.get("protocol") or spec.get("level", "")], "seed": spec["seed"],
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
