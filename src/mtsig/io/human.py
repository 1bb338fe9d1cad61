"""Human judgments: WMT DA (judgments and segment scores), MQM error annotations and plain TSV (ESA, any
segment-level human score), read into one table of segment scores per system.

Formats (``input_format``; recognised from a file's first line when not given):

- ``wmt-da``: WMT's accepted DA judgments (``ad-XXen-good-stnd.csv``): a space-separated header
  ``HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time``, TAB-separated rows. Only
  ``SYSTEM`` and ``REPEAT`` rows score a system (``REF`` and ``BAD_REF`` are the quality-control items and are
  left out); ``score`` is already standardized per annotator (z). A segment's score is the mean of its
  judgments.
- ``wmt-da-seg``: WMT's segment scores (``ad-seg-scores-X-en.csv``): ``SYS SID RAW.SCR Z.SCR N`` (``da_score``:
  ``z``, the default, or ``raw``).
- ``mqm``: one row per error span, TAB-separated with a header: ``system doc doc_id seg_id rater source target
  category severity``. A rater's segment score is the sum of its errors' weights (``No-error`` rows: a segment
  rated without error); the segment score is minus the mean over its raters (higher is better). Default weights:
  Major 5, Minor 1, Neutral 0, a ``Non-translation`` category 25 whatever its severity, a Minor
  ``Fluency/Punctuation`` error 0.1 (Freitag et al. 2021); ``mqm_weights`` changes them.
- ``appraise-esa``: Appraise's ESA export (WMT24's ``esa_generalMT2024_wave*.csv``), read as WMT24's
  ``humeval/tools.py`` reads it; ``wmt24-esa-jsonl``: WMT24's ``jsonl/wmt24_esa.jsonl`` (one object per judged
  segment); ``wmt25-humeval``: WMT25's ``wmt25-genmt-humeval.jsonl`` (items in waves); ``mtme-seg`` and
  ``mtme-rating``: mt-metrics-eval's ``LP.NAME.seg.score`` and ``.seg.rating`` files; ``pearmut``: Pearmut's
  annotation logs (WMT26's ``annotations.json``, or a campaign's ``.jsonl``), read by :mod:`mtsig.io.pearmut`.
- ``tsv``: a TAB-separated table with a header naming its columns: ``system``, ``segment`` (or ``seg_id``,
  ``sid``), ``score``, and optionally ``annotator`` (or ``rater``), ``doc`` (or ``document``) and ``domain``. ESA
  scores, Appraise exports reduced to these columns, or any segment-level human score.

``standardize="annotator"`` z-standardizes each annotator's scores (mean 0, standard deviation 1 with ddof=1,
over every score the annotator gave in the files, as WMT does) before segment means are taken.

Every malformed row is one :class:`InputError` naming the file and the line.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from mtsig.errors import InputError, unknown_name
from mtsig.io.text import json_line, read_text, split_lines

INPUT_FORMATS = ("wmt-da", "wmt-da-seg", "mqm", "tsv", "appraise-esa", "wmt24-esa-jsonl", "wmt25-humeval", "mtme-seg",
                 "mtme-rating", "pearmut")  # fmt: skip
WMT_DA_HEADER = ("HITId", "WorkerId", "Input.src", "Input.trg", "Input.item", "hit", "sys_id", "rid", "type", "sid",
                 "score", "time")  # fmt: skip
WMT_DA_SEG_HEADER = ("SYS", "SID", "RAW.SCR", "Z.SCR", "N")
MQM_COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
#: the judgment types of a WMT DA file, and whether each scores a system
DA_TYPES = {"SYSTEM": True, "REPEAT": True, "REF": False, "BAD_REF": False}
#: MQM severity weights (Freitag et al. 2021; google/wmt-mqm-human-evaluation's README)
MQM_WEIGHTS = {"major": 5.0, "minor": 1.0, "neutral": 0.0, "no-error": 0.0}
MQM_NON_TRANSLATION = 25.0
MQM_MINOR_PUNCTUATION = 0.1
#: the largest magnitude of a score (squares of sums of a million scores stay finite)
MAX_SCORE = 1e100
_TSV_ALIASES = {
    "system": ("system", "sys", "sys_id", "system_id"),
    "segment": ("segment", "seg", "seg_id", "sid", "segment_id", "item", "itemid"),
    "score": ("score", "human", "z", "esa", "da", "mqm"),
    "annotator": ("annotator", "rater", "worker", "workerid", "user", "username"),
    "doc": ("doc", "document", "doc_id", "docid", "documentid"),
    "domain": ("domain",),
}


@dataclass(frozen=True, kw_only=True)
class Judgment:
    """One human judgment as read (before segment means)."""

    system: str
    segment: str
    score: float
    annotator: str | None = None
    doc: str | None = None
    domain: str | None = None
    #: the language pair ("en-ja"), where the file says it
    lp: str | None = None
    #: the wave of a judgment campaign (WMT25 judged items twice), and the item judged (the segment is the pair)
    wave: str | None = None
    item: str | None = None


@dataclass(frozen=True, kw_only=True)
class HumanScores:
    """Segment scores of several systems by humans: ``scores[k, i]`` is system k's score of segment i (NaN where
    nobody judged it), ``judgments[k, i]`` how many judgments (or raters) it rests on."""

    systems: tuple[str, ...]
    segments: tuple[str, ...]
    scores: np.ndarray
    judgments: np.ndarray
    #: each segment's document and domain (None where the format has none)
    documents: tuple[str, ...] | None = None
    domains: tuple[str, ...] | None = None
    sources: tuple[str, ...] = ()
    input_format: str = "tsv"
    #: what the reader did that the user should know (rows left out, standardization)
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: each segment's test-set line (0-based), where it is known (``docs`` given, or ids that are line numbers)
    lines: tuple[int, ...] | None = None
    #: where the documents come from ("the file", "the HITs", a documents file), None without documents
    documents_from: str | None = None
    #: WMT DA judgments: the runs of consecutive segment ids one HIT scored for one system (first, last); each is
    #: one document of the test set
    runs: tuple[tuple[int, int], ...] | None = field(default=None, repr=False)
    #: judgments in waves (WMT25): each segment's wave and the item it judges (an item judged in two waves is two
    #: segments, as WMT25 counts them)
    waves: tuple[str, ...] | None = None
    items: tuple[str, ...] | None = None
    #: an adaptive campaign's log (Pearmut): the kept screens in time order (:class:`mtsig.io.pearmut.Screen`)
    screens: tuple | None = field(default=None, repr=False)

    @property
    def n_documents(self) -> int:
        return len(set(self.documents)) if self.documents is not None else 0

    @property
    def judged(self) -> np.ndarray:
        """``(K, N)`` True where the system's segment was judged."""
        return np.isfinite(self.scores)

    def n_segments(self, k: int) -> int:
        return int(self.judged[k].sum())

    def system_means(self) -> np.ndarray:
        """Each system's score: the mean of its segment scores."""
        with np.errstate(invalid="ignore"):
            return np.nanmean(self.scores, axis=1) if self.scores.size else np.zeros(len(self.systems))

    def select(self, systems: Sequence[str]) -> HumanScores:
        """Only ``systems`` (in that order)."""
        idx = [self.index(s) for s in systems]
        return replace(self, systems=tuple(systems), scores=self.scores[idx], judgments=self.judgments[idx])

    def with_documents(self, docs, *, sid_order: str | None = None) -> HumanScores:
        """These scores placed in a test set whose documents are ``docs`` (:class:`~mtsig.io.documents.Documents`):
        each segment gets its test-set line, document and domain. ``sid_order``: ``doc-sorted`` (WMT DA: segment
        id s is the s-th segment with the documents sorted by id) or ``line`` (ids are 1-based line numbers);
        default: ``doc-sorted`` for the WMT DA formats, ``line`` otherwise."""
        from mtsig.io.documents import check_contiguous, doc_sorted_lines

        default = {"wmt-da": "doc-sorted", "wmt-da-seg": "doc-sorted", "appraise-esa": "index"}
        order = sid_order or default.get(self.input_format, "line")
        check_contiguous(docs)
        where = ", ".join(self.sources) or "the human scores"
        ids = []
        for g in self.segments:
            if not re.fullmatch(r"\d+", g):
                raise InputError(f"{where}: segment id {g!r} is not a number: it cannot be placed in the test set of "
                                 f"{docs.source}")  # fmt: skip
            ids.append(int(g))
        ids_arr = np.asarray(ids, dtype=np.int64)
        n = len(docs)
        if order == "line" and sid_order is None and ids_arr.size and ids_arr.min() == 0:
            order = "index"  # an id 0 is no line number: the ids count the lines from 0 (a 0-based TSV)
        first = 0 if order == "index" else 1  # Appraise's ids index the lines from 0 (WMT24's line 0: the canary)
        if ids_arr.size and (ids_arr.min() < first or ids_arr.max() > n - 1 + first):
            bad = int(ids_arr.max() if ids_arr.max() > n - 1 + first else ids_arr.min())
            raise InputError(f"{where}: segment id {bad} is outside the {n} segments of {docs.source} (ids run from "
                             f"{first}): the documents file is not this test set's")  # fmt: skip
        if order == "doc-sorted":
            lines = doc_sorted_lines(docs)[ids_arr - 1]
        else:
            lines = ids_arr - first
        if self.documents is not None and self.documents_from == "the file":
            clash = next(((g, d, docs.ids[x]) for g, d, x in zip(self.segments, self.documents, lines)
                          if d and d != docs.ids[x]), None)  # fmt: skip
            if clash:
                raise InputError(f"{where}: segment {clash[0]} is in document {clash[1]!r} there but {clash[2]!r} in "
                                 f"{docs.source}: the documents file is not this test set's")  # fmt: skip
        documents = tuple(docs.ids[i] for i in lines)
        domains = tuple(docs.domains[i] for i in lines) if docs.domains is not None else self.domains
        _check_runs(self, docs, lines, where)
        how = {"doc-sorted": "segment ids placed as WMT's DA numbers them, the test set's documents sorted by id",
               "index": "segment ids read as indices of its lines from 0",
               "line": "segment ids read as test-set line numbers"}[order]  # fmt: skip
        notes = [n for n in self.notes if not n.startswith("documents: ")]
        notes.append(f"documents: {len(set(documents))} from {docs.source}; {how}")
        return replace(self, documents=documents, domains=domains, lines=tuple(int(x) for x in lines),
                       documents_from=docs.source, notes=tuple(notes))  # fmt: skip

    def index(self, system: str) -> int:
        if system not in self.systems:
            raise unknown_name("system", system, self.systems)
        return self.systems.index(system)


