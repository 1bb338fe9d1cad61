"""Snowball stemmers as the jar's (2015) Java Snowball stemmers stem.

``snowballstemmer`` 2.x gives the jar's English stems on every word tested (the words of WMT22 and
MultEval text, both cases); PyStemmer 2.x, its compiled twin, is used instead when installed (same stems,
about 50 times faster). Its German stemmer has one rule the jar's older one lacks: after removing a
suffix of group (b) (``e em en ern er es``) it also drops the last ``s`` of a stem ending in ``niss``
(``Bedürfnisse``: jar ``Bedurfniss``, snowball 2.x ``Bedurfnis``). The jar's stem is restored here; the
tests compare every German word of the WMT22 source with the jar's ``Stemmer``.
"""

from __future__ import annotations

from mtsig.errors import InputError

_GROUP_B = ("ern", "em", "en", "er", "es", "e")


def _german_niss(word: str, stem: str) -> str:
    """The jar's German stem from snowball 2.x's (see the module notes)."""
    if not stem.endswith("nis"):
        return stem
    low = word.lower().replace("ß", "ss")
    for suffix in _GROUP_B:
        if low.endswith("niss" + suffix):
            return stem + "s"
    return stem


def _pystemmer_2():
    """PyStemmer's module when a 2.x release is installed (its compiled Snowball 2 stems equal the pure-Python
    ones: tested), else None. PyStemmer 3 ships newer algorithms whose stems differ (51 of 38,817 English
    words of the shared data, 670 German), so it is not used; nor is it picked up silently, as
    ``snowballstemmer.stemmer`` would whenever PyStemmer is importable."""
    try:
        from importlib.metadata import PackageNotFoundError, version

        major = version("PyStemmer").split(".")[0]
    except (ImportError, PackageNotFoundError):
        return None
    if major != "2":
        return None
    try:
        import Stemmer
    except ImportError:  # pragma: no cover - metadata without the module
        return None
    return Stemmer


def stemmer_backend(language: str, implementation: str = "auto"):
    """A ``stemWord`` object for ``language``: PyStemmer 2.x (compiled, ``"pystemmer"``) when installed and
    ``implementation`` is ``"auto"``, else snowballstemmer 2.x's pure-Python classes (``"python"``)."""
    st = _pystemmer_2() if implementation in ("auto", "pystemmer") else None
    if st is not None:
        try:
            return st.Stemmer(language)
        except KeyError:
            pass
    if implementation == "pystemmer":
        raise InputError("METEOR: PyStemmer 2.x is not installed", param="meteor_modules")
    try:
        import snowballstemmer
    except ImportError:
        raise InputError(
            "METEOR's stem stage needs snowballstemmer: pip install 'mtsig[meteor]'", param="meteor_modules"
        ) from None
    cls = getattr(snowballstemmer, language.capitalize() + "Stemmer", None)
    if cls is None:
        raise InputError(f"METEOR: no Snowball stemmer for {language}", param="meteor_modules")
    return cls()


def snowball(language: str, implementation: str = "auto"):
    """The stem function of ``language`` as the jar stems (memoized per word)."""
    st = stemmer_backend(language, implementation)
    memo: dict[str, str] = {}
    german = language == "german"

    def stem(word: str) -> str:
        s = memo.get(word)
        if s is None:
            s = st.stemWord(word)
            s = memo[word] = _german_niss(word, s) if german else s
        return s

    return stem
