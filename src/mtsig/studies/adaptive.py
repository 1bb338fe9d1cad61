"""``mtsig study adaptive``: adaptive human evaluation replayed on a complete document x system matrix of human
scores (every system annotated on every segment: WMT23's MQM en-de, or any complete block of a campaign).

Each replay runs a policy (:mod:`mtsig.humaneval.policy`: Pearmut 1.1.6's dynamic assignment, uniform, top-two,
evaluation-bandit's successive rejects) on the matrix with its own document order and seed until the policy is
done (every cell; successive rejects: the cells of the models it keeps), and watches three procedures
against the full matrix's own ranking:

- **mtsig's anytime rank sets** (:mod:`mtsig.humaneval.anytime`: a hedged-betting confidence sequence per pair at
  alpha/M): they cover when no pair is ever resolved the wrong way round (the sequences are intersected over time,
  so a resolution stays), i.e. at every stopping time at once;
- **fixed-sample rank sets applied after adaptive sampling**: every pair's paired t-test on its document
  differences, Holm over the pairs (mtsig's default correction), looked at after every tenth of the campaign:
  covered when no look decides a pair the wrong way round;
- **WMT26's rule** (:mod:`mtsig.humaneval.wmt26`: paired or two-sample t-test on segments, uncorrected) at the same
  looks: a cluster line is false when a system above it is worse, in the full matrix, than one below.

The truth of the document-level procedures is the full matrix's mean document differences; WMT26's, which ranks
segment means, the full matrix's segment means (a line is false unless every system above is strictly better).
Also: the screens each replay needed before the anytime procedure had resolved every pair it resolves on the full
matrix (every system on every document, in the replay's document order; ``annotations_to_resolve``: the share of
replays that got there, and the screens they needed). Joint coverage is reported with Clopper-Pearson intervals
over the replays; replicate r draws only from ``(seed, r)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.humaneval.policy import POLICIES, Matrix
from mtsig.studies.design import MAX_REPLICATES, Design, design_dict, option, seed_option
from mtsig.studies.replicates import Runner
from mtsig.studies.result import StudyResult, StudyTable

LOOKS = 10


def _policies(name: str) -> None:
    for p in name.split(","):
        if p not in POLICIES:
            from mtsig.errors import unknown_name

            raise unknown_name("assignment policy", p, tuple(POLICIES))


@dataclass(frozen=True, kw_only=True)
class AdaptiveDesign(Design):
    """``study adaptive``: policies replayed on a complete matrix, coverage of each ranking procedure."""

    replicates: int = option(1000, "replays per policy", "int", low=1, high=MAX_REPLICATES)
    policies: str = option("pearmut,uniform,top-two,successive-rejects", "assignment policies, comma-separated "
                           "(pearmut: Pearmut 1.1.6's dynamic assignment; uniform; top-two; successive-rejects: "
                           "evaluation-bandit's)", "str", lookup=_policies)  # fmt: skip
    alphas: tuple[float, ...] = option((0.05, 0.01), "levels", "floats", low=0, high=1, open=True)
    per_screen: int = option(3, "models per screen (Pearmut's dynamic_models; WMT26: 3)", "int", low=2)
    coldstart: int = option(20, "cold start: documents per model before adapting (WMT26: 20)", "int", low=0)
    null: bool = option(False, "equally good systems: each system's scores shifted so that every mean segment "
                        "score of the full matrix is the same (every WMT26 cluster line is then false; the document "
                        "means become near-ties)", "bool")  # fmt: skip
    seed: int = seed_option()


def complete_matrix(h) -> tuple[Matrix, list[str]]:
    """The largest complete block of ``h``: the systems judged on every segment of some documents, those documents'
    segments that every kept system was judged on."""
    if h.documents is None:
        raise InputError("study adaptive replays documents: the judgments need documents (--docs, or a format with "
                         "them, as mt-metrics-eval's folders)")  # fmt: skip
    ok = np.isfinite(h.scores)
    keep = np.flatnonzero(ok.mean(axis=1) >= 0.9)
    if keep.size < 3:
        raise InputError(f"study adaptive needs at least 3 systems judged on 90% of the segments; {keep.size} are")
    full = ok[keep].all(axis=0)
    docs: dict[str, list[int]] = {}
    for g, d in enumerate(h.documents):
        if full[g]:
            docs.setdefault(d, []).append(g)
    if len(docs) < 10:
        raise InputError(f"study adaptive needs a complete block of at least 10 documents; there are {len(docs)}")
    scores = [h.scores[np.ix_(keep, np.asarray(gs))] for gs in docs.values()]
    m = Matrix(tuple(h.systems[k] for k in keep), tuple(docs), scores)
    dropped = len(h.systems) - keep.size
    notes = [f"complete block: {keep.size} systems x {len(docs)} documents ({int(full.sum())} segments)"
             + (f"; {dropped} system(s) judged on under 90% of the segments left out" if dropped else "")]  # fmt: skip
    return m, notes


def equally_good(m: Matrix) -> Matrix:
    """The matrix with each system's scores shifted by a constant so that every system's mean segment score (what
    WMT26 ranks by) is the grand mean: the systems stay different segment by segment, none is better. Their mean
    document scores then differ only by the documents' lengths (near-ties, which the document-level procedures are
    judged against as they are)."""
    X = np.concatenate(m.scores, axis=1)
    shift = X.mean() - X.mean(axis=1)
    return Matrix(m.systems, m.docs, [s + shift[:, None] for s in m.scores])


def _holm(p: np.ndarray) -> np.ndarray:
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1, np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p)))))
    out = np.empty_like(adj)
    out[order] = adj
    return out


def _tsf(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    from scipy import stats

    return 2 * stats.t.sf(np.abs(t), df)


@dataclass(frozen=True)
class AdaptiveJob:
    """Replay r of one policy: its screens, and every procedure's verdicts at every level."""

    matrix: Matrix
    policy: str
    alphas: tuple[float, ...]
    per_screen: int
    coldstart: int
    seed: int
    null: bool = False

    def replicate(self, r: int) -> dict:
        from mtsig.humaneval.policy import replay

        m = self.matrix
        K, D = len(m.systems), len(m.docs)
        rng = np.random.default_rng([self.seed, r])
        order = rng.permutation(D).tolist()
        models = rng.permutation(K).tolist()
        pol = POLICIES[self.policy](models, order, per_screen=self.per_screen, coldstart=self.coldstart,
                                    pool=self.coldstart or None, seed=int(rng.integers(2**31)))  # fmt: skip
        screens = replay(m, pol)
        T = _reveal(screens, K, D)
        return {"screens": len(screens),
                **{f"{a!r}": _verdicts(m, T, len(screens), a, order, self.null) for a in self.alphas}}  # fmt: skip


