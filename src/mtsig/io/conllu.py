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
from mtsig.io.text import read_text, split_lines


@dataclass(frozen=True)
class Parse:
    forms: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    text: str

    def __len__(self) -> int:
        return len(self.forms)


def looks_like_conllu(path: str, text: str) -> bool:
    if str(path).lower().endswith((".conllu", ".conll")):
        return True
    for line in text.split("\n", 50)[:50]:
        if line.startswith("#") or not line.strip():
            continue
        cols = line.rstrip("\r").split("\t")
        return len(cols) == 10 and cols[0].replace("-", "").replace(".", "").isdigit() and cols[6].strip() != ""
    return False


def parse_conllu(text: str, name: str) -> list[Parse]:
    out: list[Parse] = []
    forms: list[str] = []
    heads: list[int] = []
    rels: list[str] = []
    sent_text: str | None = None
    start = 0

    def flush(lineno: int) -> None:
        nonlocal forms, heads, rels, sent_text
        if not forms and sent_text is None:
            return
        n = len(forms)
        for k, h in enumerate(heads):
            if h < 0 or h > n:
                raise InputError(f"{name}: sentence ending at line {lineno}: word {k + 1} has head {h}, outside 0..{n}")
        out.append(
            Parse(tuple(forms), tuple(heads), tuple(rels), sent_text if sent_text is not None else " ".join(forms))
        )
        forms, heads, rels, sent_text = [], [], [], None

    lines = split_lines(text)
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            flush(i)
            continue
        if line.startswith("#"):
            if not forms and line[1:].lstrip().startswith("text ="):
                sent_text = line.split("=", 1)[1].strip()
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise InputError(
                f"{name}: line {i}: a CoNLL-U word line has 10 tab-separated columns, this one {len(cols)}"
            )
        wid = cols[0]
        if "-" in wid or "." in wid:
            continue  # multiword token or empty node
        if not wid.isdigit() or int(wid) != len(forms) + 1:
            raise InputError(f"{name}: line {i}: word id {wid!r}, expected {len(forms) + 1}")
        if not cols[6].isdigit():
            raise InputError(f"{name}: line {i}: head {cols[6]!r} is not a number")
        forms.append(cols[1])
        heads.append(int(cols[6]))
        rels.append(cols[7])
        start = i
    flush(start + 1)
    return out


def read_conllu(path: str) -> list[Parse]:
    return parse_conllu(read_text(path), str(path))
