"""CoNLL-U reader (Universal Dependencies): one parsed sentence per segment.

Each sentence becomes a :class:`Parse`: word forms, heads (1-based, 0 for the root) and relations.
Multiword-token lines (``1-2``) and empty nodes (``1.1``) are skipped, as for basic dependencies.
The segment text is the sentence's ``# text =`` comment, or its forms joined by spaces.
Errors name the file and line: wrong number of columns, non-numeric ids or heads, heads pointing
outside the sentence, ids out of order.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtsig.errors import InputError
from mtsig.io.text import looks_like_conllu, read_text, split_lines  # noqa: F401 (looks_like_conllu: here too)


@dataclass(frozen=True)
class Parse:
    forms: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    text: str

    def __len__(self) -> int:
        return len(self.forms)


class _Sentence:
    """The sentence being read: its words, heads, relations and ``# text =`` comment."""

    def __init__(self):
        self.forms: list[str] = []
        self.heads: list[int] = []
        self.rels: list[str] = []
        self.text: str | None = None

    def empty(self) -> bool:
        return not self.forms and self.text is None

    def word(self, cols: list[str], where: str) -> None:
        wid = cols[0]
        if "-" in wid or "." in wid:
            return  # multiword token or empty node
        if not wid.isdigit() or int(wid) != len(self.forms) + 1:
            raise InputError(f"{where}: word id {wid!r}, expected {len(self.forms) + 1}")
        if not cols[6].isdigit():
            raise InputError(f"{where}: head {cols[6]!r} is not a number")
        self.forms.append(cols[1])
        self.heads.append(int(cols[6]))
        self.rels.append(cols[7])

    def parse(self, name: str, lineno: int) -> Parse:
        n = len(self.forms)
        for k, h in enumerate(self.heads):
            if h < 0 or h > n:
                raise InputError(f"{name}: sentence ending at line {lineno}: word {k + 1} has head {h}, outside 0..{n}")
        text = self.text if self.text is not None else " ".join(self.forms)
        return Parse(tuple(self.forms), tuple(self.heads), tuple(self.rels), text)


def parse_conllu(text: str, name: str) -> list[Parse]:
    out: list[Parse] = []
    sent = _Sentence()
    last = 0
    for i, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            if not sent.empty():
                out.append(sent.parse(name, i))
            sent = _Sentence()
        elif line.startswith("#"):
            if not sent.forms and line[1:].lstrip().startswith("text ="):
                sent.text = line.split("=", 1)[1].strip()
        else:
            cols = line.split("\t")
            if len(cols) != 10:
                raise InputError(
                    f"{name}: line {i}: a CoNLL-U word line has 10 tab-separated columns, this one {len(cols)}"
                )
            sent.word(cols, f"{name}: line {i}")
            last = i
    if not sent.empty():
        out.append(sent.parse(name, last + 1))
    return out


def read_conllu(path: str) -> list[Parse]:
    return parse_conllu(read_text(path), str(path))
