"""Reading user-supplied segment scores and attaching them to systems and runs.

Accepted forms (``--seg-scores``):
- ``NAME=FILE[,FILE...]``: one number per line, aligned with system NAME's file (one file per run);
- ``TABLE.tsv``: a header row of system names, then one row per segment (tab-separated);
- ``TABLE.jsonl``: one JSON object per segment, ``{"system name": score, ...}``.
Every system must get scores for every run; counts must match the segments; non-numbers are errors
naming the file and line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

import numpy as np

from mtsig.errors import InputError
from mtsig.io.load import System, parse_system_spec
from mtsig.io.text import read_text, split_lines

#: the largest magnitude of a segment score: human and neural scores lie within a few hundred
MAX_SCORE = 1e12


def _number(x: str, where: str) -> float:
    try:
        v = float(x)
    except ValueError:
        raise InputError(f"{where}: {x!r} is not a number") from None
    if not math.isfinite(v):
        raise InputError(f"{where}: {x!r} is not a finite number")
    if abs(v) > MAX_SCORE:  # sums over resamples would overflow to infinity (an interval [0.42, NaN])
        raise InputError(f"{where}: {x!r} is beyond ±{MAX_SCORE:g}, which no segment-level metric gives")
    return v


def read_score_column(path: str) -> list[float]:
    return [_number(ln.strip(), f"{path}: line {i}") for i, ln in enumerate(split_lines(read_text(path)), 1)]


def read_score_table(path: str) -> dict[str, list[float]]:
    text = read_text(path)
    lines = split_lines(text)
    if path.lower().endswith((".jsonl", ".json")):
        out: dict[str, list[float]] = {}
        for i, ln in enumerate(lines, 1):
            try:
                obj = json.loads(ln)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}: line {i}: not JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise InputError(f"{path}: line {i}: expected an object {{system: score}}")
            for k, v in obj.items():
                out.setdefault(str(k), [])
                if len(out[str(k)]) != i - 1:
                    raise InputError(f"{path}: line {i}: system {k!r} is missing from an earlier line")
                out[str(k)].append(_number(str(v), f"{path}: line {i}, {k!r}"))
        return out
    if not lines:
        raise InputError(f"{path}: empty score table")
    header = lines[0].split("\t")
    cols: dict[str, list[float]] = {h: [] for h in header}
    for i, ln in enumerate(lines[1:], 2):
        cells = ln.split("\t")
        if len(cells) != len(header):
            raise InputError(f"{path}: line {i}: {len(cells)} columns, the header has {len(header)}")
        for h, c in zip(header, cells):
            cols[h].append(_number(c, f"{path}: line {i}, column {h!r}"))
    return cols


def _given_scores(specs: Sequence[str] | Mapping) -> dict[str, list[list[float]]]:
    """System name -> one list of scores per run, from files, tables or a mapping."""
    given: dict[str, list[list[float]]] = {}
    if isinstance(specs, Mapping):
        for name, val in specs.items():
            arr = np.asarray(val, dtype=np.float64)
            given[str(name)] = [list(arr)] if arr.ndim == 1 else [list(r) for r in arr]
        return given
    for spec in specs:
        if "=" in spec:
            name, files = parse_system_spec(spec)
            given[str(name)] = [read_score_column(f) for f in files]
        else:
            given.update({name: [col] for name, col in read_score_table(spec).items()})
    return given


def attach_seg_scores(systems: list[System], specs: Sequence[str] | Mapping | None) -> None:
    if not specs:
        return
    by_name = {s.name: s for s in systems}
    given = _given_scores(specs)
    for name in given:
        if name not in by_name:
            raise InputError(f"segment scores for {name!r}, which is not one of the systems: {', '.join(by_name)}")
    for s in systems:
        if s.name not in given:
            raise InputError(f"no segment scores for system {s.name!r}")
        runs = given[s.name]
        if len(runs) != s.n_runs:
            raise InputError(f"system {s.name!r} has {s.n_runs} run(s) but {len(runs)} segment-score file(s)")
        for seg, sc in zip(s.runs, runs):
            if len(sc) != len(seg):
                raise InputError(f"{len(sc)} segment scores for {seg.source or s.name}, which has {len(seg)} segments")
            seg.seg_scores = np.asarray(sc, dtype=np.float64)
