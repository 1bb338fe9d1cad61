"""Rank sets that hold at any stopping time, for adaptive human evaluation (Pearmut's dynamic campaigns, WMT26).

A campaign that picks the next models from the running means, and stops when its budget or its patience ends,
breaks the fixed-sample tests: the number of documents each pair gets depends on the scores, and the campaign
looks at its ranking many times. Here:

- **the document is the unit** (a campaign assigns documents): a system's document score is the mean of its
  segment scores there;
- **each pair (A, B) is a stream**: the documents both were annotated on, in the order the pair was completed (the
  screen that showed the second of the two; a log without screens: the file's document order), each giving the
  difference of the two document scores, rescaled to [0, 1] by the scale's known bounds;
- **a time-uniform confidence sequence** for the mean difference (:mod:`mtsig.stats.confseq`: hedged betting by
  default, or the closed-form empirical Bernstein) at level alpha/M over the M pairs, intersected over time: every
  sequence covers its pair's mean difference at every screen at once with probability >= 1 - alpha, whenever the
  campaign stops;
- **rank sets from the resolved pairs** (a sequence that excludes 0): a system's rank set runs from 1 + the
  systems surely better to K - the systems surely worse, simultaneously valid with the sequences;
- **what to annotate next**: each unresolved pair's projected number of further documents (its sequence's width
  shrinking like 1/sqrt(n) around the same centre until it would exclude 0).

Why no inverse-probability weights: Pearmut picks the models of a screen from the running means of *earlier*
documents and the document from its position in a fixed shuffled order and which cells are done, never from the
scores of the document it shows. The pair's next difference is then a fresh draw of the documents' distribution
whatever the policy's probabilities were: they change *when* a pair is observed, not *what* it observes, and a
confidence sequence is valid at any data-dependent sample size. Weights would be needed for a target over cells the
policy may never show, which a paired difference does not have. (``mtsig study adaptive`` measures the coverage
under Pearmut's policy.)
"""

from __future__ import annotations

import numpy as np

from mtsig.errors import InputError
from mtsig.humaneval.common import check_rankable, settings_of
from mtsig.humaneval.result import HumanComparison, HumanResult, HumanSystem
from mtsig.io.human import HumanScores
from mtsig.stats.confseq import predmix_eb

#: formats whose scores have known bounds (ESA, cESA, DA: 0 to 100)
BOUNDED = {"pearmut": (0.0, 100.0), "appraise-esa": (0.0, 100.0), "wmt24-esa-jsonl": (0.0, 100.0),
           "wmt25-humeval": (0.0, 100.0)}  # fmt: skip
#: the most further documents a projection tries (times the documents the pair has)
PROJECT_FACTOR = 8