# ------------------------------------------------------------------------------------------- recognising
def detect_format(path: str, first_line: str) -> str:
    """The format of a file from its first line (see the module's docstring)."""
    words = tuple(first_line.split())
    if words[: len(WMT_DA_HEADER)] == WMT_DA_HEADER:
        return "wmt-da"
    if words[: len(WMT_DA_SEG_HEADER)] == WMT_DA_SEG_HEADER:
        return "wmt-da-seg"
    if _looks_like_appraise(first_line):
        return "appraise-esa"
    if first_line.lstrip().startswith("{") and '"scores"' in first_line and '"doc_id"' in first_line:
        return "wmt25-humeval"
    if first_line.lstrip().startswith("{") and '"esa_score"' in first_line and '"langs"' in first_line:
        return "wmt24-esa-jsonl"
    from mtsig.io.pearmut import looks_like_pearmut

    if looks_like_pearmut(first_line):
        return "pearmut"
    tab = first_line.split("\t")
    if len(tab) == 2 and (tab[1].lstrip().startswith('{"errors"') or tab[1].strip() == "None"):
        return "mtme-rating"
    if len(words) == 2 and (words[1] == "None" or _is_number(words[1])):
        return "mtme-seg"
    cols = tuple(c.strip().lower() for c in first_line.split("\t"))
    if cols[: len(MQM_COLUMNS)] == MQM_COLUMNS or {"severity", "category", "rater"} <= set(cols):
        return "mqm"
    if _tsv_columns(cols, None) is not None:
        return "tsv"
    shown = first_line if len(first_line) <= 80 else first_line[:77] + "..."
    raise InputError(
        f"{path}: cannot tell the format of human judgments from its first line ({shown!r}); give --input-format "
        f"{'|'.join(INPUT_FORMATS)} (a TSV needs a header naming system, segment and score)",
        param="input_format",
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_mtme_seg(path: str, text: str) -> tuple[list[Judgment], list[str]]:
    """mt-metrics-eval's segment scores (``LP.NAME.seg.score``): ``SYSTEM score`` per line, each system's lines in
    test-set order (its k-th line is segment k), ``None`` where nobody judged it."""
    got: list[Judgment] = []
    seen: dict[str, int] = {}
    for i, ln in enumerate(split_lines(text), start=1):
        cells = ln.split()
        if len(cells) != 2:
            raise InputError(f"{path}: line {i}: expected 'SYSTEM score', got {len(cells)} fields"
                             + (" (a truncated line?)" if len(cells) < 2 else ""))  # fmt: skip
        system, v = cells
        k = seen[system] = seen.get(system, 0) + 1
        if v == "None":
            continue
        got.append(Judgment(system=system, segment=str(k), score=_number(v, path, i, "score")))
    counts = set(seen.values())
    if len(counts) > 1:
        raise InputError(f"{path}: the systems have different numbers of lines ({', '.join(map(str, sorted(counts)))}):"
                         " an mt-metrics-eval segment file has one line per segment for every system")  # fmt: skip
    if counts == {1}:
        raise InputError(f"{path}: one line per system: system-level scores, not segment scores (give it to mtsig "
                         "meta --human as system-level human scores)")  # fmt: skip
    return got, [f"{path}: mt-metrics-eval segment scores, {counts.pop()} segments per system (ids: line numbers)"]


def _read_mtme_rating(path: str, text: str, weights) -> tuple[list[Judgment], list[str]]:
    """mt-metrics-eval's MQM ratings (``LP.NAME.seg.rating``): ``SYSTEM<TAB>{"errors": [...]}`` per segment (or
    ``None``), in test-set order per system. A segment's score is minus the sum of its errors' weights: each error's
    own ``score`` (as mt-metrics-eval stored it), or with ``weights`` given, the weight of its severity and
    category."""
    import json

    got: list[Judgment] = []
    seen: dict[str, int] = {}
    for i, ln in enumerate(split_lines(text), start=1):
        system, tab, rest = ln.partition("\t")
        if not tab or not system.strip():
            raise InputError(f"{path}: line {i}: expected SYSTEM<TAB>rating (a truncated line?)")
        k = seen[system] = seen.get(system, 0) + 1
        if rest.strip() == "None":
            continue
        try:
            errors = json.loads(rest)["errors"]
            total = 0.0
            for e in errors:
                if weights is None:
                    total += float(e["score"])
                else:
                    total += _mqm_weight(weights, str(e["severity"]), str(e["category"]), path, i)
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(
                f"{path}: line {i}: not a rating (JSON with a list of errors, each with a severity, a "
                f"category and a score): {type(exc).__name__} {exc} (a truncated line?)"
            ) from None
        got.append(Judgment(system=system, segment=str(k), score=-total))
    counts = set(seen.values())
    if len(counts) > 1:
        raise InputError(f"{path}: the systems have different numbers of lines ({', '.join(map(str, sorted(counts)))})"
                         ": a rating file has one line per segment for every system")  # fmt: skip
    how = "the errors' own scores" if weights is None else "the MQM weights"
    return got, [f"{path}: mt-metrics-eval MQM ratings, {counts.pop()} segments per system, scored by {how}"]


def _tsv_columns(cols: Sequence[str], path: str | None) -> dict[str, int] | None:
    found: dict[str, int] = {}
    for key, names in _TSV_ALIASES.items():
        hits = [i for i, c in enumerate(cols) if c in names]
        if len(hits) > 1 and path is not None:
            raise InputError(f"{path}: line 1: more than one {key} column ({', '.join(cols[i] for i in hits)})")
        if hits:
            found[key] = hits[0]
    if not {"system", "segment", "score"} <= set(found):
        if path is not None:
            raise InputError(f"{path}: line 1: a TSV of human scores needs a header with system, segment and score "
                             f"columns (found: {', '.join(cols)})")  # fmt: skip
        return None
    return found


# ------------------------------------------------------------------------------------------------ values
def _number(text: str, path: str, line: int, what: str = "score") -> float:
    t = text.strip()
    if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", t):  # ASCII digits only
        raise InputError(f"{path}: line {line}: {what} {text!r} is not a number")
    x = float(t)
    if not math.isfinite(x):
        raise InputError(f"{path}: line {line}: {what} {text!r} is not a finite number")
    if abs(x) >= MAX_SCORE:
        raise InputError(f"{path}: line {line}: {what} {text!r} is too large: means, variances and tests of scores "
                         f"of that size overflow (human scores must lie within ±{MAX_SCORE:.0e})")  # fmt: skip
    return x


#: the most systems one ranking reads (every pair is tested and kept: 2,000 systems are 1,999,000 pairs)
MAX_SYSTEMS = 2_000


def _count_system(seen: set[str], name: str, path: str, line: int) -> None:
    """Refuse, while reading, judgments of more systems than a ranking can test pairwise."""
    if name not in seen:
        seen.add(name)
        if len(seen) > MAX_SYSTEMS:
            raise InputError(f"{path}: line {line}: more than {MAX_SYSTEMS:,} systems: every pair of them is tested "
                             f"and kept ({MAX_SYSTEMS * (MAX_SYSTEMS - 1) // 2:,} pairs at {MAX_SYSTEMS:,}); rank a "
                             "selection of the systems")  # fmt: skip


def _need(value: str, path: str, line: int, what: str) -> str:
    v = value.strip()
    if not v:
        raise InputError(f"{path}: line {line}: empty {what}")
    return v


def _rows(path: str, text: str, sep: str | None, n: int, header_lines: int = 1) -> Iterable[tuple[int, list[str]]]:
    for i, ln in enumerate(split_lines(text)[header_lines:], start=header_lines + 1):
        if not ln.strip():
            raise InputError(f"{path}: line {i}: empty line")
        cells = ln.split(sep) if sep else ln.split()
        if sep and len(cells) > n and not any(c.strip() for c in cells[n:]):
            cells = cells[:n]  # trailing empty cells
        if len(cells) != n:
            raise InputError(f"{path}: line {i}: {len(cells)} columns, expected {n}")
        yield i, cells


# ------------------------------------------------------------------------------------------------ readers
def _read_wmt_da(path: str, text: str) -> tuple[list[Judgment], list[str], list[tuple[int, int]]]:
    seen_systems: set[str] = set()
    out, left = [], {"REF": 0, "BAD_REF": 0}
    runs: list[tuple[int, int]] = []
    run: list = []  # [HIT, system, first SID, last SID] of the run being read
    seen: dict[tuple[str, str, str, str, str], tuple[int, str]] = {}
    for i, c in _rows(path, text, "\t", len(WMT_DA_HEADER)):
        kind = c[8].strip()
        if kind not in DA_TYPES:
            raise InputError(f"{path}: line {i}: unknown judgment type {kind!r} (expected "
                             f"{', '.join(DA_TYPES)})")  # fmt: skip
        score = _number(c[10], path, i)
        system, sid = _need(c[6], path, i, "system"), _need(c[9], path, i, "segment id")
        _count_system(seen_systems, system, path, i)
        hit, worker = c[0].strip(), _need(c[1], path, i, "annotator")
        key = (hit, worker, system, sid, kind)
        if key in seen:  # one annotator's judgment of one item, twice in one HIT
            line, before = seen[key]
            if before != c[10].strip():
                raise InputError(f"{path}: line {i}: annotator {worker} judged {kind} {system} segment {sid} in HIT "
                                 f"{hit} again with another score ({c[10].strip()}; line {line}: {before}): "
                                 "conflicting duplicates")  # fmt: skip
            raise InputError(f"{path}: line {i}: repeats line {line} (annotator {worker}, {kind} {system} segment "
                             f"{sid}, HIT {hit}): a duplicated row would count twice")  # fmt: skip
        seen[key] = (i, c[10].strip())
        if sid.isdigit():  # a HIT scores whole documents, one system at a time: runs of consecutive SIDs
            n = int(sid)
            if run and run[0] == hit and run[1] == system and n == run[3] + 1:
                run[3] = n
            else:
                if run:
                    runs.append((run[2], run[3]))
                run = [hit, system, n, n]
        if not DA_TYPES[kind]:
            left[kind] += 1
            continue
        out.append(Judgment(system=system, segment=sid, score=score, annotator=worker))
    if run:
        runs.append((run[2], run[3]))
    notes = []
    if any(left.values()):
        notes.append(f"{path}: {left['REF']} REF and {left['BAD_REF']} BAD_REF judgments (quality control) left out")
    return out, notes, runs


def documents_from_runs(runs: Sequence[tuple[int, int]]) -> tuple[dict[int, str], bool]:
    """Each segment id's document from the runs of consecutive ids WMT's DA HITs score (one document each).

    The documents are the finest partition of the ids that keeps every run whole: cut before every run's first id
    and after its last. When two runs cross (neither holds the other), the runs are not documents; they are then
    merged into connected stretches (larger units, which is the cautious side) and ``False`` says so."""
    spans = sorted(set(runs))
    a, b = (np.array(x, dtype=np.int64) for x in zip(*spans))
    # two runs cross when one starts inside the other and ends beyond it
    crossing = bool(np.any((a[:, None] < a[None, :]) & (a[None, :] <= b[:, None]) & (b[:, None] < b[None, :])))
    label: dict[int, str] = {}
    if crossing:
        start, end = spans[0]
        groups = []
        for x, y in spans[1:]:
            if x <= end:
                end = max(end, y)
            else:
                groups.append((start, end))
                start, end = x, y
        groups.append((start, end))
    else:
        cuts = sorted({a for a, _ in spans} | {b + 1 for _, b in spans})
        groups = [(x, y - 1) for x, y in zip(cuts, cuts[1:])]
        covered = {x for p, q in spans for x in range(p, q + 1)}
        groups = [(x, y) for x, y in groups if x in covered]
    for x, y in groups:
        for sid in range(x, y + 1):
            label[sid] = f"{x}-{y}"
    return label, not crossing


def _check_runs(h: HumanScores, docs, lines: np.ndarray, where: str) -> None:
    """A documents file given for WMT DA judgments must agree with the HITs: every run of consecutive segment ids a
    HIT scored lies inside one document."""
    if not h.runs:
        return
    from mtsig.io.documents import doc_sorted_lines

    order = doc_sorted_lines(docs) if h.input_format in ("wmt-da", "wmt-da-seg") else np.arange(len(docs))
    n = len(docs)
    for a, b in sorted(set(h.runs)):
        if a < 1 or b > n:
            raise InputError(f"{where}: a HIT scores segments {a}-{b}, outside the {n} segments of {docs.source}: the "
                             "documents file is not this test set's")  # fmt: skip
        ds = {docs.ids[order[x - 1]] for x in range(a, b + 1)}
        if len(ds) > 1:
            shown = ", ".join(sorted(ds)[:3])
            raise InputError(f"{where}: a HIT scores segments {a}-{b} as one document, but {docs.source} puts them in "
                             f"{len(ds)} documents ({shown}): the documents file is not this test set's")  # fmt: skip


def _read_wmt_da_seg(path: str, text: str, da_score: str) -> tuple[list[Judgment], list[str]]:
    seen_systems: set[str] = set()
    col = {"z": 3, "raw": 2}[da_score]
    out = []
    seen: dict[tuple[str, str], int] = {}
    for i, c in _rows(path, text, None, len(WMT_DA_SEG_HEADER)):
        n = _number(c[4], path, i, "N")
        if n < 1 or n != int(n):
            raise InputError(f"{path}: line {i}: N {c[4]!r} is not a positive count of judgments")
        if (c[0], c[1]) in seen:
            raise InputError(f"{path}: line {i}: system {c[0]} segment {c[1]} again (line {seen[(c[0], c[1])]}): a "
                             "segment-score file has one line per system and segment")  # fmt: skip
        seen[(c[0], c[1])] = i
        _count_system(seen_systems, c[0], path, i)
        out.append(Judgment(system=c[0], segment=c[1], score=_number(c[col], path, i), annotator=None))
    return out, []


def read_mqm_weights(path: str) -> dict[tuple[str, str | None], float]:
    """``severity<TAB>weight`` or ``severity<TAB>category<TAB>weight`` per line (``#`` starts a comment); a
    category-specific line overrides its severity's weight; ``*`` as severity gives a category's weight whatever
    the severity (as Non-translation's)."""
    out: dict[tuple[str, str | None], float] = {}
    for i, ln in enumerate(split_lines(read_text(path)), start=1):
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in ln.split("\t")]
        if len(cells) not in (2, 3):
            raise InputError(f"{path}: line {i}: expected severity<TAB>weight or severity<TAB>category<TAB>weight")
        w = _number(cells[-1], path, i, "weight")
        if w < 0:
            raise InputError(f"{path}: line {i}: a weight must not be negative, got {w:g}")
        key = (cells[0].lower(), cells[1].lower() if len(cells) == 3 else None)
        if key in out:
            what = f"severity {cells[0]}" + (f", category {cells[1]}" if len(cells) == 3 else "")
            raise InputError(f"{path}: line {i}: a second weight for {what} ({out[key]:g}, then {w:g})")
        out[key] = w
    if not out:
        raise InputError(f"{path}: no weights")
    return out


