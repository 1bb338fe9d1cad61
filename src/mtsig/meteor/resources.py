"""METEOR 1.5's resources, read from an official distribution at run time.

Where they come from: ``meteor-1.5.jar`` holds the function-word lists (``function/``), the WordNet synonym
files (``synonym/english.synsets`` and ``english.exceptions``) and the non-breaking prefixes
(``nonbreaking/``); the paraphrase table of a language is ``data/paraphrase-<code>.gz`` beside the jar.
``pip install 'mtsig[meteor]'`` brings both with the ``pycocoevalcap`` package; the options ``meteor_jar``
and ``meteor_paraphrase`` point to others. Nothing of them is copied into mtsig.

The paraphrase table and its cache are in :mod:`mtsig.meteor.paraphrase`.
"""

from __future__ import annotations

import gzip
import re
import zipfile
from functools import lru_cache
from pathlib import Path

from mtsig.errors import InputError
from mtsig.io.text import sha256_file

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


@lru_cache(maxsize=16)
def _digest_of(path: str, size: int, mtime_ns: int) -> str:
    return sha256_file(path)


def file_digest(path: Path) -> str:
    """:func:`sha256_file`, once per process for an unchanged file."""
    st = path.stat()
    return _digest_of(str(path.resolve()), st.st_size, st.st_mtime_ns)


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
        member = _jar_member(str(jar), "function/english.words")
        if member is None:
            raise InputError(f"METEOR: {jar} has no function/english.words: is it METEOR 1.5?", param="meteor_jar")
        text = member
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

    def __init__(self, synsets: dict[str, str], bases: dict[str, list[str]]):
        self.synsets = synsets  # word -> its line of synset ids, parsed when the word is first seen
        self.bases = bases
        self._memo: dict[str, frozenset[int]] = {}

    def _ids(self, word: str) -> frozenset[int]:
        line = self.synsets.get(word)
        return frozenset(int(x) for x in line.split()) if line else frozenset()

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
            bases = self.bases.get(word)
            if bases is not None:
                extra = frozenset().union(*(self._ids(b) for b in bases))
            else:
                extra = self._ids(self._morph(word))
            s = self._memo[word] = self._ids(word) | extra
        return s


def load_synonyms(jar: Path, language: str) -> Synonyms:
    syn = _jar_member(str(jar), f"synonym/{language}.synsets")
    exc = _jar_member(str(jar), f"synonym/{language}.exceptions")
    if syn is None or exc is None:
        raise InputError(
            f"METEOR: {jar} has no synonym files for {language}: the synonym stage needs them", param="meteor_modules"
        )
    lines = java_lines(syn)
    if len(lines) % 2:
        lines.pop()  # a word without its line of ids: the jar stops there too
    synsets = dict(zip(lines[0::2], lines[1::2]))
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
