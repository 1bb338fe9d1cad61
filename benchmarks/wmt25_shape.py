"""A WMT25-shaped metrics task set (issue 61): 16 language pairs, 20 metrics, 40 systems, 400 segments each, with
documents and domains, made from the real per-system score distributions of WMT25's automatic scores, and
``mtsig meta --task wmt25`` timed on it.

    python benchmarks/wmt25_shape.py --scores WMT25_REPO/data/automatic_scores [--out DIR] [--k 0 10 50]

``--scores`` is ``data/automatic_scores`` of ``wmt-conference/wmt25-general-mt`` (one JSON line per system, language
pair and document: its domain, document id and every segment's scores by CometKiwi-XL, GEMBA-ESA-CMDA,
GEMBA-ESA-GPT4.1, MetricX-24-Hybrid-XL, XCOMET-XL, and chrF++ on two pairs). For each of the WMT25 task set's 16
pairs: the documents of the first system that has the pair, in its order, until 400 segments; the systems that
scored all of them (up to 40; fewer are made up to 40 with copies whose scores move by 2% of their spread); the gold
(ESA, or MQM for ja-zh_CN and en-ko_KR, as WMT25's) is GEMBA-ESA-GPT4.1 plus noise (N(0, 8), clipped to 0-100; MQM
as -(100 - ESA) / 4), and the 20 metrics are the four other real metrics (chrF++ left out), standardised, each plus
its own noise (standard deviations 0.10 to 1.05). Only the shape and the score distributions are WMT25's: the values
are not anyone's metric. The folder is written in mt-metrics-eval's layout; the task set runs with
``--all-metrics`` at each ``--k`` in a fresh process (time and peak memory), and the time at k = 1000 is
extrapolated from the largest k run (the draws are linear in k).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from meta_scale import run_cli  # noqa: E402

from mtsig.metaeval.tasks import DEFAULT_LPS  # noqa: E402

REAL = ["CometKiwi-XL", "GEMBA-ESA-CMDA", "MetricX-24-Hybrid-XL", "XCOMET-XL"]  # on every pair (chrF++ on two)
JUDGE = "GEMBA-ESA-GPT4.1"
METRICS = ["EnsembleSlick", "GEMBA-v2", "MetricX-25", "Polycand-2", "Q_Relative-MQM", "SEGALE-QE", "TASER-No-Ref",
           "UvA-MT", "comet-multi", "hw-tsc", "mr7_2_1", "rankedCOMET", "BLEU", "chrF", "COMET-22", "CometKiwi",
           "XCOMET", "MetricX-24", "YiSi-1", "BERTScore"]  # fmt: skip
MQM_PAIRS = ("ja-zh_CN", "en-ko_KR")
SYSTEMS, ITEMS = 40, 400


def load(scores: Path) -> dict[str, dict[str, list[dict]]]:
    """``{lp: {system: [document lines in file order]}}``."""
    out: dict[str, dict[str, list[dict]]] = {}
    for f in sorted(scores.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            out.setdefault(d["language_pair"], {}).setdefault(f.stem, []).append(d)
    return out


def _filled(v: np.ndarray) -> np.ndarray:
    """A score the file leaves out (null) takes the system's mean."""
    return np.where(np.isfinite(v), v, np.nanmean(v))


def build(scores: Path, out: Path, seed: int = 25) -> Path:
    rng = np.random.default_rng(seed)
    data = load(scores)
    root = out / "wmt25"
    for lp in DEFAULT_LPS["wmt25"]:
        by_sys = data[lp]
        first = next(iter(by_sys.values()))
        docs, n = [], 0
        for d in first:
            if n >= ITEMS:
                break
            docs.append((d["domain"], d["document_id"]))
            n += len(next(iter(d["metric_scores"].values())))
        systems = {}
        for name, lines in by_sys.items():
            got = {x["document_id"]: x for x in lines}
            if all(doc in got and all(m in got[doc]["metric_scores"] for m in [*REAL, JUDGE]) for _, doc in docs):
                systems[name] = {m: _filled(np.concatenate([np.array(got[doc]["metric_scores"][m], dtype=float)
                                                            for _, doc in docs])[:ITEMS])
                                 for m in [*REAL, JUDGE]}  # fmt: skip
        names = sorted(systems)[:SYSTEMS]
        base = list(names)
        while len(names) < SYSTEMS:  # copies of real systems, their scores moved by 2% of the spread
            src = base[len(names) % len(base)]
            name = f"{src}~{len(names)}"
            systems[name] = {m: v + rng.normal(0, 0.02 * (np.ptp(v) or 1.0), v.size) for m, v in systems[src].items()}
            names.append(name)
        lengths = [len(next(iter(d["metric_scores"].values()))) for d in first[: len(docs)]]
        doc_of = [f"{dom}\t{doc}" for (dom, doc), k in zip(docs, lengths) for _ in range(k)][:ITEMS]
        _write(root, lp, names, systems, doc_of, rng)
    return root


