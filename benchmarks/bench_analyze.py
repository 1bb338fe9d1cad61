"""``mtsig analyze`` against compare-mt on the same files: the four WMT22 de-en systems, tokenized once with
sacreBLEU's 13a tokenizer (compare-mt splits on whitespace; mtsig reads them with ``--tokenize none``).

compare-mt's default run (its analyses: aggregate BLEU and length, word accuracy by frequency, BLEU by sentence
length, counts by length difference and by sentence BLEU, characteristic n-grams, sentence examples; no
significance) against ``mtsig analyze`` with the same analyses and, for every bucket, 1,000 bootstrap resamples
for the intervals and the automatic approximate-randomization count for the p-values (every pair of the four
systems). Both as the commands a user types, in fresh processes, best of ``--repeat``; prints the ratio.

A second workload, ``--workload two``: two systems and two analyses (BLEU by reference length, word accuracy by
frequency) on MultEval's example test set (2,489 segments, tokenized and lowercased: both tools split on
spaces), compare-mt with its other analyses switched off (its aggregate BLEU stays, as it always runs).

    pip install compare-mt six   # (the test extra has them)
    python benchmarks/bench_analyze.py [--repeat 3] [--workload four|two|both]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from _common import SYSTEMS, WMT, need_data, timed

MULTEVAL = WMT.parent / "multeval-example"


def _tokenized(folder: Path) -> dict[str, str]:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    out = {}
    for name in ["ref.A", *(f"hyp.{s}" for s in SYSTEMS)]:
        src = WMT / f"generaltest2022.de-en.{name}.en"
        dst = folder / f"{name}.tok"
        dst.write_text("".join(tok(x) + "\n" for x in src.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
        out[name] = str(dst)
    return out


def _four(cmt: str, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = _tokenized(Path(tmp))
        hyps = [files[f"hyp.{s}"] for s in SYSTEMS]
        theirs, _ = timed([cmt, files["ref.A"], *hyps, "--output_directory", str(Path(tmp) / "cmt")], repeat)
        mtsig = [sys.executable, "-m", "mtsig.cli", "analyze", "-r", files["ref.A"], "-s",
                 *(f"{s}={h}" for s, h in zip(SYSTEMS, hyps)), "--tokenize", "none", "--by", "ref-length",
                 "length-diff", "sentence-score", "word-frequency", "ngrams", "examples", "--n-bootstrap", "1000",
                 "-o", str(Path(tmp) / "mtsig.txt")]  # fmt: skip
        ours, _ = timed(mtsig, repeat)
    print(f"4 systems x 1,984 segments, six analyses, best of {repeat}")
    print(f"  compare-mt 0.2.10 (no significance)                          {theirs:7.2f} s")
    print(f"  mtsig analyze (intervals + corrected p-values per bucket)    {ours:7.2f} s")
    print(f"  ratio: mtsig is {theirs / ours:.1f}x faster")


def _two(cmt: str, repeat: int) -> None:
    ref = MULTEVAL / "refs.test2010.lc.tok.en.0"
    hyps = [MULTEVAL / f"hyps.lc.tok.en.{s}.opt0" for s in ("baseline", "sys1")]
    with tempfile.TemporaryDirectory() as tmp:
        theirs, _ = timed([cmt, str(ref), *map(str, hyps), "--compare_scores", "score_type=bleu",
                           "--compare_word_accuracies", "bucket_type=freq", "--compare_sentence_buckets",
                           "bucket_type=length,statistic_type=score,score_measure=bleu", "--compare_ngrams",
                           "--compare_sentence_examples", "--output_directory", str(Path(tmp) / "cmt")],
                          repeat)  # fmt: skip
        mtsig = [sys.executable, "-m", "mtsig.cli", "analyze", "-r", str(ref), "-s", f"baseline={hyps[0]}",
                 f"sys1={hyps[1]}", "--tokenize", "none", "--by", "ref-length", "word-frequency", "--n-bootstrap",
                 "1000", "-o", str(Path(tmp) / "mtsig.txt")]  # fmt: skip
        ours, _ = timed(mtsig, repeat)
    print(f"2 systems x 2,489 segments, two analyses (ref-length, word-frequency), best of {repeat}")
    print(f"  compare-mt 0.2.10 (no significance)                          {theirs:7.2f} s")
    print(f"  mtsig analyze (intervals + corrected p-values per bucket)    {ours:7.2f} s")
    print(f"  ratio: mtsig is {theirs / ours:.1f}x faster")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workload", choices=["four", "two", "both"], default="both")
    a = ap.parse_args()
    need_data()
    here = Path(sys.executable).parent / "compare-mt"  # the environment's own, then the PATH's
    cmt = str(here) if here.exists() else shutil.which("compare-mt")
    if cmt is None:
        sys.exit("compare-mt is not installed: pip install compare-mt six")
    if a.workload in ("four", "both"):
        _four(cmt, a.repeat)
    if a.workload in ("two", "both"):
        _two(cmt, a.repeat)


if __name__ == "__main__":
    main()