def document_scores(h: HumanScores) -> tuple[list[str], np.ndarray]:
    """The documents (first-appearance order) and ``D[k, d]``: system k's mean segment score in document d (NaN
    where it has none)."""
    if h.documents is None:
        raise InputError("the anytime ranking takes documents as its unit: give --docs (or a format whose segments "
                         "name their documents, as Pearmut's item ids do)")  # fmt: skip
    docs = list(dict.fromkeys(h.documents))
    index = {d: i for i, d in enumerate(docs)}
    col = np.array([index[d] for d in h.documents], dtype=np.int64)
    ok = np.isfinite(h.scores)
    total = np.zeros((len(h.systems), len(docs)))
    count = np.zeros((len(h.systems), len(docs)))
    for k in range(len(h.systems)):
        np.add.at(total[k], col[ok[k]], h.scores[k, ok[k]])
        np.add.at(count[k], col[ok[k]], 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return docs, np.where(count > 0, total / count, np.nan)


def reveal_times(h: HumanScores, docs: list[str]) -> np.ndarray:
    """``T[k, d]``: the screen (0-based, in the log's order) that first showed system k on document d; without
    screens, the document's position (every system at once)."""
    K, n = len(h.systems), len(docs)
    if not h.screens:
        return np.broadcast_to(np.arange(n, dtype=np.float64), (K, n)).copy()
    T = np.full((K, n), np.inf)
    si = {s: k for k, s in enumerate(h.systems)}
    di = {d: i for i, d in enumerate(docs)}
    for t, sc in enumerate(h.screens):
        d = di.get(sc.doc)
        if d is None:
            continue
        for m in sc.models:
            k = si.get(m)
            if k is not None and T[k, d] == np.inf:
                T[k, d] = t
    return T


def pair_stream(D: np.ndarray, T: np.ndarray, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """The pair's document differences A - B in completion order, and the screen completing each."""
    both = np.isfinite(D[a]) & np.isfinite(D[b])
    idx = np.flatnonzero(both)
    done = np.maximum(T[a, idx], T[b, idx])
    order = np.lexsort((idx, done))
    return D[a, idx[order]] - D[b, idx[order]], done[order]


def sequence(y: np.ndarray, level: float, method: str) -> tuple[np.ndarray, np.ndarray]:
    from mtsig.stats.confseq import betting

    if method == "betting":
        return betting(y, alpha=level, running_intersection=True)
    return predmix_eb(y, alpha=level, running_intersection=True)


def projected_more(n: int, lo: float, hi: float) -> int | None:
    """Further documents until a pair's sequence (``lo``, ``hi`` on the [0, 1] scale, 0.5 = no difference, after
    ``n`` documents) would exclude 0.5 if its width kept shrinking like 1/sqrt(n) around the same centre; None when
    that is more than :data:`PROJECT_FACTOR` times its documents (a pair that may be a tie)."""
    gap = abs((lo + hi) / 2 - 0.5)
    if n < 2 or gap == 0:
        return None
    total = n * ((hi - lo) / 2 / gap) ** 2
    more = max(1, int(np.ceil(total - n)))
    return None if more > PROJECT_FACTOR * n else more


def bounds_of(h: HumanScores, score_range) -> tuple[float, float]:
    if score_range is not None:
        lo, hi = (float(v) for v in score_range)
    elif h.input_format in BOUNDED:
        lo, hi = BOUNDED[h.input_format]
    else:
        raise InputError(f"the anytime ranking needs the scale's bounds, which {h.input_format} scores do not "
                         "have: give --score-range LO HI (e.g. 0 100 for ESA or raw DA)",
                         param="score_range")  # fmt: skip
    if not hi > lo:
        raise InputError(f"score range {lo:g} {hi:g}: the upper bound must exceed the lower", param="score_range")
    ok = np.isfinite(h.scores)
    if ok.any() and (h.scores[ok].min() < lo or h.scores[ok].max() > hi):
        raise InputError(f"scores outside the range {lo:g} to {hi:g} (from {h.scores[ok].min():g} to "
                         f"{h.scores[ok].max():g}): give the scale's true bounds with --score-range",
                         param="score_range")  # fmt: skip
    return lo, hi


def _pairs(h: HumanScores, D: np.ndarray, T: np.ndarray, order: list[int], means: np.ndarray, R: float,  # noqa: PLR0913
           level: float, method: str):  # fmt: skip
    """Every pair's sequence: the comparisons (score order), which system is surely better than which, and the
    unresolved pairs with their projections."""
    K = len(order)
    better = np.zeros((K, K), dtype=bool)
    comps, nexts = [], []
    for i in range(K):
        for j in range(i + 1, K):
            a, b = order[i], order[j]
            x, done = pair_stream(D, T, a, b)
            y = (x + R) / (2 * R)
            lo, hi = sequence(y, level, method) if y.size else (np.zeros(1), np.ones(1))
            lo_d, hi_d = 2 * R * lo[-1] - R, 2 * R * hi[-1] - R
            out = (lo > 0.5) | (hi < 0.5)
            first = int(done[np.argmax(out)]) + 1 if y.size and out.any() else None
            better[a, b], better[b, a] = lo_d > 0, hi_d < 0
            resolved = bool(better[a, b] or better[b, a])
            if not resolved:
                nexts.append({"a": h.systems[a], "b": h.systems[b], "n_documents": int(y.size),
                              "more_documents": projected_more(int(y.size), float(lo[-1]), float(hi[-1]))})  # fmt: skip
            comps.append(HumanComparison(
                a=h.systems[a], b=h.systems[b], delta=float(means[b] - means[a]), p_value=None, p_adjusted=None,
                significant=resolved, n_common=int(y.size), delta_common=float(-x.mean()) if x.size else None,
                cs=(float(-hi_d), float(-lo_d)), resolved_at=first,
                note=None if y.size else "no document annotated for both"))  # fmt: skip
    nexts.sort(key=lambda r: (r["more_documents"] is None, r["more_documents"] or 0, r["a"], r["b"]))
    return comps, better, nexts


def _clusters(names: list[str], order: list[int], better: np.ndarray) -> list[list[str]]:
    """A boundary wherever every system above is surely better than every system below."""
    K = len(order)
    clusters, cur = [], []
    for i in range(K):
        cur.append(names[i])
        if i < K - 1 and all(better[order[u], order[d]] for u in range(i + 1) for d in range(i + 1, K)):
            clusters.append(cur)
            cur = []
    clusters.append(cur)
    return clusters


def _system_sequence(v: np.ndarray, seq: np.ndarray, lo_s: float, R: float, confidence: float):
    """A system's own sequence for its mean document score (its documents in the order it was shown them)."""
    if not v.size:
        return None
    lo, hi = predmix_eb((v[np.argsort(seq, kind="stable")] - lo_s) / R, alpha=1 - confidence,
                        running_intersection=True)  # fmt: skip
    return float(lo_s + R * lo[-1]), float(lo_s + R * hi[-1])


def run_anytime(h: HumanScores, opts) -> HumanResult:
    check_rankable(h)
    lo_s, hi_s = bounds_of(h, opts.score_range)
    R = hi_s - lo_s
    docs, D = document_scores(h)
    T = reveal_times(h, docs)
    K = len(h.systems)
    M = K * (K - 1) // 2
    means = np.array([np.nanmean(D[k]) if np.isfinite(D[k]).any() else np.nan for k in range(K)])
    order = sorted(range(K), key=lambda k: (-means[k], h.systems[k]))
    comps, better, nexts = _pairs(h, D, T, order, means, R, opts.alpha / M, opts.sequence)
    wins, losses = better.sum(axis=1), better.sum(axis=0)
    names = [h.systems[k] for k in order]
    clusters = _clusters(names, order, better)
    at = {n: c + 1 for c, cl in enumerate(clusters) for n in cl}
    systems = tuple(HumanSystem(name=h.systems[k], score=float(means[k]), n_segments=h.n_segments(k),
                                ci=_system_sequence(D[k][np.isfinite(D[k])], T[k][np.isfinite(D[k])], lo_s, R,
                                                    opts.confidence),
                                wins=int(wins[k]), cluster=at[h.systems[k]],
                                rank_range=(int(losses[k]) + 1, K - int(wins[k]))) for k in order)  # fmt: skip
    method = {"eb": "empirical-Bernstein (predictable mixture)", "betting": "hedged betting"}[opts.sequence]
    screens = len(h.screens) if h.screens else None
    notes = [*h.notes,
             f"anytime ranking: {method} confidence sequences for each pair's mean document difference, at "
             f"alpha/M = {opts.alpha:g}/{M} (Bonferroni over the {M} pairs), intersected over time: every sequence "
             "covers its pair at every screen at once with probability >= "
             f"{1 - opts.alpha:g}, however the campaign assigned and whenever it stops; rank sets and clusters from "
             "the resolved pairs; scores are means of document scores; intervals are each system's own "
             f"{opts.confidence:.0%} sequence",
             f"documents as units ({len(docs)}); each pair in the order it was completed "
             + (f"over {screens} screens" if screens else "(the file's document order: no screens)"),
             f"{sum(1 for c in comps if c.significant)} of {M} pairs resolved"]  # fmt: skip
    if nexts:
        shown = "; ".join(f"{r['a']} vs {r['b']}: " + (f"~{r['more_documents']} more" if r["more_documents"]
                          else "may be a tie") for r in nexts[:5])  # fmt: skip
        notes.append(f"to resolve next (further documents for the pair, projected): {shown}")
    st = settings_of(h, opts, "document", correction="bonferroni (alpha/M)", one_sided=False, n_comparisons=M,
                   anytime=True, sequence=opts.sequence, score_range=[lo_s, hi_s],
                   screens=screens)  # fmt: skip
    return HumanResult(protocol="mtsig", systems=systems, comparisons=tuple(comps),
                       clusters=tuple(tuple(c) for c in clusters), settings=st, notes=tuple(notes),
                       next=tuple(nexts))  # fmt: skip
