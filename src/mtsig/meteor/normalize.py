"""The METEOR 1.5 normalizer (the jar's ``-norm``), with Java's regular-expression semantics.

Java's ``\\s`` and ``\\p{Digit}`` are ASCII-only by default and its ``trim`` drops every character up to
U+0020, so the classes are spelled out here rather than taken from Python's Unicode-aware ones. Words are
separated as Java's ``StringTokenizer`` separates them: on space, tab, newline, carriage return and form
feed only.
"""

from __future__ import annotations

import re

# Western European, then Cyrillic (as the jar spells them)
ALPHA = (
    "A-Za-z\u0160\u017d\u0161\u017e\u0178\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017e"
    "\u0400-\u04ff\u0500-\u0527\ua640-\ua66e\ua67e-\ua697\u1d00-\u1d7f"
)
ALNUM = "0-9" + ALPHA
_JWS = " \t\n\x0b\x0c\r"  # Java's \s
_DIGIT = "0-9"  # Java's \p{Digit}

_SEP_OTHER = re.compile("([^" + ALNUM + _JWS + ".'`,\\-\u2018\u2019])")
_MULTI_DOT = re.compile(r"\.(\.+)")
_MULTI_DOT2 = re.compile(r"DOTMULTI\.([^.])")
_COMMA1 = re.compile(f"([^{_DIGIT}]),([^{_DIGIT}])")
_COMMA2 = re.compile(f"([{_DIGIT}]),([^{_DIGIT}])")
_COMMA3 = re.compile(f"([^{_DIGIT}]),([{_DIGIT}])")
_QUOTE1 = re.compile("([`\u2018\u2019])")
_QUOTE2 = re.compile("([\u201c\u201d]|'')")
_RM_DASH = re.compile(f"([{ALNUM}.])-([{ALNUM}])")
_EN1 = re.compile(f"([^{ALPHA}])'([^{ALPHA}])")
_EN2 = re.compile(f"([^{ALPHA}{_DIGIT}])'([{ALPHA}])")
_EN3 = re.compile(f"([{ALPHA}])'([^{ALPHA}])")
_EN4 = re.compile(f"([{ALPHA}])'([{ALPHA}])")
_EN5 = re.compile(f"([{_DIGIT}])'(s)")
_FR1 = _EN1
_FR2 = re.compile(f"([^{ALPHA}])'([{ALPHA}])")
_FR3 = _EN3
_FR4 = _EN4
_PUNCT_STRIP = re.compile(f"[^{ALNUM}]")
_WHITE = re.compile("[ \u2000-\u200a\u202f\u205f\u3000\u00a0]+")
_NBP_ALPHA = re.compile(f"[{ALPHA}]")
_TOKEN_SPLIT = re.compile("[ \t\n\r\x0c]+")

NBP_ANY, NBP_NUM_ONLY = 1, 2


def java_tokens(line: str) -> list[str]:
    """Words as Java's ``StringTokenizer`` gives them (delimiters: space, tab, newline, CR, form feed)."""
    return [w for w in _TOKEN_SPLIT.split(line) if w]


def java_trim(s: str) -> str:
    """Java's ``String.trim``: drops characters up to U+0020 at both ends."""
    i, j = 0, len(s)
    while i < j and s[i] <= " ":
        i += 1
    while j > i and s[j - 1] <= " ":
        j -= 1
    return s[i:j]


def parse_prefixes(text: str) -> dict[str, int]:
    """A non-breaking prefix list (``nonbreaking/<language>.prefixes``) as the jar reads it."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        tok = java_tokens(line)
        if not tok or tok[0].startswith("#"):
            continue
        out[tok[0]] = NBP_NUM_ONLY if len(tok) > 1 and tok[1] == "#NUMERIC_ONLY#" else NBP_ANY
    return out


def _unescape_dots(s: str) -> str:
    while "DOTDOTMULTI" in s:
        s = s.replace("DOTDOTMULTI", "DOTMULTI.")
    return s.replace("DOTMULTI", ".")


def _escape_dots(s: str) -> str:
    s = _MULTI_DOT.sub(r" DOTMULTI\1", s)
    while "DOTMULTI." in s:
        s = _MULTI_DOT2.sub(r"DOTDOTMULTI \1", s)
        s = s.replace("DOTMULTI.", "DOTDOTMULTI")
    return s


def _commas_quotes_dashes(s: str) -> str:
    s = _COMMA1.sub(r"\1 , \2", s)
    s = _COMMA2.sub(r"\1 , \2", s)
    s = _COMMA3.sub(r"\1 , \2", s)
    s = _QUOTE1.sub("'", s)
    s = _QUOTE2.sub(' " ', s)
    return s.replace("\u2013", "-").replace("--", "-")


def _apostrophes(s: str, code: str) -> str:
    if code == "en":
        s = _EN1.sub(r"\1 ' \2", s)
        s = _EN2.sub(r"\1 ' \2", s)
        s = _EN3.sub(r"\1 ' \2", s)
        s = _EN4.sub(r"\1 '\2", s)
        return _EN5.sub(r"\1 '\2", s)
    if code == "fr":
        s = _FR1.sub(r"\1 ' \2", s)
        s = _FR2.sub(r"\1 ' \2", s)
        s = _FR3.sub(r"\1 ' \2", s)
        return _FR4.sub(r"\1' \2", s)
    return s.replace("'", " ' ")


def _split_dots(words: list[str], nbp: dict[str, int]) -> str:
    out = []
    for i, w in enumerate(words):
        if len(w) > 1 and w.endswith("."):
            pre = w[:-1]
            kind = nbp.get(pre)
            nxt = words[i + 1] if i < len(words) - 1 else None
            if "." in pre and _NBP_ALPHA.search(pre):
                out.append(w.replace(".", ""))  # U.S. -> US
            elif kind == NBP_ANY or (nxt is not None and "a" <= nxt[0] <= "z"):
                out.append(w)
            elif kind == NBP_NUM_ONLY and nxt is not None and "0" <= nxt[0] <= "9":
                out.append(w)
            else:
                out.append(pre + " .")
        else:
            out.append(w)
        out.append(" ")
    return "".join(out)


def normalize_western(line: str, code: str, nbp: dict[str, int], keep_punct: bool) -> str:
    s = _SEP_OTHER.sub(r" \1 ", " " + line + " ")
    s = _escape_dots(s)
    s = _commas_quotes_dashes(s)
    s = _RM_DASH.sub(r"\1 \2", s)
    s = _apostrophes(s, code)
    s = _unescape_dots(_split_dots(java_tokens(s), nbp))
    if not keep_punct:
        s = _PUNCT_STRIP.sub(" ", s)
    return java_trim(_WHITE.sub(" ", s))


#: languages the jar can normalize (it refuses ``-norm`` for the others: their input must be pre-processed)
NORMALIZABLE = ("en", "cz", "fr", "es", "de", "ru")


def normalizer(code: str, nbp: dict[str, int], keep_punct: bool):
    """The line normalizer for language ``code`` (one of :data:`NORMALIZABLE`)."""
    return lambda line: normalize_western(line, code, nbp, keep_punct)
