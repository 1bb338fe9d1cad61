"""Inputs of ``mtsig meta``: human scores (any :mod:`mtsig.io.human` format, or a system-level ``SYSTEM score``
file), metric scores in mt-metrics-eval's layout (``SYSTEM score`` per line: once per system at system level, once
per segment in test-set order at segment level; ``None`` for a missing score) or computed by mtsig from the texts,
aligned on common systems and segments."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from mtsig.errors import InputError
from mtsig.io.human import MAX_SCORE, HumanScores, check_distinct_names, read_human
from mtsig.io.text import read_text, split_lines
from mtsig.metaeval.core import MetaData, MetricScores

_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def read_score_file(path: str) -> tuple[dict[str, list[float]], int]:
    """``SYSTEM score`` lines: each system's scores in order, and how many were ``None``/NaN (kept as NaN)."""
    out: dict[str, list[float]] = {}
    missing = 0
    for i, ln in enumerate(split_lines(read_text(path)), start=1):
        if not ln.strip():
            raise InputError(f"{path}: line {i}: empty line")
        cells = ln.split()
        if len(cells) != 2:
            raise InputError(f"{path}: line {i}: expected 'SYSTEM score', got {len(cells)} fields")
        name, v = cells
        if v in ("None", "nan", "NaN"):
            x = float("nan")
            missing += 1
        elif _NUMBER.fullmatch(v):
            x = float(v)
            if not np.isfinite(x) or abs(x) >= MAX_SCORE:
                raise InputError(f"{path}: line {i}: score {v!r} is too large: correlations of scores of that size "
                                 f"overflow (scores must lie within ±{MAX_SCORE:.0e})")  # fmt: skip
        else:
            raise InputError(f"{path}: line {i}: score {v!r} is not a number")
        out.setdefault(name, []).append(x)
    if not out:
        raise InputError(f"{path}: empty file")
    return out, missing


def _match(human: Sequence[str], metric: Sequence[str], where: str = "") -> dict[str, str]:
    """human name -> metric name: the same name, else WMT's numbered id ``NAME.3`` as ``NAME``. Two human systems
    matched to one metric system is an error (which of them would the metric's score be?)."""
    have = set(metric)
    out: dict[str, str] = {}
    for h in human:
        if h in have:
            out[h] = h
        else:
            base = re.sub(r"\.\d+$", "", h)
            if base in have:
                out[h] = base
    back: dict[str, str] = {}
    for h, m in out.items():
        if m in back:
            raise InputError(f"{where}: metric system {m!r} matches two human systems, {back[m]!r} and {h!r}: name the "
                             "systems alike in both files (one human system per metric system)")  # fmt: skip
        back[m] = h
    return out


def _positions(h: HumanScores, n: int, where: str) -> np.ndarray:
    """Each human segment id's position in the metric files' test-set order (ids 1..n, or 0..n-1)."""
    if h.lines is not None:  # placed by the test set's documents
        pos = np.asarray(h.lines, dtype=np.int64)
        if pos.max() >= n:
            raise InputError(f"the human segments reach test-set line {int(pos.max()) + 1}, beyond the {n} segments of "
                             f"{where}")  # fmt: skip
        return pos
    try:
        ids = np.array([int(s) for s in h.segments])
    except ValueError:
        raise InputError(f"human segment ids are not numbers ({h.segments[0]!r}...): they cannot be placed in the "
                         f"test-set order of {where}") from None  # fmt: skip
    base = 0 if ids.min() == 0 else 1
    pos = ids - base
    if pos.max() >= n or pos.min() < 0:
        raise InputError(f"human segment id {int(ids.max())} is beyond the {n} segments of {where}")
    return pos


def _common_systems(h_names: list[str], metrics: dict) -> tuple[list[str], dict, list[str]]:
    notes, maps, common = [], {}, set(h_names)
    for m, (scores, src) in metrics.items():
        check_distinct_names(list(scores), "system", src)
        mp = _match(h_names, list(scores), src)
        maps[m] = mp
        lost = [x for x in h_names if x not in mp]
        if lost:
            notes.append(f"{m} ({src}) has no scores of {', '.join(lost)}: left out")
        common &= set(mp)
    systems = [s for s in h_names if s in common]
    if len(systems) < 3:
        raise InputError(f"only {len(systems)} system(s) have human scores and scores of every metric ("
                         f"{', '.join(systems) or 'none'}): a meta-evaluation needs at least 3")  # fmt: skip
    return systems, maps, notes


