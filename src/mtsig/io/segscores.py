"""Reading user-supplied segment scores and attaching them to systems and runs.

Accepted forms (``--seg-scores``):
- ``NAME=FILE[,FILE...]``: system NAME's scores (one file per run): one number per line (BLEURT's
  ``-scores_file`` among others), MetricX's output JSONL (its ``prediction`` field), or COMET's output holding
  that one system (``comet-score --to_json`` or its printed ``Segment i  score: x`` lines);
- ``TABLE.tsv``: a header row of system names, then one row per segment (tab-separated);
- ``TABLE.jsonl``: one JSON object per segment, ``{"system name": score, ...}``;
- ``COMET.json`` / COMET's printed output with several systems: each system takes the entry of its file
  (matched by path, file name or system name).
Files are recognised by their content. A file that says which metric it holds (COMET: higher is better;
MetricX: an error score, lower is better) names the ``seg`` metric and sets its direction, unless
``seg_name`` / ``seg_lower_is_better`` are given. Every system must get scores for every run; counts must
match the segments; non-numbers are errors naming the file and line.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from mtsig.errors import InputError
from mtsig.io.load import System, parse_system_spec
from mtsig.io.text import read_text, split_lines

#: the largest magnitude of a segment score: human and neural scores lie within a few hundred
MAX_SCORE = 1e12


#: a number as score files write it: ASCII digits, an optional sign, point and exponent (Python's float() also
#: takes "1_000", full-width digits and surrounding spaces, none of which a metric writes)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity|nan)", re.IGNORECASE | re.ASCII)


def _number(x: str, where: str) -> float:
    if not _NUMBER.fullmatch(x):
        raise InputError(f"{where}: {x!r} is not a number")
    v = float(x)
    if not math.isfinite(v):
        raise InputError(f"{where}: {x!r} is not a finite number")
    if abs(v) > MAX_SCORE:  # sums over resamples would overflow to infinity (an interval [0.42, NaN])
        raise InputError(f"{where}: {x!r} is beyond ±{MAX_SCORE:g}, which no segment-level metric gives")
    return v


def _json_number(v: Any, where: str) -> float:
    """A score from a JSON value: a JSON number (a string such as "0.5" is refused: the file is not what it seems)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError(f"{where}: {json.dumps(v)} is not a JSON number")
    try:
        return _number(repr(float(v)), where)
    except OverflowError:
        raise InputError(f"{where}: {v} is beyond ±{MAX_SCORE:g}, which no segment-level metric gives") from None


def read_score_column(path: str) -> list[float]:
    return [_number(ln.strip(), f"{path}: line {i}") for i, ln in enumerate(split_lines(read_text(path)), 1)]


#: what a score file's own format says about its metric: name, lower is better
KNOWN_METRICS = {"comet": ("COMET", False), "metricx": ("MetricX", True)}
_COMET_LINE = re.compile(r"^(.*)\tSegment (-?\d+)\tscore: (\S+)(?:\tvariance: \S+)?$")
_COMET_SYSTEM_LINE = re.compile(r"^((?:(?!\tSegment ).)*)\tscore: (\S+)$")


class ScoreFile(NamedTuple):
    """A score file as read: its kind (``column``, ``comet``, ``metricx``, ``table``), the scores by key (the
    file's own system keys; ``""`` for a file of one system), the metric it names, if any, and the hypotheses it
    scored, by key, when it holds them (checked against the systems' texts)."""

    kind: str
    scores: dict[str, list[float]]
    metric: tuple[str, bool] | None = None
    path: str = ""
    texts: dict[str, list[str]] | None = None


