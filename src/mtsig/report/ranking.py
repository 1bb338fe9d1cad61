"""Segments ranked for manual analysis (Clark et al. 2011, section 5): each system's median run against
the baseline's median run, best improvement first.

One TSV per (metric, system) in the target folder, ``<metric>.<system>.tsv``, with the columns
``rank, segment, improvement, score_system, score_baseline, system, baseline, ref1..refK``.
``improvement`` is the sentence-level difference oriented so that positive is better for the system
(for lower-is-better metrics such as TER the sign is flipped); ``segment`` is the 1-based line number,
or ``docid:segid`` for SGML input. Fields are plain TSV: no quoting; a backslash, tab, newline or carriage
return inside a segment is written ``\\``, ``\t``, ``\n``, ``\r`` (so every line is one segment and every
tab a column boundary, for ``cut``, ``awk`` and spreadsheets alike).
"""

from __future__ import annotations

import os
import re

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.runs import median_run
from mtsig.table import StatsTable

#: a TSV field's escapes (the text format's convention): the backslash first, so an escape is never doubled
_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


class _TsvWriter:
    """Rows of fields joined by tabs, each field escaped (see the module's description)."""

    def __init__(self, fh):
        self.fh = fh

    def writerow(self, fields) -> None:
        self.fh.write("\t".join(str(f).translate(_TSV_ESCAPES) for f in fields) + "\n")


def rank_segments(sys_scores: np.ndarray, base_scores: np.ndarray, metric) -> tuple[np.ndarray, np.ndarray]:
    """Order of segments, best improvement first, and the improvements oriented by the metric's direction
    (for ``length``: how much closer to 100 the system's segment is than the baseline's)."""
    imp = metric.goodness(sys_scores) - metric.goodness(base_scores)
    order = np.argsort(-np.nan_to_num(imp, nan=-np.inf), kind="stable")
    return order, imp


def _safe(name: str) -> str:
    return re.sub(r"[^\w.+-]", "_", name)


def write_rankings(table: StatsTable, baseline: str, folder: str) -> list[str]:
    if table.texts is None:
        raise InputError(
            "rank_dir needs the texts: give refs and systems instead of stats",
            param=("rank_dir", "refs", "systems", "stats"),
        )
    refs, systems = table.texts
    by_name = {s.name: s for s in systems}
    if baseline not in by_name:
        raise InputError(f"baseline {baseline!r} is not one of the systems")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise InputError(f"rank_dir {folder}: cannot create it ({exc.strerror or exc})", param="rank_dir") from None
    written = []
    for mname, metric in table.metrics.items():
        hib = metric.higher_is_better
        base_run = median_run(table.corpus_scores(mname, baseline), hib)
        base_sent = metric.sentence_scores(table.stats[mname][baseline][base_run])
        base_text = by_name[baseline].runs[base_run]
        for s in systems:
            if s.name == baseline:
                continue
            run = median_run(table.corpus_scores(mname, s.name), hib)
            sent = metric.sentence_scores(table.stats[mname][s.name][run])
            order, imp = rank_segments(sent, base_sent, metric)
            path = os.path.join(folder, f"{_safe(mname)}.{_safe(s.name)}.tsv")
            with open(path, "w", encoding="utf-8", newline="") as fh:
                w = _TsvWriter(fh)
                w.writerow(
                    [
                        "rank",
                        "segment",
                        "improvement",
                        "score_system",
                        "score_baseline",
                        f"system ({s.runs[run].source or s.name})",
                        f"baseline ({base_text.source or baseline})",
                        *(f"ref{k + 1}" for k in range(len(refs))),
                    ]
                )
                for rank, i in enumerate(order, start=1):
                    seg = f"{refs[0].keys[i][0]}:{refs[0].keys[i][1]}" if refs[0].keys else str(i + 1)
                    w.writerow(
                        [
                            rank,
                            seg,
                            f"{imp[i]:.4f}",
                            f"{sent[i]:.4f}",
                            f"{base_sent[i]:.4f}",
                            s.runs[run][i],
                            base_text[i],
                            *(r[i] for r in refs),
                        ]
                    )
            written.append(path)
    return written