def _reveal(screens, K: int, D: int) -> np.ndarray:
    T = np.full((K, D), np.inf)
    for t, (d, ms) in enumerate(screens):
        for k in ms:
            if T[k, d] == np.inf:
                T[k, d] = t
    return T


def _verdicts(m: Matrix, T: np.ndarray, n_screens: int, alpha: float, order: list[int],  # noqa: PLR0913
              null: bool = False) -> dict:  # fmt: skip
    from mtsig.humaneval.anytime import pair_stream
    from mtsig.stats.confseq import betting_excludes

    Dm = m.doc_means()
    K = Dm.shape[0]
    M = K * (K - 1) // 2
    truth = Dm.mean(axis=1)
    seen = np.where(np.isfinite(T), Dm, np.nan)  # what the campaign annotated (a policy may leave cells out)
    lo_s, hi_s = float(Dm.min()), float(Dm.max())
    R = max(hi_s - lo_s, 1e-12)
    looks = [int(np.ceil(n_screens * (i + 1) / LOOKS)) for i in range(LOOKS)]
    anytime_wrong, last_resolved, never = False, 0, False
    full = np.empty_like(T)  # the full matrix: every system on each document, in the replay's document order
    full[:, order] = np.arange(len(order))[None, :]
    P = np.ones((M, LOOKS))  # each pair's fixed-sample p-value at each look
    wrong_sign = np.zeros((M, LOOKS), dtype=bool)
    j = 0
    for a in range(K):
        for b in range(a + 1, K):
            x, done = pair_stream(seen, T, a, b)
            sign = np.sign(truth[a] - truth[b])
            up, down = betting_excludes((x + R) / (2 * R), alpha / M) if x.size else (np.zeros(0, bool),) * 2
            anytime_wrong |= bool((sign <= 0 and up.any()) or (sign >= 0 and down.any()))
            resolved = up | down
            xf, _ = pair_stream(Dm, full, a, b)
            uf, df = betting_excludes((xf + R) / (2 * R), alpha / M)
            if (uf | df).any():  # the full matrix resolves this pair: when did the campaign?
                if resolved.any():
                    last_resolved = max(last_resolved, int(done[np.argmax(resolved)]) + 1)
                else:
                    never = True
            n = np.searchsorted(done, looks, side="left")  # documents completed before each look
            s1, s2 = np.append(0, np.cumsum(x)), np.append(0, np.cumsum(x * x))
            with np.errstate(divide="ignore", invalid="ignore"):
                mean = s1[n] / n
                var = (s2[n] - n * mean**2) / (n - 1)
                t = mean / np.sqrt(var / n)
            P[j] = np.where((n > 1) & (var > 0), _tsf(t, np.maximum(n - 1, 1)), 1.0)
            wrong_sign[j] = np.sign(mean) != sign
            j += 1
    fixed_wrong = False
    for c in range(LOOKS):  # Holm over the pairs at each look (mtsig's default correction)
        fixed_wrong |= bool((_holm(P[:, c]) < alpha)[wrong_sign[:, c]].any())
    false_lines = _wmt26_false_lines(m, T, looks, alpha, null)
    return {"anytime_covered": not anytime_wrong, "fixed_covered": not fixed_wrong,
            "wmt26_false_any": bool(false_lines.any()), "wmt26_false_lines": int(false_lines.sum()),
            "screens_to_resolve": None if never else last_resolved}  # fmt: skip


