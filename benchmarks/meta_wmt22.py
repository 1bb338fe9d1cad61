"""System-level meta-evaluation of BLEU, chrF and COMET on WMT22's into-English pairs, and a segment-level table with
mtsig's own BLEU and chrF before and after WMT's segment ids are placed in the test set.

    python benchmarks/meta_wmt22.py [--segment ad-seg-scores-ru-en.csv wmttest2022.ru-en.all.xml] [--n-resamples 1000]

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


def segment_level(n_resamples: int, human: str, xml: str) -> None:
    """Segment level from a WMT XML test set (its references, outputs and documents) and WMT's DA segment scores:
    first with the SIDs read as test-set line numbers (what mtsig did before it placed them: misaligned), then placed
    by the test set's documents (SID s = the s-th segment with the documents sorted by id)."""
    from mtsig.io.human import read_human
    from mtsig.report.render import render

    h = read_human(human)
    as_lines = tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8")
    as_lines.write("system\tsegment\tscore\n" + "".join(
        f"{s}\t{g}\t{float(h.scores[k, i])!r}\n" for k, s in enumerate(h.systems) for i, g in enumerate(h.segments)
        if h.judged[k, i]))  # fmt: skip
    as_lines.close()
    for title, source, docs in (("SIDs read as line numbers (misaligned)", as_lines.name, None),
                                ("SIDs placed by the test set's documents", human, xml)):  # fmt: skip
        res = M.meta(source, refs=[xml], systems=[xml], compute=["bleu", "chrf"], level="segment",
                     statistic="pearson", docs=docs, n_resamples=n_resamples)  # fmt: skip
        print(f"\n{title}\n")
        print(render(res, "markdown"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--segment", nargs=2, metavar=("SEG_SCORES", "TEST_XML"), default=None,
                    help="also a segment-level table: WMT's ad-seg-scores file and the pair's WMT XML test set (with "
                    "the systems' outputs), e.g. ru-en from wmt-conference/wmt22-news-systems (the shared data has "
                    "no de-en document ids)")  # fmt: skip
    ap.add_argument("--n-resamples", type=int, default=1000)
    a = ap.parse_args()
    if not HE.exists():
        print(f"needs {HE}", file=sys.stderr)
        return 2
    system_level(a.n_resamples)
    if a.segment:
        segment_level(a.n_resamples, *a.segment)
    return 0


if __name__ == "__main__":
    sys.exit(main())