def _comet_json(path: str, obj: Any) -> ScoreFile | None:
    if not (isinstance(obj, dict) and obj and all(isinstance(v, list) for v in obj.values())):
        return None
    rows = [r for v in obj.values() for r in v]
    if not rows or not all(isinstance(r, dict) and "COMET" in r for r in rows):
        return None
    scores = {str(k): [_json_number(r["COMET"], f"{path}: {k!r}, segment {i}") for i, r in enumerate(v)]
              for k, v in obj.items()}  # fmt: skip
    texts = {str(k): [str(r["mt"]) for r in v] for k, v in obj.items()} if all("mt" in r for r in rows) else None
    return ScoreFile("comet", scores, KNOWN_METRICS["comet"], path, texts)


def _comet_text(path: str, lines: list[str]) -> ScoreFile | None:
    segs: dict[str, dict[int, float]] = {}
    for i, ln in enumerate(lines, 1):
        m = _COMET_LINE.match(ln)
        if m:
            seg, got = int(m.group(2)), segs.setdefault(m.group(1), {})
            if seg < 0:
                raise InputError(f"{path}: line {i}: segment {seg}: COMET numbers segments from 0")
            if seg in got:
                raise InputError(f"{path}: line {i}: segment {seg} of {m.group(1)!r} appears twice")
            got[seg] = _number(m.group(3), f"{path}: line {i}")
        elif not (_COMET_SYSTEM_LINE.match(ln) or ln.startswith("Predictions saved in") or not ln.strip()):
            return None if not segs else _bad(path, i, "a COMET output line (FILE<tab>Segment i<tab>score: x)")
    if not segs:
        return None
    out = {}
    for k, d in segs.items():
        if sorted(d) != list(range(len(d))):
            raise InputError(f"{path}: COMET output for {k!r} skips segments ({len(d)}, numbered up to {max(d)})")
        out[k] = [d[j] for j in range(len(d))]
    return ScoreFile("comet", out, KNOWN_METRICS["comet"], path)


def _bad(path: str, i: int, what: str):
    raise InputError(f"{path}: line {i}: expected {what}")


def _metricx(path: str, lines: list[str]) -> ScoreFile | None:
    try:
        first = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        return None
    if not (isinstance(first, dict) and "prediction" in first and {"hypothesis", "reference", "source"} & set(first)):
        return None
    scores, texts = [], []
    for i, ln in enumerate(lines, 1):
        try:
            obj = json.loads(ln)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: line {i}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or "prediction" not in obj:
            raise InputError(f'{path}: line {i}: a MetricX line without a "prediction"')
        scores.append(_json_number(obj["prediction"], f"{path}: line {i}"))
        texts.append(obj.get("hypothesis"))
    hyps = {"": [str(t) for t in texts]} if all(isinstance(t, str) for t in texts) else None
    return ScoreFile("metricx", {"": scores}, KNOWN_METRICS["metricx"], path, hyps)


def _human(path: str, first: str) -> ScoreFile | None:
    """Human judgments (WMT DA judgments or segment scores, MQM error spans; see :mod:`mtsig.io.human`): each
    system's segment scores in test-set order (segment ids 1..N, or 0..N-1), NaN where nobody judged it."""
    from mtsig.io.human import detect_format, read_human

    try:
        fmt = detect_format(path, first)
    except InputError:
        return None
    if fmt == "tsv":
        return None  # a table of scores per system column is read as before
    h = read_human(path, input_format=fmt)
    try:
        ids = np.array([int(g) for g in h.segments])
    except ValueError:
        raise InputError(f"{path}: segment ids that are not numbers ({h.segments[0]!r}): they cannot be placed in "
                         "the test set's order") from None  # fmt: skip
    pos = ids - (0 if ids.min() == 0 else 1)
    n = int(pos.max()) + 1
    out = {}
    for k, s in enumerate(h.systems):
        col = np.full(n, np.nan)
        col[pos] = h.scores[k]
        out[s] = list(col)
    return ScoreFile("human", out, ("human", False))


