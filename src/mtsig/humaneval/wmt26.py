"""WMT26's ranking from human judgments, as ``humeval/02-analyze_results.py`` of wmt-conference/wmt26-general-mt
(commit 1fa5211) computes it.

A system's score is the mean of its segment scores (a segment's score: the mean of its annotations). Systems are
sorted by score, best first (ties keep the order in which the log first names them). Two systems differ when
SciPy's paired t-test (``ttest_rel``) **or** its two-sample t-test (``ttest_ind``), both two-sided and with
``nan_policy="omit"`` over the segments of the campaign, gives p < 0.05. Below each system the script marks the
boundary: ``yes_cluster`` when every system above it differs from every system below, ``yes_local`` when only it
and the next one differ, ``nothing`` otherwise (and below the last system). Uncorrected; segments as the units,
although a campaign assigns documents.

:func:`global_ranking` is the script's ranking across language pairs: per pair, the fraction of the pair's systems
that score higher; averaged over the pairs a system took part in; ascending."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from mtsig.errors import InputError
from mtsig.humaneval.result import HumanComparison, HumanResult
from mtsig.io.human import HumanScores

SCRIPT = "humeval/02-analyze_results.py of wmt-conference/wmt26-general-mt at 1fa5211"
MARKS = ("yes_cluster", "yes_local", "nothing")


def score_order(h: HumanScores) -> list[int]:
    """System indices by mean score, best first; ties in the order the judgments first name the systems (Python's
    stable sort over the script's dict of models)."""
    m = h.system_means()
    return sorted(range(len(h.systems)), key=lambda k: -m[k])


def t_tests(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The script's two p-values for segment vectors ``x``, ``y`` (NaN where not judged): ``ttest_rel`` and
    ``ttest_ind``, two-sided, ``nan_policy="omit"`` (NaN when a test cannot be computed; it then decides nothing)."""
    from scipy import stats

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        p_rel = float(np.asarray(stats.ttest_rel(x, y, nan_policy="omit").pvalue))
        p_ind = float(np.asarray(stats.ttest_ind(x, y, nan_policy="omit").pvalue))
    return p_rel, p_ind


def boundaries(n: int, differ: np.ndarray) -> list[str]:
    """The mark below each of ``n`` systems in score order, from ``differ[i, j]`` (positions i above j)."""
    out = []
    for i in range(n):
        if i == n - 1:
            out.append("nothing")
        elif differ[: i + 1, i + 1 :].all():
            out.append("yes_cluster")
        elif differ[i, i + 1]:
            out.append("yes_local")
        else:
            out.append("nothing")
    return out


def run_wmt26(h: HumanScores, opts, rs) -> HumanResult:
    from mtsig.humaneval.protocols import _check, _wmt_result

    _check(h)
    order = score_order(h)
    means = h.system_means()
    K = len(order)
    differ = np.zeros((K, K), dtype=bool)
    tested = {}
    for i in range(K):
        for j in range(i + 1, K):
            a, b = order[i], order[j]
            x, y = h.scores[a], h.scores[b]
            p_rel, p_ind = t_tests(x, y)
            d = bool(p_rel < opts.alpha or p_ind < opts.alpha)
            differ[i, j] = differ[j, i] = d
            both = np.isfinite(x) & np.isfinite(y)
            ps = [p for p in (p_rel, p_ind) if not np.isnan(p)]
            p = min(ps) if ps else None
            tested[(a, b)] = HumanComparison(
                a=h.systems[a], b=h.systems[b], delta=float(means[b] - means[a]), p_value=p, p_adjusted=p,
                significant=d, n_common=int(both.sum()),
                delta_common=float(np.mean(y[both] - x[both])) if both.any() else None,
                note=None if ps else "not tested: too few segments for either t-test",
            )  # fmt: skip
    marks = boundaries(K, differ)
    names = [h.systems[k] for k in order]
    clusters, cur = [], []
    for n, mark in zip(names, marks):
        cur.append(n)
        if mark == "yes_cluster":
            clusters.append(cur)
            cur = []
    if cur:
        clusters.append(cur)
    beats = {(names[i], names[j]) for i in range(K) for j in range(i + 1, K) if differ[i, j]}
    note = (f"WMT26's procedure ({SCRIPT}): two systems differ when the paired or the two-sample t-test (two-sided, "
            f"over the segments) gives p < {opts.alpha:g}; p_value is the smaller of the two; uncorrected; a cluster "
            "line (yes_cluster) where every system above differs from every system below, a local line (yes_local) "
            "where only the adjacent pair does; segments as units although the campaign assigns documents")  # fmt: skip
    res = _wmt_result(h, opts, rs, "wmt26", (tested, beats, [note]), clusters=clusters, order=order)
    mark_of = dict(zip(names, marks))
    res = replace(res, systems=tuple(replace(s, wmt26_boundary=mark_of[s.name]) for s in res.systems))
    return _with_global(res, h)


def _with_global(res: HumanResult, h: HumanScores) -> HumanResult:
    """A Pearmut log of several campaigns: WMT26's global ranking across them (WMT26's reset rule), in the result
    and one note."""
    if h.input_format != "pearmut" or len(h.sources) != 1:
        return res
    per = campaign_scores(h.sources[0])
    if len(per) < 2:
        return res
    rows = tuple({"system": s, "mean_relative_rank": r, "campaigns": sum(s in v for v in per.values())}
                 for s, r in global_ranking(per))  # fmt: skip
    shown = ", ".join(f"{i}. {r['system']} ({r['mean_relative_rank']:.3f})" for i, r in enumerate(rows[:10], 1))
    more = f", ... ({len(rows)} systems)" if len(rows) > 10 else ""
    note = (f"WMT26's global ranking over the log's {len(per)} campaigns (mean over the campaigns a system is in of "
            f"the share of its systems that score higher; JSON global_ranking): {shown}{more}")  # fmt: skip
    return replace(res, global_ranking=rows, notes=(*res.notes, note))


def global_ranking(scores: Mapping[str, Mapping[str, float]]) -> list[tuple[str, float]]:
    """WMT26's ranking across language pairs from ``{language pair: {system: score}}``: a system's relative rank
    in a pair is the number of systems scoring higher divided by the number of systems in the pair; its global
    rank the mean over the pairs it took part in. Returns (system, mean relative rank), ascending (ties in the
    order systems first appear)."""
    systems: list[str] = list(dict.fromkeys(s for lp in scores.values() for s in lp))
    out = []
    for s in systems:
        rel = []
        for lp in scores.values():
            if s not in lp:
                continue
            higher = sum(1 for v in lp.values() if v > lp[s])
            rel.append(higher / len(lp))
        out.append((s, float(np.mean(rel)) if rel else float("nan")))
    return sorted(out, key=lambda r: r[1])


def campaign_scores(path: str, campaigns: Sequence[str] | None = None,
                    reset: str | None = None) -> dict[str, dict[str, float]]:  # fmt: skip
    """Every campaign's system means of a Pearmut log (or those named), each campaign's systems in the order its
    log first names them (the order :func:`global_ranking` breaks ties by); a campaign a reset left empty is
    skipped, as the script skips it."""
    from mtsig.io.human import read_human
    from mtsig.io.pearmut import _campaigns
    from mtsig.io.text import read_text

    keys = list(campaigns) if campaigns else list(_campaigns(path, read_text(path)))
    out = {}
    for k in keys:
        try:
            h = read_human(path, input_format="pearmut", lp=k, reset=reset)
        except InputError as exc:
            if "no scored annotation" in str(exc):
                continue
            raise
        out[k] = {s: float(m) for s, m in zip(h.systems, h.system_means())}
    return out
