"""Tokenizers and case handling.

Two families:

``mteval-13a`` and ``mteval-intl``
    The NIST scorer's own normalization (mteval-v13a.pl, default and ``--international-tokenization``),
    re-implemented for exact parity, including its quirks: the text is treated as the scorer treats a
    segment read from SGML (all whitespace collapses to one space first), entities ``&quot; &amp; &lt;
    &gt;`` (and ``&apos;`` for intl) are replaced, and lowercasing in 13a maps only ASCII A-Z (a German
    "Ü" stays "Ü"), as the scorer's ``tr/A-Z/a-z/`` does; ``mteval-intl`` lowercases every character (Perl's
    ``lc``, character by character, with no final-sigma rule). Whitespace means Perl's ``\\s``.

``13a``, ``intl``, ``zh``, ``char``, ``none`` (and sacreBLEU's other tokenizers when installed)
    sacreBLEU's tokenizers, called as sacreBLEU's BLEU calls them: optional full-Unicode ``str.lower()``,
    ``rstrip()``, tokenize, split on whitespace. ``13a`` alone runs through :func:`sacrebleu_13a`, the
    same rules with the context-free first rule done by ``str.translate`` (about 3x faster; a test
    checks it token for token against sacreBLEU's own tokenizer). ``none`` therefore only splits on whitespace, which is
    what MultEval does with pre-tokenized text.

The default is ``13a`` with case preserved: sacreBLEU's convention and what papers report today.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mtsig._compiled import load
from mtsig.errors import unknown_name
from mtsig.io.segments import Segments

# the 13a rules compiled (setup.py builds it; optional: the regular expressions below are the reference)
_tok = load("_tok")

DEFAULT_TOKENIZER = "13a"
MTEVAL_TOKENIZERS = ("mteval-13a", "mteval-intl")
#: tokenizers done here, without importing sacreBLEU ("none" is its name for a plain whitespace split)
_OURS = ("13a", "none", "multeval", *MTEVAL_TOKENIZERS)
#: "multeval": pre-tokenized text split on ASCII whitespace only, as MultEval (Java's \s) and the Perl scorers on
#: bytes split it: U+00A0 and the other Unicode spaces stay inside tokens (sacreBLEU's "none", str.split, splits
#: on them, so "none" and MultEval differ on text that has them)
_ASCII_WS_RUN = re.compile("[ \t\n\x0b\x0c\r]+")


def multeval_split(text: str) -> list[str]:
    """Tokens of pre-tokenized text split on ASCII whitespace only (MultEval's split)."""
    return [t for t in _ASCII_WS_RUN.split(text) if t]


# Perl's \s on character strings (Unicode rules); Python's str.split() also splits on \x1c-\x1f.
_PERL_WS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_PERL_WS_RUN = re.compile(f"[{_PERL_WS}]+")

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

# mteval-v13a `tokenization` (the default, "language-dependent" rules). Its first rule,
# s/([\{-\~\[-\` -\&\(-\+\:-\@\/])/ $1 /g, pads single characters with no context, so one
# str.translate does it exactly, in C (sacreBLEU runs it as a regex with a Python-level template per match,
# the slowest part of its BLEU). The remaining rules depend on context and stay regexes.
_13A_PAD = {
    c: f" {chr(c)} "
    for lo, hi in (("{", "~"), ("[", "`"), (" ", "&"), ("(", "+"), (":", "@"), ("/", "/"))
    for c in range(ord(lo), ord(hi) + 1)
    if c != ord(" ")  # padding a space with spaces only changes the amount of whitespace, never the tokens
}
_13A_RULES = [
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),  # period/comma unless preceded by a digit
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),  # period/comma unless followed by a digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),  # dash preceded by a digit
]


