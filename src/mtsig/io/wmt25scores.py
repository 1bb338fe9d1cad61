"""WMT25's automatic scores (``wmt25-general-mt/data/automatic_scores/<SYSTEM>.jsonl``).

One file per system, one JSON object per line and document: ``language_pair`` (``en-cs_CZ``), ``domain``,
``document_id`` and ``metric_scores``, ``{METRIC: [score of paragraph 0, paragraph 1, ...]}`` (``null`` where the
metric gave no score: missing). The paragraphs are the
document's ``"\\n\\n"``-separated parts, the units WMT25's human evaluation judged: paragraph ``i`` of a document is
the humeval item ``LP_#_DOMAIN_#_DOCUMENT_#_i``. Every metric is stored higher-is-better (MetricX-24 negated).

The system's name is the file's name without ``.jsonl``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence

from mtsig.errors import InputError
from mtsig.io.text import json_line, read_text, split_lines

#: scores by metric, system and humeval item id
Wmt25Scores = dict[str, dict[str, dict[str, float]]]


def _files(paths: str | Sequence[str]) -> list[str]:
    """The ``.jsonl`` files given, a directory standing for every ``.jsonl`` file in it."""
    out: list[str] = []
    for p in [paths] if isinstance(paths, str) else list(paths):
        if os.path.isdir(p):
            found = sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".jsonl"))
            if not found:
                raise InputError(f"{p}: a directory without .jsonl files (WMT25's data/automatic_scores holds one "
                                 "<SYSTEM>.jsonl per system)")  # fmt: skip
            out += found
        else:
            out.append(p)
    names = [os.path.basename(f)[: -len(".jsonl")] if f.endswith(".jsonl") else os.path.basename(f) for f in out]
    dup = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if dup is not None:
        raise InputError(f"two WMT25 score files of system {dup!r}: give each system once")
    return out


_FIELDS = ("language_pair", "domain", "document_id", "metric_scores")


def _record(path: str, i: int, ln: str) -> dict:
    rec = json_line(path, i, ln)
    if not isinstance(rec, dict) or any(f not in rec for f in _FIELDS) or not isinstance(rec["metric_scores"], dict):
        raise InputError(f"{path}: line {i}: expected WMT25's automatic scores ({', '.join(_FIELDS)})")
    return rec


def _score(x: object, where: str) -> float:
    if x is None:  # the judge gave no score: missing, as mt-metrics-eval's None
        return float("nan")
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise InputError(f"{where} is {json.dumps(x)}, not a finite number")
    return float(x)


def _one_file(path: str, lps: set[str] | None, items: set[str] | None, out: Wmt25Scores, system: str,
              seen: set[str]) -> None:  # fmt: skip
    for i, ln in enumerate(split_lines(read_text(path)), start=1):
        rec = _record(path, i, ln)
        seen.add(str(rec["language_pair"]))
        if lps is not None and rec["language_pair"] not in lps and rec["language_pair"].split("_", 1)[0] not in lps:
            continue
        doc = f"{rec['language_pair']}_#_{rec['domain']}_#_{rec['document_id']}"
        n = None
        for metric, values in rec["metric_scores"].items():
            if not isinstance(values, list):
                raise InputError(f"{path}: line {i}: {metric}'s scores are not a list (one per paragraph)")
            if n is not None and len(values) != n:
                raise InputError(f"{path}: line {i}: {metric} scores {len(values)} paragraphs of {doc}, the other "
                                 f"metrics {n}")  # fmt: skip
            n = len(values)
            got = out.setdefault(str(metric), {}).setdefault(system, {})
            for j, x in enumerate(values):
                item = f"{doc}_#_{j}"
                if items is not None and item not in items:
                    continue
                if item in got:
                    raise InputError(f"{path}: line {i}: document {doc} appears twice")
                got[item] = _score(x, f"{path}: line {i}: {metric}'s score of paragraph {j} of {doc}")


def read_wmt25_scores(paths: str | Sequence[str], *, lps: Sequence[str] | None = None,
                      items: Sequence[str] | None = None) -> Wmt25Scores:  # fmt: skip
    """``{metric: {system: {item id: score}}}`` from WMT25 automatic-score files (or directories of them), only the
    language pairs ``lps`` (``en-cs_CZ``, or ``en-cs`` for each of its locales) and the humeval ``items`` when given.
    Files need not hold the same metrics (WMT25 scored chrF++ only where a reference exists). A paragraph count that
    differs between metrics or a non-number is an error naming the file and line."""
    files = _files(paths)
    lp_set = set(lps) if lps is not None else None
    item_set = set(items) if items is not None else None
    out: Wmt25Scores = {}
    seen: set[str] = set()
    for f in files:
        system = os.path.basename(f)[: -len(".jsonl")] if f.endswith(".jsonl") else os.path.basename(f)
        _one_file(f, lp_set, item_set, out, system, seen)
    out = {m: {k: d for k, d in by.items() if d} for m, by in out.items()}  # only what the filters kept
    out = {m: by for m, by in out.items() if by}
    if not out:
        what = f" of {', '.join(sorted(lp_set))}" if lp_set else ""
        held = f"; it has {', '.join(sorted(seen))}" if lp_set and seen and not item_set else ""
        raise InputError(f"{', '.join(files[:3])}{' ...' if len(files) > 3 else ''}: no scores{what}{held}")
    return out


def segment_scores(scores: Wmt25Scores, items: Sequence[str], metrics: Sequence[str] | None = None,
                   ) -> tuple[dict[str, dict[str, list[float]]], list[str]]:  # fmt: skip
    """Each metric's scores placed on a sequence of humeval items (one per human segment; an item judged in two
    waves appears twice): ``{metric: {system: [score per position]}}`` (NaN where the system's file has no score of
    that item), and notes saying what was missing."""
    names = list(scores) if metrics is None else list(metrics)
    unknown = [m for m in names if m not in scores]
    if unknown:
        from mtsig.errors import unknown_name

        raise unknown_name("WMT25 metric", unknown[0], tuple(scores))
    out: dict[str, dict[str, list[float]]] = {}
    notes = []
    for m in names:
        if not any(math.isfinite(by_item.get(it, math.nan)) for by_item in scores[m].values() for it in items):
            if metrics is not None:
                raise InputError(f"WMT25 metric {m} scores none of the judged items", param="wmt25_metrics")
            notes.append(f"{m}: no score of the judged items (WMT25 scored it on other language pairs): left out")
            continue
        out[m] = {}
        for system, by_item in scores[m].items():
            row = [by_item.get(it, float("nan")) for it in items]
            lost = sum(1 for x in row if math.isnan(x))
            if lost == len(row):
                notes.append(f"{m}: {system}'s file scores none of the judged items: left out")
                continue
            if lost:
                notes.append(f"{m}: {system}'s file has no score (absent or null) of {lost} judged item(s): left out "
                             "there")  # fmt: skip
            out[m][system] = row
    return out, notes


def same_pair(lp: str, pairs: Sequence[str]) -> list[str]:
    """The pairs of ``pairs`` that ``lp`` names: itself (``en-cs_CZ``), or every locale of it (``en-cs``)."""
    return [lp] if lp in pairs else [x for x in pairs if x.split("_", 1)[0] == lp]


def _lp_of(scores: Wmt25Scores, lp: str | None, where: str) -> str:
    """The language pair of the files that ``lp`` names: exactly (``en-cs_CZ``) or without its locale (``en-cs``)
    when that is unambiguous."""
    lps = sorted({it.split("_#_", 1)[0] for by in scores.values() for d in by.values() for it in d})
    if lp is None:
        if len(lps) == 1:
            return lps[0]
        raise InputError(f"{where} holds {len(lps)} language pairs ({', '.join(lps)}): pick one with -l LP",
                         param="langpair")  # fmt: skip
    near = same_pair(lp, lps)
    if len(near) == 1:
        return near[0]
    if near:
        raise InputError(f"-l {lp} is {' or '.join(near)} in {where}: give the whole name", param="langpair")
    raise InputError(f"{where} has no language pair {lp}; it has {', '.join(lps)}", param="langpair")


def wmt25_table(paths: str | Sequence[str], lp: str | None = None, *, metrics: Sequence[str] | None = None,
                systems: Sequence[str] | None = None):  # fmt: skip
    """WMT25's automatic scores of one language pair as a statistics table (:class:`mtsig.table.StatsTable`): one
    row per paragraph (the humeval item), one ``seg`` metric per WMT25 metric named as WMT25 names it, every system
    whose file scores the pair, and each paragraph's document (``DOMAIN_#_DOCUMENT``) and domain as the units to
    resample. ``null`` scores
    are missing (left out of that system's mean). ``lp``: ``en-cs_CZ``, or ``en-cs`` when unambiguous; ``metrics``
    and ``systems`` pick (default: every metric that scores the pair, every system). Returns the table and notes."""

    from mtsig.errors import unknown_name
    from mtsig.metrics import get_metric
    from mtsig.table import StatsTable, SystemInfo

    files = _files(paths)
    where = files[0] if len(files) == 1 else os.path.dirname(files[0]) or files[0]
    scores = read_wmt25_scores(files, lps=None if lp is None else [lp])
    lp = _lp_of(scores, lp, where)
    scores = {m: {s: {it: x for it, x in d.items() if it.startswith(lp + "_#_")} for s, d in by.items()}
              for m, by in scores.items()}  # fmt: skip
    scores = {m: {s: d for s, d in by.items() if d} for m, by in scores.items()}
    scores = {m: by for m, by in scores.items() if by}
    names = list(scores) if not metrics else list(metrics)
    for m in names:
        if m not in scores:
            raise unknown_name(f"WMT25 metric of {lp}", m, tuple(scores))
    found = sorted({s for m in names for s in scores[m]})
    chosen = found if not systems else list(systems)
    for s in chosen:
        if s not in found:
            raise unknown_name(f"system of {lp} in the WMT25 scores", s, tuple(found))
    items = list(dict.fromkeys(it for m in names for s in chosen for it in scores[m].get(s, {})))
    stats, notes = _stats(scores, names, chosen, items, where, lp)
    parts = [it.split("_#_") for it in items]
    table = StatsTable(
        {m: get_metric("seg", seg_name=m) for m in names},
        [SystemInfo(s, [f for f in files if os.path.basename(f) == f"{s}.jsonl"] or [where], 1) for s in chosen],
        stats,
        len(items),
        keys=[("_#_".join(p[1:3]), p[3]) for p in parts],
        units={"document": ["_#_".join(p[1:3]) for p in parts], "domain": [p[1] for p in parts]},
    )
    return table, notes


def _stats(scores: dict, names: list[str], chosen: list[str], items: list[str], where: str,
           lp: str) -> tuple[dict, list[str]]:  # fmt: skip
    """Each metric's ``seg`` statistics per system on ``items`` (null scores unjudged, said in the notes); a system
    missing a metric or some paragraphs is an error."""
    import numpy as np

    notes = []
    stats: dict = {}
    for m in names:
        stats[m] = {}
        for s in chosen:
            got = scores[m].get(s)
            if not got:
                raise InputError(f"{where}: {s} has no {m} scores of {lp}: leave the system out (-s picks systems) "
                                 "or the metric (-m picks metrics)")  # fmt: skip
            row = np.array([got.get(it, np.nan) for it in items])
            absent = sum(1 for it in items if it not in got)
            if absent:
                raise InputError(f"{where}: {s}'s {m} scores lack {absent} of the {len(items)} paragraphs of {lp} "
                                 "that the other systems have: one system's file is incomplete")  # fmt: skip
            lost = int(np.isnan(row).sum())
            if lost:
                notes.append(f"{m}: {s} has {lost} null score(s) of {len(items)}: missing, left out of its mean")
            judged = ~np.isnan(row)
            stats[m][s] = np.column_stack([np.where(judged, row, 0.0), judged.astype(np.float64)])[None]
    return stats, notes