def default_mqm_weights() -> dict[tuple[str, str | None], float]:
    w: dict[tuple[str, str | None], float] = {(s, None): x for s, x in MQM_WEIGHTS.items()}
    w[("*", "non-translation")] = w[("*", "non-translation!")] = MQM_NON_TRANSLATION
    w[("minor", "fluency/punctuation")] = MQM_MINOR_PUNCTUATION
    return w


def _mqm_weight(weights, severity: str, category: str, path: str, line: int) -> float:
    s, c = severity.lower(), category.lower()
    for key in ((s, c), ("*", c), (s, None)):
        if key in weights:
            return weights[key]
    known = sorted({k[0] for k in weights if k[0] != "*"})
    raise InputError(f"{path}: line {line}: unknown severity {severity!r} (weights are given for: "
                     f"{', '.join(known)}; add it with --mqm-weights)")  # fmt: skip


def _read_mqm(path: str, text: str, weights) -> tuple[list[Judgment], list[str]]:
    seen_systems: set[str] = set()
    header = [c.strip().lower() for c in split_lines(text)[0].split("\t")]
    missing = [c for c in ("system", "seg_id", "rater", "category", "severity") if c not in header]
    if missing:
        raise InputError(f"{path}: line 1: an MQM file needs the columns {', '.join(missing)}")
    at = {c: header.index(c) for c in header}
    sums: dict[tuple[str, str, str], float] = {}
    docs: dict[str, str] = {}
    for i, c in _rows(path, text, "\t", len(header)):
        system, seg = _need(c[at["system"]], path, i, "system"), _need(c[at["seg_id"]], path, i, "seg_id")
        _count_system(seen_systems, system, path, i)
        rater = _need(c[at["rater"]], path, i, "rater")
        w = _mqm_weight(weights, c[at["severity"]].strip(), c[at["category"]].strip(), path, i)
        sums[(system, seg, rater)] = sums.get((system, seg, rater), 0.0) + w
        if "doc" in at:
            doc = c[at["doc"]].strip()
            if docs.setdefault(seg, doc) != doc:
                raise InputError(f"{path}: line {i}: segment {seg} is in document {doc!r} here but in "
                                 f"{docs[seg]!r} before")  # fmt: skip
    out = [Judgment(system=s, segment=g, score=-v, annotator=r, doc=docs.get(g)) for (s, g, r), v in sums.items()]
    return out, []


