"""System-level meta-evaluation of BLEU, chrF and COMET on WMT22's into-English pairs, and the de->en
segment-level table with mtsig's own BLEU, chrF, TER and METEOR (../shared/data/wmt22-humaneval-toen).

    python benchmarks/meta_wmt22.py [--segment] [--n-resamples 1000]

System level: each pair's DA system scores (WMT's segment-score files) against ``automatic-scores.tsv`` (the
first of references A, B, C it has; it has no lv-en): Pearson, Kendall and pairwise accuracy with 95% intervals
(bootstrap over the systems: the metric files are system-level), PERM-BOTH between the metrics, WMT's greedy
clusters; then pairwise accuracy pooled over the pairs (agreeing system pairs over all system pairs, as Kocmi et
al. 2021 pool it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import mtsig.metaeval as M  # noqa: E402
from mtsig.metaeval.stats import pairwise_accuracy  # noqa: E402

HE = ROOT.parent / "shared" / "data" / "wmt22-humaneval-toen"
PAIRS = ("de-en", "cs-en", "uk-en", "lv-en")
METRICS = (("BLEU", "bleu"), ("chrF", "chrf"), ("COMET", "COMET"))


def automatic(pair: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in (HE / "automatic-scores.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        p, system, _, _, metric, score = line.split("\t")
        if p == pair:
            out.setdefault(metric, {})[system] = float(score)
    return out


def system_level(n_resamples: int) -> None:
    tmp = Path(tempfile.mkdtemp())
    pooled = {m: [0, 0] for m, _ in METRICS}
    print("| pair | metric | Pearson [95% CI] | Kendall [95% CI] | pairwise acc. [95% CI] | cluster (raw / holm) |")
    print("|---|---|---|---|---|---|")
    for pair in PAIRS:
        auto = automatic(pair)
        ref = next((r for r in "ABC" if f"COMET-{r}" in auto), None)
        if ref is None:
            print(f"| {pair} | (automatic-scores.tsv has no scores of this pair) | | | | |")
            continue
        files = {}
        for name, key in METRICS:
            f = tmp / f"{pair}.{name}.sys"
            f.write_text("".join(f"{s}\t{v}\n" for s, v in auto[f"{key}-{ref}"].items()), encoding="utf-8")
            files[name] = str(f)
        res = M.meta(str(HE / pair / f"ad-seg-scores-{pair}.csv"), files, n_resamples=n_resamples)
        for m in res.metrics:
            v, ci = m.values, m.ci
            cells = [
                f"{v[s]:.3f} [{ci[s][0]:.3f}, {ci[s][1]:.3f}]" for s in ("pearson", "kendall", "pairwise_accuracy")
            ]
            print(f"| {pair} | {m.name} | {' | '.join(cells)} | {m.cluster} / {m.cluster_corrected} |")
        for c in res.comparisons:
            print(f"|  | {c.a} vs {c.b} | Δ pearson {c.delta:+.3f} | p (a better) {c.p_value:.3f} | p holm "
                  f"{c.p_adjusted:.3f} | |")  # fmt: skip
        data = M.align(M.human_input(str(HE / pair / f"ad-seg-scores-{pair}.csv")),
                       {n: (M.read_score_file(f)[0], f) for n, f in files.items()})  # fmt: skip
        for m in data.metrics:
            agree, n = pairwise_accuracy(data.human_systems, m.systems)
            pooled[m.name][0] += agree
            pooled[m.name][1] += n
    print("\npairwise accuracy pooled over the pairs with automatic scores: " + "; ".join(
        f"{m} {a / n:.3f} ({a}/{n})" for m, (a, n) in pooled.items()))  # fmt: skip


def segment_level(n_resamples: int) -> None:
    txt = HE / "de-en" / "txt"
    systems = [f"{p.name.split('.hyp.')[1][:-3]}={p}" for p in sorted(txt.glob("generaltest2022.de-en.hyp.*.en"))]
    res = M.meta(str(HE / "de-en" / "ad-seg-scores-de-en.csv"), refs=[str(txt / "generaltest2022.de-en.ref.A.en")],
                 systems=systems, compute=["bleu", "chrf", "ter", "meteor"], level="segment",
                 n_resamples=n_resamples)  # fmt: skip
    from mtsig.report.render import render

    print(render(res, "markdown"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--segment", action="store_true", help="also the de-en segment-level table")
    ap.add_argument("--n-resamples", type=int, default=1000)
    a = ap.parse_args()
    if not HE.exists():
        print(f"needs {HE}", file=sys.stderr)
        return 2
    system_level(a.n_resamples)
    if a.segment:
        segment_level(a.n_resamples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
