"""Paired approximate randomization: sacreBLEU --paired-ar vs mtsig compare --test ar --baseline,
four WMT22 de-en systems, BLEU, 10,000 shuffles, run side by side.

Prints: end-to-end wall time of both command lines and their ratio; the resampling stage alone of both
(sacreBLEU's `_paired_ar_test` shuffles after statistics extraction vs mtsig's `ar_counts`); the
all-pairs time for 16 systems x 3,000 segments; peak memory for R = 100,000 x N = 100,000 (--big).

    python benchmarks/bench_compare.py [--shuffles 10000] [--big]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from _common import SYSTEMS, WMT, hyps, need_data, py, refs, timed

RESAMPLING_SACRE = """
import time, json, numpy as np
from sacrebleu.metrics import BLEU
from sacrebleu.significance import _paired_ar_test
refs = [open(f, encoding='utf-8').read().splitlines() for f in {refs!r}]
hyps = [open(f, encoding='utf-8').read().splitlines() for f in {hyps!r}]
bleu = BLEU(references=refs)
bl_stats = bleu._extract_corpus_statistics(hyps[0], None)
bl_res = bleu._aggregate_and_compute(bl_stats)
t_total = 0.0
t_extract = 0.0
for h in hyps[1:]:
    t0 = time.perf_counter()
    bleu._extract_corpus_statistics(h, None)
    t_extract += time.perf_counter() - t0
    t0 = time.perf_counter()
    _paired_ar_test({{"BLEU": (bl_stats, bl_res)}}, "s", h, None, {{"BLEU": bleu}}, {n}, 0, 12345)
    t_total += time.perf_counter() - t0
