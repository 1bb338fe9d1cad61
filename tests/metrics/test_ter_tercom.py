"""TER's full shift search (``ter_tercom``, issue 29): sacreBLEU stops after 1,000 shift candidates, tercom does
not, so on long segments with many moved blocks sacreBLEU (and mtsig's default, which equals it) counts more
edits. The oracle: sacreBLEU's own search with its candidate cap lifted."""

from __future__ import annotations

import numpy as np
import pytest

import mtsig


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
def test_tercom_search_equals_sacrebleu_without_its_candidate_cap(monkeypatch):
    import sacrebleu.metrics.lib_ter as lib_ter

    refs, hyps = _pairs(3, 100)
    capped = [lib_ter.translation_edit_rate(h.split(), r.split())[0] for h, r in zip(hyps, refs)]
    monkeypatch.setattr(lib_ter, "_MAX_SHIFT_CANDIDATES", 2**62)
    full = [lib_ter.translation_edit_rate(h.split(), r.split())[0] for h, r in zip(hyps, refs)]
    assert any(f < c for f, c in zip(full, capped))  # the cap binds on these segments
    default = mtsig.compute([refs], {"h": hyps}, ["ter"])
    tercom = mtsig.compute([refs], {"h": hyps}, ["ter"], ter_tercom=True)
    assert default.stats["ter"]["h"][0][:, 0].tolist() == capped
    assert tercom.stats["ter"]["h"][0][:, 0].tolist() == full
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
