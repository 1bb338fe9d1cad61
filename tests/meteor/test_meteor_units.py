"""METEOR pieces without the jar: Java's hash, the compiled search against the Python one, options and
errors, the paraphrase cache, a hand-made table, identical systems."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.meteor import align
from mtsig.meteor.align import Candidates, java_hash, search, search_python
from mtsig.meteor.params import resolve
from mtsig.metrics import get_metric


def test_java_hash_values():
    assert java_hash("") == 0
    assert java_hash("a") == 97
    assert java_hash("hello") == 99162322  # Java: "hello".hashCode()
    assert java_hash("Aa") == java_hash("BB") == 2112  # a real collision the jar treats as a match
    assert java_hash("\U0001f600") == 1772899  # surrogate pair: two UTF-16 units
    assert java_hash("polygenelubricants") == -2147483648


def _random_cands(rng: random.Random) -> tuple[Candidates, int]:
    n1, n2 = rng.randint(0, 14), rng.randint(0, 14)
    c = Candidates(n1, n2)
    for stage in range(rng.randint(1, 4)):
        for j in range(n2):
            for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
                length = rng.choice([1, 1, 1, 2, 3])
                mlen = rng.choice([1, 1, 2])
                if n1 == 0 or j + length > n2:
                    continue
                i = rng.randrange(0, max(1, n1 - mlen + 1))
                if i + mlen <= n1:
                    c.add(j, length, i, mlen, stage)
    return c, n2


@pytest.mark.skipif(not align.COMPILED, reason="mtsig._meteor is not built")
def test_compiled_search_equals_python_search():
    rng = random.Random(11)
    for _ in range(3000):
        cands, n2 = _random_cands(rng)
        mods = (0, 1, 2, 3)
        beam = rng.choice([1, 2, 5, 40])
        assert search(cands, n2, mods, beam) == sorted(search_python(cands, n2, mods, beam))


def test_options_resolve_like_the_jar():
    c = resolve("de", "rank")
    assert c.modules == (0, 1, 3) and c.weights == (1.0, 0.8, 0.2) and c.params == (0.95, 1.0, 0.55, 0.55)
    c = resolve("en", "rank", modules="exact stem")
    assert c.weights == (1.0, 0.6) and c.task == "custom"
    c = resolve("en", "rank", modules="exact stem synonym paraphrase", weights="1.0 0.5")
    assert c.weights == (1.0, 0.5, 0.0, 0.0)  # missing weights are 0, as in the jar
    # a module twice (the jar takes it, and its row then overflows the four stages: issue 28) is refused
    with pytest.raises(InputError, match="module\\(s\\) exact given more than once"):
        resolve("en", "rank", modules="exact stem synonym paraphrase exact")
    assert resolve("da").task == "li" or resolve("da", "rank").params == (0.0, 0.0, 0.0, 0.0)
    assert resolve("en", "li").params == (0.75, 1.40, 0.70, 0.50)


@pytest.mark.parametrize(
    ("opts", "needle"),
    [
        ({"meteor_lang": "xx-klingon"}, "unknown language"),
        ({"meteor_task": "fluency"}, "unknown task"),
        ({"meteor_modules": "exact wordnet"}, "unknown module"),
        ({"meteor_params": "0.5 1"}, "needs 4 numbers"),
        ({"meteor_beam": 0}, "beam size"),
        ({"meteor_lang": "da", "meteor_norm": True}, "no normalizer"),
    ],
)
def test_bad_options_are_one_line_errors(opts, needle):
    with pytest.raises(InputError, match=needle):
        get_metric("meteor", **opts)


def test_missing_resources_say_what_provides_them(tmp_path):
    m = get_metric("meteor", meteor_jar=str(tmp_path / "nope.jar"))
    m.prepare([["a"]])
    with pytest.raises(InputError, match="jar .* not found"):
        m.stats(["a"])
    m = get_metric("meteor", meteor_lang="fr")  # pycocoevalcap has no French paraphrase table
    m.prepare([["le chat"]])
    with pytest.raises(InputError, match="--meteor-paraphrase"):
        m.stats(["un chat"])


def _table(path, entries):
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for a, b in entries:
            f.write(f"0.5\n{a}\n{b}\n")


def test_hand_made_paraphrase_table_and_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSIG_CACHE_DIR", str(tmp_path / "cache"))
    table = tmp_path / "para.gz"
    _table(table, [("big house", "mansion"), ("mansion", "big house"), ("quick", "fast")])
    m = get_metric("meteor", meteor_modules="exact paraphrase", meteor_paraphrase=str(table))
    m.prepare([["he owns a mansion now", "a fast car"]])
    S = m.stats(["he owns a big house now", "a quick car"])
    # paraphrase stage slot (4th column group: stage 2 = index 1): hyp content + function, ref content + function
    para_hyp = S[:, 8] + S[:, 10]
    para_ref = S[:, 9] + S[:, 11]
    assert para_hyp.tolist() == [2.0, 1.0] and para_ref.tolist() == [1.0, 1.0]
    meta = json.loads(next((tmp_path / "cache" / "meteor").glob("*.json")).read_text())
    assert meta["size"] == table.stat().st_size
    # a corrupted cache is detected by its checksum and rebuilt
    from mtsig.meteor import paraphrase

    data = next((tmp_path / "cache" / "meteor").glob("*.bin"))
    data.write_bytes(b"garbage")
    paraphrase._TABLES.clear()
    t = paraphrase.load_paraphrases(table)
    assert len(t.pairs) == 3
    assert paraphrase.load_paraphrases(table).pairs.tolist() == t.pairs.tolist()
    # a changed table is seen (size and time) and the cache rebuilt
    _table(table, [("quick", "fast")])
    assert len(paraphrase.load_paraphrases(table).pairs) == 1


def test_identical_systems_get_p_one():
    import mtsig

    refs = [["the cat sat on the mat", "a dog barked at night", "rain fell all day long"] * 20]
    hyp = ["the cat is on the mat", "the dog barks at night", "it rained all day"] * 20
    for test in ("ar", "bootstrap"):
        res = mtsig.compare(
            refs,
            {"a": hyp, "b": list(hyp)},
            ["meteor"],
            test=test,
            n_resamples=200,
            meteor_modules="exact stem synonym",
        )
        assert [c.result.p_value for c in res.comparisons] == [1.0]


def test_scores_are_the_summed_statistics_formula():
    m = get_metric("meteor", meteor_modules="exact")
    m.prepare([["a b c d", "e f g"]])
    S = m.stats(["a b c d", "e x g"])
    assert S[0, 20] == 0  # a complete one-chunk match adds no chunks (the jar's aggregation)
    assert m.sentence_scores(S)[0] == pytest.approx(100 * (1 - 0.6 * 0.0), abs=1e-9)
    assert np.isclose(m.corpus_score(S), float(m.score(S.sum(0))))


def test_warm_before_prepare_loads_resources_only():
    m = get_metric("meteor", meteor_modules="exact stem")
    m.warm()  # no references yet: resources only, no error
    m.prepare([["a big house"]])
    m.warm()  # now also the reference side
    assert m.stats(["a big houses"])[0, 0] == 3.0


def test_cache_directory_is_the_platforms(monkeypatch, tmp_path):
    """``MTSIG_CACHE_DIR`` first; else platformdirs' user cache directory (on Linux ``$XDG_CACHE_HOME/mtsig``, the
    place it always had there), and the XDG convention when platformdirs is missing."""
    import builtins
    import sys

    from mtsig.meteor.paraphrase import cache_dir

    monkeypatch.setenv("MTSIG_CACHE_DIR", str(tmp_path / "own"))
    assert cache_dir() == tmp_path / "own" / "meteor"
    monkeypatch.delenv("MTSIG_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    from platformdirs import user_cache_dir

    assert cache_dir() == Path(user_cache_dir("mtsig", appauthor=False)) / "meteor"
    if sys.platform.startswith("linux"):
        assert cache_dir() == tmp_path / "xdg" / "mtsig" / "meteor"
    real_import = builtins.__import__

    def no_platformdirs(name, *args, **kwargs):
        if name == "platformdirs":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_platformdirs)
    assert cache_dir() == tmp_path / "xdg" / "mtsig" / "meteor"


def test_a_table_that_is_not_a_paraphrase_table_is_refused(tmp_path, monkeypatch):
    """Issue 28: a gzip of garbage was read as a table (METEOR 23.92 instead of 25.17, same signature)."""
    from mtsig.meteor import paraphrase

    monkeypatch.setenv("MTSIG_CACHE_DIR", str(tmp_path / "cache"))
    cases = {
        "words.gz": "lorem ipsum dolor\nsit amet\nconsectetur\n",  # decodes, but no probability lines
        "score.gz": "-1.5\nbig house\nmansion\n",  # a negative score
        "nan.gz": "nan\nbig house\nmansion\n",
        "short.gz": "0.5\nbig house\n",  # an entry cut short
        "empty.gz": "",
    }
    for name, text in cases.items():
        with gzip.open(tmp_path / name, "wt", encoding="utf-8") as f:
            f.write(text)
        with pytest.raises(InputError, match="paraphrase table") as exc:
            paraphrase.build_paraphrases(tmp_path / name)
        assert "\n" not in str(exc.value)
    (tmp_path / "random.gz").write_bytes(gzip.compress(bytes(random.Random(3).randrange(256) for _ in range(5000))))
    with pytest.raises(InputError, match="paraphrase table"):
        paraphrase.build_paraphrases(tmp_path / "random.gz")


def test_a_crafted_cache_with_a_recomputed_checksum_is_rebuilt(tmp_path, monkeypatch):
    """Issue 28: a cache whose arrays were edited and whose SHA-256 was updated to match crashed the aligner
    (it trusts the indices); now every array is checked against the others on load and such a cache is rebuilt."""
    import hashlib

    from mtsig.meteor import paraphrase

    monkeypatch.setenv("MTSIG_CACHE_DIR", str(tmp_path / "cache"))
    table = tmp_path / "para.gz"
    _table(table, [("big house", "mansion"), ("mansion", "big house"), ("quick", "fast")])
    good = paraphrase.load_paraphrases(table)
    data_file = next((tmp_path / "cache" / "meteor").glob("*.bin"))
    meta_file = data_file.with_suffix(".json")
    meta = json.loads(meta_file.read_text())
    edits = {  # array -> (index, value) pointing outside the arrays it indexes
        "hash_ids": (0, 10**6),
        "offsets": (1, 10**9),
        "pairs": (0, (10**6) << 32),
        "buckets": (1, 10**6),
        "pair_start": (1, 10**6),
        "order": (0, -5),
    }
    original = data_file.read_bytes()
    for name, (i, value) in edits.items():
        dt, at, n = meta["layout"][name]
        arr = np.frombuffer(original, dtype=np.dtype(dt), count=n, offset=at).copy()
        arr[i] = value
        data = bytearray(original)
        data[at : at + arr.nbytes] = arr.tobytes()
        data_file.write_bytes(bytes(data))
        meta_file.write_text(json.dumps({**meta, "sha256": hashlib.sha256(bytes(data)).hexdigest()}))
        src = paraphrase._source_id(table)
        assert paraphrase._read_cache(table, src, data_file, meta_file) is None, name  # refused: rebuilt
        t = paraphrase.load_paraphrases(table)
        assert t.pairs.tolist() == good.pairs.tolist() and t.hash_ids.tolist() == good.hash_ids.tolist()
        original = data_file.read_bytes()  # the rebuilt cache
        meta = json.loads(meta_file.read_text())


def test_signature_pins_the_paraphrase_table_and_function_words(tmp_path, monkeypatch):
    """Issue 28: two different tables gave 24.08 and 25.17 under one signature."""
    monkeypatch.setenv("MTSIG_CACHE_DIR", str(tmp_path / "cache"))
    a, b = tmp_path / "a.gz", tmp_path / "b.gz"
    _table(a, [("big house", "mansion")])
    _table(b, [("quick", "fast")])
    words = tmp_path / "fw.txt"
    words.write_text("the\na\n", encoding="utf-8")

    def sig(**kw) -> str:
        return get_metric("meteor", meteor_modules="exact paraphrase", **kw).signature

    assert sig(meteor_paraphrase=str(a)) != sig(meteor_paraphrase=str(b))
    assert sig(meteor_paraphrase=str(a)) == sig(meteor_paraphrase=str(a))
    assert sig(meteor_paraphrase=str(a)) != sig(meteor_paraphrase=str(a), meteor_words=str(words))
    assert "|res:" in sig(meteor_paraphrase=str(a))
    # without the paraphrase stage the table does not count
    plain = get_metric("meteor", meteor_modules="exact", meteor_paraphrase=str(a)).signature
    assert plain == get_metric("meteor", meteor_modules="exact", meteor_paraphrase=str(b)).signature


def test_unwritable_cache_warns_and_an_interrupted_write_leaves_no_file(tmp_path, monkeypatch):
    """Issue 28: an unwritable cache directory meant a silent rebuild on every run; Ctrl-C during the write left
    a 199 MB temporary file for good."""
    import os

    from mtsig.meteor import paraphrase

    table = tmp_path / "para.gz"
    _table(table, [("quick", "fast")])
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    monkeypatch.setenv("MTSIG_CACHE_DIR", str(blocker))  # its meteor/ folder cannot be made
    with pytest.warns(UserWarning, match="cannot write the paraphrase cache"):
        assert len(paraphrase.load_paraphrases(table).pairs) == 1
    monkeypatch.setenv("MTSIG_CACHE_DIR", str(tmp_path / "cache"))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        paraphrase.load_paraphrases(table)
    assert list((tmp_path / "cache" / "meteor").iterdir()) == []


def test_a_segment_beyond_the_alignment_work_bound_is_an_error_naming_it():
    """Issue 28: the beam search on repetitive segments grew as n^2.7 (a 3,200-word line: about 20 minutes and
    3.5 GB). Beyond 10^8 expanded paths (beam x candidate matches; 1,570 copies of one word take about 15 s)
    the segment is refused, at once, with its number."""
    import mtsig

    ref = " ".join(["word"] * 1600)
    with pytest.raises(InputError, match=r"METEOR: segment 2 of a \(1,600 words against 1,600 of reference 1\)"):
        mtsig.score([["a b", ref]], {"a": ["a b", ref]}, ["meteor"], meteor_modules="exact")


def test_randomly_edited_checksummed_caches_load_safely(tmp_path, monkeypatch):
    """200 caches with random values written into random arrays and the checksum recomputed: each is either
    refused (and rebuilt) or consistent, and the compiled lookups on what is loaded never read out of bounds."""
    import hashlib

    from mtsig.meteor import paraphrase

    monkeypatch.setenv("MTSIG_CACHE_DIR", str(tmp_path / "cache"))
    table = tmp_path / "para.gz"
    _table(table, [("big house", "mansion"), ("mansion", "big house"), ("quick", "fast"), ("a big", "one large")])
    paraphrase.load_paraphrases(table)
    data_file = next((tmp_path / "cache" / "meteor").glob("*.bin"))
    meta_file = data_file.with_suffix(".json")
    original, meta = data_file.read_bytes(), json.loads(meta_file.read_text())
    rng = random.Random(5)
    words = "a big house is a mansion and quick is fast".split()
    refused = 0
    for _ in range(200):
        data = bytearray(original)
        for _ in range(rng.randint(1, 3)):
            dt, at, n = meta["layout"][rng.choice(sorted(meta["layout"]))]
            width = np.dtype(dt).itemsize
            if n:
                k = at + width * rng.randrange(n)
                data[k : k + width] = rng.randbytes(width) if rng.random() < 0.7 else bytes(width)
        data_file.write_bytes(bytes(data))
        meta_file.write_text(json.dumps({**meta, "sha256": hashlib.sha256(bytes(data)).hexdigest()}))
        t = paraphrase._read_cache(table, paraphrase._source_id(table), data_file, meta_file)
        if t is None:
            refused += 1
            continue
        src = t.phrases(words)
        t.find(src, t.phrases(list(reversed(words))))
    assert refused > 100
