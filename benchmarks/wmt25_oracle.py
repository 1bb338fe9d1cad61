"""``mtsig human --protocol wmt25`` against WMT25's own ranking script, run on the same judgments.

WMT25's final ranking is ``humeval/08-compute_clusters.py`` of wmt-conference/wmt25-general-mt: systems by mean,
each system's rank range found by scanning up and down to the first significant one-sided Wilcoxon test (at 0.05/2,
the two waves cross-paired), a cluster boundary where no range crosses. This script runs that file unchanged in a
scratch copy of the repository's layout (``data/wmt25-genmt-humeval.jsonl``, the two metadata files it reads with
placeholder values, a ``utils.py`` with the language names), reads the rank ranges, means and cluster boundaries
from the LaTeX it writes, and compares them with mtsig's on every language pair of the file.

    python benchmarks/wmt25_oracle.py --script WMT25_REPO/humeval/08-compute_clusters.py --humeval FILE.jsonl \
        [--json OUT]

``tests/humaneval/data/wmt25_script_fake.json`` is ``--json`` on ``python -m tests.humaneval.wmt25_fake FILE``.

WMT25's judgments are not public in the snapshot this project has; any file in their format serves (e.g. two
automatic judges' scores as the two waves).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: how the script prints names, back to the file's (its system_name)
PRINTED = {"CommandA-WMT": "CommandA-MT", "Shy-hunyuan-MT": "Shy", "TowerPlus-9B[M]": "TowerPlus-9B",
           "TowerPlus-72B[M]": "TowerPlus-72B", "EuroLLM-9B[M]": "EuroLLM-9B", "EuroLLM-22B-pre.[M]": "EuroLLM-22B",
           "RuZH-Eole": "RuZH", r"\textbf{Human}": "refA"}  # fmt: skip


def _layout(tmp: Path, script: Path, humeval: Path) -> Path:
    """The repository's layout around the script, with what it reads: the judgments and placeholder metadata."""
    (tmp / "humeval").mkdir()
    (tmp / "data").mkdir()
    shutil.copy(script, tmp / "humeval" / "run.py")
    shutil.copy(humeval, tmp / "data" / "wmt25-genmt-humeval.jsonl")
    pairs: dict[str, set[str]] = {}
    for ln in humeval.read_text(encoding="utf-8").splitlines():
        rec = json.loads(ln)
        pairs.setdefault(rec["doc_id"].split("_#_")[0], set()).update(rec["scores"])
    meta = {lp: {s: {"will_humeval": True, "autorank": 0.0, "constrained": True} for s in ss}
            for lp, ss in pairs.items()}  # fmt: skip
    (tmp / "data" / "systems_humeval.json").write_text(json.dumps(meta))
    every = {s: {"supported_lps": {lp: "supported" for lp in pairs}} for ss in pairs.values() for s in ss}
    (tmp / "data" / "systems_metadata_updated3.json").write_text(json.dumps(every))
    (tmp / "humeval" / "utils.py").write_text(  # each language's code as its name: the tables' titles say the pair
        "class _Codes(dict):\n    def __missing__(self, key):\n        return key\n\n\nLANG_TO_LONG = _Codes()\n"
    )
    return tmp / "humeval"


def parse(tex: str) -> dict[str, dict]:
    """Per language pair (``en-cs``, from the table's title): rows of (name, mean as printed, rank range) and the
    cluster boundaries (after how many rows)."""
    tables = {}
    for body in tex.split(r"\begin{table}")[1:]:
        title = re.search(r"\\textbf\{(\S+)\$\\rightarrow\$(\S+)\}", body)
        assert title is not None, body[:200]
        rows, cuts = [], []
        for ln in body.splitlines():
            if ln.startswith(r"\cmidrule{1-3}"):
                cuts.append(len(rows))
            m = re.match(r"(\S+)-(\S+) & \\(?:un)?constrained\{(.*?)\}\s*(?:\\unsupported\S* )?& \\cellcolor\{[^}]*\} "
                         r"(\S+) &", ln.replace(r"\phantom{0}", ""))  # fmt: skip
            if m:
                name = m.group(3).replace(r"\_", "_")
                rows.append((PRINTED.get(name, name), m.group(4), (int(m.group(1)), int(m.group(2)))))
        tables[f"{title.group(1)}-{title.group(2)}"] = {"rows": rows, "cuts": cuts[:-1]}  # the last rule closes it
    return tables


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--script", required=True, type=Path, help="wmt25-general-mt's humeval/08-compute_clusters.py")
    ap.add_argument("--humeval", required=True, type=Path, help="judgments in WMT25's humeval jsonl format")
    ap.add_argument("--python", default=sys.executable, help="the Python to run the script with (scipy, tqdm)")
    ap.add_argument("--json", type=Path, default=None, help="write what the script decided, per language pair")
    a = ap.parse_args()
    import mtsig

    with tempfile.TemporaryDirectory() as d:
        run_in = _layout(Path(d), a.script, a.humeval)
        t0 = time.perf_counter()
        subprocess.run([a.python, "run.py"], cwd=run_in, check=True, capture_output=True)
        t_script = time.perf_counter() - t0
        tables = parse((Path(d) / "generated" / "generated_human_ranking_ext.tex").read_text(encoding="utf-8"))
    pairs = sorted({json.loads(ln)["doc_id"].split("_#_")[0] for ln in a.humeval.read_text("utf-8").splitlines()})
    t0 = time.perf_counter()
    equal = total = 0
    for lp in pairs:
        res = mtsig.human(str(a.humeval), lp=lp, protocol="wmt25", n_bootstrap=50)
        names = [s.name for s in res.systems]
        want = tables[lp.split("_")[0]]
        got_rows = [(s.name, f"{s.score:.1f}", tuple(s.rank_range)) for s in res.systems]
        sizes = [len(c) for c in res.clusters]
        got_cuts = [sum(sizes[: i + 1]) for i in range(len(sizes) - 1)]
        same = got_rows == want["rows"] and got_cuts == want["cuts"]
        equal += same
        total += 1
        print(f"{lp}: {len(names)} systems, {len(sizes)} clusters; order, means (as printed), rank ranges and "
              f"cluster boundaries {'equal' if same else 'DIFFER'}")  # fmt: skip
        if not same:
            for g, w in zip(got_rows, want["rows"]):
                if g != w:
                    print(f"   mtsig {g}  script {w}")
            print(f"   cuts mtsig {got_cuts} script {want['cuts']}")
    t_mtsig = time.perf_counter() - t0
    print(f"{equal} of {total} language pairs equal; time: the script {t_script:.1f} s, mtsig {t_mtsig:.1f} s")
    if a.json:
        a.json.write_text(json.dumps(tables, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