def _segment_count(metrics: dict) -> tuple[set[str], int | None]:
    """The segment-level metrics and their one number of segments per system."""
    seg_n = {m: {len(v) for v in sc.values()} for m, (sc, _) in metrics.items()}
    seg_level = {m for m, ns in seg_n.items() if ns != {1}}
    for m in seg_level:
        if len(seg_n[m]) != 1:
            counts = ", ".join(str(x) for x in sorted(seg_n[m]))
            raise InputError(f"{metrics[m][1]}: metric {m} has different numbers of scores per system ({counts}): "
                             "give one per segment for every system")  # fmt: skip
    Ns = {next(iter(seg_n[m])) for m in seg_level}
    if len(Ns) > 1:
        desc = ", ".join(f"{m} ({metrics[m][1]}): {next(iter(seg_n[m]))}" for m in seg_level)
        raise InputError(f"the metrics' segment counts differ: {desc}")
    return seg_level, (Ns.pop() if Ns else None)


def _metric(m: str, rows: np.ndarray, where: tuple, H, resampled, notes: list[str]) -> MetricScores:
    src, names = where
    bad = int(np.sum(~np.isfinite(rows) & (np.isfinite(H) if H is not None else True)))
    if bad:
        notes.append(f"{m}: {bad} missing (None/NaN) segment score(s): those entries are left out")
        if H is not None:
            H[~np.isfinite(rows)] = np.nan
    sysv, boot = np.nanmean(rows, axis=1), None
    if resampled and m in resampled:  # mtsig's own metric: corpus scores, resampled from statistics
        fn, corpus = resampled[m]
        sysv = np.array([corpus[n] for n in names])
        boot = lambda W, fn=fn, names=names: fn(W, names)  # noqa: E731
    return MetricScores(name=m, segments=rows, systems=sysv, source=src, resampled=boot)


#: the formats whose segment ids are not test-set lines (WMT's DA numbering: documents sorted by id)
WMT_DA = ("wmt-da", "wmt-da-seg")


def _placeable(human: HumanScores) -> bool:
    return human.lines is not None or human.input_format not in WMT_DA


def _place_human(human: HumanScores, systems: list[str], N: int | None, where: str, level: str,
                 notes: list[str]) -> tuple[np.ndarray | None, np.ndarray, tuple[str, ...] | None]:  # fmt: skip
    """The human segment scores placed in the metrics' test-set order (S, N), or None, the system scores, and each
    item's document (None without documents)."""
    sub = human.select(systems)
    H = None
    docs = None
    if N is not None and _placeable(sub):
        pos = _positions(sub, N, where)
        H = np.full((len(systems), N), np.nan)
        H[:, pos] = sub.scores
        if sub.documents is not None:
            labels = [f"(item {i + 1}: no human score)" for i in range(N)]
            for p, d in zip(pos, sub.documents):
                labels[p] = d
            docs = tuple(labels)
    elif N is not None:
        why = (f"{', '.join(human.sources)}: WMT DA segment ids are not test-set line numbers (segment id s is the "
               "s-th segment with the test set's documents sorted by id)")  # fmt: skip
        if level == "segment":
            raise InputError(f"{why}: segment-level meta-evaluation would pair human scores with the wrong "
                             "segments; give the test set's documents with docs (DOMAIN DOCID lines, as "
                             "mt-metrics-eval ships them, or the WMT XML test set) so that mtsig can place them",
                             param="docs")  # fmt: skip
        notes.append(f"{why}: without the test set's documents (docs) they are not placed, so the system level "
                     "uses system scores alone (intervals over systems, no SPA)")  # fmt: skip
    return H, sub.system_means(), docs


def _drop_unscored(systems: list[str], hs: np.ndarray, H, out: list[MetricScores], notes: list[str]):
    """Systems without a human score or without a score of some metric (None/NaN) are left out of everything."""
    keep = np.isfinite(hs)
    for m in out:
        bad = ~np.isfinite(m.systems)
        if bad.any():
            notes.append(f"{m.name}: no score (None/NaN) for {', '.join(s for s, b in zip(systems, bad) if b)}: "
                         "left out of every statistic")  # fmt: skip
        keep &= ~bad
    if not np.isfinite(hs).all():
        notes.append(f"no human score for {', '.join(s for s, k in zip(systems, np.isfinite(hs)) if not k)}: left out")
    if keep.all():
        return systems, hs, H, out
    if keep.sum() < 3:
        raise InputError(f"only {int(keep.sum())} system(s) have a human score and a score of every metric: a "
                         "meta-evaluation needs at least 3")  # fmt: skip
    systems = [s for s, k in zip(systems, keep) if k]
    return systems, hs[keep], (H[keep] if H is not None else None), [_keep_systems(m, keep) for m in out]