def read_score_file(path: str) -> ScoreFile:
    """Any accepted score file, recognised by its content."""
    text = read_text(path)
    lines = split_lines(text)
    human = _human(path, lines[0]) if lines else None
    if human is not None:
        return human
    head = text.lstrip()[:1]
    if head == "{":
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None
        if whole is not None:
            found = _comet_json(path, whole)
            if found is None:
                raise InputError(
                    f"{path}: a JSON document, but not COMET's --to_json output "
                    '({file: [{..., "COMET": score}]}); for scores per segment use one JSON object per line'
                )
            return found
        found = _metricx(path, lines)
        if found is not None:
            return found
        return ScoreFile("table", read_score_table(path))
    found = _comet_text(path, lines)
    if found is not None:
        return found
    first = lines[0] if lines else ""
    if "\t" in first or path.lower().endswith(".tsv"):
        return ScoreFile("table", read_score_table(path))
    return ScoreFile("column", {"": read_score_column(path)})


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
                out[str(k)].append(_json_number(v, f"{path}: line {i}, {k!r}"))
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
            cols[h].append(_number(c.strip(" "), f"{path}: line {i}, column {h!r}"))
    return cols


def _one_system(spec_name: str, path: str, f: ScoreFile) -> list[float]:
    if len(f.scores) != 1:
        keys = ", ".join(sorted(f.scores))
        raise InputError(
            f"{path}: {f.kind} scores of {len(f.scores)} systems ({keys}): give the file without {spec_name}= so that "
            "each system takes its own entry"
        )
    return next(iter(f.scores.values()))


#: a system's scores: one list per run, and beside them the hypotheses each run's file scored (None: not given)
Given = dict[str, list[list[float]]]
Texts = dict[str, list[list[str] | None]]


def _given_scores(specs: Sequence[str] | Mapping) -> tuple[Given, Texts, list[ScoreFile]]:
    """System name (or a file's own system key) -> one list of scores per run, from files, tables or a mapping;
    the hypotheses the files scored, where they hold them; and the files read."""
    given: Given = {}
    texts: Texts = {}
    files: list[ScoreFile] = []
    if isinstance(specs, Mapping):
        for name, val in specs.items():
            arr = np.asarray(val, dtype=np.float64)
            given[str(name)] = [list(arr)] if arr.ndim == 1 else [list(r) for r in arr]
        return given, texts, files
    for spec in specs:
        if "=" in spec and not os.path.exists(spec):
            name, paths = parse_system_spec(spec)
            runs, hyps = [], []
            for p in paths:
                f = read_score_file(p)
                files.append(f)
                if f.kind == "table":
                    raise InputError(f"{p}: a table of several systems' scores: give it without {name}=")
                runs.append(_one_system(str(name), p, f))
                hyps.append(next(iter(f.texts.values())) if f.texts else None)
            given[str(name)], texts[str(name)] = runs, hyps
        else:
            f = read_score_file(spec)
            files.append(f)
            if f.kind in ("column", "metricx"):
                raise InputError(f"{spec}: the scores of one system: give NAME={spec}")
            prefix = _KEYED if f.kind == "comet" else ""  # COMET keys are the scored files' paths
            given.update({prefix + k: [col] for k, col in f.scores.items()})
            if f.texts:
                texts.update({prefix + k: [t] for k, t in f.texts.items()})
    return given, texts, files


#: the prefix of a key that names a scored file, not a system (COMET's output)
_KEYED = "\0file:"


def _match_keys(keys, systems: list[System]) -> dict[str, str]:
    """Each key -> the system it belongs to: a system name as it is; a scored file's path (COMET's output) the
    system whose file it names."""
    names = {s.name for s in systems}
    out: dict[str, str] = {}
    for key in keys:
        if not key.startswith(_KEYED):
            out[key] = key
            continue
        path = key[len(_KEYED) :]
        if path in names:
            out[key] = path
            continue
        hits = [s.name for s in systems if any(path == f or os.path.basename(path) == os.path.basename(f)
                                               for f in s.files)]  # fmt: skip
        if len(hits) != 1:
            why = "matches no system's name or file" if not hits else f"matches several systems ({', '.join(hits)})"
            raise InputError(f"segment scores for {path!r}: {why}; the systems: {', '.join(sorted(names))}")
        if hits[0] in out.values():
            raise InputError(f"segment scores for system {hits[0]!r} given twice")
        out[key] = hits[0]
    return out