def _wmt26_false_lines(m: Matrix, T: np.ndarray, looks: list[int], alpha: float, null: bool = False) -> np.ndarray:
    """WMT26's false cluster lines at each look (paired or pooled two-sample t-test on the annotated segments,
    uncorrected), against the full matrix's segment means: a line is false unless every system above is strictly
    better than every one below (under ``null`` every line is false)."""
    from mtsig.humaneval.wmt26 import boundaries

    X = np.concatenate(m.scores, axis=1)  # (K, segments)
    seg_doc = np.concatenate([np.full(s.shape[1], d) for d, s in enumerate(m.scores)])
    truth = X.mean(axis=1)
    K = X.shape[0]
    out = np.zeros(len(looks), dtype=np.int64)
    for i, c in enumerate(looks):
        Rv = (T[:, seg_doc] < c).astype(float)
        n = Rv.sum(axis=1)
        if (n < 2).any():
            continue
        RX, RX2 = Rv * X, Rv * X * X
        s1, s2 = RX.sum(axis=1), RX2.sum(axis=1)
        mean = s1 / n
        # pooled two-sample t (SciPy's default ttest_ind)
        ss = s2 - n * mean**2
        df_i = n[:, None] + n[None, :] - 2
        sp = (ss[:, None] + ss[None, :]) / df_i
        with np.errstate(divide="ignore", invalid="ignore"):
            t_i = (mean[:, None] - mean[None, :]) / np.sqrt(sp * (1 / n[:, None] + 1 / n[None, :]))
            nb = Rv @ Rv.T
            sd = RX @ Rv.T - (RX @ Rv.T).T  # sum over both-annotated segments of x_a - x_b
            sq = RX2 @ Rv.T + (RX2 @ Rv.T).T - 2 * (RX @ RX.T)
            md = sd / nb
            vd = (sq - nb * md**2) / (nb - 1)
            t_r = md / np.sqrt(vd / nb)
        p_i = np.where(np.isfinite(t_i), _tsf(t_i, df_i), np.nan)
        p_r = np.where(np.isfinite(t_r) & (nb > 1), _tsf(t_r, np.maximum(nb - 1, 1)), np.nan)
        differ = (p_i < alpha) | (p_r < alpha)
        order = sorted(range(K), key=lambda k: -mean[k])
        dm = differ[np.ix_(order, order)]
        marks = boundaries(K, dm)
        tr = truth[order]
        for j, mark in enumerate(marks):
            if mark == "yes_cluster" and (null or tr[: j + 1].min() <= tr[j + 1 :].max()):
                out[i] += 1
    return out


