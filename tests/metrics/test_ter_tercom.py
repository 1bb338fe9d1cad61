"""TER with tercom's own search (``ter_tercom``, issue 29). tercom 0.8.0 (the one MultEval runs) differs from
sacreBLEU's search in its edit-distance beam, its candidate order and stopping rule, and has no cap on shift
candidates. The oracle is tercom itself: ``tercom_gold.tsv`` holds 600 random pairs it scored
(``benchmarks/tercom_gold.py``; tercom is not on PyPI, so CI reads its numbers from the file), 42 of which
sacreBLEU's search scores differently. Where the jar is at hand (``MTSIG_TERCOM_JAR``), fresh pairs are scored
by it too. The compiled search is held to its Python reference, ``mtsig.metrics.tercom``."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

import mtsig
from mtsig.metrics.tercom import edit_distance, shifted, tercom_edits

GOLD = Path(__file__).with_name("tercom_gold.tsv")


def _gold() -> list[tuple[int, list[str], list[str]]]:
    rows = [line.rstrip("\n").split("\t") for line in GOLD.read_text(encoding="utf-8").splitlines()]
    return [(int(e), h.split(), r.split()) for e, h, r in rows]


def _compiled(pairs: list[tuple[list[str], list[str]]]) -> list[int]:
    from mtsig import _ter

    vocab: dict[str, int] = {}

    def code(toks: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
        ids = np.array([vocab.setdefault(w, len(vocab)) for t in toks for w in t], dtype=np.int32)
        off = np.zeros(len(toks) + 1, dtype=np.int64)
        np.cumsum([len(t) for t in toks], out=off[1:])
        return ids, off

    out = np.zeros(len(pairs), dtype=np.int64)
    _ter.tercom(*code([h for h, _ in pairs]), *code([r for _, r in pairs]), out)
    return out.tolist()


def test_compiled_tercom_search_equals_tercom_0_8_on_its_gold_pairs():
    pytest.importorskip("mtsig._ter")
    gold = _gold()
    assert len(gold) == 600
    assert _compiled([(h, r) for _, h, r in gold]) == [e for e, _, _ in gold]


def test_gold_pairs_tell_the_two_searches_apart():
    """Without this the gold test above could not fail for a search that is sacreBLEU's: some pairs differ."""
    pytest.importorskip("mtsig._ter")
    gold = [g for g in _gold() if len(g[1]) <= 45 and len(g[2]) <= 45]
    refs, hyps = [" ".join(r) for _, _, r in gold], [" ".join(h) for _, h, _ in gold]
    sacre = mtsig.compute([refs], {"h": hyps}, ["ter"], ter_case=True).stats["ter"]["h"][0][:, 0]
    tercom = mtsig.compute([refs], {"h": hyps}, ["ter"], ter_case=True, ter_tercom=True).stats["ter"]["h"][0][:, 0]
    assert tercom.tolist() == [e for e, _, _ in gold]
    assert (sacre != tercom).sum() >= 5


def test_python_reference_equals_tercom_on_short_gold_pairs():
    short = [g for g in _gold() if len(g[1]) <= 25 and len(g[2]) <= 25][:150]
    assert len(short) >= 100
    assert [tercom_edits(h, r) for _, h, r in short] == [e for e, _, _ in short]


def _random_pair(rng: random.Random) -> tuple[list[str], list[str]]:
    vocab = rng.choice([2, 3, 6, 15])
    ref = [f"w{rng.randrange(vocab)}" for _ in range(rng.randint(0, 22))]
    if ref and rng.random() < 0.6:
        hyp = ref[:]
        for _ in range(rng.randint(0, 4)):
            a = rng.randrange(len(hyp))
            span, rest = hyp[a : a + rng.randint(1, 5)], hyp[:a] + hyp[a + 5 :]
            c = rng.randint(0, len(rest))
            hyp = rest[:c] + span + rest[c:]
        hyp = [w if rng.random() > 0.15 else f"w{rng.randrange(vocab + 2)}" for w in hyp if rng.random() > 0.1]
    else:
        hyp = [f"w{rng.randrange(vocab)}" for _ in range(rng.randint(0, 22))]
    return hyp, ref


def test_compiled_tercom_search_is_fuzzed_against_its_python_reference():
    pytest.importorskip("mtsig._ter")
    rng = random.Random(2029)
    pairs = [_random_pair(rng) for _ in range(400)]
    assert any(not h for h, _ in pairs) and any(not r for _, r in pairs)
    assert _compiled(pairs) == [tercom_edits(h, r) for h, r in pairs]