def _check_texts(name: str, run: int, seg, scored: list[str]) -> None:
    """The hypotheses a score file scored against the system's own text (whitespace runs aside): scores of
    another output (swapped files) are refused."""
    norm = lambda t: " ".join(t.split())  # noqa: E731
    n = min(len(scored), len(seg.lines))
    bad = next((i for i in range(n) if norm(scored[i]) != norm(seg.lines[i])), None)
    if bad is not None:
        which = f"{name!r}" + (f" (run {run + 1})" if run else "")
        raise InputError(
            f"segment scores for {which}: segment {bad + 1} scored {scored[bad][:60]!r}, but the system's output is "
            f"{seg.lines[bad][:60]!r}: the scores belong to another output (files swapped?); give the scores as a "
            "plain column to skip this check"
        )


#: the files mix a known metric's output with plain numbers (which metric the plain numbers hold is unknown)
MIXED = ("", None)


def _file_metric(files: list[ScoreFile]) -> tuple[str, bool] | tuple[str, None] | None:
    named = {f.metric for f in files if f.metric is not None}
    if len(named) > 1:
        raise InputError("segment scores from different metrics (" + ", ".join(sorted(n for n, _ in named)) + ") "
                         "in one seg metric: score them separately")  # fmt: skip
    if named and any(f.metric is None for f in files):
        return MIXED  # plain numbers beside COMET's or MetricX's: refused unless the user names the metric
    return next(iter(named)) if named else None


def _wmt_names(given: dict, files: list[ScoreFile], names: set[str]) -> dict:
    """Human judgments name systems as WMT does (``Lan-Bridge.1``): such a key matches the system ``Lan-Bridge``;
    human-judged references without a system (``HUMAN-B``) are left out."""
    if not any(f.kind == "human" for f in files):
        return given
    out = {}
    for k, v in given.items():
        base = re.sub(r"\.\d+$", "", k)
        if k in names:
            out[k] = v
        elif base in names:
            out[base] = v
    return out


def attach_seg_scores(systems: list[System], specs: Sequence[str] | Mapping | None) -> None:
    if not specs:
        return
    by_name = {s.name: s for s in systems}
    raw, raw_texts, files = _given_scores(specs)
    owner = _match_keys(raw, systems)
    given = _wmt_names({owner[k]: v for k, v in raw.items()}, files, set(by_name))
    texts = {owner[k]: v for k, v in raw_texts.items() if k in owner}
    for name in given:
        if name not in by_name:
            raise InputError(f"segment scores for {name!r}, which is not one of the systems: {', '.join(by_name)}")
    metric = _file_metric(files)
    for s in systems:
        if s.name not in given:
            raise InputError(f"no segment scores for system {s.name!r}")
        runs = given[s.name]
        if len(runs) != s.n_runs:
            raise InputError(f"system {s.name!r} has {s.n_runs} run(s) but {len(runs)} segment-score file(s)")
        for r, (seg, sc) in enumerate(zip(s.runs, runs)):
            scored = (texts.get(s.name) or [None] * len(runs))[r]
            if scored is not None:
                _check_texts(s.name, r, seg, scored)
            if len(sc) < len(seg) and any(f.kind == "human" for f in files):  # unjudged last segments
                sc = list(sc) + [float("nan")] * (len(seg) - len(sc))
            if len(sc) != len(seg):
                raise InputError(f"{len(sc)} segment scores for {seg.source or s.name}, which has {len(seg)} segments")
            seg.seg_scores = np.asarray(sc, dtype=np.float64)
            seg.seg_metric = metric