def _read_tsv(path: str, text: str) -> tuple[list[Judgment], list[str]]:
    seen_systems: set[str] = set()
    head = [c.strip().lower() for c in split_lines(text)[0].split("\t")]
    at = _tsv_columns(head, path)
    if at is None:  # pragma: no cover - with a path, a header without the columns is an error above
        raise InputError(f"{path}: line 1: no system, segment and score columns")
    out = []
    seen: dict[tuple[str, str, str], tuple[int, str]] = {}
    for i, c in _rows(path, text, "\t", len(head)):
        opt = {k: (c[at[k]].strip() or None) for k in ("annotator", "doc", "domain") if k in at}
        _count_system(seen_systems, c[at["system"]].strip(), path, i)
        j = Judgment(system=_need(c[at["system"]], path, i, "system"),
                     segment=_need(c[at["segment"]], path, i, "segment"),
                     score=_number(c[at["score"]], path, i), **opt)  # fmt: skip
        if j.annotator is not None:  # one annotator's judgment of one item: once
            key = (j.system, j.segment, j.annotator)
            if key in seen:
                line, before = seen[key]
                what = "with another score" if before != c[at["score"]].strip() else "again"
                raise InputError(f"{path}: line {i}: annotator {j.annotator} judged system {j.system} segment "
                                 f"{j.segment} {what} (line {line}): keep one judgment per annotator and item (WMT "
                                 "keeps the latest)")  # fmt: skip
            seen[key] = (i, c[at["score"]].strip())
        out.append(j)
    return out, []