def test_empty_sides_and_identity():
    assert tercom_edits([], []) == 0
    assert tercom_edits([], ["a", "b"]) == 2
    assert tercom_edits(["a", "b", "c"], []) == 3
    assert tercom_edits(["a", "b"], ["a", "b"]) == 0
    assert tercom_edits(["b", "c", "a"], ["a", "b", "c"]) == 1  # one shift moves "a" to the front
    assert edit_distance(["a", "x"], ["a", "b"]) == (1, " S")
    assert shifted(list("abcdef"), 3, 4, 0) == list("adebcf")
    assert shifted(list("abcdef"), 1, 2, -1) == list("bcadef")
    assert shifted(list("abcdef"), 0, 1, 4) == list("cdeabf")


def test_tercom_argument_checks():
    from mtsig import _ter

    ids = np.zeros(1, dtype=np.int32)
    off = np.array([0, 1], dtype=np.int64)
    out = np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError, match="beam"):
        _ter.tercom(ids, off, ids, off, out, -1)
    with pytest.raises(ValueError, match="offset"):
        _ter.tercom(ids, np.array([0, 2], dtype=np.int64), ids, off, out)
    with pytest.raises(ValueError, match="agree"):
        _ter.tercom(ids, off, ids, off, np.zeros(2, dtype=np.int64))


@pytest.mark.java
@pytest.mark.skipif(not os.environ.get("MTSIG_TERCOM_JAR"), reason="MTSIG_TERCOM_JAR (tercom-0.8.0.jar) not set")
def test_tercom_jar_scores_fresh_pairs_as_mtsig(tmp_path):
    if shutil.which("java") is None:
        pytest.skip("java not found")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "tercom_gold", Path(__file__).parents[2] / "benchmarks" / "tercom_gold.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pairs = module.make_pairs(150, seed=int(os.environ.get("MTSIG_TERCOM_SEED", "7")))
    assert _compiled(pairs) == module.tercom(Path(os.environ["MTSIG_TERCOM_JAR"]), pairs)


def _pairs(n: int, length: int, seed: int = 1) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(12)]
    refs, hyps = [], []
    for _ in range(n):
        r = list(rng.choice(vocab, length))
        h = r[:]
        for _ in range(length // 10):  # move blocks of 2-5 words around, then substitute a few words
            i, size = int(rng.integers(0, len(h) - 6)), int(rng.integers(2, 6))
            block = h[i : i + size]
            del h[i : i + size]
            j = int(rng.integers(0, len(h)))
            h[j:j] = block
        for _ in range(length // 12):
            h[int(rng.integers(0, len(h)))] = str(rng.choice(vocab))
        refs.append(" ".join(r))
        hyps.append(" ".join(h))
    return refs, hyps


@pytest.mark.slow
def test_sacrebleu_cap_binds_on_long_segments_and_tercom_search_is_used(monkeypatch):
    """The default keeps sacreBLEU's numbers, cap included; the compiled sacreBLEU search without the cap equals
    sacreBLEU's own with the cap lifted; ``ter_tercom`` runs tercom's search and says so in the signature."""
    import sacrebleu.metrics.lib_ter as lib_ter

    from mtsig import _ter

    refs, hyps = _pairs(3, 100)
    capped = [lib_ter.translation_edit_rate(h.split(), r.split())[0] for h, r in zip(hyps, refs)]
    monkeypatch.setattr(lib_ter, "_MAX_SHIFT_CANDIDATES", 2**62)
    full = [lib_ter.translation_edit_rate(h.split(), r.split())[0] for h, r in zip(hyps, refs)]
    assert any(f < c for f, c in zip(full, capped))  # the cap binds on these segments
    default = mtsig.compute([refs], {"h": hyps}, ["ter"])
    tercom = mtsig.compute([refs], {"h": hyps}, ["ter"], ter_tercom=True)
    assert default.stats["ter"]["h"][0][:, 0].tolist() == capped
    pairs = [(h.split(), r.split()) for h, r in zip(hyps, refs)]
    assert tercom.stats["ter"]["h"][0][:, 0].tolist() == _compiled(pairs)
    vocab: dict[str, int] = {}
    ids = [np.array([vocab.setdefault(w, len(vocab)) for w in t], dtype=np.int32) for p in pairs for t in p]
    uncapped = []
    for h, r in zip(ids[0::2], ids[1::2]):
        out = np.zeros(1, dtype=np.int64)
        _ter.edits(h, np.array([0, len(h)]), r, np.array([0, len(r)]), out, True, 0)
        uncapped.append(int(out[0]))
    assert uncapped == full
    assert "search:tercom" in tercom.signatures.get("ter", tercom.metrics["ter"].signature)
    assert "search" not in default.metrics["ter"].signature


def test_candidate_cap_argument_is_checked():
    from mtsig import _ter

    z = np.zeros(2, dtype=np.int64)
    ids = np.zeros(1, dtype=np.int32)
    off = np.array([0, 1], dtype=np.int64)
    with pytest.raises(ValueError, match="max_candidates"):
        _ter.edits(ids, off, ids, off, z[:1], True, -1)
    _ter.edits(ids, off, ids, off, z[:1], True, 0)
    assert z[0] == 0
