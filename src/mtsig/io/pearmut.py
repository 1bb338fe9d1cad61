"""Pearmut's annotation logs (the human evaluation of WMT26): every screen an annotator submitted, in time order.

Two layouts are read: the ``annotations.json`` Pearmut's dashboard downloads (``{campaign id: [line, ...]}``, WMT26's
``humeval/data/annotations.json``) and one campaign's own log (``data/annotations/CAMPAIGN.jsonl``, one line per
JSON object; the campaign is the file's name). A line is one screen: ``user_id``, ``item_i``, ``item`` (the
document's segments, each with its ``item_id`` ``DOMAIN_###_DOC_###_SEG``), ``annotation`` (per segment
``{model: {"score": ..., "spans": ...}}``) and timed ``actions``; or ``{"user_id", "annotation": "__RESET__"}``.

Which lines count is WMT26's rule (``humeval/02-analyze_results.py``): a ``__RESET__`` empties the whole language
pair (``reset="campaign"``), attention checks (items without an ``item_id``, or ids ``attention_check_*``) and
tutorial items (``_#_tutorial_#_`` in the id) are left out. ``reset="annotator"`` is Pearmut's own rule: a reset
masks only its annotator's earlier lines. A segment's score is the mean of its annotations (as WMT26 averages
them); its document is the item id without the segment number, its domain the id's first part."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from mtsig.errors import InputError
from mtsig.io.text import split_lines

RESET = "__RESET__"
RESETS = ("campaign", "annotator")
#: ISO 639-3 codes of Pearmut's campaign keys and the two-letter codes WMT's pairs are written with
_TWO_LETTER = {"eng": "en", "ces": "cs", "deu": "de", "jpn": "ja", "zho": "zh", "rus": "ru", "ukr": "uk", "kor": "ko",
               "tha": "th", "isl": "is", "ind": "id", "hye": "hy", "bel": "be", "kaz": "kk", "ekk": "et", "est": "et",
               "sme": "se", "vie": "vi", "fra": "fr", "spa": "es", "ita": "it", "por": "pt", "pol": "pl", "ara": "ar",
               "heb": "he", "hin": "hi", "ben": "bn", "tur": "tr", "nld": "nl", "swe": "sv", "fin": "fi", "hun": "hu",
               "ron": "ro", "bul": "bg", "srp": "sr", "hrv": "hr", "slk": "sk", "slv": "sl", "lit": "lt", "lav": "lv",
               "ell": "el", "mar": "mr", "tam": "ta", "tel": "te", "swh": "sw", "fas": "fa", "pes": "fa"}  # fmt: skip


@dataclass(frozen=True)
class Screen:
    """One kept screen: its line in the campaign's log (1-based), the annotator, the document and the models
    whose scores it gave."""

    line: int
    user: str
    doc: str
    models: tuple[str, ...]


def looks_like_pearmut(first_line: str) -> bool:
    """A campaign's log line, or an ``annotations.json`` on one line (a campaign key such as
    ``"eng_Latn---ces_Latn v3": [`` first). A pretty-printed ``annotations.json`` (``{`` alone on its first line,
    as any JSON object) needs ``input_format="pearmut"``."""
    s = first_line.lstrip()
    if not s.startswith("{"):
        return False
    return '"annotation"' in s or '"item_i"' in s or '"user_id"' in s or \
        re.match(r'\{\s*"[^"]*---[^"]*"\s*:\s*\[', s) is not None  # fmt: skip


def _campaigns(path: str, text: str) -> dict[str, list[tuple[int, object]]]:
    """Campaign id -> its lines (with their position: the line of a .jsonl file, the index in a JSON list)."""
    s = text.lstrip()
    whole = None
    if s.startswith("{"):
        try:
            whole = json.loads(text)
        except ValueError:
            whole = None
    if isinstance(whole, dict) and whole and all(isinstance(v, list) for v in whole.values()):
        return {str(k): list(enumerate(v, start=1)) for k, v in whole.items()}
    if isinstance(whole, dict) and ("annotation" in whole or "user_id" in whole):  # a one-line campaign log
        whole = None
    if whole is not None and not (isinstance(whole, dict) and ("annotation" in whole or "user_id" in whole)):
        raise InputError(f"{path}: a JSON object that is not Pearmut's annotations.json ({{campaign id: [line, ...]}})")
    from mtsig.io.text import json_line

    name = re.sub(r"\.jsonl?$", "", path.replace("\\", "/").rsplit("/", 1)[-1])
    return {name: [(i, json_line(path, i, ln)) for i, ln in enumerate(split_lines(text), start=1) if ln.strip()]}


def _lp_of(key: str) -> str | None:
    """``eng_Latn---ces_Latn v3`` -> ``en-cs`` (None when a code is not known)."""
    base = key.split(" ", 1)[0]
    parts = base.split("---")
    if len(parts) != 2:
        return None
    codes = [_TWO_LETTER.get(p.split("_", 1)[0]) for p in parts]
    return None if None in codes else f"{codes[0]}-{codes[1]}"


def pick_campaign(keys: Sequence[str], lp: str | None, where: str) -> str:
    """The campaign that ``lp`` names: its key, the key without its version suffix (``eng_Latn---ces_Latn``) or the
    language pair in two-letter codes (``en-cs``); the only campaign when ``lp`` is None."""
    keys = list(keys)
    if lp is None:
        if len(keys) == 1:
            return keys[0]
        raise InputError(f"{where}: {len(keys)} campaigns ({', '.join(keys)}): pick one with --lp (its key, the key "
                         "without its version, or the pair as en-cs)", param="lp")  # fmt: skip
    for match in (lambda k: k == lp, lambda k: k.split(" ", 1)[0] == lp, lambda k: _lp_of(k) == lp):
        found = [k for k in keys if match(k)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise InputError(f"{where}: --lp {lp} names {len(found)} campaigns ({', '.join(found)}): give the whole "
                             "key", param="lp")  # fmt: skip
    raise InputError(f"{where}: no campaign {lp!r}; the log has {', '.join(keys) or 'none'}", param="lp")


def _kind(item: object) -> str:
    """``regular``, ``attention`` or ``tutorial`` (WMT26's rules on the first segment's id)."""
    first = item[0] if isinstance(item, list) and item else None
    if not isinstance(first, dict) or "item_id" not in first:
        return "attention"
    iid = str(first["item_id"])
    if iid.startswith("attention_check_"):
        return "attention"
    if "_#_tutorial_#_" in iid:
        return "tutorial"
    return "regular"


def _active(raw: list[tuple[int, object]], reset: str, path: str, key: str) -> tuple[list[tuple[int, dict]], dict]:
    """The lines a reset leaves, and what was dropped."""
    lines: list[tuple[int, dict]] = []
    for i, rec in raw:
        if not isinstance(rec, dict):
            raise InputError(f"{path}: campaign {key}, line {i}: expected a JSON object (a screen), got "
                             f"{type(rec).__name__}")  # fmt: skip
        lines.append((i, rec))
    dropped = {"reset": 0, "resets": 0}
    if reset == "campaign":
        out: list[tuple[int, dict]] = []
        for i, rec in lines:
            if rec.get("annotation") == RESET:
                dropped["reset"] += len(out)
                dropped["resets"] += 1
                out = []
            else:
                out.append((i, rec))
        return out, dropped
    last: dict[object, int] = {}
    for n, (_, rec) in enumerate(lines):
        if rec.get("annotation") == RESET:
            last[rec.get("user_id")] = n
            dropped["resets"] += 1
    out = []
    for n, (i, rec) in enumerate(lines):
        if rec.get("annotation") == RESET:
            continue
        if n <= last.get(rec.get("user_id"), -1):
            dropped["reset"] += 1
            continue
        out.append((i, rec))
    return out, dropped


def _score(x: object, path: str, where: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise InputError(f"{path}: {where}: score {json.dumps(x)} is not a finite number")
    return float(x)


def _screen(rec: dict, path: str, where: str, kinds: dict, pair: str, out: list) -> Screen | None:
    """One regular screen's judgments (appended to ``out``, each as the fields of a
    :class:`~mtsig.io.human.Judgment`) and the screen itself (None when it scored nothing)."""
    item, ann = rec.get("item"), rec.get("annotation")
    if not isinstance(ann, list) or len(ann) != len(item):  # type: ignore[arg-type]
        raise InputError(f"{path}: {where}: 'annotation' must be a list of one entry per segment of 'item' "
                         f"({len(item)} segments)")  # type: ignore[arg-type] # fmt: skip
    user = str(rec.get("user_id", ""))
    doc = None
    models: dict[str, None] = {}
    for seg, a in zip(item, ann):  # type: ignore[arg-type]
        if not isinstance(seg, dict) or not isinstance(seg.get("item_id"), str) or "_###_" not in seg["item_id"]:
            raise InputError(f"{path}: {where}: a segment without an item_id DOMAIN_###_DOC_###_SEG")
        iid = seg["item_id"]
        d = iid.rsplit("_###_", 1)[0]
        if doc is not None and d != doc:
            raise InputError(f"{path}: {where}: one screen holds segments of documents {doc!r} and {d!r}")
        doc = d
        if a is None:  # a skipped segment (WMT26's script would stop on it)
            kinds["skipped"] += 1
            continue
        if not isinstance(a, dict):
            raise InputError(f'{path}: {where}: segment {iid}: expected {{model: {{"score": ...}}}}')
        for model, obj in a.items():
            score = obj.get("score") if isinstance(obj, dict) else None
            if score is None:
                kinds["unscored"] += 1
                continue
            x = _score(score, path, f"{where}, segment {iid}, model {model}")
            out.append({"system": str(model), "segment": iid, "score": x, "annotator": user, "doc": d,
                        "domain": iid.split("_###_", 1)[0], "lp": pair})  # fmt: skip
            models.setdefault(str(model))
    return Screen(line=int(rec.get("__line__", 0)), user=user, doc=doc, models=tuple(models)) \
        if doc is not None and models else None  # fmt: skip


def read_pearmut(path: str, text: str, lp: str | None, reset: str = "campaign"):
    """The judgments of one campaign (``lp``) with WMT26's rules (see the module's docstring); returns the
    judgments (each the fields of a :class:`~mtsig.io.human.Judgment`), notes, the kept screens in log order and the
    campaign's key."""
    if reset not in RESETS:
        from mtsig.errors import unknown_name

        raise unknown_name("reset rule", reset, RESETS)
    camps = _campaigns(path, text)
    key = pick_campaign(list(camps), lp, path)
    lines, dropped = _active(camps[key], reset, path, key)
    kinds = {"attention": 0, "tutorial": 0, "skipped": 0, "unscored": 0}
    out: list = []
    screens: list[Screen] = []
    pair = _lp_of(key) or key.split(" ", 1)[0]
    for i, rec in lines:
        kind = _kind(rec.get("item"))
        if kind != "regular":
            kinds[kind] += 1
            continue
        sc = _screen({**rec, "__line__": i}, path, f"campaign {key}, line {i}", kinds, pair, out)
        if sc is not None:
            screens.append(sc)
    if not out:
        raise InputError(f"{path}: campaign {key}: no scored annotation after the resets, attention checks and "
                         "tutorial items")  # fmt: skip
    return out, _notes(path, key, reset, len(screens), dropped, kinds), tuple(screens), key


def _notes(path: str, key: str, reset: str, n: int, dropped: dict, kinds: dict) -> list[str]:
    notes = [f"{path}: Pearmut campaign {key!r}: {n} screens kept in log order"]
    if dropped["resets"]:
        rule = "each empties the whole campaign, as WMT26's script does" if reset == "campaign" else \
            "each masks its annotator's earlier lines, as Pearmut does"  # fmt: skip
        notes.append(f"{dropped['resets']} __RESET__ line(s) ({rule}): {dropped['reset']} line(s) before them left out")
    left = [f"{n} {w}" for w, n in (("attention-check screen(s)", kinds["attention"]),
                                    ("tutorial screen(s)", kinds["tutorial"]),
                                    ("skipped segment(s)", kinds["skipped"]),
                                    ("annotation(s) without a score", kinds["unscored"])) if n]  # fmt: skip
    if left:
        notes.append("left out as WMT26's humeval/02-analyze_results.py leaves them out: " + ", ".join(left))
    return notes
