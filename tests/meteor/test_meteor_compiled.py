"""The compiled METEOR paths (mtsig._meteor) against their Python references: Java's hash, the paraphrase
table's phrase lookup and pair search, and the whole segment (candidates, search, statistics row)."""

from __future__ import annotations

import gzip
import random

import numpy as np
import pytest

from mtsig.meteor import align, paraphrase
from mtsig.meteor.align import java_hash_python
from mtsig.meteor.params import resolve
from mtsig.meteor.scorer import PairScorer

pytestmark = pytest.mark.skipif(not align.COMPILED, reason="mtsig._meteor is not built")

VOCAB = (
    "the a of car cars automobile auto run runs running ran big large great house houses home dwelling "
    "quick fast rapid very much straße café naïve 東京 \U0001f600 x y z on in at"
).split()


def _line(rng: random.Random, lo: int = 0, hi: int = 14) -> list[str]:
    return [rng.choice(VOCAB) for _ in range(rng.randint(lo, hi))]


def _table(path, rng: random.Random, n: int = 400) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for _ in range(n):
            f.write(f"{rng.random():.3f}\n{' '.join(_line(rng, 1, 4))}\n{' '.join(_line(rng, 1, 4))}\n")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("para") / "para.gz"
    _table(path, random.Random(5))
    return paraphrase.build_paraphrases(path)


def test_java_hash_compiled_equals_python():
    rng = random.Random(3)
    alphabet = ["a", "Z", "é", "ß", "東", "\U0001f600", "\U00010348", "\ud800", "\udfff", " ", "\x00"]
    words = ["", "Aa", "BB", "polygenelubricants"]
    words += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
    for w in words:
        assert align._meteor.java_hash(w) == java_hash_python(w), repr(w)


def test_phrase_hashes_equal_numpy(table):
    from mtsig import _meteor

    c = np.frombuffer(_meteor.phrase_hashes(table.blob, table.offsets), dtype=np.uint64)
    assert np.array_equal(c, paraphrase.fnv1a_numpy(table.blob, table.offsets))
    assert np.array_equal(np.sort(c), table.hashes)


def test_phrase_lookup_and_pairs_equal_python(table):
    rng = random.Random(8)
    found = pairs = 0
    for _ in range(1500):
        a, b = _line(rng), _line(rng)
        pa, pb = table.phrases(a), table.phrases(b)
        assert pa == table.phrases_python(a)
        assert pb == table.phrases_python(b)
        for k, (p, L) in enumerate(zip(pa[0], pa[1])):
            assert table.phrase(pa[2][k]) == " ".join(a[p : p + L])
        got = table.find(pa, pb)
        assert got == table.find_python(pa, pb)
        found += len(pa[2])
        pairs += len(got)
    assert found > 5000 and pairs > 500  # the generated lines do exercise the table


def test_a_hash_collision_never_matches(table):
    """Give a phrase the hash of an n-gram that is not in the table: the bytes differ, so no match."""
    from mtsig import _meteor

    ngram = ["zz", "qq"]
    h = np.frombuffer(_meteor.phrase_hashes(np.frombuffer(b"zz qq", np.uint8), np.array([0, 5])), np.uint64)[0]
    forged = dict(vars(table))
    hashes = table.hashes.copy()
    hashes[0] = h
    order = np.argsort(hashes, kind="stable")
    forged["hashes"], forged["hash_ids"] = hashes[order], table.hash_ids[order]
    forged["buckets"] = paraphrase.hash_buckets(forged["hashes"])
    t = paraphrase.Paraphrases(forged)
    assert t.phrases(ngram) == t.phrases_python(ngram) == ([], [], [])


@pytest.mark.parametrize("char_based", [False, True])
def test_compiled_segment_equals_python_row(table, char_based):
    from mtsig.meteor import resources
    from mtsig.meteor.stem import snowball

    jar = resources.find_jar(None)
    cfg = resolve("en", "rank", modules="exact stem synonym paraphrase", char_based=char_based or None)
    sc = PairScorer(cfg, resources.function_words(jar, None), snowball("english"),
                    resources.load_synonyms(jar, "english"), table)  # fmt: skip
    rng = random.Random(21 + char_based)
    stages = set()
    for n in range(1200):
        a = _line(rng)
        b = list(a) if n % 25 == 0 else _line(rng)  # identical lines use the first stage only
        got, want = sc.row(a, b), sc.row_python(a, b)
        assert np.array_equal(got, want), (a, b, got, want)
        stages.update(k for k in range(4) if want[4 + 4 * k] + want[6 + 4 * k] > 0)
    assert stages == {0, 1, 2, 3}  # every stage matched somewhere
