"""Protocols for ranking systems from human judgments: one registry entry each (:data:`PROTOCOLS`; plugins through
the ``mtsig.protocols`` entry-point group). A protocol says which test, which pairs, which correction and which
rank rule; every one returns a :class:`~mtsig.humaneval.result.HumanResult`.

- ``mtsig`` (the default): paired tests on the segments both systems were judged on (approximate randomization,
  or Koehn's paired bootstrap; documents as the unit where the data has documents and ``resample_unit`` asks),
  every pair, a correction (Holm by default), clusters from the corrected decisions, and **simultaneous** rank
  sets from the joint bootstrap of every system (step-down max-T over all ordered pairs): every system's true
  rank lies in its set, all at once, with probability at least the confidence level.
- ``wmt22``: WMT22's published procedure (Kocmi et al. 2022, the DA tables of the Findings): system score = mean
  of the segment scores; for every ordered pair a one-sided Mann-Whitney U test of the two systems' segment
  scores, as R's ``wilcox.test(x, y, alternative="greater")`` computes it (normal approximation with continuity
  correction and the tie-corrected variance; the exact distribution when both have fewer than 50 scores and there
  are no ties); wins = systems beaten at p < 0.05, uncorrected; a cluster boundary where every system above beats
  every system below; rank range (losses + 1, N - wins).
- ``wmt24``: per domain a two-sided Wilcoxon signed-rank test of the paired segment scores, combined over domains
  by Stouffer's method (each domain's signed z = sign of its mean difference x Φ⁻¹(1 - p/2), their sum over
  √(domains)); wins, clusters and ranges as wmt22.
- ``wmt26``: WMT26's ``02-analyze_results.py`` (:mod:`mtsig.humaneval.wmt26`): paired or two-sample t-tests of
  every pair, cluster and local lines.
- ``wmt25``: systems in score order; a one-sided Wilcoxon signed-rank test of each system against the next one
  only, on their paired segment scores; a cluster boundary where that test is significant at 0.05.

The WMT protocols reproduce what the Findings describe; wmt22 is checked against WMT22's published p-values and
clusters (``tests/humaneval``). Their rank ranges hold no joint level: ``benchmarks/human_calibration.py`` measures
how often they miss.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from mtsig.declare import Checked, count_option, level_option, option, seed_option, unit_option
from mtsig.errors import InputError
from mtsig.humaneval import engine
from mtsig.humaneval.common import check_rankable, settings_of
from mtsig.humaneval.result import HumanComparison, HumanResult, HumanSystem
from mtsig.io.human import HumanScores
from mtsig.registry import Registry
from mtsig.resample import DEFAULT_SEED, Resampling
from mtsig.stats.multiple import CORRECTIONS, adjust, p_corrections

#: the tests of the mtsig protocol, and their default number of resamples
HUMAN_TESTS = {"ar": 10_000, "paired-bootstrap": 1_000}
#: fewer common segments than this and a pair is not tested (said in its note)
MIN_COMMON = 10


#: bootstrap intervals, rank sets and the paired bootstrap need at least this many resampling units (with fewer,
#: every resample is nearly the data itself and the intervals come out falsely narrow)
MIN_UNITS = 10
#: the most pairs one ranking tests and keeps (2,000 systems); beyond, the table of pairs itself does not fit
MAX_PAIRS = 2_000_000
#: the automatic count of resamples stops here (each pair's smallest p-value is then about 5e-6)
MAX_AUTO_RESAMPLES = 200_000


def _human_correction(name: str) -> None:
    if CORRECTIONS.get(name).joint_bootstrap:
        raise InputError(f"correction {name} is not offered by human (its rank sets already use the joint "
                         "bootstrap): use holm, bonferroni, sidak, bh or none", param="correction")  # fmt: skip


def _protocol(name: str) -> None:
    PROTOCOLS.get(name)


def _protocol_names() -> list[str]:
    return list(PROTOCOLS)


#: WMT's procedures, which take none of protocol mtsig's test settings, and the tests they run
PROTOCOL_TESTS = {"wmt22": "one-sided Mann-Whitney U of every ordered pair",
                  "wmt24": "per-domain Wilcoxon tests, Stouffer on unsigned z",
                  "wmt24-signed": "per-domain Wilcoxon tests, signed Stouffer",
                  "wmt25": "one-sided Wilcoxon at alpha/2",
                  "wmt26": "paired or two-sample t-tests of every pair"}  # fmt: skip
WMT_PROTOCOLS = tuple(PROTOCOL_TESTS)


@dataclass(frozen=True, kw_only=True)
class HumanOptions(Checked):
    """What ``mtsig human`` does: each setting declared once (flag, check, description; :mod:`mtsig.declare`),
    the levels, counts, seed and unit from the declarations every command shares."""

    protocol: str = option("mtsig", "how systems are ranked", "str", metavar="P", lookup=_protocol, group="ranking",
                           names=_protocol_names,
                           doc="``mtsig`` (default: paired tests on the segments both systems were judged on, every "
                           "pair, ``correction``, simultaneous rank sets), ``wmt22``, ``wmt24``, ``wmt25`` (WMT's "
                           "procedures; see :mod:`mtsig.humaneval.protocols`), or a registered one.")  # fmt: skip
    test: str = option("ar", "protocol mtsig: the paired test (ar: 10,000 shuffles; paired-bootstrap: 1,000)", "str",
                       choices=tuple(HUMAN_TESTS), what="test of human judgments", group="ranking",
                       doc="The mtsig protocol's paired test: ``ar`` (approximate randomization, 10,000 shuffles) or "
                       "``paired-bootstrap``.")  # fmt: skip
    correction: str = option("holm", "protocol mtsig: p-value adjustment over every pair", "str",
                             choices=p_corrections, lookup=_human_correction, group="ranking",
                             doc="The mtsig protocol's p-value adjustment over every pair (``holm``).")  # fmt: skip
    alpha: float = level_option(0.05, "significance level", "The level of the decisions (0.05).", group="ranking")
    confidence: float = level_option(0.95, "level of the intervals and rank sets", "The level of the intervals and "
                                     "of the simultaneous rank sets (0.95).", group="ranking")  # fmt: skip
    n_resamples: int | None = count_option(None, "resamples of the paired test (default: enough that the best pair "
                                           "can reach the corrected threshold)", "Resamples of the paired test "
                                           "(None: enough that a pair's p-value can reach a tenth of the corrected "
                                           "threshold, as ``compare`` chooses it).", group="ranking")  # fmt: skip
    n_bootstrap: int = count_option(2_000, "joint bootstrap resamples behind the intervals and rank sets",
                                    "The joint bootstrap resamples behind the intervals and rank sets (2,000).",
                                    group="ranking")  # fmt: skip
    seed: int = seed_option(DEFAULT_SEED, group="ranking")
    resample_unit: str | None = unit_option(group="ranking", default=None, help="what resampling draws or swaps "
                                            "(default: documents wherever the judgments come in documents: WMT DA's "
                                            "HITs, MQM, a doc column, --docs; else segments)")  # fmt: skip
    min_common: int = option(MIN_COMMON, "pairs judged on fewer common segments are not tested", "int", low=1,
                             metavar="N", group="ranking", doc="The fewest segments two systems must share to be "
                             f"tested ({MIN_COMMON}).")  # fmt: skip
    jobs: int = option(1, "processes for the paired tests and the rank sets (the pairs and the bootstrap rows split "
                       "between them: the same numbers with any number of processes)", "int", short="-j", low=1,
                       group="ranking", shown=False, record=False, metavar="N",
                       web="processes: a run of the web app uses one; mtsig serve --jobs sets how many runs go at once",
                       doc="Processes for the paired tests and the rank sets (1: in this process); the results do "
                       "not depend on it.")  # fmt: skip
    anytime: bool = option(False, "protocol mtsig: rank sets valid at any stopping time (confidence sequences per "
                           "pair, documents as units; the default for an adaptive campaign's log, as Pearmut's)",
                           "bool", group="ranking", doc="Protocol mtsig: the anytime ranking "
                           "(:mod:`mtsig.humaneval.anytime`): time-uniform confidence sequences for every pair's mean "
                           "document difference at alpha/M, rank sets valid whenever the campaign stops. Always on "
                           "for a Pearmut log.")  # fmt: skip
    sequence: str = option("betting", "the anytime ranking's confidence sequences: betting (hedged, default) or eb "
                           "(empirical Bernstein: closed form, wider)", "str", choices=("betting", "eb"),
                           group="ranking", what="confidence sequence",
                           doc="The anytime ranking's sequences: ``betting`` (hedged betting, Waudby-Smith & Ramdas; "
                           "the default) or ``eb`` (predictable-mixture empirical Bernstein: closed form, wider at "
                           "small levels).")  # fmt: skip
    score_range: tuple[float, ...] | None = option(None, "the anytime ranking: the scale's bounds LO HI (known for "
                                                   "ESA, cESA and Pearmut logs: 0 100)", "floats", most=2,
                                                   group="ranking", metavar="X",
                                                   doc="The scale's bounds (``(0, 100)``), which the anytime "
                                                   "ranking's sequences need; known for ESA/cESA formats.")  # fmt: skip
    segments: bool = option(False, "also the per-segment scores used (JSON, CSV)", "bool", group="ranking",
                            record=False, doc="Also the per-segment scores used (``result.segments``; JSON "
                            "``\"segments\"``).")  # fmt: skip

    def __post_init__(self):
        super().__post_init__()
        if self.protocol in WMT_PROTOCOLS:  # WMT's procedures run their own tests, uncorrected
            given = [f for f, d in (("test", "ar"), ("correction", "holm"), ("n_resamples", None))
                     if getattr(self, f) != d]  # fmt: skip
            if given:
                raise InputError(f"{', '.join(given)}: protocol mtsig's setting(s); protocol {self.protocol} runs "
                                 f"WMT's own tests, uncorrected ({PROTOCOL_TESTS[self.protocol]}): leave "
                                 f"{'it' if len(given) == 1 else 'them'} out, or use --protocol mtsig",
                                 param=given[0])  # fmt: skip
        self._check_anytime()
        if self.n_bootstrap < 2 / (1 - self.confidence):
            need = int(np.ceil(2 / (1 - self.confidence)))
            raise InputError(f"n_bootstrap must be at least {need} for {self.confidence:.0%} intervals, got "
                             f"{self.n_bootstrap}", param="n_bootstrap")  # fmt: skip

    def _check_anytime(self) -> None:
        if self.score_range is not None and len(self.score_range) != 2:
            raise InputError(f"score_range takes two numbers (LO HI), got {len(self.score_range)}",
                             param="score_range")  # fmt: skip
        if not self.anytime:
            return
        if self.protocol != "mtsig":
            raise InputError(f"anytime belongs to protocol mtsig; protocol {self.protocol} is a fixed-sample "
                             "procedure", param="anytime")  # fmt: skip
        given = [f for f, d in (("test", "ar"), ("correction", "holm"), ("n_resamples", None)) if getattr(self, f) != d]
        if given:
            raise InputError(f"{', '.join(given)}: the anytime ranking runs no resampling test (confidence sequences "
                             "at alpha/M): leave them out", param=given[0])  # fmt: skip

    def resampling(self, progress=None) -> Resampling:
        return Resampling(self.n_resamples, self.seed, progress=progress)


@dataclass(frozen=True, kw_only=True)
class Protocol:
    """One way of ranking systems from human judgments."""

    name: str
    help: str
    #: the procedure, or ``"module:name"`` of one imported when first run (a procedure in a module of its own that
    #: builds on this one)
    run: Callable[[HumanScores, HumanOptions, Resampling], HumanResult] | str
    #: its comparisons are one-sided ("a is better than b"), every ordered pair or neighbours
    one_sided: bool = False

    def __call__(self, h: HumanScores, opts: HumanOptions, rs: Resampling) -> HumanResult:
        run = self.run
        if isinstance(run, str):
            import importlib

            module, _, name = run.partition(":")
            run = getattr(importlib.import_module(module), name)
        return run(h, opts, rs)


PROTOCOLS: Registry[Protocol] = Registry("protocol", "mtsig.protocols")


def register_protocol(protocol: Protocol) -> Protocol:
    """Add a protocol (``mtsig human --protocol NAME``, ``mtsig.humaneval(protocol=NAME)``)."""
    return PROTOCOLS.register(protocol)


# ------------------------------------------------------------------------------------------------ shared
def _order(h: HumanScores) -> list[int]:
    """System indices, best first (ties by name, so the order never depends on the files' order)."""
    m = h.system_means()
    return sorted(range(len(h.systems)), key=lambda k: (-m[k], h.systems[k]))


_check = check_rankable


def _cluster_index(cl: list[list[str]]) -> dict[str, int]:
    return {s: i + 1 for i, c in enumerate(cl) for s in c}


def _wmt_clusters(order: list[str], beats: set[tuple[str, str]]) -> list[list[str]]:
    """WMT's rule: in score order, a boundary after position i where every system above beats every one below."""
    at = {n: i for i, n in enumerate(order)}
    B = np.zeros((len(order), len(order)), dtype=bool)
    for x, y in beats:
        B[at[x], at[y]] = True
    return _boundaries(order, B)


def _boundaries(order: list[str], B: np.ndarray) -> list[list[str]]:
    """Clusters of ``order`` cut after position i where ``B[:i+1, i+1:]`` is all True (a running count of the
    True cells of the block above and right: the whole pass is O(K^2))."""
    K = len(order)
    # block(i) = sum of B[:i+1, i+1:]: add row i's cells right of i, remove column i's cells above i
    block = 0
    out, cur = [], []
    rows = B.sum(axis=1)
    for i, name in enumerate(order):
        block += int(rows[i] - B[i, : i + 1].sum()) - int(B[:i, i].sum())
        cur.append(name)
        if i < K - 1 and block == (i + 1) * (K - i - 1):
            out.append(cur)
            cur = []
    out.append(cur)
    return out


def resample_unit(h: HumanScores, opts: HumanOptions) -> tuple[str, str | None]:
    """The resampling unit (the user's, or documents wherever the judgments come in documents) and a note saying
    why when it was chosen here."""
    if opts.resample_unit is not None:
        return opts.resample_unit, None
    if h.documents is None:
        if h.input_format == "wmt-da-seg":
            return "segment", ("resampling unit: segments, because WMT's segment-score file names no documents, though "
                               "WMT's DA judged whole documents (a HIT scores one document of one system): segments "
                               "of one document are not independent, so intervals and p-values are too narrow and "
                               "more pairs come out significant; give --docs (the test set's .docs file or WMT XML) "
                               "to resample documents, or use the judgment file (ad-*-good-stnd.csv), whose HITs "
                               "give them")  # fmt: skip
        return "segment", None
    nd = h.n_documents
    how = {"the HITs": "WMT DA's HITs score whole documents", "the file": "the file gives each segment's document"}
    why = how.get(h.documents_from or "", f"{h.documents_from} gives each segment's document")
    if nd < MIN_UNITS:
        return "segment", (f"resampling unit: segments, though the judgments have documents ({why}): {nd} documents "
                           f"are too few to resample (at least {MIN_UNITS}); segments of one document are not "
                           "independent, so intervals and p-values are too narrow if the documents differ")  # fmt: skip
    return "document", (f"resampling unit: the {nd} documents ({why}; the segments of one document are not "
                        "independent): every test, interval and rank set resamples whole documents "
                        "(--resample-unit segment treats the segments as independent and understates the "
                        "uncertainty)")  # fmt: skip


def _too_few_units(units: engine.Units) -> str | None:
    n = len(units.labels)
    if n >= MIN_UNITS:
        return None
    return (f"only {n} {units.kind}(s) to resample (at least {MIN_UNITS} are needed): no bootstrap intervals and no "
            "rank sets (every resample would be nearly the data itself); rank ranges are the trivial 1-K")  # fmt: skip


def _intervals(h: HumanScores, opts: HumanOptions, rs: Resampling) -> tuple[np.ndarray | None, list, str, list[str]]:
    unit, why = resample_unit(h, opts)
    units = engine.unit_sums(h, unit)
    notes = [why] if why else []
    few = _too_few_units(units)
    if few:
        return None, [None] * len(h.systems), unit, [*notes, few]
    boot = engine.joint_bootstrap(units, rs, opts.n_bootstrap)
    return boot, engine.percentile(boot, opts.confidence), unit, notes


_settings = settings_of


def _segments(h: HumanScores, opts: HumanOptions):
    if not opts.segments:
        return None
    return tuple((s, g, float(h.scores[k, i])) for k, s in enumerate(h.systems) for i, g in enumerate(h.segments)
                 if np.isfinite(h.scores[k, i]))  # fmt: skip


def auto_resamples(test: str, alpha: float, k: int, correction: str, work: int = 0) -> int:
    """The test's default count, or more so that the smallest p-value is a tenth of the corrected threshold
    (as ``compare`` chooses it), at most :data:`MAX_AUTO_RESAMPLES` and at most :data:`MAX_WORK` / ``work`` (the cost
    of one resample: pairs plus units x systems), never below the default."""
    thr = CORRECTIONS.get(correction).threshold(alpha, max(k, 1))
    smallest = 2.0 if test == "paired-bootstrap" else 1.0  # two-sided paired bootstrap: 2/(R+1)
    need = int(np.ceil(10 * smallest / thr)) - 1
    need = int(np.ceil(need / 100) * 100)
    cap = min(MAX_AUTO_RESAMPLES, (MAX_WORK // work) // 100 * 100 if work else MAX_AUTO_RESAMPLES)
    return max(HUMAN_TESTS[test], min(need, cap))


#: the automatic count keeps resamples x (pairs + units x systems) below this (a thousand systems: about 13,000)
MAX_WORK = 20_000_000_000


def _count(opts: HumanOptions, k: int, work: int = 0) -> tuple[int, list[str]]:
    """Resamples of the paired test (given, or automatic) and a note when no pair can reach the threshold."""
    thr = CORRECTIONS.get(opts.correction).threshold(opts.alpha, max(k, 1))
    auto = auto_resamples(opts.test, opts.alpha, k, opts.correction, work)
    R = opts.n_resamples if opts.n_resamples is not None else auto
    smallest = (2.0 if opts.test == "paired-bootstrap" else 1.0) / (R + 1)
    notes = []
    if opts.n_resamples is None and R > HUMAN_TESTS[opts.test] and smallest * 10 <= thr * (1 + 1e-9):
        notes.append(f"{opts.test}: {R:,} resamples, chosen so that a pair's p-value can reach a tenth of the "
                     f"corrected threshold {thr:.2g} ({opts.correction}, {k} comparisons)")  # fmt: skip
    if k and smallest > thr:
        need = auto_resamples(opts.test, opts.alpha, k, opts.correction, work)
        notes.append(f"{opts.test}: with {R:,} resamples the smallest p-value is {smallest:.2g}, above the corrected "
                     f"threshold {thr:.2g} ({opts.correction}, {k} comparisons): no pair can be significant"
                     + (f"; give --n-resamples {need} or more" if need > R else
                        "; this many comparisons need more resamples than mtsig draws: test fewer systems, or "
                        "use --correction bh (false discovery rate)"))  # fmt: skip
    return R, notes


# ------------------------------------------------------------------------------------------------ mtsig
def _check_size(h: HumanScores) -> None:
    K = len(h.systems)
    pairs = K * (K - 1) // 2
    if pairs > MAX_PAIRS:
        raise InputError(f"{K:,} systems make {pairs:,} pairs; human tests every pair and keeps each (about "
                         f"{pairs * 400 / 2**30:.0f} GiB for the table alone): at most {MAX_PAIRS:,} pairs (2,000 "
                         "systems) at once; rank a selection of the systems")  # fmt: skip


#: below this many pair-resamples, forking costs more than it saves
MIN_PARALLEL_WORK = 50_000_000


def _pair_tests(sub, opts: HumanOptions, rs: Resampling, R: int) -> np.ndarray:
    """The paired tests' p-values, in ``opts.jobs`` processes when there is enough work: each takes a contiguous
    share of the pairs and draws the same resamples from the seed, so the p-values are the same as in one."""
    from mtsig.executor import ProcessExecutor, start_method

    test = "ar" if opts.test == "ar" else "bootstrap"
    P = len(sub.pairs)
    if opts.jobs <= 1 or P < 2 or P * R < MIN_PARALLEL_WORK or start_method() != "fork":
        return getattr(sub, test)(rs, R)
    cuts = np.linspace(0, P, min(P, 4 * opts.jobs) + 1).astype(np.int64)  # a few shares per process: even finish
    parts = [(int(a), int(b)) for a, b in zip(cuts, cuts[1:]) if b > a]
    quiet = replace(rs, progress=None)  # the children draw the same resamples, and print nothing

    def one(span: tuple[int, int]) -> np.ndarray:
        keep = np.zeros(P, dtype=bool)
        keep[span[0] : span[1]] = True
        return getattr(sub.subset(keep), test)(quiet, R)

    advance = rs.advance(f"paired tests of {P:,} pairs in {opts.jobs} processes", len(parts))
    return np.concatenate(ProcessExecutor(opts.jobs).map(one, parts, advance))


def _mtsig_tests(h: HumanScores, opts: HumanOptions, rs: Resampling, order: list[int], units, unit: str):
    """Every pair of systems (in score order) tested on the segments both were judged on, corrected over the pairs
    tested: the pairs, the tests' evidence, which were tested, p, adjusted p, the decisions, R and its notes."""
    K = len(order)
    ii, jj = np.triu_indices(K, 1)
    pairs = np.stack([np.asarray(order)[ii], np.asarray(order)[jj]], axis=1)
    pt = engine.PairTests(h, units, pairs)
    testable = pt.n_common >= opts.min_common
    k = int(testable.sum())
    R, count_notes = _count(opts, k, k + len(units.labels) * K)
    if opts.test == "paired-bootstrap" and testable.any() and len(units.labels) < MIN_UNITS:
        raise InputError(f"the paired bootstrap needs at least {MIN_UNITS} {unit}s to resample; there are "
                         f"{len(units.labels)} (test ar is exact at any size)", param="test")  # fmt: skip
    p = np.full(len(pairs), np.nan)
    if testable.any():
        sub = pt.subset(testable)
        p[testable] = _pair_tests(sub, opts, rs, R)
    padj = np.full(len(pairs), np.nan)
    padj[testable] = adjust(p[testable], opts.correction)
    sig = (padj <= opts.alpha) & testable
    return pairs, pt, testable, p, padj, sig, R, count_notes


def _mtsig_comparisons(h: HumanScores, opts: HumanOptions, means, pairs, pt, testable, p, padj, sig):  # noqa: PLR0913
    out = []
    for j in range(len(pairs)):
        a, b = int(pairs[j, 0]), int(pairs[j, 1])
        ok = bool(testable[j])
        n = int(pt.n_common[j])
        note = None if ok else f"not tested: {n} segments judged for both (fewer than {opts.min_common})"
        out.append(HumanComparison(a=h.systems[a], b=h.systems[b], delta=float(means[b] - means[a]),
                                   p_value=float(p[j]) if ok else None, p_adjusted=float(padj[j]) if ok else None,
                                   significant=bool(sig[j]), n_common=n,
                                   delta_common=-float(pt.observed[j]) if n else None, note=note))  # fmt: skip
    return out


def _mtsig_notes(h: HumanScores, opts: HumanOptions, testable, boot, units) -> list[str]:
    notes = []
    lone = int(np.sum(h.judged.sum(axis=0) == 1))
    if (~h.judged).any():
        notes.append("each pair is tested on the segments both systems were judged on (common, per row); a segment "
                     "judged for one system of a pair counts in its score, not in the pair's test"
                     + (f" ({lone} segment(s) were judged for one system only)" if lone else ""))  # fmt: skip
    untested = int((~testable).sum())
    if untested:
        notes.append(f"{untested} pair(s) not tested: fewer than {opts.min_common} segments judged for both")
    if boot is not None:
        notes.append(f"rank ranges are simultaneous {opts.confidence:.0%} confidence sets (step-down max-T over every "
                     f"ordered pair, {opts.n_bootstrap} joint bootstrap resamples of the {units.kind}s): all hold at "
                     "once, at the bootstrap's level, which is asymptotic and a little below the nominal one (under "
                     "document-level nulls of three WMT22 pairs they held jointly 0.933-0.939 of the time at 95%; "
                     "docs/human.md); wins count the pairs a system wins in the pairwise tests above (a separate "
                     "procedure: a rank range can imply more or fewer wins)")  # fmt: skip
    return notes


def run_mtsig(h: HumanScores, opts: HumanOptions, rs: Resampling) -> HumanResult:
    if opts.anytime or h.screens is not None:  # an adaptive campaign's log: only the anytime ranking is valid
        from mtsig.humaneval.anytime import run_anytime

        return run_anytime(h, replace(opts, anytime=True) if not opts.anytime else opts)
    return _run_fixed(h, opts, rs)


def _run_fixed(h: HumanScores, opts: HumanOptions, rs: Resampling) -> HumanResult:
    """mtsig's protocol: paired tests of every pair on the segments both were judged on, corrected; simultaneous
    rank sets from a joint bootstrap; clusters where the decisions separate systems."""
    _check(h)
    _check_size(h)
    order = _order(h)
    means = h.system_means()
    names = [h.systems[k] for k in order]
    boot, cis, unit, unit_notes = _intervals(h, opts, rs)
    units = engine.unit_sums(h, unit)
    if boot is not None:
        ranks, _ = engine.rank_sets(boot[:, order], means[order], opts.confidence, rs, jobs=opts.jobs)
    else:
        ranks = [(1, len(order))] * len(order)
    K = len(order)
    pairs, pt, testable, p, padj, sig, R, count_notes = _mtsig_tests(h, opts, rs, order, units, unit)
    comps = _mtsig_comparisons(h, opts, means, pairs, pt, testable, p, padj, sig)
    ii, jj = np.triu_indices(K, 1)
    S = np.zeros((K, K), dtype=bool)  # in score order: S[i, j] (i above j) when the pair differs significantly
    S[ii, jj] = sig
    cl = _boundaries(names, S | S.T)
    at = _cluster_index(cl)
    win = np.where(np.asarray([c.delta for c in comps]) < 0, ii, jj)  # the better-scoring system (Δ = B − A)
    wins = np.bincount(win[sig], minlength=K)
    systems = tuple(HumanSystem(name=h.systems[kx], score=float(means[kx]), ci=cis[kx], n_segments=h.n_segments(kx),
                                wins=int(wins[i]), cluster=at[h.systems[kx]], rank_range=ranks[i])
                    for i, kx in enumerate(order))  # fmt: skip
    notes = list(h.notes) + unit_notes + count_notes + _mtsig_notes(h, opts, testable, boot, units)
    st = _settings(h, opts, unit, test=opts.test, n_resamples=R, correction=opts.correction,
                   n_units=len(units.labels), one_sided=False, n_comparisons=int(testable.sum()))  # fmt: skip
    return HumanResult(protocol="mtsig", systems=systems, comparisons=tuple(comps),
                       clusters=tuple(tuple(c) for c in cl), settings=st, notes=tuple(notes),
                       segments=_segments(h, opts))  # fmt: skip


# ------------------------------------------------------------------------------------------------ WMT
def mann_whitney_greater(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """One-sided p-values of "x tends to be larger than y" and of the reverse, as R's ``wilcox.test(x, y,
    alternative="greater")`` computes them: the normal approximation with continuity correction and the
    tie-corrected variance (scipy's ``mannwhitneyu(..., use_continuity=True, method="asymptotic")``, to 1e-12 in
    the tests), or the exact distribution when both samples have fewer than 50 values and there are no ties."""
    from scipy.special import ndtr  # the normal tail without importing scipy.stats (a second at start-up)

    n1, n2 = len(x), len(y)
    both = np.concatenate([x, y])
    order = np.argsort(both, kind="stable")
    _, first, t = np.unique(both[order], return_index=True, return_counts=True)
    if n1 < 50 and n2 < 50 and t.size == n1 + n2:
        from scipy.stats import mannwhitneyu

        f = lambda a, b: float(mannwhitneyu(a, b, alternative="greater", method="exact").pvalue)  # noqa: E731
        return f(x, y), f(y, x)
    ranks = np.empty(both.size)
    ranks[order] = np.repeat(first + (t + 1) / 2, t)  # average ranks of ties, 1-based
    u1 = float(ranks[:n1].sum()) - n1 * (n1 + 1) / 2
    n = n1 + n2
    sd = np.sqrt(n1 * n2 / 12 * ((n + 1) - float((t.astype(np.float64) ** 3 - t).sum()) / (n * (n - 1))))
    mu = n1 * n2 / 2
    if sd == 0:
        return 1.0, 1.0
    return float(ndtr(-(u1 - mu - 0.5) / sd)), float(ndtr(-(n1 * n2 - u1 - mu - 0.5) / sd))


def _wmt_result(h, opts, rs, name, decided: tuple[dict, set, list], scores: np.ndarray | None = None,  # noqa: PLR0913
                clusters: list[list[str]] | None = None, ranges: list[tuple[int, int]] | None = None,
                order: list[int] | None = None) -> HumanResult:  # fmt: skip
    """The WMT protocols' shared ending: clusters, wins, losses and rank ranges (losses + 1, N - wins), from
    ``decided`` = (the comparisons by pair, the (winner, loser) pairs, the protocol's notes); ``scores`` and
    ``clusters`` where the protocol has its own (WMT24: domain-averaged scores, its clusters)."""
    tested, beats, notes = decided
    means = h.system_means() if scores is None else scores
    if order is None:  # the protocol's own order where it has one (WMT26: ties as the log first names them)
        order = sorted(range(len(h.systems)), key=lambda k: (-means[k], h.systems[k]))
    names = [h.systems[k] for k in order]
    _, cis, unit, unit_notes = _intervals(h, opts, rs)
    if scores is not None:  # the intervals are of the plain means: none for a protocol with scores of its own
        cis = [None] * len(h.systems)
        unit_notes = [*unit_notes, "no intervals: the scores are domain averages (the intervals are of plain means)"]
    cl = _wmt_clusters(names, beats) if clusters is None else clusters
    at = _cluster_index(cl)
    K = len(names)
    wins = {n: sum((n, m) in beats for m in names) for n in names}
    losses = {n: sum((m, n) in beats for m in names) for n in names}
    if ranges is None:
        ranges = [(losses[n] + 1, K - wins[n]) for n in names]
    systems = tuple(HumanSystem(name=n, score=float(means[h.index(n)]), ci=cis[h.index(n)],
                                n_segments=h.n_segments(h.index(n)), wins=wins[n], cluster=at[n],
                                rank_range=ranges[i]) for i, n in enumerate(names))  # fmt: skip
    p = PROTOCOLS.get(name)
    st = _settings(h, opts, unit, correction="none", one_sided=p.one_sided, n_comparisons=len(tested))
    notes = [*h.notes, *unit_notes, *notes, "rank ranges are WMT's (losses + 1, N - wins) from uncorrected tests: they "
             "hold no joint confidence level"]  # fmt: skip
    return HumanResult(protocol=name, systems=systems, comparisons=tuple(tested.values()),
                       clusters=tuple(tuple(c) for c in cl), settings=st, notes=tuple(notes),
                       segments=_segments(h, opts))  # fmt: skip


def _values(h: HumanScores, k: int) -> np.ndarray:
    x = h.scores[k]
    return x[np.isfinite(x)]


def run_wmt22(h: HumanScores, opts: HumanOptions, rs: Resampling) -> HumanResult:
    _check(h)
    order = _order(h)
    means = h.system_means()
    tested, beats = {}, set()
    pvalues = {}
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            pvalues[(a, b)], pvalues[(b, a)] = mann_whitney_greater(_values(h, a), _values(h, b))
    for a in order:
        for b in order:
            if a == b:
                continue
            p = pvalues[(a, b)]
            A, B = h.systems[a], h.systems[b]
            if p < opts.alpha:
                beats.add((A, B))
            xa, xb, both = _paired(h, a, b)
            n = int(both.sum())
            tested[(a, b)] = HumanComparison(a=A, b=B, delta=float(means[b] - means[a]), p_value=p, p_adjusted=p,
                                             significant=p < opts.alpha, n_common=n,
                                             delta_common=float(np.mean(xb - xa)) if n else None)  # fmt: skip
    note = "one-sided Mann-Whitney U tests of every ordered pair (a better than b), unpaired, uncorrected"
    return _wmt_result(h, opts, rs, "wmt22", (tested, beats, [note]))


def _paired(h: HumanScores, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    both = h.judged[a] & h.judged[b]
    return h.scores[a][both], h.scores[b][both], both


def _wilcoxon(x: np.ndarray, y: np.ndarray, alternative: str) -> float:
    from scipy.stats import wilcoxon

    d = x - y
    if not np.any(d != 0):
        return 1.0
    return float(wilcoxon(x, y, alternative=alternative, zero_method="wilcox").pvalue)


def _stouffer(h: HumanScores, a: int, b: int, min_common: int) -> tuple[float | None, int, str | None]:
    """mtsig's signed combination: a two-sided p of the pair from per-domain two-sided Wilcoxon tests, each domain's
    z carrying the sign of its mean difference (Stouffer's method on signed z: domains that disagree cancel)."""
    from scipy.stats import norm

    domains = h.domains or ("",) * len(h.segments)
    x, y, both = _paired(h, a, b)
    labels = np.asarray(domains, dtype=object)[both]
    zs = []
    for d in dict.fromkeys(labels):
        sel = labels == d
        if sel.sum() < min_common:
            continue
        p = _wilcoxon(x[sel], y[sel], "two-sided")
        diff = float(np.mean(x[sel] - y[sel]))
        zs.append(np.sign(diff) * norm.isf(p / 2))
    if not zs:
        return None, int(both.sum()), f"not tested: no domain with {min_common} segments judged for both"
    Z = float(np.sum(zs) / np.sqrt(len(zs)))
    return float(2 * norm.sf(abs(Z))), int(both.sum()), None


def run_wmt24_signed(h: HumanScores, opts: HumanOptions, rs: Resampling) -> HumanResult:
    _check(h)
    order = _order(h)
    means = h.system_means()
    tested, beats = {}, set()
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            p, n, note = _stouffer(h, a, b, opts.min_common)
            A, B = h.systems[a], h.systems[b]
            sig = p is not None and p < opts.alpha
            if sig:
                beats.add((A, B) if means[a] > means[b] else (B, A))
            x, y, _ = _paired(h, a, b)
            tested[(a, b)] = HumanComparison(a=A, b=B, delta=float(means[b] - means[a]), p_value=p, p_adjusted=p,
                                             significant=sig, n_common=n,
                                             delta_common=float(np.mean(y - x)) if n else None, note=note)  # fmt: skip
    doms = len(set(h.domains)) if h.domains else 1
    note = (f"two-sided Wilcoxon signed-rank tests per domain ({doms} domain(s)) on the segments both systems were "
            "judged on, combined by Stouffer's method on signed z (domains that disagree cancel); "
            "uncorrected")  # fmt: skip
    return _wmt_result(h, opts, rs, "wmt24-signed", (tested, beats, [note]))


# ------------------------------------------------------------------------------------------------ WMT24's own
def domain_macro_means(h: HumanScores) -> np.ndarray:
    """Each system's score as WMT24 computes it: the mean of its segment scores in each domain, averaged over the
    domains it was judged in (every segment in one domain without domains)."""
    domains = np.asarray(h.domains or ("",) * len(h.segments), dtype=object)
    out = np.full(len(h.systems), np.nan)
    for k in range(len(h.systems)):
        per = [float(np.mean(h.scores[k][h.judged[k] & (domains == d)])) for d in dict.fromkeys(domains)
               if np.any(h.judged[k] & (domains == d))]  # fmt: skip
        out[k] = float(np.mean(per)) if per else np.nan
    return out


def wmt24_pvalue(x: np.ndarray, y: np.ndarray, domains: np.ndarray) -> float:
    """WMT24's ``weighted_wilcoxon_signed_rank_test`` (humeval/tools.py): per domain, SciPy's two-sided Wilcoxon
    signed-rank test of the paired differences with its defaults; the domains' p-values combined by Stouffer's
    method on unsigned z = Φ⁻¹(1 - p), and p = 1 - Φ(Σz / √D). The direction is not in it: WMT24 takes it from the
    systems' domain-averaged scores. (The same p for both orders of the pair.)"""
    import warnings

    from scipy.stats import norm, wilcoxon

    pvalues = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SciPy's warnings on zero differences and small samples, as WMT24 ignores
        for d in dict.fromkeys(domains):
            sel = domains == d
            pvalues.append(float(wilcoxon((x[sel] - y[sel]).tolist(), alternative="two-sided").pvalue))
        z = [norm.ppf(1 - p) for p in pvalues]
        return float(1 - norm.cdf(np.sum(z) / np.sqrt(len(pvalues))))


def wmt24_clusters(order: list[str], p: dict[frozenset, float], alpha: float) -> dict[str, int]:
    """WMT24's ``get_clusters``: down the ranking, a system's cluster number is the running count; a new cluster
    starts after a system unless some system below it (or a later system reached from an earlier one) is not
    significantly different (p > alpha) from it."""
    out: dict[str, int] = {}
    same_until = -1
    last = 1
    for i, s in enumerate(order):
        if same_until <= i:
            same_until = -1
        for j in range(i + 1, len(order)):
            if p[frozenset((s, order[j]))] > alpha:
                same_until = max(j, same_until)
        out[s] = last
        if same_until == -1:
            last += 1
    return out


def run_wmt24(h: HumanScores, opts: HumanOptions, rs: Resampling) -> HumanResult:
    """WMT24's procedure exactly as humeval/tools.py and calculate_clusters.py run it (see :func:`wmt24_pvalue`):
    systems by domain-averaged score, every pair tested on the segments both were judged on, a pair decided at p <
    alpha in the direction of the domain-averaged scores, ranks (losses + 1, N - wins), WMT24's clusters."""
    _check(h)
    macro = domain_macro_means(h)
    order = sorted(range(len(h.systems)), key=lambda k: (-macro[k], h.systems[k]))
    names = [h.systems[k] for k in order]
    domains = np.asarray(h.domains or ("",) * len(h.segments), dtype=object)
    pvals: dict[frozenset, float] = {}
    tested = {}
    beats: set[tuple[str, str]] = set()
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            x, y, both = _paired(h, a, b)
            A, B = h.systems[a], h.systems[b]
            p = wmt24_pvalue(x, y, domains[both]) if both.any() else float("nan")
            pvals[frozenset((A, B))] = p
            sig = bool(p < opts.alpha)
            if sig:
                beats.add((A, B) if macro[a] > macro[b] else (B, A))
            tested[(a, b)] = HumanComparison(a=A, b=B, delta=float(macro[b] - macro[a]),
                                             p_value=None if np.isnan(p) else p, p_adjusted=None if np.isnan(p) else p,
                                             significant=sig, n_common=int(both.sum()),
                                             delta_common=float(np.mean(y - x)) if both.any() else None,
                                             note=None if both.any() else "not tested: no segment judged for "
                                             "both")  # fmt: skip
    clusters = wmt24_clusters(names, pvals, opts.alpha)
    cl = [[n for n in names if clusters[n] == c] for c in sorted(set(clusters.values()))]
    doms = len(set(domains))
    note = (f"WMT24's procedure (humeval/tools.py): two-sided Wilcoxon signed-rank tests per domain ({doms} "
            "domain(s)) on the segments both systems were judged on, combined by Stouffer's method on unsigned z "
            "(p = 1 - Φ(Σ Φ⁻¹(1 - p_d) / √D)); direction from the domain-averaged scores; uncorrected. "
            "--protocol wmt24-signed keeps each domain's direction")  # fmt: skip
    return _wmt_result(h, opts, rs, "wmt24", (tested, beats, [note]), scores=macro, clusters=cl)


def _wave_index(h: HumanScores) -> tuple[np.ndarray, np.ndarray] | None:
    """Where the judgments come in waves (each item judged in several waves, ``h.waves``), the segment pairs WMT25
    compares: every wave of an item against every wave of the same item (its 08-compute_clusters.py "cross-pairs"
    its two waves: a1-b1, a2-b2, a1-b2, a2-b1), in that order; None without waves (segment by segment). The pairing
    is the same for every two systems, so it is found once."""
    if h.waves is None or h.items is None:
        return None
    items = np.asarray(h.items, dtype=object)
    waves = np.asarray(h.waves, dtype=object)
    ia, ib = [], []
    for wa in dict.fromkeys(h.waves):
        sa = np.flatnonzero(waves == wa)
        for wb in dict.fromkeys(h.waves):
            sb = np.flatnonzero(waves == wb)
            at_b = {it: j for j, it in zip(sb, items[sb])}
            for i, it in zip(sa, items[sa]):
                if it in at_b:
                    ia.append(i)
                    ib.append(at_b[it])
    return np.asarray(ia, dtype=np.intp), np.asarray(ib, dtype=np.intp)


def _wave_pairs(h: HumanScores, a: int, b: int, index=None) -> tuple[np.ndarray, np.ndarray]:
    """The paired scores of a and b as WMT25 pairs them (``index``: :func:`_wave_index`'s pairing; None: segment by
    segment). Pairs with a score missing on either side are left out."""
    if index is None:
        x, y, _ = _paired(h, a, b)
        return x, y
    ia, ib = index
    ok = h.judged[a, ia] & h.judged[b, ib]
    return h.scores[a, ia][ok], h.scores[b, ib][ok]


def _wmt25_greater(x: np.ndarray, y: np.ndarray) -> float:
    """SciPy's one-sided Wilcoxon signed-rank test that x - y tends to be positive, as WMT25 calls it."""
    import warnings

    from scipy.stats import wilcoxon

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(wilcoxon((x - y).tolist(), alternative="greater").pvalue)


def wmt25_ranges(order: list[str], better: dict[tuple[str, str], bool]) -> list[tuple[int, int]]:
    """WMT25's rank ranges: from each system's place in the score order, up past every system above until one is
    significantly better than it, down past every system below until it is significantly better than one."""
    out = []
    for i, a in enumerate(order):
        start = i + 1
        for b in order[:i][::-1]:
            if better[(b, a)]:
                break
            start -= 1
        end = i + 1
        for b in order[i + 1 :]:
            if better[(a, b)]:
                break
            end += 1
        out.append((start, end))
    return out


def wmt25_clusters(order: list[str], ranges: list[tuple[int, int]]) -> list[list[str]]:
    """WMT25's ``does_cluster_end_here``: a boundary after the first i systems when every range above ends by i and
    every range below starts after i."""
    out, cur = [], []
    for i, name in enumerate(order):
        cur.append(name)
        n = i + 1
        if n < len(order) and all(e <= n for _, e in ranges[:n]) and all(s > n for s, _ in ranges[n:]):
            out.append(cur)
            cur = []
    out.append(cur)
    return out


def run_wmt25(h: HumanScores, opts: HumanOptions, rs: Resampling) -> HumanResult:
    """WMT25's final procedure (humeval/08-compute_clusters.py of wmt-conference/wmt25-general-mt): systems by mean
    score; a one-sided Wilcoxon signed-rank test at alpha/2 of "above is better than below" for each pair the
    scans meet, its judgments cross-paired over the human waves; rank ranges by scanning up and down to the first
    significant test; a cluster boundary where no range crosses it."""
    _check(h)
    order = _order(h)
    means = h.system_means()
    names = [h.systems[k] for k in order]
    level = opts.alpha / 2
    index = _wave_index(h)
    better: dict[tuple[str, str], bool] = {}  # (above, below) in the score order: the only pairs the scans ask
    tested = {}
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            A, B = h.systems[a], h.systems[b]
            x, y = _wave_pairs(h, a, b, index)
            p = _wmt25_greater(x, y) if x.size else float("nan")
            better[(A, B)] = bool(p < level)
            tested[(a, b)] = HumanComparison(a=A, b=B, delta=float(means[b] - means[a]),
                                             p_value=None if np.isnan(p) else p, p_adjusted=None if np.isnan(p) else p,
                                             significant=better[(A, B)], n_common=int(x.size),
                                             delta_common=float(np.mean(y - x)) if x.size else None,
                                             note=None if x.size else "not tested: no judgment of both")  # fmt: skip
    ranges = wmt25_ranges(names, better)
    cl = wmt25_clusters(names, ranges)
    beats = {(names[i], names[j]) for i in range(len(names)) for j in range(len(names))
             if i != j and ranges[i][1] < j + 1 and ranges[j][0] > i + 1}  # fmt: skip
    waves = f", cross-paired over its {len(set(h.waves))} waves" if h.waves else ""
    note = (f"WMT25's procedure (humeval/08-compute_clusters.py): one-sided Wilcoxon signed-rank tests at alpha/2 = "
            f"{level:g}{waves}; rank ranges by scanning up and down to the first significant test; uncorrected. "
            "Wins count the systems wholly below a system's range")  # fmt: skip
    return _wmt_result(h, opts, rs, "wmt25", (tested, beats, [note]), clusters=cl, ranges=ranges)


for _p in (
    Protocol(name="mtsig", help="paired tests, every pair, corrected; simultaneous rank sets (default)", run=run_mtsig),
    Protocol(name="wmt22", help="WMT22: one-sided Mann-Whitney U of every ordered pair, uncorrected",
             run=run_wmt22, one_sided=True),
    Protocol(name="wmt24", help="WMT24 as its humeval/tools.py: per-domain Wilcoxon, Stouffer on unsigned z",
             run=run_wmt24),
    Protocol(name="wmt24-signed", help="WMT24's tests with each domain's direction kept (signed Stouffer)",
             run=run_wmt24_signed),
    Protocol(name="wmt25", help="WMT25 as its 08-compute_clusters.py: one-sided Wilcoxon at alpha/2, ranges by "
             "scanning, waves cross-paired", run=run_wmt25, one_sided=True),
    Protocol(name="wmt26", help="WMT26 as its 02-analyze_results.py: paired or two-sample t-test, cluster and local "
             "lines", run="mtsig.humaneval.wmt26:run_wmt26"),
):  # fmt: skip
    register_protocol(_p)


def run_human(h: HumanScores, options: HumanOptions | None = None, progress=None) -> HumanResult:
    """Rank the systems of ``h`` under ``options.protocol``."""
    opts = options or HumanOptions()
    rs = opts.resampling(progress)
    return PROTOCOLS.get(opts.protocol)(h, opts, rs)