# ------------------------------------------------------------------------------------------- Appraise ESA
#: Appraise's three-letter language codes, as WMT24's humeval/tools.py maps them
LANGUAGE_CODES = {"eng": "en", "ces": "cs", "hin": "hi", "zho": "zh", "jpn": "ja", "rus": "ru", "ukr": "uk",
                  "deu": "de", "isl": "is", "spa": "es", "ara": "ar", "bho": "bho", "est": "et", "ita": "it",
                  "kor": "ko", "mas": "mas", "srp": "sr", "fra": "fr", "pol": "pl", "hrv": "hr"}  # fmt: skip
APPRAISE_COLUMNS = ("user_id", "system_id", "segment_id", "segment_type", "source_lang", "target_lang", "overall",
                    "doc_id", "unused", "error_spans", "start_time", "end_time")  # fmt: skip


def _looks_like_appraise(first_line: str) -> bool:
    import csv

    try:
        cells = next(csv.reader([first_line]))
    except (csv.Error, StopIteration):
        return False
    return len(cells) == 12 and cells[2].strip().isdigit() and cells[3] in ("TGT", "BAD", "REF", "CHK", "SRC")


def _read_appraise(path: str, text: str) -> tuple[list[Judgment], list[str]]:
    """Appraise's ESA export (WMT24's ``esa_generalMT2024_wave*.csv``): no header, 12 columns (user, system, segment
    id, item type, source and target language, score 0-100, document, an unused column, error spans as JSON, start and
    end time). Read as WMT24's humeval/tools.py reads it: TGT items only (BAD and the other quality-control items
    left out), no tutorial system, no ``#incomplete`` or ``#dup`` document (fillers), no ``canary`` document; an
    annotator who rated an item twice counts with the latest rating (by end time)."""
    import csv

    seen_systems: set[str] = set()
    latest: dict[tuple, tuple[float, int, list[str]]] = {}
    left: dict[str, int] = {}
    for i, cells in enumerate(csv.reader(split_lines(text)), start=1):
        if not cells or not any(c.strip() for c in cells):
            raise InputError(f"{path}: line {i}: empty line")
        if len(cells) != len(APPRAISE_COLUMNS):
            raise InputError(f"{path}: line {i}: {len(cells)} columns, expected {len(APPRAISE_COLUMNS)} (Appraise's "
                             "ESA "
                             "export: user, system, segment, type, source, target, score, document, -, spans, start, "
                             "end)")  # fmt: skip
        kind, system, doc = cells[3].strip(), cells[1].strip(), cells[7].strip()
        why = (
            "quality control"
            if kind != "TGT"
            else "tutorial"
            if "tutorial" in system
            else "filler document"
            if "#incomplete" in doc or "#dup" in doc
            else "canary"
            if doc == "canary"
            else None
        )
        if why:
            left[why] = left.get(why, 0) + 1
            continue
        _count_system(seen_systems, system, path, i)
        if not cells[2].strip().isdigit():
            raise InputError(f"{path}: line {i}: segment id {cells[2]!r} is not a whole number")
        src, tgt = (LANGUAGE_CODES.get(c.strip(), c.strip()) for c in cells[4:6])
        end = _number(cells[11], path, i, "end time") if cells[11].strip() else float("-inf")
        key = (cells[0].strip(), system, doc, cells[2].strip(), f"{src}-{tgt}")
        if key not in latest or end > latest[key][0]:  # the annotator's latest rating of the item
            latest[key] = (end, i, cells)
    out = []
    for (user, system, doc, seg, lp), (_, i, cells) in latest.items():
        out.append(Judgment(system=system, segment=seg, score=_number(cells[6], path, i), annotator=user, doc=doc,
                            lp=lp))  # fmt: skip
    notes = []
    if left:
        notes.append(f"{path}: left out as WMT24's humeval/tools.py leaves them out: " + ", ".join(
            f"{n} {w} row(s)" for w, n in left.items()))  # fmt: skip
    return out, notes


