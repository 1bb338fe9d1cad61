"""Random hypothesis/reference pairs scored by tercom 0.8.0 itself: the gold file of ``ter_tercom``'s tests.

tercom is not on PyPI, so CI cannot run it; this script runs it once, where its jar is at hand (MultEval ships
it as ``lib/tercom-0.8.0.jar``), and writes what it says next to the pairs:

    python benchmarks/tercom_gold.py --jar DIR/multeval/lib/tercom-0.8.0.jar \\
        --out tests/metrics/tercom_gold.tsv [--pairs 600] [--seed 29]

The pairs are made to exercise the search: small vocabularies (many repeated words, so many candidate shifts),
edited and block-shuffled copies of the reference beside unrelated strings, and a share of long segments
(up to 130 words) where tercom's edit-distance beam and sacreBLEU's band part ways. Each line of the output is
``edits<TAB>hypothesis<TAB>reference``; the script also prints how many pairs sacreBLEU's search (without its
candidate cap) scores differently, so the file is known to tell the two searches apart.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import tempfile
from pathlib import Path


def make_pairs(n: int, seed: int) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        vocab = rng.choice([3, 5, 8, 20, 60])
        long = rng.random() < 0.15
        nr = rng.randint(40, 130) if long else rng.randint(1, 45)
        ref = [f"w{rng.randrange(vocab)}" for _ in range(nr)]
        if rng.random() < 0.6:  # an edited copy: blocks moved, words replaced and dropped
            hyp = ref[:]
            for _ in range(rng.randint(0, 4 + nr // 10)):
                a = rng.randrange(len(hyp))
                b = min(len(hyp), a + rng.randint(1, 6))
                span, rest = hyp[a:b], hyp[:a] + hyp[b:]
                c = rng.randint(0, len(rest))
                hyp = rest[:c] + span + rest[c:]
            for _ in range(rng.randint(0, 2 + nr // 12)):
                hyp[rng.randrange(len(hyp))] = f"w{rng.randrange(vocab + 3)}"
            hyp = [w for w in hyp if rng.random() > 0.1] or [ref[0]]
        else:
            hyp = [f"w{rng.randrange(vocab)}" for _ in range(rng.randint(1, 45 if not long else 130))]
        pairs.append((hyp, ref))
    return pairs


def tercom(jar: Path, pairs: list[tuple[list[str], list[str]]]) -> list[int]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "h.trans").write_text("".join(f"{' '.join(h)} (p{k:06d})\n" for k, (h, _) in enumerate(pairs)))
        (d / "r.trans").write_text("".join(f"{' '.join(r)} (p{k:06d})\n" for k, (_, r) in enumerate(pairs)))
        cmd = ["java", "-cp", str(jar), "ter.TERtest", "-r", "r.trans", "-h", "h.trans", "-o", "sum", "-n", "out"]
        subprocess.run(cmd, cwd=d, capture_output=True, check=True)
        edits = {}
        for line in (d / "out.sum").read_text().splitlines():
            m = re.match(r"p(\d+):1\s*\|(?:[^|]*\|){5}\s*([0-9.]+)\s*\|", line)
            if m:
                edits[int(m.group(1))] = float(m.group(2))
    if len(edits) != len(pairs) or any(e != int(e) for e in edits.values()):
        raise SystemExit(f"tercom scored {len(edits)} of {len(pairs)} pairs, or gave fractional edits")
    return [int(edits[k]) for k in range(len(pairs))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jar", type=Path, required=True, help="tercom-0.8.0.jar")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--pairs", type=int, default=600)
    ap.add_argument("--seed", type=int, default=29)
    a = ap.parse_args()
    pairs = make_pairs(a.pairs, a.seed)
    gold = tercom(a.jar, pairs)
    a.out.write_text(
        "".join(f"{e}\t{' '.join(h)}\t{' '.join(r)}\n" for e, (h, r) in zip(gold, pairs)), encoding="utf-8"
    )
    import sacrebleu.metrics.lib_ter as lib_ter

    lib_ter._MAX_SHIFT_CANDIDATES = 2**62
    differ = sum(lib_ter.translation_edit_rate(h, r)[0] != e for e, (h, r) in zip(gold, pairs))
    print(f"{len(pairs)} pairs (seed {a.seed}) -> {a.out}; sacreBLEU's search (no cap) differs on {differ}")


if __name__ == "__main__":
    main()
