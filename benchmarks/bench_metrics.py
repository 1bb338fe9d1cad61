"""TER and chrF speed: the four WMT22 de-en systems with both references.

1. TER alone: sacreBLEU's TER vs mtsig's TER (compiled search), in-process, fresh processes.
2. End to end: `sacrebleu REF... -i SYS... -m bleu chrf ter --paired-ar` vs
   `mtsig compare -r REF... -s SYS... -m bleu chrf ter --test ar --baseline FIRST`, 10,000 shuffles.

    python benchmarks/bench_metrics.py [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys

from _common import SYSTEMS, hyps, need_data, py, refs, timed

TER_SACRE = """
import time, json
from sacrebleu.metrics import TER
refs = [open(f, encoding='utf-8').read().splitlines() for f in {refs!r}]
t0 = time.perf_counter()
ter = TER(references=refs)
scores = [ter.corpus_score(open(f, encoding='utf-8').read().splitlines(), None).score for f in {hyps!r}]
print(json.dumps({{"seconds": time.perf_counter() - t0, "scores": scores}}))
"""

TER_MTSIG = """
import time, json
t0 = time.perf_counter()
import mtsig
res = mtsig.score({refs!r}, {hyps!r}, ["ter"], jobs={jobs})
print(json.dumps({{"seconds": time.perf_counter() - t0, "scores": [s.scores["ter"].score for s in res.systems]}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--shuffles", type=int, default=10_000)
    a = ap.parse_args()
    need_data()
    R, H = refs(2), hyps()
    _, o = timed(py(TER_SACRE.format(refs=R, hyps=H)), a.repeat)
    sb = json.loads(o)
    _, o = timed(py(TER_MTSIG.format(refs=R, hyps=H, jobs=1)), a.repeat)
    mt1 = json.loads(o)
    _, o = timed(py(TER_MTSIG.format(refs=R, hyps=H, jobs=2)), a.repeat)
    mt2 = json.loads(o)
    assert max(abs(x - y) for x, y in zip(sb["scores"], mt1["scores"])) < 1e-9, "TER differs from sacreBLEU"
    print("WMT22 de-en, 4 systems x 1984 segments, 2 references")
    print(f"  TER  sacreBLEU                 : {sb['seconds']:7.2f} s")
    print(f"  TER  mtsig (1 process)         : {mt1['seconds']:7.2f} s   ratio {sb['seconds'] / mt1['seconds']:6.1f}x")
    print(f"  TER  mtsig (2 processes)       : {mt2['seconds']:7.2f} s   ratio {sb['seconds'] / mt2['seconds']:6.1f}x")
    sacre, mt = shutil.which("sacrebleu"), shutil.which("mtsig")
    if not (sacre and mt):
        sys.exit("needs the sacrebleu and mtsig commands on PATH")
    n = str(a.shuffles)
    t_sb, _ = timed([sacre, *R, "-i", *H, "-m", "bleu", "chrf", "ter", "--paired-ar", "--paired-ar-n", n], a.repeat)
    t_mt, _ = timed(
        [
            mt,
            "compare",
            "-r",
            *R,
            "-s",
            *H,
            "-m",
            "bleu",
            "chrf",
            "ter",
            "--test",
            "ar",
            "--baseline",
            SYSTEMS[0],
            "--n-resamples",
            n,
            "-q",
            "-o",
            "/dev/null",
        ],
        a.repeat,
    )
    print(f"  compare -m bleu chrf ter, AR {n} shuffles, end to end:")
    print(f"       sacrebleu --paired-ar     : {t_sb:7.2f} s")
    print(f"       mtsig compare --test ar   : {t_mt:7.2f} s   ratio {t_sb / t_mt:6.1f}x")


if __name__ == "__main__":
    main()