# ------------------------------------------------------------------------------------------- WMT24's jsonl
WMT24_JSONL_FIELDS = ("langs", "doc_id", "line_id", "system", "esa_score")


def _read_wmt24_jsonl(path: str, text: str) -> tuple[list[Judgment], list[str]]:
    """WMT24's ESA judgments as wmt24-news-systems publishes them (``jsonl/wmt24_esa.jsonl``): one JSON object per
    judged segment, ``langs`` (``en-cs``), ``doc_id``, ``line_id``, ``domain``, ``system``, ``annotator``,
    ``esa_score`` (0-100), with the texts and error spans (``src``, ``tgt``, ``esa_spans``), which are not read. A
    segment is (document, line): ``DOC#LINE``; the document and domain are the file's. A row without a score
    (``esa_score`` null) is left out, with a note."""
    seen_systems: set[str] = set()
    seen: dict[tuple, int] = {}
    out: list[Judgment] = []
    unscored = 0
    for i, ln in enumerate(split_lines(text), start=1):
        rec = json_line(path, i, ln)
        if not isinstance(rec, dict) or any(f not in rec for f in WMT24_JSONL_FIELDS):
            raise InputError(f"{path}: line {i}: expected WMT24's ESA jsonl ({', '.join(WMT24_JSONL_FIELDS)})")
        x = rec["esa_score"]
        if x is None:
            unscored += 1
            continue
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise InputError(f"{path}: line {i}: esa_score {json.dumps(x)} is not a finite number")
        if not 0 <= x <= 100:
            raise InputError(f"{path}: line {i}: esa_score {json.dumps(x)} is outside ESA's scale of 0 to 100")
        for f in ("system", "doc_id", "langs"):
            if not isinstance(rec[f], str) or not rec[f].strip():
                raise InputError(f"{path}: line {i}: {f} {json.dumps(rec[f])} is not a name (a non-empty string)")
        system, doc, line = rec["system"].strip(), rec["doc_id"].strip(), rec["line_id"]
        if isinstance(line, bool) or not (
            (isinstance(line, int) and line >= 0) or (isinstance(line, str) and line.strip().isdigit())
        ):
            raise InputError(f"{path}: line {i}: line_id {json.dumps(line)} is not a segment number (a whole number "
                             "from 0)")  # fmt: skip
        _count_system(seen_systems, system, path, i)
        domain = rec.get("domain")
        annotator = rec.get("annotator")
        for f, v in (("domain", domain), ("annotator", annotator)):
            if f in rec and (not isinstance(v, str) or not v.strip()):
                raise InputError(f"{path}: line {i}: {f} {json.dumps(v)} is not a name (a non-empty string; leave "
                                 "the field out where there is none)")  # fmt: skip
        key = (system, doc, int(line), annotator)
        if key in seen:
            raise InputError(f"{path}: line {i}: repeats the judgment of line {seen[key]} ({system}, document "
                             f"{doc}, line {int(line)}, annotator {annotator}): a duplicated judgment would count "
                             "twice")  # fmt: skip
        seen[key] = i
        line = int(line)
        out.append(Judgment(system=system, segment=f"{doc}#{line}", score=float(x), doc=doc, lp=str(rec["langs"]),
                            domain=None if domain is None else str(domain),
                            annotator=None if annotator is None else str(annotator)))  # fmt: skip
    notes = [f"{path}: {unscored} row(s) without an esa_score left out"] if unscored else []
    return out, notes


# ------------------------------------------------------------------------------------------- WMT25
def _read_wmt25(path: str, text: str) -> tuple[list[Judgment], list[str]]:
    """WMT25's human evaluation (``wmt25-genmt-humeval.jsonl``): one JSON object per line, ``doc_id``
    ``LANGS_#_DOMAIN_#_DOCUMENT_#_PARAGRAPH`` and ``scores`` ``{system: {"human1": x, "human2": y, ...}}`` (each
    wave's score; ``{system: x}`` for a single wave). Every (item, wave) is a segment, as WMT25 counts them; the
    document and domain come from the id, the language pair too."""
    seen_systems: set[str] = set()
    out: list[Judgment] = []
    for i, ln in enumerate(split_lines(text), start=1):
        rec = json_line(path, i, ln)
        if not isinstance(rec, dict) or not isinstance(rec.get("doc_id"), str) or not isinstance(rec.get("scores"),
                                                                                                  dict):  # fmt: skip
            raise InputError(f'{path}: line {i}: expected {{"doc_id": ..., "scores": {{system: ...}}}}')
        parts = rec["doc_id"].split("_#_")
        if len(parts) < 3:
            raise InputError(f"{path}: line {i}: doc_id {rec['doc_id']!r} is not LANGS_#_DOMAIN_#_DOCUMENT[_#_N]")
        lp, domain, doc = parts[0], parts[1], "_#_".join(parts[:3])
        for system, v in rec["scores"].items():
            _count_system(seen_systems, system, path, i)
            waves = {"1": v} if isinstance(v, (int, float)) and not isinstance(v, bool) else {
                k[5:]: x for k, x in v.items() if k.startswith("human") and k[5:].isdigit()} if isinstance(v, dict) \
                else None  # fmt: skip
            if waves is None:
                raise InputError(f"{path}: line {i}: the scores of {system!r} are neither a number nor "
                                 "{\"human1\": ..., ...}")  # fmt: skip
            for wave, x in waves.items():
                if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
                    raise InputError(f"{path}: line {i}: {system}'s human{wave} {x!r} is not a finite number")
                out.append(Judgment(system=system, segment=f"{rec['doc_id']}#{wave}", score=float(x), doc=doc,
                                    domain=domain, lp=lp, wave=wave, item=rec["doc_id"]))  # fmt: skip
    return out, []