def _intl_patterns():
    """mteval-v13a `tokenization_international` patterns (the regex module for Unicode properties)."""
    global _INTL
    if _INTL is None:
        import regex

        _INTL = (
            regex.compile(r"\p{Hyphen}\p{Zl}"),
            regex.compile(r"\p{Zl}"),
            [
                (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
                (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
                (regex.compile(r"(\p{S})"), r" \1 "),
            ],
            regex.compile(r"\p{Z}+"),
        )
    return _INTL


_INTL = None


def _mteval_entities(text: str, apos: bool) -> str:
    if "&" in text:
        text = text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        if apos:
            text = text.replace("&apos;", "'")
    return text


def _split_perl(text: str) -> list[str]:
    return [t for t in _PERL_WS_RUN.split(text) if t]


def mteval_13a(text: str, lowercase: bool) -> list[str]:
    """Tokens of ``text`` exactly as mteval-v13a's default normalization produces them."""
    text = _PERL_WS_RUN.sub(" ", text)  # the scorer collapses whitespace when it reads a document
    text = text.replace("<skipped>", "")
    text = text.replace("-\n", "").replace("\n", " ")
    text = _mteval_entities(text, apos=False)
    if lowercase:
        text = text.translate(_ASCII_LOWER)
    return _split_perl(_13a_rules(f" {text} "))


def _13a_rules(text: str) -> str:
    text = text.translate(_13A_PAD)
    for pat, rep in _13A_RULES:
        text = pat.sub(rep, text)
    return text


def sacrebleu_13a(line: str) -> list[str]:
    """sacreBLEU's ``13a`` tokens, token for token (tested against sacreBLEU), with rule 1 done by translate."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    line = _mteval_entities(line, apos=False)
    return _13a_rules(f" {line} ").split()


def mteval_intl(text: str, lowercase: bool) -> list[str]:
    """Tokens of ``text`` as mteval-v13a's ``--international-tokenization`` produces them."""
    hyphen_zl, zl, rules, z_run = _intl_patterns()
    text = _PERL_WS_RUN.sub(" ", text)
    text = text.replace("<skipped>", "")
    text = hyphen_zl.sub("", text)
    text = zl.sub(" ", text)
    text = _mteval_entities(text, apos=True)
    if lowercase:
        text = "".join(ch.lower() for ch in text)  # Perl lc: per character, no final-sigma context
    for pat, rep in rules:
        text = pat.sub(rep, text)
    text = z_run.sub(" ", text)
    return _split_perl(text)


def _sacrebleu_tokenizer_names() -> list[str]:
    from sacrebleu.metrics import bleu as sb_bleu

    return list(sb_bleu._TOKENIZERS)


def _sacrebleu_tokenizer(name: str) -> Callable[[str], str]:
    import importlib

    from sacrebleu.metrics import bleu as sb_bleu

    spec = sb_bleu._TOKENIZERS[name]
    module_name, class_name = spec.rsplit(".", 1)
    module = importlib.import_module(f"sacrebleu.tokenizers.{module_name}")
    return getattr(module, class_name)()


#: what sacreBLEU's optional tokenizers need
_EXTRAS = {
    "ja-mecab": "pip install 'sacrebleu[ja]'",
    "ko-mecab": "pip install 'sacrebleu[ko]'",
    "spm": "pip install sentencepiece (and the model, which sacreBLEU downloads on first use)",
    "flores101": "pip install sentencepiece (and the model, which sacreBLEU downloads on first use)",
    "flores200": "pip install sentencepiece (and the model, which sacreBLEU downloads on first use)",
}


def _load_sacrebleu_tokenizer(name: str) -> Callable[[str], str]:
    """sacreBLEU's tokenizer ``name``; a missing package or model is one clear error (sacreBLEU's own
    messages, printed or raised, are kept out of the way)."""
    import contextlib
    import io

    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return _sacrebleu_tokenizer(name)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - ImportError, RuntimeError, download errors, exit()
        from mtsig.errors import InputError

        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        need = _EXTRAS.get(name, "an optional package")
        raise InputError(f"tokenizer {name!r} could not be set up ({detail}); it needs {need}") from None


def available_tokenizers() -> list[str]:
    return [*MTEVAL_TOKENIZERS, "multeval", *_sacrebleu_tokenizer_names()]


@dataclass(frozen=True)
class Tokenizer:
    """A named tokenizer plus case handling; ``tokenize_all`` memoizes on the :class:`Segments`."""

    name: str = DEFAULT_TOKENIZER
    lowercase: bool = False

    def __post_init__(self):
        if self.name in _OURS:
            return  # ours: no need to import sacreBLEU (saves 60-150 ms of start-up)
        known = available_tokenizers()
        if self.name not in known:
            raise unknown_name("tokenizer", self.name, known)

    @property
    def key(self) -> tuple[str, bool]:
        return (self.name, self.lowercase)

    @property
    def signature(self) -> str:
        return f"tok:{self.name}|case:{'lc' if self.lowercase else 'mixed'}"

    def function(self) -> Callable[[str], list[str]]:
        lc = self.lowercase
        if self.name == "mteval-13a":
            return lambda s: mteval_13a(s, lc)
        if self.name == "mteval-intl":
            return lambda s: mteval_intl(s, lc)
        if self.name == "13a":
            if lc:
                return lambda s: sacrebleu_13a(s.lower().rstrip())
            return lambda s: sacrebleu_13a(s.rstrip())
        if self.name == "none":  # sacreBLEU's "none" returns the line as it is: only the split remains
            return (lambda s: s.lower().split()) if lc else str.split
        if self.name == "multeval":
            return (lambda s: multeval_split(s.lower())) if lc else multeval_split
        tok = _load_sacrebleu_tokenizer(self.name)
        if lc:
            return lambda s: tok(s.lower().rstrip()).split()
        return lambda s: tok(s.rstrip()).split()

    def __call__(self, text: str) -> list[str]:
        return self.function()(text)

    def tokenize_all(self, segments: Segments) -> list[list[str]]:
        def make():
            if self.name in ("13a", "mteval-13a"):
                return _batch_13a(segments.lines, self.name == "mteval-13a", self.lowercase)
            if self.name == "none" and _tok is not None:  # str.split of each line, in C
                return _tok.rules_13a([s.lower() for s in segments.lines] if self.lowercase else segments.lines,
                                      False, False)  # fmt: skip
            f = self.function()
            return [f(s) for s in segments.lines]

        return segments.memo(("tokens", self.key), make)


_PERL_WS_NO_NL = re.compile(f"[{_PERL_WS.replace(chr(10), '')}]+")
# whitespace other than a single space between words: what the substitution above changes (searching for it
# is one scan; substituting every single space between words costs a match each)
_PERL_WS_NOT_SPACE = re.compile(f"[{_PERL_WS.replace(chr(10), '').replace(' ', '')}]")
_PY_ONLY_WS = re.compile("[\x1c-\x1f]")


def _batch_13a(lines: list[str], mteval: bool, lowercase: bool) -> list[list[str]]:
    """13a / mteval-13a tokens of many lines at once, identical to the per-line functions.

    The rules are local: the first pads single characters, the other three look at two adjacent
    characters around a period, comma or dash and use whitespace only as "not a digit", on one side of
    a match at most. So they give the same tokens when run on each whitespace-separated word on its own
    (padded with spaces): words of letters and digits only pass through untouched, and a repeated word
    reuses its result. Tests check these tokens against
    the per-line functions and against sacreBLEU's tokenizer, on real data and generated text.
    """
    if not lines:
        return []
    joined = "\n".join(lines)
    if joined.count("\n") != len(lines) - 1:  # a line holding "\n": never from our readers; exact semantics
        f = (lambda x: mteval_13a(x, lowercase)) if mteval else Tokenizer("13a", lowercase).function()
        return [f(ln) for ln in lines]
    if mteval:
        text = joined
        if "  " in text or _PERL_WS_NOT_SPACE.search(text):
            text = _PERL_WS_NO_NL.sub(" ", text)
        text = text.replace("<skipped>", "")
        text = _mteval_entities(text, apos=False)
        if lowercase:
            text = text.translate(_ASCII_LOWER)
    else:
        text = "\n".join([ln.lower().rstrip() for ln in lines] if lowercase else [ln.rstrip() for ln in lines])
        text = text.replace("<skipped>", "")
        text = _mteval_entities(text, apos=False)
    if _tok is not None:
        return _tok.rules_13a(text.split("\n"), mteval)
    return _rules_by_word(text, _split_perl if mteval and _PY_ONLY_WS.search(text) else str.split)


def _rules_by_word(text: str, split: Callable[[str], list[str]]) -> list[list[str]]:
    """The 13a rules on each whitespace-separated word of each line of ``text`` (a repeated word reuses its
    result): what the compiled ``mtsig._tok.rules_13a`` does, for installs without a C compiler."""
    memo: dict[str, list[str]] = {}
    out = []
    for line in text.split("\n"):
        toks: list[str] = []
        for w in split(line):
            if w.isalnum():  # letters and digits only: no rule applies
                toks.append(w)
                continue
            r = memo.get(w)
            if r is None:
                r = memo[w] = split(_13a_rules(f" {w} "))
            toks.extend(r)
        out.append(toks)
    return out


def code_words(token_lists: Sequence[Sequence[str]], vocab: dict[str, int], grow: bool):
    """Ids of all tokens of ``token_lists`` in ``vocab`` (int64, flat) and the length of each list.

    ``grow``: an unseen token gets the next id (``len(vocab)``) and is added; otherwise it is -1.
    Compiled in ``mtsig._tok`` when available (same ids).
    """
    import numpy as np

    if _tok is not None:
        ids, lens = _tok.code_words(token_lists, vocab, grow)
        return np.frombuffer(ids, dtype=np.int64), np.frombuffer(lens, dtype=np.int64)
    lens = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    if grow:
        get = vocab.setdefault
        it = (get(w, len(vocab)) for toks in token_lists for w in toks)
    else:
        get = vocab.get
        it = (get(w, -1) for toks in token_lists for w in toks)
    return np.fromiter(it, dtype=np.int64, count=int(lens.sum())), lens
