"""``mtsig human --protocol wmt24`` against WMT24's own script (humeval/tools.py of wmt-conference/wmt24-news-systems)
on an ESA wave, every pair: p-values, decisions, ranks and clusters; and how mtsig's signed variant decides.

    python benchmarks/wmt24_oracle.py --tools WMT24_REPO/humeval [--wave ESA.csv] [--docs DIR] [--json OUT]

The script's functions are imported and run as calculate_clusters.py runs them (``load_data``, the per-annotation
means, domain-averaged scores, ``get_pvalues`` with the macro average, ``get_ranks``, ``get_clusters``), with one
step replaced: ``attach_resources`` needs the test set's sources and outputs (not shipped with the wave), so each
segment's domain is read from the ``.docs`` file as it reads it (``segment_id + 1``, after ``load_data``'s
``segment_id - 1``), checking the document ids as it asserts them. Run it with pandas 2 (as WMT24 did: under pandas
3 ``load_data``'s ``segment_id - 1``, written into a row of ``iterrows``, raises). ``ipdb`` is stubbed.
``--json OUT`` writes the oracle's p-values and decisions (what ``tests/humaneval/test_wmt24_tools.py`` holds mtsig
to).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
WAVE = ROOT.parent / "shared" / "data" / "wmt24-esa" / "esa_generalMT2024_wave3.csv"


def load_tools(folder: Path):
    sys.modules.setdefault("ipdb", types.ModuleType("ipdb"))
    spec = importlib.util.spec_from_file_location("wmt24_tools", folder / "tools.py")
    tools = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tools)
    return tools


def oracle(tools, wave: Path, docs_dir: Path) -> dict:
    df = tools.load_data(str(wave))
    domains = {}
    for lp in df["lp"].unique():
        rows = [ln.rstrip("\n").split("\t") for ln in open(docs_dir / f"{lp}.docs", encoding="utf-8")]
        domains[lp] = rows
    dom, doc_ok = [], 0
    for _, row in df.iterrows():
        domain, doc = domains[row["lp"]][int(row["segment_id"]) + 1]  # attach_resources' lookup
        doc_ok += doc == row["doc_id"]
        dom.append(domain)
    assert doc_ok == len(df), f"{len(df) - doc_ok} rows whose document is not the .docs file's at their id"
    df["domain_name"] = dom
    # calculate_clusters.py: several ratings of one annotation averaged, then per language pair
    sub = df.groupby(["annot_id", "lp", "system_id", "orig_segment_id", "domain_name"])
    df = sub.agg({"overall": "mean"}).reset_index()
    out = {}
    for lp in sorted(df["lp"].unique()):
        df_lp = df[df["lp"] == lp]
        per_domain = df_lp.groupby(["system_id", "domain_name"])["overall"].mean().reset_index()
        avg = per_domain.groupby("system_id")["overall"].mean().reset_index().set_index("system_id", drop=False)
        avg = avg.sort_values("overall", ascending=False)
        pvalues = tools.get_pvalues(df_lp, True)
        ranks, wins, losses = tools.get_ranks(pvalues, avg)
        clusters = tools.get_clusters(pvalues, avg)
        out[lp] = {
            "scores": {s: float(v) for s, v in avg["overall"].items()},
            "pvalues": {f"{a}\t{b}": float(p) for (a, b), p in pvalues.items()},
            "ranks": {s: list(r) for s, r in ranks.items()},
            "wins": dict(wins),
            "clusters": {s: int(c) for s, c in clusters.items()},
        }
    return out


def compare(ref: dict, wave: Path, docs_dir: Path) -> int:
    import mtsig

    bad = 0
    for lp, o in ref.items():
        res = mtsig.human(str(wave), lp=lp, docs=str(docs_dir / f"{lp}.docs"), protocol="wmt24", n_bootstrap=100)
        signed = mtsig.human(str(wave), lp=lp, docs=str(docs_dir / f"{lp}.docs"), protocol="wmt24-signed",
                             n_bootstrap=100)  # fmt: skip
        worst, decided, differ_signed, n, theirs = 0.0, 0, 0, 0, 0
        for c in res.comparisons:
            p = o["pvalues"][c.a + "\t" + c.b]
            theirs += p < 0.05
            worst = max(worst, abs(c.p_value - p) / max(p, 1e-300))
            decided += (c.p_value < 0.05) == (p < 0.05)
            s = signed.get(c.a, c.b)
            differ_signed += bool(s.significant) != bool(p < 0.05)
            n += 1
        same_scores = all(abs(s.score - o["scores"][s.name]) < 1e-9 for s in res.systems)
        same_ranks = all(list(s.rank_range) == o["ranks"][s.name] for s in res.systems)
        same_wins = all(s.wins == o["wins"][s.name] for s in res.systems)
        same_clusters = all(s.cluster == o["clusters"][s.name] for s in res.systems)
        print(
            f"{lp}: {n} pairs; p-values equal to {worst:.1e} (relative); decisions equal {decided}/{n}; scores "
            f"{same_scores}, ranks {same_ranks}, wins {same_wins}, clusters {same_clusters}; wmt24-signed decides "
            f"{differ_signed} pair(s) differently ({sum(c.significant for c in signed.comparisons)} significant "
            f"against WMT24's {theirs})"
        )
        bad += (decided != n) or not (same_scores and same_ranks and same_wins and same_clusters) or worst > 1e-9
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tools", required=True, help="the humeval folder of wmt-conference/wmt24-news-systems")
    ap.add_argument("--wave", default=str(WAVE))
    ap.add_argument("--docs", default=str(WAVE.parent), help="the folder of PAIR.docs files")
    ap.add_argument("--json", default=None, help="write the oracle's results here")
    a = ap.parse_args()
    ref = oracle(load_tools(Path(a.tools)), Path(a.wave), Path(a.docs))
    if a.json:
        Path(a.json).write_text(json.dumps(ref, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 1 if compare(ref, Path(a.wave), Path(a.docs)) else 0


if __name__ == "__main__":
    sys.exit(main())