# ------------------------------------------------------------------------------------------- aggregation
def standardize_by_annotator(judgments: list[Judgment]) -> tuple[list[Judgment], str]:
    """Each annotator's scores as z-scores (ddof=1); an annotator with one score, or all scores equal, is an
    error (their z is undefined)."""
    by: dict[str, list[float]] = {}
    for j in judgments:
        if j.annotator is None:
            raise InputError("standardize='annotator' needs an annotator for every judgment (this format has none)",
                             param="standardize")  # fmt: skip
        by.setdefault(j.annotator, []).append(j.score)
    stats: dict[str, tuple[float, float]] = {}
    for a, xs in by.items():
        x = np.asarray(xs)
        sd = float(x.std(ddof=1)) if x.size > 1 else 0.0
        if not sd > 0:
            what = f"all {x.size} scores are equal" if x.size > 1 else "one score"
            raise InputError(f"annotator {a!r}: {what} ({x[0]:g}): z-standardization is undefined (leave the "
                             "annotator out, or do not standardize)", param="standardize")  # fmt: skip
        stats[a] = (float(x.mean()), sd)
    out = [replace(j, score=(j.score - stats[str(j.annotator)][0]) / stats[str(j.annotator)][1]) for j in judgments]
    return out, f"scores z-standardized per annotator ({len(stats)} annotators, standard deviation with ddof=1)"


def _order(ids: Iterable[str]) -> list[str]:
    ids = list(dict.fromkeys(ids))
    if all(re.fullmatch(r"-?\d+", s) for s in ids):
        return sorted(ids, key=int)
    return ids


def _per_segment(values: list[tuple[str, str | None]], what: str, seg_index: dict[str, int], path: str):
    labels: list[str | None] = [None] * len(seg_index)
    for seg, v in values:
        i = seg_index[seg]
        if v is not None and labels[i] is not None and labels[i] != v:
            raise InputError(f"{path}: segment {seg} is in {what} {labels[i]!r} and in {v!r}")
        labels[i] = v if v is not None else labels[i]
    if all(x is None for x in labels):
        return None
    return tuple("" if x is None else x for x in labels)


def _invisible_free(name: str) -> str:
    import unicodedata

    return "".join(ch for ch in unicodedata.normalize("NFC", name) if unicodedata.category(ch) not in ("Cf", "Cc"))


def check_distinct_names(names: Sequence[str], what: str, where: str) -> None:
    """Names that differ only by Unicode normalization (NFC/NFD) or invisible characters (zero-width spaces, joiners,
    byte-order marks) print alike: refused, naming both."""
    seen: dict[str, str] = {}
    for n in names:
        key = _invisible_free(n)
        if key in seen and seen[key] != n:
            raise InputError(f"{where}: {what} names {seen[key]!r} and {n!r} print alike (they differ only in "
                             "invisible characters or Unicode normalization): rename one")  # fmt: skip
        seen.setdefault(key, n)


def _r_mean(xs: list[float]) -> float:
    """R's ``mean()`` of doubles: summed in long double, divided, then corrected by the mean residual (R's
    summary.c), converted to double."""
    ld = np.longdouble
    s = ld(0)
    for x in xs:
        s += ld(x)
    s /= len(xs)
    t = ld(0)
    for x in xs:
        t += ld(x) - s
    return float(s + t / len(xs))


def _as_wmt_wrote_them(judgments: list[Judgment], si: dict, gi: dict, scores: np.ndarray,
                       count: np.ndarray) -> np.ndarray:  # fmt: skip
    """WMT DA segment means as WMT's R pipeline wrote its segment-score files: R's ``mean()`` of a segment's
    judgments, written with 15 significant digits. Ranked by the wmt22 protocol, the written values are what give
    WMT's ties and so its published p-values (the judgment file and the segment-score file then agree to 1e-9
    relative); the last digits change nothing else."""
    several: dict[tuple[int, int], list[float]] = {}
    for j in judgments:
        k, i = si[j.system], gi[j.segment]
        if count[k, i] > 1:
            several.setdefault((k, i), []).append(j.score)
    out = scores.copy()
    for (k, i), xs in several.items():
        out[k, i] = _r_mean(xs)
    flat = out.reshape(-1)
    ok = np.isfinite(flat)
    flat[ok] = [float(f"{x:.15g}") for x in flat[ok]]
    return out


def aggregate(judgments: list[Judgment], *, sources: Sequence[str], input_format: str,
              notes: Sequence[str] = (), runs: Sequence[tuple[int, int]] = ()) -> HumanScores:  # fmt: skip
    """Segment means per system (a system's segment score is the mean of its judgments of that segment). WMT DA
    judgments: each segment's document from the ``runs`` of consecutive segment ids the HITs scored."""
    if not judgments:
        raise InputError(f"{', '.join(sources)}: no human judgment of any system")
    systems = list(dict.fromkeys(j.system for j in judgments))
    where = ", ".join(sources)
    check_distinct_names(systems, "system", where)
    if any(j.wave is not None for j in judgments):  # wave by wave, items in file order (as WMT25 lays them out)
        by_wave: dict[str, list[str]] = {}
        for j in judgments:
            by_wave.setdefault(j.wave or "", []).append(j.segment)
        segments = list(dict.fromkeys(g for w in sorted(by_wave, key=lambda w: (len(w), w)) for g in by_wave[w]))
    else:
        segments = _order(j.segment for j in judgments)
    si, gi = {s: k for k, s in enumerate(systems)}, {g: i for i, g in enumerate(segments)}
    total = np.zeros((len(systems), len(segments)))
    count = np.zeros((len(systems), len(segments)), dtype=np.int64)
    for j in judgments:
        total[si[j.system], gi[j.segment]] += j.score
        count[si[j.system], gi[j.segment]] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    if input_format == "wmt-da":
        scores = _as_wmt_wrote_them(judgments, si, gi, scores, count)
    docs = _per_segment([(j.segment, j.doc) for j in judgments], "document", gi, where)
    domains = _per_segment([(j.segment, j.domain) for j in judgments], "domain", gi, where)
    notes = list(notes)
    origin = "the file" if docs is not None else None
    if docs is None and runs and all(g.isdigit() for g in segments):
        label, clean = documents_from_runs(runs)
        docs = tuple(label.get(int(g), f"{g}-{g}") for g in segments)
        origin = "the HITs"
        notes.append(f"documents: {len(set(docs))} recovered from the HITs (each HIT scores whole documents: runs of "
                     "consecutive segment ids of one system)"
                     + ("" if clean else "; some runs cross each other, so crossing runs were merged into one unit "
                        "(larger units: the cautious side)"))  # fmt: skip
    waves = _per_segment([(j.segment, j.wave) for j in judgments], "wave", gi, where)
    items = _per_segment([(j.segment, j.item) for j in judgments], "item", gi, where)
    return HumanScores(systems=tuple(systems), segments=tuple(segments), scores=scores, judgments=count,
                       documents=docs, domains=domains, sources=tuple(sources), input_format=input_format,
                       notes=tuple(notes), documents_from=origin, runs=tuple(runs) or None, waves=waves,
                       items=items)  # fmt: skip


