"""Segment-level scores a user brings (human judgments, COMET, BLEURT ...) as a metric.

Statistics per segment: ``[score, 1]``; the corpus score is the mean, so every test, interval and
optimizer-run statistic works on these scores as on any metric. The scores are attached to each system
(and run) when the inputs are read (``--seg-scores``); ``seg_name`` names the metric in reports and
``seg_lower_is_better`` states its direction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.io.segments import Segments
from mtsig.metrics.base import Metric
from mtsig.metrics.options import Option, SideInput


def _attach(refs, systems, specs) -> None:
    from mtsig.io.segscores import attach_seg_scores

    attach_seg_scores(systems, specs)


def judged_stats(scores) -> np.ndarray:
    """The ``seg`` metric's statistics of segment scores: ``[score, 1]``, and ``[0, 0]`` where a score is missing
    (human judgments leave segments unjudged: out of every mean and resample)."""
    s = np.asarray(scores, dtype=np.float64)
    judged = np.isfinite(s)
    return np.column_stack([np.where(judged, s, 0.0), judged.astype(np.float64)])


class SegmentScores(Metric):
    name = "seg"
    nonnegative_stats = False  # scores may be negative
    description = "mean of user-supplied segment scores (--seg-scores; human judgments, COMET, ...)"
    options = {
        "seg_name": Option("seg", "name of the segment-score metric in reports (seg)"),
        "seg_lower_is_better": Option(False, "the segment scores are lower-is-better"),
    }
    side_inputs = {
        "seg_scores": SideInput(
            "segment scores for -m seg: NAME=FILE[,FILE...] (one number per line) or a TSV/JSONL table; without -r, "
            "the scores alone (systems picked by name with -s)",
            _attach,
            "SPEC",
            path="named",
            naming="scores",
        )
    }
    signature_has_refs = False  # references play no part in user scores
    sentence_score_label = "the segment scores as given"
    #: neural metrics score in [0, 1] (COMET 0.8412): two decimals hid their differences (0.48 | 0.46 | -0.02)
    decimals = 4

    def __init__(self, **opts: Any):
        super().__init__(**opts)
        self.name = str(self.config["seg_name"])  # the report name (the registry key stays "seg")
        self.higher_is_better = not bool(self.config["seg_lower_is_better"])

    @property
    def stat_names(self):
        return ["score", "count"]

    def _stats(self, hyp: Segments) -> np.ndarray:
        if hyp.seg_scores is None:
            raise InputError(
                f"no segment scores for {hyp.source or hyp.name}: give seg_scores NAME=FILE (one number per line) "
                "or a TSV/JSON-lines table with a column per system",
                param="seg_scores",
            )
        return judged_stats(hyp.seg_scores)

    def score(self, totals):
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return totals[..., 0] / totals[..., 1]

    def signature_fields(self):
        return [("name", self.name), ("higher", "no" if self.config["seg_lower_is_better"] else "yes")]