def adopt_file_metric(metrics: dict, systems: list[System], given_options: Mapping[str, Any]) -> dict:
    """The ``seg`` metric renamed and oriented as its score files say (COMET, MetricX), unless the user named
    it or gave its direction."""
    if "seg_name" in given_options or "seg_lower_is_better" in given_options:
        return metrics
    found = {r.seg_metric for s in systems for r in s.runs if r.seg_metric is not None}
    if MIXED in found:
        raise InputError(
            "segment scores mix a metric's own output (COMET or MetricX, which say their name and direction) with "
            "files of plain numbers, whose metric mtsig cannot know: give every system the same kind of file, or "
            "say what the scores are with seg_name and seg_lower_is_better (--seg-name, --seg-lower-is-better)"
        )
    if len(found) != 1:
        return metrics
    name, lower = next(iter(found))
    out = {}
    for key, m in metrics.items():
        if type(m).name == "seg":
            m = type(m)(seg_name=name, seg_lower_is_better=lower)  # the seg metric's own class (no registry lookup)
            key = m.name
        out[key] = m
    return out


def _system_of_file(key: str) -> str:
    """A scored file's system name when no output is given to match it: the file name without its extension."""
    path = key[len(_KEYED) :] if key.startswith(_KEYED) else key
    base = os.path.basename(path)
    return os.path.splitext(base)[0] or base


def _named_systems(specs: Sequence[str] | Mapping) -> tuple[Given, dict[str, list[str]], list[ScoreFile]]:
    """Each system's scores (one list per run) by the name the scores give it, the files behind each, the files."""
    named: Given = {}
    sources: dict[str, list[str]] = {}
    files: list[ScoreFile] = []
    for spec in [specs] if isinstance(specs, Mapping) else list(specs):
        raw, _, read = _given_scores(spec if isinstance(spec, Mapping) else [spec])
        files += read
        for key, runs in raw.items():
            name = _system_of_file(key)
            if name in named:
                raise InputError(f"segment scores for system {name!r} given twice (by two files of that name?): "
                                 "give them as NAME=FILE", param="seg_scores")  # fmt: skip
            named[name] = runs
            own = isinstance(spec, str) and "=" in spec and not os.path.exists(spec)
            sources[name] = [] if isinstance(spec, Mapping) else parse_system_spec(spec)[1] if own else [spec]
    if not named:
        raise InputError("no segment scores given", param="seg_scores")
    return named, sources, files


class ScoresAlone(NamedTuple):
    """Segment scores read without texts: each system's runs by the name the scores give it, the files behind
    each system, how long the longest is, and the metric the files name (None: plain numbers; ``MIXED``)."""

    named: Given
    sources: dict[str, list[str]]
    n: int
    metric: tuple[str, bool] | tuple[str, None] | None


def read_scores_alone(specs: Sequence[str] | Mapping, systems: Sequence[str] | None = None) -> ScoresAlone:
    """Segment scores alone (precomputed COMET, MetricX, ... of a leaderboard): every system a score file, table or
    mapping names; ``systems`` picks some by name. Every system must score every segment (human judgments may
    leave the last ones unjudged)."""
    named, sources, files = _named_systems(specs)
    if systems:
        for s in systems:
            if s not in named:
                from mtsig.errors import unknown_name

                raise unknown_name("system of the segment scores", s, tuple(named))
        named = {s: named[s] for s in systems}
    human = any(f.kind == "human" for f in files)
    lengths = {len(r) for runs in named.values() for r in runs}
    if len(lengths) > 1 and not human:
        counts = ", ".join(f"{s} {len(r)}" for s, runs in named.items() for r in runs[:1])
        raise InputError(f"the systems' segment scores differ in length ({counts}): each system needs a score for "
                         "every segment", param="seg_scores")  # fmt: skip
    return ScoresAlone(named, {s: sources[s] for s in named}, max(lengths), _file_metric(files))