def _one_pair(judgments: list[Judgment], lp: str | None, where: str) -> list[Judgment]:
    """The judgments of one language pair: ``lp``, or the only one the files hold."""
    pairs = sorted({j.lp for j in judgments if j.lp is not None})
    if lp is None:
        if len(pairs) > 1:
            raise InputError(f"{where}: judgments of {len(pairs)} language pairs ({', '.join(pairs)}): pick one "
                             "with lp",
                             param="lp")  # fmt: skip
        return judgments
    if not pairs:
        raise InputError(f"{where}: the file does not say its language pair; lp {lp!r} cannot be picked", param="lp")
    if lp not in pairs:
        raise InputError(f"{where}: no judgments of language pair {lp!r}; the file has {', '.join(pairs)}", param="lp")
    return [j for j in judgments if j.lp == lp]


def _read_one(path: str, input_format: str | None, weights, da_score: str, own_weights: bool = True,
              pearmut: dict | None = None):  # fmt: skip
    text = read_text(path)
    if not text.strip():
        raise InputError(f"{path}: empty file")
    fmt = input_format or detect_format(path, split_lines(text)[0])
    runs: list[tuple[int, int]] = []
    if fmt == "pearmut":
        from mtsig.io.pearmut import read_pearmut

        opts = pearmut if pearmut is not None else {}
        raw, more, screens, key = read_pearmut(path, text, opts.get("lp"), opts.get("reset") or "campaign")
        got = [Judgment(**r) for r in raw]
        opts["screens"] = screens
        opts["campaign"] = key
    elif fmt == "wmt-da":
        got, more, runs = _read_wmt_da(path, text)
    elif fmt == "wmt-da-seg":
        got, more = _read_wmt_da_seg(path, text, da_score)
    elif fmt == "mqm":
        got, more = _read_mqm(path, text, weights)
    elif fmt == "appraise-esa":
        got, more = _read_appraise(path, text)
    elif fmt == "wmt25-humeval":
        got, more = _read_wmt25(path, text)
    elif fmt == "wmt24-esa-jsonl":
        got, more = _read_wmt24_jsonl(path, text)
    elif fmt == "mtme-seg":
        got, more = _read_mtme_seg(path, text)
    elif fmt == "mtme-rating":
        got, more = _read_mtme_rating(path, text, weights if own_weights else None)
    else:
        got, more = _read_tsv(path, text)
    if not got:
        raise InputError(f"{path}: no judgment of any system")
    return fmt, got, more, runs


def _pair_judgments(judgments: list[Judgment], paths: Sequence[str], fmt: str, lp: str | None,
                    reset: str | None) -> list[Judgment]:  # fmt: skip
    """The judgments of the language pair asked for (a Pearmut log's campaign is picked while reading: ``reset``
    only for a Pearmut log, and one log at a time)."""
    if reset is not None and fmt != "pearmut":
        raise InputError(f"reset is a rule of Pearmut logs; {', '.join(paths)} are {fmt}", param="reset")
    if fmt != "pearmut":
        return _one_pair(judgments, lp, ", ".join(paths))
    if len(paths) > 1:
        raise InputError("a Pearmut log is one campaign's time order: give one file", param="files")
    return judgments


def read_human(  # noqa: PLR0913 - every setting is a keyword, typed and documented
    paths: str | Sequence[str],
    *,
    input_format: str | None = None,
    standardize: str | None = None,
    mqm_weights: str | dict | None = None,
    da_score: str = "z",
    docs=None,
    lp: str | None = None,
    reset: str | None = None,
) -> HumanScores:
    """Read human judgments from one or more files of one format (see the module's docstring).

    ``reset``: Pearmut logs only: ``campaign`` (WMT26's rule, the default: a ``__RESET__`` empties the whole
    campaign) or ``annotator`` (Pearmut's: it masks its annotator's earlier lines).

    ``docs``: the test set's documents (a ``.docs`` file, a WMT XML test set, or
    :class:`~mtsig.io.documents.Documents`): each segment gets its test-set line, document and domain
    (:meth:`HumanScores.with_documents`)."""
    paths = [paths] if isinstance(paths, str) else list(paths)
    if not paths:
        raise InputError("no file of human judgments given")
    if input_format is not None and input_format not in INPUT_FORMATS:
        raise unknown_name("input format", input_format, INPUT_FORMATS)
    if standardize not in (None, "none", "annotator"):
        raise unknown_name("standardization", standardize, ("none", "annotator"))
    if da_score not in ("z", "raw"):
        raise unknown_name("DA score", da_score, ("z", "raw"))
    weights = read_mqm_weights(mqm_weights) if isinstance(mqm_weights, str) else (mqm_weights or default_mqm_weights())
    judgments: list[Judgment] = []
    notes: list[str] = []
    fmts = []
    runs: list[tuple[int, int]] = []
    pm: dict = {"lp": lp, "reset": reset}
    for path in paths:
        fmt, got, more, found = _read_one(path, input_format, weights, da_score, mqm_weights is not None, pm)
        fmts.append(fmt)
        judgments += got
        notes += more
        runs += found
    if len(set(fmts)) > 1:
        raise InputError(f"the files are of different formats ({', '.join(f'{p}: {f}' for p, f in zip(paths, fmts))})")
    judgments = _pair_judgments(judgments, paths, fmts[0], lp, reset)
    if standardize == "annotator":
        judgments, note = standardize_by_annotator(judgments)
        notes.append(note)
    h = aggregate(judgments, sources=paths, input_format=fmts[0], notes=notes, runs=runs)
    if fmts[0] == "pearmut":
        h = replace(h, screens=pm["screens"])
    if docs is not None:
        from mtsig.io.documents import Documents, read_documents

        h = h.with_documents(docs if isinstance(docs, Documents) else read_documents(docs))
    return h
