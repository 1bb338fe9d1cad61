"""METEOR 1.5's resources, read from an official distribution at run time, and their compact cache.

Where they come from: ``meteor-1.5.jar`` holds the function-word lists (``function/``), the WordNet synonym
files (``synonym/english.synsets`` and ``english.exceptions``) and the non-breaking prefixes
(``nonbreaking/``); the paraphrase table of a language is ``data/paraphrase-<code>.gz`` beside the jar.
``pip install 'mtsig[meteor]'`` brings both with the ``pycocoevalcap`` package; the options ``meteor_jar``
and ``meteor_paraphrase`` point to others. Nothing of them is copied into mtsig.

The first use of a paraphrase table (5.3 million entries for English, 62 MB compressed) builds a cache in
the user cache directory (``$MTSIG_CACHE_DIR``, else ``$XDG_CACHE_HOME/mtsig``, else ``~/.cache/mtsig``):
phrase strings with ids and the sorted (phrase, paraphrase) pairs as numpy arrays, with the SHA-256 of the
cache file and the size, modification time and SHA-256 of the table it came from. A cache whose checksum
fails, or whose table changed, is rebuilt.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import pickle
import re
import tempfile
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from mtsig.errors import InputError

CACHE_FORMAT = 1
_PIP_HINT = "install it with: pip install 'mtsig[meteor]' (it brings pycocoevalcap's meteor-1.5.jar)"


def _pycoco_dir() -> Path | None:
    from importlib.util import find_spec

    try:
        spec = find_spec("pycocoevalcap")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "meteor"


def find_jar(path: str | None) -> Path:
    """The METEOR 1.5 jar: ``path``, else the one inside the ``pycocoevalcap`` package."""
    if path:
        p = Path(path)
        if not p.is_file():
            raise InputError(f"METEOR: jar {path} not found", param="meteor_jar")
        return p
    d = _pycoco_dir()
    if d is None or not (d / "meteor-1.5.jar").is_file():
        raise InputError(
            "METEOR needs the METEOR 1.5 resources (meteor-1.5.jar): " + _PIP_HINT + ", or give --meteor-jar FILE",
            param="meteor_jar",
        )
    return d / "meteor-1.5.jar"


def find_paraphrase(path: str | None, jar: Path, code: str) -> Path:
    """The paraphrase table: ``path``, else ``data/paraphrase-<code>.gz`` beside the jar (as the jar looks)."""
    if path:
        p = Path(path)
        if not p.is_file():
            raise InputError(f"METEOR: paraphrase table {path} not found", param="meteor_paraphrase")
        return p
    p = jar.parent / "data" / f"paraphrase-{code}.gz"
    if not p.is_file():
        raise InputError(
            f"METEOR: no paraphrase table for language {code!r} ({p} is missing): give one with "
            "--meteor-paraphrase FILE, or leave the stage out (--meteor-modules 'exact stem ...')",
            param="meteor_paraphrase",
        )
    return p


@lru_cache(maxsize=8)
def _jar_member(jar: str, member: str) -> str | None:
    try:
        with zipfile.ZipFile(jar) as z:
            try:
                return z.read(member).decode("utf-8")
            except KeyError:
                return None
    except (OSError, zipfile.BadZipFile) as exc:
        raise InputError(f"METEOR: cannot read {jar}: {exc}", param="meteor_jar") from None


def function_words(jar: Path, word_file: str | None) -> frozenset[str]:
    """The function-word list: a file given by the user, else the jar's ``function/english.words``.

    The jar reads the English list whatever ``-l`` says (its language setting does not update the word list
    it set first); mtsig does the same so that numbers agree, and ``meteor_words`` gives another list.
    """
    if word_file:
        try:
            text = Path(word_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"METEOR: cannot read function words {word_file}: {exc}", param="meteor_words") from None
    else:
        text = _jar_member(str(jar), "function/english.words")
        if text is None:
            raise InputError(f"METEOR: {jar} has no function/english.words: is it METEOR 1.5?", param="meteor_jar")
    return frozenset(java_lines(text))


def java_lines(text: str) -> list[str]:
    """Lines as Java's ``BufferedReader.readLine`` gives them (ends: \\n, \\r, \\r\\n; no trailing empty line)."""
    lines = re.split("\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def prefixes(jar: Path, language: str) -> dict[str, int]:
    from mtsig.meteor.normalize import parse_prefixes

    text = _jar_member(str(jar), f"nonbreaking/{language}.prefixes")
    return parse_prefixes(text) if text else {}


class Synonyms:
    """WordNet synsets as the jar uses them: a word's synsets, plus those of its base form (the irregular
    forms of ``english.exceptions`` or WordNet's suffix rules)."""

    _SUFFIXES = (
        ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
        ("ies", "y"), ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
        ("ing", ""), ("er", ""), ("est", ""), ("er", "e"), ("est", "e"),
    )  # fmt: skip

    def __init__(self, synsets: dict[str, frozenset[int]], bases: dict[str, list[str]]):
        self.synsets = synsets
        self.bases = bases
        self._memo: dict[str, frozenset[int]] = {}

    def _morph(self, word: str) -> str:
        if word.endswith("ss") or len(word) <= 2:
            return word
        for suffix, ending in self._SUFFIXES:
            if word.endswith(suffix):
                base = word[: len(word) - len(suffix)] + ending
                if base in self.synsets:
                    return base
        return ""

    def sets(self, word: str) -> frozenset[int]:
        """The synsets the jar's synonym stage compares for ``word``."""
        s = self._memo.get(word)
        if s is None:
            own = self.synsets.get(word, frozenset())
            bases = self.bases.get(word)
            if bases is not None:
                extra = frozenset().union(*(self.synsets.get(b, frozenset()) for b in bases))
            else:
                extra = self.synsets.get(self._morph(word), frozenset())
            s = self._memo[word] = own | extra
        return s


def load_synonyms(jar: Path, language: str) -> Synonyms:
    syn = _jar_member(str(jar), f"synonym/{language}.synsets")
    exc = _jar_member(str(jar), f"synonym/{language}.exceptions")
    if syn is None or exc is None:
        raise InputError(
            f"METEOR: {jar} has no synonym files for {language}: the synonym stage needs them", param="meteor_modules"
        )
    lines = java_lines(syn)
    synsets = {lines[k]: frozenset(int(x) for x in lines[k + 1].split()) for k in range(0, len(lines) - 1, 2)}
    elines = java_lines(exc)
    bases: dict[str, list[str]] = {}
    for k in range(0, len(elines) - 1, 2):
        for form in elines[k + 1].split():
            bases.setdefault(form, []).append(elines[k])
    return Synonyms(synsets, bases)


def lookup_stemmer(jar: Path, language: str):
    """The jar's table stemmer (Arabic): a word's most frequent stem, the word itself when it has none.
    Entries are keyed by Java's hash of the word, the last entry of a hash winning, as in the jar."""
    from mtsig.meteor.align import java_hash

    try:
        with zipfile.ZipFile(jar) as z:
            raw = gzip.decompress(z.read(f"stem/{language}.gz")).decode("utf-8")
    except (KeyError, OSError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise InputError(f"METEOR: no stem table for {language} in {jar}: {exc}", param="meteor_modules") from None
    table: dict[int, str] = {}
    for line in java_lines(raw):
        tok = line.split()
        if len(tok) >= 3:
            table[java_hash(tok[0])] = tok[2]
    return lambda word: table.get(java_hash(word), word)


# ---------------------------------------------------------------------------------------------- paraphrases
class Paraphrases:
    """A paraphrase table: phrase strings with ids, and (phrase, paraphrase) pairs sorted for lookup.

    ``pairs`` holds ``phrase_id << 32 | paraphrase_id`` sorted; ``order`` the position of each pair in the
    file (the jar tries a phrase's paraphrases in file order).
    """

    def __init__(self, ids: dict[str, int], lengths: np.ndarray, pairs: np.ndarray, order: np.ndarray):
        self.ids = ids
        self.lengths = lengths
        self.pairs = pairs
        self.order = order
        self.max_len = int(lengths.max()) if len(lengths) else 0

    def phrases(self, words: list[str]) -> tuple[list[int], list[int], list[int]]:
        """Every n-gram of ``words`` that is a phrase of the table: (start, length, id) lists."""
        ids = self.ids
        starts, lens, pids = [], [], []
        n = len(words)
        for p in range(n):
            for L in range(1, min(self.max_len, n - p) + 1):
                pid = ids.get(" ".join(words[p : p + L]))
                if pid is not None:
                    starts.append(p)
                    lens.append(L)
                    pids.append(pid)
        return starts, lens, pids

    def find(self, src, other) -> list[tuple[int, int, int, int]]:
        """Matches of ``src`` phrases by their paraphrases in ``other``: ``(src_pos, other_pos, src_len,
        other_len)`` in the jar's order (source position, source length, table order, other position).
        ``src`` and ``other`` are the results of :meth:`phrases`."""
        s_start, s_len, s_pid = src
        o_start, o_len, o_pid = other
        if not s_pid or not o_pid:
            return []
        a = np.asarray(s_pid, dtype=np.int64)
        b = np.asarray(o_pid, dtype=np.int64)
        keys = (a[:, None] << 32 | b[None, :]).ravel()
        pairs = self.pairs
        lo = np.searchsorted(pairs, keys)
        hit = np.flatnonzero(pairs[np.minimum(lo, len(pairs) - 1)] == keys)
        if not hit.size:
            return []
        out = []
        nb = len(o_pid)
        last = len(pairs)
        for h in hit.tolist():
            si, oi = divmod(h, nb)
            k, key = int(lo[h]), int(keys[h])
            while k < last and pairs[k] == key:  # the same pair listed more than once: each is a match
                out.append((s_start[si], s_len[si], int(self.order[k]), o_start[oi], o_len[oi]))
                k += 1
        out.sort()
        return [(p, q, L, ol) for p, L, _, q, ol in out]


def cache_dir() -> Path:
    env = os.environ.get("MTSIG_CACHE_DIR")
    if env:
        return Path(env) / "meteor"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mtsig" / "meteor"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def _build_paraphrases(path: Path) -> Paraphrases:
    from mtsig.meteor.normalize import java_tokens

    ids: dict[str, int] = {}
    lengths: list[int] = []
    src: list[int] = []
    dst: list[int] = []

    def pid(line: str) -> int:
        key = " ".join(java_tokens(line))
        i = ids.get(key)
        if i is None:
            i = ids[key] = len(lengths)
            lengths.append(key.count(" ") + 1 if key else 0)
        return i

    try:
        with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
            while True:
                prob = f.readline()
                if not prob:
                    break
                src.append(pid(f.readline().rstrip("\n")))
                dst.append(pid(f.readline().rstrip("\n")))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InputError(f"METEOR: cannot read paraphrase table {path}: {exc}", param="meteor_paraphrase") from None
    keys = np.asarray(src, dtype=np.int64) << 32 | np.asarray(dst, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    return Paraphrases(ids, np.asarray(lengths, dtype=np.int8), keys[order], order.astype(np.int32))


def _source_id(path: Path) -> dict:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def load_paraphrases(path: Path, *, use_cache: bool = True) -> Paraphrases:
    """The table at ``path``, from the cache when it is fresh (built and written there otherwise)."""
    if not use_cache:
        return _build_paraphrases(path)
    src = _source_id(path)
    d = cache_dir()
    stem = "para-" + hashlib.sha256(src["path"].encode()).hexdigest()[:16]
    data_file, meta_file = d / (stem + ".pkl"), d / (stem + ".json")
    meta = None
    try:
        meta = json.loads(meta_file.read_text())
    except (OSError, ValueError):
        pass
    if meta and meta.get("format") == CACHE_FORMAT:
        fresh = meta["size"] == src["size"] and meta["mtime_ns"] == src["mtime_ns"]
        if not fresh and meta["size"] == src["size"]:
            fresh = meta["source_sha256"] == _sha256(path)  # touched but unchanged
        if fresh:
            try:
                blob = data_file.read_bytes()
                if hashlib.sha256(blob).hexdigest() == meta["sha256"]:
                    ids, lengths, pairs, order = pickle.loads(blob)
                    return Paraphrases(ids, lengths, pairs, order)
            except (OSError, pickle.UnpicklingError, ValueError, EOFError):
                pass
    table = _build_paraphrases(path)
    blob = pickle.dumps((table.ids, table.lengths, table.pairs, table.order), protocol=5)
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=d, delete=False) as tmp:
            tmp.write(blob)
        os.replace(tmp.name, data_file)
        meta = {
            "format": CACHE_FORMAT,
            **src,
            "source_sha256": _sha256(path),
            "sha256": hashlib.sha256(blob).hexdigest(),
        }
        meta_file.write_text(json.dumps(meta, indent=1))
    except OSError:
        pass  # a read-only home: the table is rebuilt each time, but numbers do not change
    return table


_TABLES: dict[tuple, Paraphrases] = {}


def paraphrases(path: Path) -> Paraphrases:
    """The table at ``path``, loaded once per process."""
    key = tuple(_source_id(path).values())
    if key not in _TABLES:
        _TABLES[key] = load_paraphrases(path)
    return _TABLES[key]
