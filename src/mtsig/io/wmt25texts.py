"""WMT25's general-MT release (``wmt25-general-mt/data``): the test set and the system outputs as texts.

- ``wmt25-genmt.jsonl``: one JSON object per document: ``doc_id`` (``en-cs_CZ_#_DOMAIN_#_DOCUMENT``), ``domain``,
  ``src_lang`` (``en``), ``tgt_lang`` (``cs_CZ``), ``src_text`` and ``refs`` (``{"refA": {"ref": text}}``, ``{}``
  where the pair has no reference);
- ``systems/<SYSTEM>.jsonl``: one JSON object per document a system translated: ``doc_id`` and ``hypothesis``.

A document's texts are split into paragraphs at ``"\\n\\n"``, the units WMT25 judged and scored (its
``humeval/01-prepare_waves.py`` splits them so and requires every system to give as many paragraphs as the source
has). Each paragraph is one segment; its document (``DOMAIN_#_DOCUMENT``) and domain are the units to resample.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from mtsig.errors import InputError
from mtsig.io.text import json_line, read_text, split_lines
from mtsig.io.wmt25scores import same_pair

TEST_SET = "wmt25-genmt.jsonl"
_DOC_FIELDS = ("doc_id", "domain", "src_lang", "tgt_lang", "src_text", "refs")


def release_root(path: str) -> str:
    """The folder holding ``wmt25-genmt.jsonl``: ``path`` itself or its ``data`` folder (the repository's root)."""
    for d in (path, os.path.join(path, "data")):
        if os.path.isfile(os.path.join(d, TEST_SET)):
            return d
    if not os.path.isdir(path):
        raise InputError(f"{path}: no such folder (WMT25's general-MT data: wmt25-general-mt/data)", param="wmt25")
    raise InputError(f"{path}: no {TEST_SET} in it or in its data/ folder (WMT25's general-MT data holds the test set "
                     "there, and the outputs in systems/)", param="wmt25")  # fmt: skip


def _documents(path: str, lp: str | None) -> tuple[str, list[dict]]:
    """The documents of one language pair (``en-cs_CZ``, or ``en-cs`` when only one locale has it), in file order."""
    docs: dict[str, list[dict]] = {}
    for i, ln in enumerate(split_lines(read_text(path)), start=1):
        rec = json_line(path, i, ln)
        if not isinstance(rec, dict) or any(f not in rec for f in _DOC_FIELDS):
            raise InputError(f"{path}: line {i}: expected a WMT25 test-set document ({', '.join(_DOC_FIELDS)})")
        if not isinstance(rec["src_text"], str) or not isinstance(rec["refs"], dict):
            raise InputError(f"{path}: line {i}: src_text is not a text or refs not an object")
        docs.setdefault(f"{rec['src_lang']}-{rec['tgt_lang']}", []).append(rec)
    pairs = sorted(docs)
    if lp is None:
        raise InputError(f"{path}: give the language pair (-l; one of {', '.join(pairs)})", param="langpair")
    if lp not in docs:
        near = same_pair(lp, pairs)
        if len(near) != 1:
            held = ", ".join(pairs)
            what = f"is {' or '.join(near)}: give the whole name" if near else f"is not in it; it has {held}"
            raise InputError(f"{path}: language pair {lp} {what}", param="langpair")
        lp = near[0]
    seen: set[str] = set()
    for rec in docs[lp]:
        if rec["doc_id"] in seen:
            raise InputError(f"{path}: document {rec['doc_id']} appears twice")
        seen.add(rec["doc_id"])
    return lp, docs[lp]


def _outputs(path: str, wanted: set[str]) -> dict[str, str]:
    """A system file's hypothesis of each document of ``wanted``."""
    out: dict[str, str] = {}
    for i, ln in enumerate(split_lines(read_text(path)), start=1):
        rec = json_line(path, i, ln)
        if not isinstance(rec, dict) or not isinstance(rec.get("doc_id"), str) or not isinstance(
                rec.get("hypothesis"), str):  # fmt: skip
            raise InputError(f'{path}: line {i}: expected {{"doc_id": ..., "hypothesis": text}} (a WMT25 output)')
        if rec["doc_id"] in wanted:
            if rec["doc_id"] in out:
                raise InputError(f"{path}: line {i}: document {rec['doc_id']} appears twice")
            out[rec["doc_id"]] = rec["hypothesis"]
    return out


def wmt25_texts(path: str, lp: str | None, refs: Sequence[str] | None = None, *, systems: Sequence[str] | None = None,
                allow_empty: bool = False):  # fmt: skip
    """The references (``refs``, default ``refA``) of one language pair as a :class:`~mtsig.io.segments.RefSet`, one
    segment per paragraph with its document and domain, and ``{system: paragraphs}`` of every system that translated
    the pair (or of ``systems``; ``[]``: none). A system that lacks documents of the pair, or whose document has
    another number of paragraphs than its source, is an error naming both."""
    from mtsig.io.segments import RefSet, Segments

    root = release_root(path)
    lp, docs = _documents(os.path.join(root, TEST_SET), lp)
    names = list(refs) if refs else ["refA"]
    where = os.path.join(root, TEST_SET)
    have = sorted({r for d in docs for r in d["refs"]})
    missing = [r for r in names if r not in have]
    if missing:
        why = f"it has {', '.join(have)}" if have else "WMT25 has no reference for it; --wmt25-scores has its QE scores"
        raise InputError(f"{where}: no reference {missing[0]} of {lp} ({why})", param="ref_translator")
    paragraphs, document, domain = [], [], []
    for d in docs:
        src = d["src_text"].split("\n\n")
        paragraphs.append(len(src))
        document += [f"{d['domain']}_#_{d['doc_id'].split('_#_')[-1]}"] * len(src)
        domain += [str(d["domain"])] * len(src)
    ref_lines: dict[str, list] = {r: [] for r in names}
    for d, n in zip(docs, paragraphs):
        for r in names:
            got = d["refs"].get(r)
            text = got.get("ref") if isinstance(got, dict) else None
            if not isinstance(text, str):
                raise InputError(f"{where}: document {d['doc_id']} has no {r} text")
            parts = text.split("\n\n")
            if len(parts) != n:
                raise InputError(f"{where}: {r} of document {d['doc_id']} has {len(parts)} paragraphs, its source {n}")
            empty = next((j for j, x in enumerate(parts) if not x.strip()), None)
            if empty is not None and not allow_empty:
                raise InputError(f"{where}: {r} of document {d['doc_id']}, paragraph {empty}, is empty (an empty "
                                 "reference can match nothing; pass allow_empty_refs to keep it)",
                                 param="allow_empty_refs")  # fmt: skip
            ref_lines[r] += parts
    source = Segments([p for d in docs for p in d["src_text"].split("\n\n")], name="source", source=where)
    rs = RefSet([Segments(ref_lines[r], name=r, source=where) for r in names], source=source)
    rs.units["document"] = document
    rs.units["domain"] = domain
    return rs, _systems(root, lp, docs, paragraphs, systems)


def _systems(root: str, lp: str, docs: list[dict], paragraphs: list[int], names: Sequence[str] | None) -> dict:
    folder = os.path.join(root, "systems")
    if not os.path.isdir(folder):
        raise InputError(f"{root}: no systems/ folder (WMT25's outputs, one <SYSTEM>.jsonl each)", param="wmt25")
    files = {f[: -len(".jsonl")]: os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".jsonl")}
    if names is not None:  # those (none: only files of one's own are compared)
        unknown = [n for n in names if n not in files]
        if unknown:
            from mtsig.errors import unknown_name

            raise unknown_name(f"system in {folder}", unknown[0], tuple(files))
        files = {n: files[n] for n in names}
    ids = [d["doc_id"] for d in docs]
    out: dict[str, list[str]] = {}
    for name, f in files.items():
        hyp = _outputs(f, set(ids))
        if not hyp and names is None:  # a system of other pairs
            continue
        lacking = [i for i in ids if i not in hyp]
        if lacking:
            raise InputError(f"{f}: {name} has no output of {len(lacking)} of the {len(ids)} documents of {lp} "
                             f"(e.g. {lacking[0]})", param="systems")  # fmt: skip
        lines: list[str] = []
        for i, n in zip(ids, paragraphs):
            parts = hyp[i].split("\n\n")
            if len(parts) != n:
                raise InputError(f"{f}: {name}'s document {i} has {len(parts)} paragraphs, its source {n} (WMT25 "
                                 "requires as many)", param="systems")  # fmt: skip
            lines += parts
        out[name] = lines
    if not out and names is None:
        raise InputError(f"{folder}: no system translated {lp}", param="systems")
    return out
