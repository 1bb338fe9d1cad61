"""``mtsig human --protocol wmt26`` against WMT26's own script (``humeval/02-analyze_results.py`` of
wmt-conference/wmt26-general-mt) on a Pearmut log built from the shared WMT24 ESA wave (``tests/humaneval/
pearmut_log.py``): every system's mean, every boundary mark, the global ranking; and the time of each.

    python benchmarks/wmt26_oracle.py --repo WMT26_REPO [--commit 1fa5211] [--json OUT]

``WMT26_REPO`` is a clone (or bare mirror) of the repository; the script and its ``utils.py`` are taken at
``--commit`` with ``git show`` and run as they are, in a scratch folder laid out as the repository
(``humeval/data/annotations.json`` is the built log). Two things are replaced: ``typst`` (the script only needs
it to draw PDFs) by a stub that keeps what each ``typst.compile`` call is given (the per-pair table of models,
means and boundary marks, and the global table), and ``wmt26_participants.jsonl`` by an empty file (it only
appends " OPEN" to the names of open-weight WMT26 participants, none of which is a WMT24 system). ``--json OUT``
writes what the script computed (what ``tests/humaneval/test_wmt26.py`` holds mtsig to).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import runpy
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))


def run_script(repo: Path, commit: str, log: Path) -> dict:
    captured: list[dict] = []
    stub = types.ModuleType("typst")
    stub.compile = lambda input, sys_inputs, output: captured.append(  # noqa: A002 - the script's keywords
        {"template": input, "inputs": {k: json.loads(v) for k, v in sys_inputs.items()}, "output": output}
    )
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "humeval" / "data").mkdir(parents=True)
        for name in ("02-analyze_results.py", "utils.py"):
            text = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:humeval/{name}"], check=True,
                                  capture_output=True, text=True).stdout  # fmt: skip
            (base / "humeval" / name).write_text(text, encoding="utf-8")
        (base / "wmt26_participants.jsonl").write_text("", encoding="utf-8")
        (base / "humeval" / "data" / "annotations.json").write_bytes(log.read_bytes())
        sys.modules["typst"] = stub
        sys.path.insert(0, str(base / "humeval"))
        sys.modules.pop("utils", None)
        cwd = Path.cwd()
        t0 = time.perf_counter()
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                runpy.run_path(str(base / "humeval" / "02-analyze_results.py"), run_name="__main__")
        finally:
            took = time.perf_counter() - t0
            import os

            os.chdir(cwd)
            sys.path.remove(str(base / "humeval"))
    full = subprocess.run(["git", "-C", str(repo), "rev-parse", commit], check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip
    out: dict = {"script": "humeval/02-analyze_results.py", "commit": full, "seconds": took, "campaigns": {}}
    for c in captured:
        if c["template"].endswith("02-template-perlang.typ"):
            key = Path(c["output"]).stem  # the campaign key without its version
            out["campaigns"][key] = [{"model": r["model"], "mean": r["scores_mean"], "boundary": r["cluster"]}
                                     for r in c["inputs"]["data"]]  # fmt: skip
        elif c["template"].endswith("02-template-global.typ"):
            out["global"] = c["inputs"]["data"]
    return out


def run_mtsig(log: Path) -> tuple[dict, float]:
    import mtsig
    from mtsig.humaneval.wmt26 import campaign_scores, global_ranking
    from mtsig.io.pearmut import _campaigns
    from mtsig.io.text import read_text

    t0 = time.perf_counter()
    out = {}
    for key in _campaigns(str(log), read_text(str(log))):
        res = mtsig.human(str(log), lp=key, protocol="wmt26", n_bootstrap=100)
        out[key.split(" ", 1)[0]] = [{"model": s.name, "mean": s.score, "boundary": s.wmt26_boundary}
                                     for s in res.systems]  # fmt: skip
    return {"campaigns": out, "global": global_ranking(campaign_scores(str(log)))}, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, type=Path, help="wmt-conference/wmt26-general-mt (clone or mirror)")
    ap.add_argument("--commit", default="1fa5211")
    ap.add_argument("--json", type=Path, default=None, help="write the script's results here")
    a = ap.parse_args()
    from tests.humaneval.pearmut_log import write_log

    with tempfile.TemporaryDirectory() as tmp:
        log = write_log(Path(tmp) / "annotations.json")
        oracle = run_script(a.repo, a.commit, log)
        ours, took = run_mtsig(log)
    worst, marks = 0.0, 0
    for key, rows in oracle["campaigns"].items():
        mine = ours["campaigns"][key]
        assert [r["model"] for r in rows] == [r["model"] for r in mine], key
        for r, m in zip(rows, mine):
            worst = max(worst, abs(r["mean"] - m["mean"]))
            marks += r["boundary"] == m["boundary"]
    n = sum(len(r) for r in oracle["campaigns"].values())
    same_global = [m for m, _ in ours["global"]] == [g[0] for g in oracle["global"]]
    print(f"WMT26's script at {oracle['commit'][:7]}: {len(oracle['campaigns'])} campaigns, {n} systems")
    print(
        f"  means: largest difference {worst:.2e}; boundary marks equal: {marks}/{n}; global ranking equal: "
        f"{same_global}"
    )
    print(f"  time: script {oracle['seconds']:.2f} s, mtsig {took:.2f} s (with 100-resample intervals)")
    if a.json:
        a.json.write_text(json.dumps(oracle, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