print(json.dumps({{"resampling": t_total - t_extract}}))
"""

RESAMPLING_MTSIG = """
import time, json
import mtsig
from mtsig.resample import Resampling
from mtsig.stats.engines import ar_counts
table = mtsig.compute({refs!r}, {hyps!r}, ["bleu"])
m = table.metrics["bleu"]
names = table.system_names
stats = {{s: table.stats["bleu"][s][0] for s in names}}
t0 = time.perf_counter()
ar_counts(stats, m, [(names[0], s) for s in names[1:]], Resampling({n}, 12345))
print(json.dumps({{"resampling": time.perf_counter() - t0}}))
"""

BIG_MEMORY = """
import json, resource, time, numpy as np
import mtsig
from mtsig.resample import Resampling
from mtsig.stats.engines import ar_counts, bootstrap_many
table = mtsig.compute({refs!r}, {hyps!r}, ["bleu"])
m = table.metrics["bleu"]
N = 100_000
reps = -(-N // table.n_segments)
a = np.tile(table.stats["bleu"]["JDExploreAcademy"][0], (reps, 1))[:N]
b = np.tile(table.stats["bleu"]["PROMT"][0], (reps, 1))[:N]
t0 = time.perf_counter()
c = ar_counts({{"a": a, "b": b}}, m, [("a", "b")], Resampling(100_000, 1))
t_ar = time.perf_counter() - t0
t0 = time.perf_counter()
bs = bootstrap_many({{"a": (m, a), "b": (m, b)}}, Resampling(100_000, 1))
t_bs = time.perf_counter() - t0
print(json.dumps({{"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "ar_s": t_ar,
                  "bootstrap_s": t_bs}}))
"""


def sixteen_systems(tmp: str) -> tuple[list[str], list[str]]:
    """16 pseudo-systems x 3,000 segments built from the real WMT22 outputs (segment-wise mixtures)."""
    import numpy as np

    rng = np.random.default_rng(0)
    ref = (WMT / "generaltest2022.de-en.ref.A.en").read_text(encoding="utf-8").splitlines()
    outs = [(WMT / f"generaltest2022.de-en.hyp.{s}.en").read_text(encoding="utf-8").splitlines() for s in SYSTEMS]
    n = 3000
    idx = np.arange(n) % len(ref)
    rpath = os.path.join(tmp, "ref.txt")
    with open(rpath, "w", encoding="utf-8") as fh:
        fh.write("\n".join(ref[i] for i in idx) + "\n")
    specs = []
    for k in range(16):
        pick = rng.integers(0, len(outs), size=n)
        p = os.path.join(tmp, f"sys{k:02d}.txt")
        with open(p, "w", encoding="utf-8") as fh:
            fh.write("\n".join(outs[j][i] for j, i in zip(pick, idx)) + "\n")
        specs.append(f"s{k:02d}={p}")
    return [rpath], specs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shuffles", type=int, default=10_000)
    ap.add_argument("--big", action="store_true", help="also measure R = N = 100,000 (takes minutes)")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many fresh processes (3)")
    a = ap.parse_args()
    need_data()
    R, H = refs(1), hyps()
    sacre, mt = shutil.which("sacrebleu"), shutil.which("mtsig")
    if not (sacre and mt):
        sys.exit("needs the sacrebleu and mtsig commands on PATH")
    n = a.shuffles
    t_sb, _ = timed([sacre, *R, "-i", *H, "-m", "bleu", "--paired-ar", "--paired-ar-n", str(n)], a.repeat)
    t_mt, out = timed(
        [
            mt,
            "compare",
            "-r",
            *R,
            "-s",
            *H,
            "-m",
            "bleu",
            "--test",
            "ar",
            "--baseline",
            SYSTEMS[0],
            "--n-resamples",
            str(n),
            "-f",
            "json",
            "-q",
        ],
        a.repeat,
    )
    rs_sb = min(
        json.loads(timed(py(RESAMPLING_SACRE.format(refs=R, hyps=H, n=n)))[1])["resampling"] for _ in range(a.repeat)
    )
    rs_mt = min(
        json.loads(timed(py(RESAMPLING_MTSIG.format(refs=R, hyps=H, n=n)))[1])["resampling"] for _ in range(a.repeat)
    )
    print(
        f"WMT22 de-en, 4 systems (baseline {SYSTEMS[0]}), 1 reference, BLEU, {n} shuffles; "
        f"best of {a.repeat} fresh processes"
    )
    print(f"  end to end   sacrebleu --paired-ar : {t_sb:8.2f} s")
    print(f"  end to end   mtsig compare --test ar: {t_mt:8.2f} s   ratio {t_sb / t_mt:6.1f}x")
    print(f"  resampling   sacreBLEU             : {rs_sb:8.3f} s")
    print(f"  resampling   mtsig                 : {rs_mt:8.3f} s   ratio {rs_sb / rs_mt:6.1f}x")
    with tempfile.TemporaryDirectory() as tmp:
        r16, s16 = sixteen_systems(tmp)
        t0 = time.perf_counter()
        p = subprocess.run(
            [
                mt,
                "compare",
                "-r",
                *r16,
                "-s",
                *s16,
                "-m",
                "bleu",
                "--test",
                "ar",
                "--n-resamples",
                str(n),
                "-f",
                "json",
                "-q",
            ],
            capture_output=True,
            text=True,
        )
        t16 = time.perf_counter() - t0
        if p.returncode:
            sys.exit(p.stderr)
        n_pairs = len(json.loads(p.stdout)["comparisons"])
    print(f"  all pairs, 16 systems x 3000 segments ({n_pairs} pairs), {n} shuffles, end to end: {t16:.2f} s")
    if a.big:
        _, o = timed(py(BIG_MEMORY.format(refs=R, hyps=H)))
        big = json.loads(o)
        print(
            f"  R = 100,000 x N = 100,000: peak memory {big['peak_mb']:.0f} MB; AR {big['ar_s']:.1f} s, "
            f"bootstrap {big['bootstrap_s']:.1f} s"
        )


if __name__ == "__main__":
    main()