def _write(root: Path, lp: str, names: list[str], systems: dict, doc_of: list[str], rng) -> None:
    def lines(path: Path, rows: list[str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")

    n = len(doc_of)
    lines(root / "sources" / f"{lp}.txt", [f"source {i}" for i in range(n)])
    lines(root / "documents" / f"{lp}.docs", doc_of)
    lines(root / "references" / f"{lp}.refA.txt", [f"reference {i}" for i in range(n)])
    for s in names:
        lines(root / "system-outputs" / lp / f"{s}.txt", [f"{s} {i}" for i in range(n)])
    domains = [d.split("\t")[0] for d in doc_of]
    gold_name = "mqm" if lp in MQM_PAIRS else "esa-human1"

    def score_files(folder: Path, stem: str, values: dict[str, np.ndarray]) -> None:
        seg = [f"{s}\t{float(v)!r}" for s in names for v in values[s]]
        sys_ = [f"{s}\t{float(values[s].mean())!r}" for s in names]
        dom = [f"{d}\t{s}\t{float(values[s][[x == d for x in domains]].mean())!r}" for d in sorted(set(domains))
               for s in names]  # fmt: skip
        lines(folder / f"{stem}.seg.score", seg)
        lines(folder / f"{stem}.sys.score", sys_)
        lines(folder / f"{stem}.domain.score", dom)

    esa = {s: np.clip(systems[s][JUDGE] + rng.normal(0, 8, n), 0, 100) for s in names}
    gold = {s: -(100 - v) / 4 for s, v in esa.items()} if gold_name == "mqm" else esa
    score_files(root / "human-scores", f"{lp}.{gold_name}", gold)
    for j, metric in enumerate(METRICS):
        real = REAL[j % len(REAL)]
        allv = np.concatenate([systems[s][real] for s in names])
        mu, sd = allv.mean(), allv.std() or 1.0
        sigma = 0.10 + 0.05 * j
        values = {s: (systems[s][real] - mu) / sd + rng.normal(0, sigma, n) for s in names}
        score_files(root / "metric-scores" / lp, f"{metric}-refA", values)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scores", type=Path, required=True, help="wmt25-general-mt's data/automatic_scores")
    ap.add_argument("--out", type=Path, default=None, help="keep the folder here (default: a temporary one)")
    ap.add_argument("--k", type=int, nargs="+", default=[0, 10])
    ap.add_argument("-j", "--jobs", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = build(a.scores, a.out or Path(tmp))
        print(f"folder: {root} (16 pairs, {len(METRICS)} metrics, {SYSTEMS} systems, {ITEMS} segments)")
        times = {}
        for k in a.k:
            extra = ["-j", str(a.jobs)] if a.jobs > 1 else []
            dt, peak, _ = run_cli(["meta", "--mtme", str(root), "--task", "wmt25", "--all-metrics", "--k", str(k),
                                   "-f", "json", "-q", *extra])  # fmt: skip
            times[k] = dt
            print(f"task set wmt25, k = {k}: {dt:.1f} s, peak {peak:.2f} GB")
        ks = sorted(times)
        if len(ks) >= 2 and ks[-1] > ks[0]:
            per = (times[ks[-1]] - times[ks[0]]) / (ks[-1] - ks[0])
            print(f"k = 1000 (extrapolated from k = {ks[0]} and {ks[-1]}): {times[ks[0]] + per * (1000 - ks[0]):.0f} s")


if __name__ == "__main__":
    main()