def align(human: HumanScores | dict[str, float], metrics: dict[str, tuple[dict[str, list[float]], str]],
          resampled: dict | None = None, level: str = "system") -> MetaData:  # fmt: skip
    """Align human scores with each metric's scores (``{metric: ({system: scores}, source)}``) on the systems all
    have; segment-level metric files must give every system the same number of segments. WMT DA segment ids
    are placed in the test set only with its documents (:meth:`HumanScores.with_documents`); without them,
    segment level is refused and system level uses system scores alone."""
    h_names = list(human.systems) if isinstance(human, HumanScores) else list(human)
    systems, maps, notes = _common_systems(h_names, metrics)
    seg_level, N = _segment_count(metrics)
    if isinstance(human, HumanScores):
        where = metrics[next(iter(seg_level))][1] if seg_level else ""
        H, hs, docs = _place_human(human, systems, N, where, level, notes)
    else:
        H, hs, docs = None, np.array([human[s] for s in systems], dtype=np.float64), None
    out = []
    for m, (scores, src) in metrics.items():
        rows = np.array([scores[maps[m][s]] for s in systems], dtype=np.float64)
        if m in seg_level:
            out.append(_metric(m, rows, (src, [maps[m][s] for s in systems]), H, resampled, notes))
        else:
            out.append(MetricScores(name=m, segments=None, systems=rows[:, 0], source=src))
    systems, hs, H, out = _drop_unscored(systems, hs, H, out, notes)
    for m in out:
        if np.ptp(m.systems) == 0:
            notes.append(f"{m.name}: every system has the same score: its correlations are undefined (null)")
    return MetaData(systems=tuple(systems), human=H, human_systems=hs, metrics=tuple(out), notes=tuple(notes),
                    item_documents=docs)  # fmt: skip


def _keep_systems(m: MetricScores, keep: np.ndarray) -> MetricScores:
    from dataclasses import replace

    resampled = None
    if m.resampled is not None:
        fn = m.resampled
        resampled = lambda W, fn=fn, keep=keep: fn(W)[:, keep]  # noqa: E731
    return replace(m, systems=m.systems[keep], segments=m.segments[keep] if m.segments is not None else None,
                   resampled=resampled)  # fmt: skip


def human_input(path: str | Sequence[str], **read_options) -> HumanScores | dict[str, float]:
    """Human scores from files: a ``SYSTEM score`` system-level file, or any format :func:`read_human` reads
    (``read_options``: its keywords, e.g. ``input_format``, ``docs``)."""
    paths = [path] if isinstance(path, str) else list(path)
    read_options = {k: v for k, v in read_options.items() if v is not None}
    if len(paths) == 1 and not read_options.get("input_format"):
        text = read_text(paths[0])
        lines = [ln.split() for ln in split_lines(text) if ln.strip()]
        if lines and all(len(c) == 2 and (_NUMBER.fullmatch(c[1]) or c[1] in ("None", "nan", "NaN")) for c in lines):
            names = [c[0] for c in lines]
            if len(set(names)) == len(names):
                check_distinct_names(names, "system", paths[0])
                out = {c[0]: float("nan") if c[1] in ("None", "nan", "NaN") else float(c[1]) for c in lines}
                big = next((k for k, v in out.items() if abs(v) >= MAX_SCORE), None)
                if big is not None:
                    raise InputError(f"{paths[0]}: the score of {big} is too large (scores must lie within "
                                     f"±{MAX_SCORE:.0e})")  # fmt: skip
                if read_options.get("lp"):
                    raise InputError(f"{paths[0]}: system scores (SYSTEM score lines) of one language pair: lp "
                                     f"{read_options['lp']!r} picks a pair of a judgment file", param="lp")  # fmt: skip
                return out
    return read_human(paths, **read_options)


def own_metrics(refs, systems, metrics: Sequence[str], **options) -> tuple[dict, dict]:
    """Segment scores and corpus scores of mtsig's own metrics from the texts: ``({metric: ({system: segment
    scores}, source)}, {metric: resampled(W)})`` (the bootstrap recomputes each corpus score from the resampled
    sufficient statistics, so BLEU's interval is BLEU's, not a mean of sentence BLEU)."""
    import mtsig

    table = mtsig.compute(refs, systems, list(metrics), **options)
    out, boot = {}, {}
    for name, metric in table.metrics.items():
        if metric.target is not None:
            from mtsig.errors import InputError

            raise InputError(f"metric {name} is best at {metric.target:g}, not high or low: it has no agreement with "
                             "human scores to measure")  # fmt: skip
        sign = 1.0 if metric.higher_is_better else -1.0  # every metric oriented so that higher is better
        per = {s: [sign * float(v) for v in metric.sentence_scores(table.stats[name][s].sum(axis=0))] for s in
               table.system_names}  # fmt: skip
        flip = "" if sign > 0 else " (negated: lower is better)"
        out[name] = (per, "mtsig " + table.signatures.get(name, metric.signature) + flip)
        stats = {s: table.stats[name][s].sum(axis=0) for s in table.system_names}

        def resampled(W, names=None, stats=stats, metric=metric, sign=sign):
            names = names or list(stats)
            return sign * np.stack([metric.score(W @ stats[s]) for s in names], axis=1)

        boot[name] = (resampled, {s: sign * float(metric.score(v.sum(axis=0))) for s, v in stats.items()})
    return out, boot


def negate(scores: dict[str, list[float]]) -> dict[str, list[float]]:
    """A lower-is-better metric's scores, oriented so that higher is better."""
    return {k: [-x for x in v] for k, v in scores.items()}