def adaptive(h, design: AdaptiveDesign, run: Runner) -> StudyResult:
    from mtsig.studies.nulls import binomial_interval

    m, notes = complete_matrix(h)
    if design.null:
        m = equally_good(m)
        notes.append("null: each system's scores shifted so that every system's mean segment score over the full "
                     "matrix is the same: every WMT26 cluster line is false; the document-level procedures are "
                     "judged against the near-tied mean document scores this leaves")  # fmt: skip
    K, D = len(m.systems), len(m.docs)
    rows, resolve_rows = [], []
    coverage: dict = {}
    to_resolve: dict = {}
    for name in design.policies.split(","):
        job = AdaptiveJob(m, name, tuple(design.alphas), design.per_screen, design.coldstart, design.seed, design.null)
        res = run.replicates(f"{name} replays", job, design.replicates)
        screens = np.array([r["screens"] for r in res])
        for a in design.alphas:
            v = [r[f"{a!r}"] for r in res]
            n = len(v)
            for proc, key in (("mtsig anytime rank sets", "anytime_covered"),
                              ("fixed-sample rank sets, 10 looks", "fixed_covered")):  # fmt: skip
                k = sum(x[key] for x in v)
                lo, hi = binomial_interval(k, n)
                rows.append([name, a, proc, k / n, lo, hi, n])
                coverage.setdefault(proc, []).append({"policy": name, "alpha": a, "coverage": k / n,
                                                      "interval": [lo, hi], "replays": n})  # fmt: skip
            k = sum(x["wmt26_false_any"] for x in v)
            lo, hi = binomial_interval(n - k, n)
            rows.append([name, a, "WMT26 rule: no false cluster line, 10 looks", (n - k) / n, lo, hi, n])
            coverage.setdefault("wmt26", []).append({"policy": name, "alpha": a, "coverage": (n - k) / n,
                                                     "interval": [lo, hi], "replays": n,
                                                     "false_lines_mean": float(np.mean([x["wmt26_false_lines"]
                                                                                       for x in v]))})  # fmt: skip
            raw = [x["screens_to_resolve"] for x in v]
            need = np.array([np.inf if x is None else x for x in raw], dtype=float)
            q = [None if not np.isfinite(y) else float(y) for y in np.percentile(need, [10, 50, 90], method="lower")]
            reached = float(np.isfinite(need).mean())
            resolve_rows.append([name, a, reached, q[1], q[0], q[2], float(np.median(screens))])
            to_resolve.setdefault(name, {})[f"{a!r}"] = {"reached": reached, "median_screens": q[1], "p10": q[0],
                                                         "p90": q[2], "campaign_screens": float(np.median(screens)),
                                                         "per_replay": raw}  # fmt: skip
    tables = (
        StudyTable("Joint coverage at every stopping time (Clopper-Pearson 95%)",
                   ["policy", "alpha", "procedure", "coverage", "low", "high", "replays"], rows,
                   [None, 2, None, 3, 3, 3, 0]),
        StudyTable("Screens until the anytime ranking resolves what it resolves on the full matrix (never: -)",
                   ["policy", "alpha", "reached", "median", "10%", "90%", "campaign screens"], resolve_rows,
                   [None, 2, 3, 0, 0, 0, 0]),
    )  # fmt: skip
    settings = {"systems": K, "documents": D, "cells": K * D, "replays per policy": design.replicates,
                "looks": LOOKS, "null": design.null, "seed": design.seed}  # fmt: skip
    notes = [*notes, "replicate r of a policy draws its document order, model order and the policy's own "
             "generators from (seed, r): the same seed gives the same numbers with any number of "
             "processes"]  # fmt: skip
    return StudyResult("adaptive", settings, tables, data={"coverage": coverage, "annotations_to_resolve": to_resolve},
                       notes=tuple(notes), design=design_dict(design))  # fmt: skip
