"""Scoring speed: the four WMT22 de-en systems, both references, BLEU in sacreBLEU vs mtsig, and
BLEU+NIST in mtsig. Each measurement runs in a fresh process (no warm caches); reported twice:
end to end through each command line, and the scoring work alone inside one process.

    python benchmarks/bench_score.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys

from _common import hyps, need_data, py, refs, timed

INPROC_SACRE = """
import time, json
t0 = time.perf_counter()
from sacrebleu.metrics import BLEU
refs = [open(f, encoding='utf-8').read().splitlines() for f in {refs!r}]
bleu = BLEU(references=refs)
scores = [bleu.corpus_score(open(f, encoding='utf-8').read().splitlines(), None).score for f in {hyps!r}]
print(json.dumps({{"seconds": time.perf_counter() - t0, "scores": scores}}))
"""

INPROC_MTSIG = """
import time, json
t0 = time.perf_counter()
import mtsig
res = mtsig.score({refs!r}, {hyps!r}, {metrics!r})
print(json.dumps({{"seconds": time.perf_counter() - t0,
                  "scores": [s.scores["bleu"].score for s in res.systems]}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    need_data()
    R, H = refs(), hyps()
    rows = []
    t_sb, o = timed(py(INPROC_SACRE.format(refs=R, hyps=H)), a.repeat)
    sb = json.loads(o)
    t_mb, o = timed(py(INPROC_MTSIG.format(refs=R, hyps=H, metrics=["bleu"])), a.repeat)
    mb = json.loads(o)
    t_mbn, o = timed(py(INPROC_MTSIG.format(refs=R, hyps=H, metrics=["bleu", "nist"])), a.repeat)
    mbn = json.loads(o)
    assert max(abs(x - y) for x, y in zip(sb["scores"], mb["scores"])) < 1e-9, "BLEU differs from sacreBLEU"
    rows.append(("in-process: sacreBLEU BLEU", sb["seconds"]))
    rows.append(("in-process: mtsig BLEU", mb["seconds"]))
    rows.append(("in-process: mtsig BLEU+NIST", mbn["seconds"]))
    sacre_cli = shutil.which("sacrebleu")
    mtsig_cli = shutil.which("mtsig")
    if sacre_cli and mtsig_cli:
        t1, _ = timed([sacre_cli, *R, "-i", *H, "-m", "bleu", "-b"], a.repeat)
        t2, _ = timed([mtsig_cli, "score", "-r", *R, "-s", *H, "-m", "bleu", "-f", "json"], a.repeat)
        t3, _ = timed([mtsig_cli, "score", "-r", *R, "-s", *H, "-m", "bleu", "nist", "-f", "json"], a.repeat)
        rows += [
            ("command line: sacrebleu -m bleu", t1),
            ("command line: mtsig score -m bleu", t2),
            ("command line: mtsig score -m bleu nist", t3),
        ]
    print(f"WMT22 de-en, 4 systems x 1984 segments, 2 references; best of {a.repeat} fresh processes")
    for name, t in rows:
        print(f"  {name:42s} {t:7.3f} s")
    print(f"ratio sacreBLEU BLEU / mtsig BLEU (in-process):       {sb['seconds'] / mb['seconds']:.1f}x")
    print(f"ratio sacreBLEU BLEU / mtsig BLEU+NIST (in-process):  {sb['seconds'] / mbn['seconds']:.1f}x")
    if sacre_cli and mtsig_cli:
        print(f"ratio sacreBLEU BLEU / mtsig BLEU+NIST (command line): {t1 / t3:.1f}x")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
