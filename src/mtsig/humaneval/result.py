"""Typed, frozen results of ``mtsig human``: per system its score, interval, wins, cluster and rank range; per
pair the test; the clusters. ``to_dict()`` is the JSON the command line prints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mtsig.serialize import as_dict, jfield

#: the columns of :meth:`HumanResult.to_pandas`
SYSTEM_COLUMNS = ("name", "score", "ci_low", "ci_high", "n_segments", "wins", "cluster", "rank_low", "rank_high")


@dataclass(frozen=True, kw_only=True)
class HumanSystem:
    name: str
    #: the mean of the system's segment scores
    score: float
    #: percentile bootstrap interval of the score (None when too few segments)
    ci: tuple[float, float] | None
    n_segments: int
    #: systems this one is significantly better than (under the protocol's decision rule)
    wins: int
    #: 1 = the best cluster
    cluster: int
    #: the ranks the system may take: simultaneous (all systems at once) under the mtsig protocol; WMT's
    #: (losses + 1, N - wins) under the WMT protocols
    rank_range: tuple[int, int]
    #: protocol wmt26: the mark of the boundary below the system (``yes_cluster``, ``yes_local``, ``nothing``)
    wmt26_boundary: str | None = jfield(None, omit="none")

    to_dict = as_dict


@dataclass(frozen=True, kw_only=True)
class HumanComparison:
    """One test. For the two-sided protocols, ``a`` is the system with the higher score; for the one-sided ones,
    the test that ``a`` is better than ``b`` (as WMT prints its tables). ``delta`` is ``score_b - score_a`` (B − A),
    the difference every mtsig table, figure and format shows."""

    a: str
    b: str
    #: score_b - score_a (B − A; the systems' scores, each over its own segments)
    delta: float
    p_value: float | None
    p_adjusted: float | None
    significant: bool
    #: segments both systems were judged on (what a paired test uses)
    n_common: int
    #: the mean of score_b - score_a over the common segments (B − A; what a paired test tests)
    delta_common: float | None = None
    note: str | None = None
    #: the anytime ranking: the pair's confidence sequence of the mean document difference (B − A) at the end of
    #: the log, and the screen (1-based) from which it excluded 0
    cs: tuple[float, float] | None = jfield(None, omit="none")
    resolved_at: int | None = jfield(None, omit="none")

    to_dict = as_dict


def _segment_rows(segments: tuple[tuple[str, str, float], ...], _result: Any) -> list[dict[str, Any]]:
    return [{"system": s, "segment": g, "score": x} for s, g, x in segments]


@dataclass(frozen=True, kw_only=True)
class HumanResult:
    protocol: str
    systems: tuple[HumanSystem, ...]
    comparisons: tuple[HumanComparison, ...]
    clusters: tuple[tuple[str, ...], ...]
    settings: dict[str, Any]
    notes: tuple[str, ...] = ()
    #: per (system, segment) the scores used, when asked for
    segments: tuple[tuple[str, str, float], ...] | None = jfield(None, repr=False, omit="none", convert=_segment_rows)
    #: the anytime ranking: the unresolved pairs, those nearest to resolution first, with their documents and the
    #: further documents projected to resolve them (None: the pair may be a tie)
    next: tuple[dict[str, Any], ...] | None = jfield(None, omit="none")
    #: protocol wmt26 on a Pearmut log of several campaigns: WMT26's ranking across them (system, mean relative
    #: rank, campaigns), best first
    global_ranking: tuple[dict[str, Any], ...] | None = jfield(None, omit="none")
    #: decimals shown in text, Markdown and LaTeX (``-w``; None: 3)
    decimals: int | None = jfield(None, repr=False, compare=False, skip=True)

    def get(self, a: str, b: str) -> HumanComparison:
        """The comparison of ``a`` and ``b`` (either order for the two-sided protocols)."""
        for c in self.comparisons:
            if (c.a, c.b) == (a, b):
                return c
        for c in self.comparisons:
            if (c.a, c.b) == (b, a) and not self.settings.get("one_sided"):
                return c
        from mtsig.errors import InputError

        raise InputError(f"no comparison of {a} and {b} in this result")

    def system(self, name: str) -> HumanSystem:
        for s in self.systems:
            if s.name == name:
                return s
        from mtsig.errors import unknown_name

        raise unknown_name("system", name, [s.name for s in self.systems])

    to_dict = as_dict

    def to_pandas(self, comparisons: bool = False):
        """One row per system (or per comparison, with ``comparisons=True``); needs pandas."""
        from mtsig.frames import frame

        if comparisons:
            rows = [c.to_dict() for c in self.comparisons]
            return frame(rows, list(HumanComparison.__dataclass_fields__))
        return frame(self.system_rows(), list(SYSTEM_COLUMNS))

    def system_rows(self) -> list[dict[str, Any]]:
        """The rows of :meth:`to_pandas` (one per system, best first)."""
        rows = []
        for s in self.systems:
            d = s.to_dict()
            lo, hi = d.pop("ci") or (None, None)
            r0, r1 = d.pop("rank_range")
            rows.append({**d, "ci_low": lo, "ci_high": hi, "rank_low": r0, "rank_high": r1})
        return rows

    def _repr_html_(self) -> str:
        from mtsig.report.notebook import human_html

        return human_html(self, list(SYSTEM_COLUMNS))

    def __repr__(self) -> str:
        top = ", ".join(f"{s.name} {s.score:.3f}" for s in self.systems[:3])
        return (f"<HumanResult {self.protocol}: {len(self.systems)} systems, {len(self.clusters)} clusters; {top}"
                f"{' ...' if len(self.systems) > 3 else ''}>")  # fmt: skip
