"""mt-metrics-eval's data directories (``mt-metrics-eval-v2/<test set>/``), read as its ``data.EvalSet`` reads
them, for ``mtsig meta --mtme DIR`` and the WMT metrics tasks (:mod:`mtsig.metaeval.tasks`).

A test set's folder holds, per language pair LP (``en-de``, or a locale pair such as ``en-de_DE``):

- ``sources/LP.txt``, ``documents/LP.docs`` (``DOMAIN DOCID`` per segment), ``references/LP.REF.txt``;
- ``system-outputs/LP/SYSTEM.txt`` (references are there too, as human "systems"); a line
  ``[No translation supplied]`` is a missing output;
- ``human-scores/LP.NAME.LEVEL.score`` (LEVEL ``sys``, ``domain``, ``doc``, ``seg``): ``SYSTEM score`` per line
  (``DOMAIN SYSTEM score`` at domain level), ``None`` where nobody judged it;
- ``metric-scores/LP/BASENAME-REF.LEVEL.score``: the same, REF the reference used (``src`` for reference-free
  metrics, ``refA.refB`` for several). mt-metrics-eval stores every metric higher-is-better (MetricX negated).

Which reference is standard, which human scores are gold, which systems are outliers and which metrics are primary
are not in the data: mt-metrics-eval keeps them in ``meta_info.py``. :data:`STANDARD` holds those facts for
WMT23-25 (every option can be given instead).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mtsig.errors import InputError

LEVELS = ("sys", "domain", "doc", "seg")
NO_TRANSLATION = "[No translation supplied]"


@dataclass(frozen=True)
class LpInfo:
    """mt-metrics-eval's meta information of one language pair of a standard test set."""

    std_ref: str
    #: the gold human scores by level
    std_gold: dict[str, str]
    outliers: frozenset[str] = frozenset()
    #: base names of the primary submissions and baselines (None: every metric is primary)
    primary: frozenset[str] | None = None


_WMT23_PRIMARY = frozenset({
    "Calibri-COMET22", "Calibri-COMET22-QE", "cometoid22-wmt22", "eBLEU", "embed_llama", "GEMBA-MQM", "KG-BERTScore",
    "MaTESe", "MEE4", "MetricX-23", "MetricX-23-QE", "mre-score-labse-regular", "mbr-metricx-qe", "sescoreX",
    "tokengram_F", "XCOMET-Ensemble", "XCOMET-QE-Ensemble", "XLsim", "BERTscore", "BLEU", "BLEURT-20", "chrF", "COMET",
    "CometKiwi", "docWMT22CometDA", "docWMT22CometKiwiDA", "f200spBLEU", "MS-COMET-QE-22", "prismRef", "prismSrc",
    "Random-sysname", "YiSi-1"})  # fmt: skip
_WMT24_PRIMARY = frozenset({
    "BLCOM_1", "bright-qe", "chrfS", "damonmonli", "gemba_esa", "MEE4", "metametrics_mt_mqm_hybrid_kendall",
    "metametrics_mt_mqm_qe_kendall.seg.s", "MetricX-24-Hybrid", "MetricX-24-Hybrid-QE", "XCOMET", "XCOMET-QE",
    "XLsimMqm", "BERTScore", "BLEU", "BLEURT-20", "chrF", "COMET-22", "CometKiwi", "PrismRefMedium", "PrismRefSmall",
    "spBLEU", "YiSi-1", "sentinel-cand-mqm", "sentinel-ref-mqm", "sentinel-src-mqm"})  # fmt: skip
_WMT25_PRIMARY = frozenset({
    "EnsembleSlick", "GEMBA-v2", "MetricX-25", "Polycand-2", "Q_Relative-MQM", "SEGALE-QE", "TASER-No-Ref", "UvA-MT",
    "comet-multi", "hw-tsc", "mr7_2_1", "rankedCOMET"})  # fmt: skip
# (WMT25's baselines, BLEU, chrF, COMET22 ..., are not among its primary metrics in meta_info.py, unlike WMT23's and
# WMT24's: with primary metrics only, mt-metrics-eval leaves them out of the WMT25 tasks, and so does mtsig)
_MQM = {"sys": "mqm", "domain": "mqm", "seg": "mqm"}
_DA23 = {"sys": "da-sqm", "domain": "da-sqm", "seg": "da-sqm"}
_ESA24 = {"sys": "esa", "domain": "esa", "seg": "esa"}
_ESA25 = {"sys": "esa-human1", "domain": "esa-human1", "seg": "esa-human1"}

#: mt-metrics-eval's meta_info.py for WMT23-25 (facts of the data sets: references, gold scores, outliers, primaries)
STANDARD: dict[str, dict[str, LpInfo]] = {
    "wmt23": {
        "en-de": LpInfo("refA", _MQM, frozenset({"synthetic_ref"}), _WMT23_PRIMARY),
        "he-en": LpInfo("refB", _MQM, frozenset(), _WMT23_PRIMARY),
        "zh-en": LpInfo("refA", _MQM, frozenset({"synthetic_ref"}), _WMT23_PRIMARY),
        **{lp: LpInfo("refA", _DA23, frozenset(), _WMT23_PRIMARY)
           for lp in ("cs-uk", "de-en", "en-cs", "en-ja", "en-zh", "ja-en")},
        "en-he": LpInfo("refB", {}, frozenset(), _WMT23_PRIMARY),
        **{lp: LpInfo("refA", {}, frozenset(), _WMT23_PRIMARY) for lp in ("en-ru", "en-uk", "ru-en", "uk-en")},
    },
    "wmt24": {
        "en-de": LpInfo("refB", _MQM, frozenset({"MSLC"}), _WMT24_PRIMARY),
        "en-es": LpInfo("refA", _MQM, frozenset({"MSLC"}), _WMT24_PRIMARY),
        "ja-zh": LpInfo("refA", _MQM, frozenset({"MSLC"}), _WMT24_PRIMARY),
        **{lp: LpInfo("refA", _ESA24, frozenset(), _WMT24_PRIMARY)
           for lp in ("cs-uk", "en-cs", "en-hi", "en-is", "en-ja", "en-ru", "en-uk", "en-zh")},
    },
    "wmt25": {
        **{lp: LpInfo("refA", _MQM, frozenset(), _WMT25_PRIMARY) for lp in ("ja-zh_CN", "en-ko_KR")},
        **{lp: LpInfo("refA", _ESA25, frozenset(), _WMT25_PRIMARY)
           for lp in ("cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-zh_CN", "en-cs_CZ", "en-et_EE",
                      "en-is_IS", "en-it_IT", "en-ja_JP", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS", "en-uk_UA")},
    },
}  # fmt: skip


def _lines(path: Path) -> list[str]:
    from mtsig.io.text import read_text, split_lines

    return split_lines(read_text(str(path)))


def _score(text: str, path: Path, line: int, limit: list[float] = []) -> float | None:  # noqa: B006 - a cache
    if text == "None":
        return None
    if not limit:
        from mtsig.io.human import MAX_SCORE

        limit.append(MAX_SCORE)
    try:
        x = float(text)
    except ValueError:
        raise InputError(f"{path}: line {line}: score {text!r} is not a number") from None
    if not -limit[0] < x < limit[0]:  # NaN and the infinities fail too
        raise InputError(f"{path}: line {line}: score {text!r} is not a finite number of a usable size")
    return x


def read_scores(path: Path, level: str, domains: list[str]) -> dict[str, list[float | None]]:
    """A ``.score`` file: each system's scores in order (``DOMAIN SYSTEM score`` lines at domain level, placed in
    ``domains`` order)."""
    out: dict[str, list[float | None]] = {}
    at = {d: i for i, d in enumerate(domains)}
    for i, ln in enumerate(_lines(path), start=1):
        cells = ln.split()
        if level == "domain":
            if len(cells) != 3:
                raise InputError(f"{path}: line {i}: expected 'DOMAIN SYSTEM score', got {len(cells)} fields")
            if cells[0] not in at:
                raise InputError(f"{path}: line {i}: domain {cells[0]!r} is not one of the test set's")
            out.setdefault(cells[1], [None] * len(domains))[at[cells[0]]] = _score(cells[2], path, i)
            continue
        if len(cells) != 2:
            raise InputError(f"{path}: line {i}: expected 'SYSTEM score', got {len(cells)} fields"
                             + (" (a truncated line?)" if len(cells) < 2 else ""))  # fmt: skip
        out.setdefault(cells[0], []).append(_score(cells[1], path, i))
    if not out:
        raise InputError(f"{path}: empty score file")
    return out


@dataclass
class EvalSet:
    """One language pair of an mt-metrics-eval test set (see the module's docstring)."""

    root: Path
    lp: str
    info: LpInfo
    n_segments: int = 0
    domains_per_seg: list[str] = field(default_factory=list)
    docs_per_seg: list[str] = field(default_factory=list)
    refs: set[str] = field(default_factory=set)
    systems: set[str] = field(default_factory=set)
    #: human score name -> level -> file
    human_files: dict[str, dict[str, Path]] = field(default_factory=dict)
    #: metric name (BASENAME-REF) -> level -> file
    metric_files: dict[str, dict[str, Path]] = field(default_factory=dict)
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def test_set(self) -> str:
        return self.root.name

    @property
    def domain_names(self) -> list[str]:
        """The domains in mt-metrics-eval's canonical (sorted) order."""
        return sorted(set(self.domains_per_seg))

    @property
    def human_systems(self) -> set[str]:
        """System outputs that are references (human translations)."""
        return self.systems & self.refs

    def scores(self, level: str, name: str, human: bool) -> dict[str, list[float | None]] | None:
        """Stored scores of a human score name or a metric (``BASENAME-REF``) at ``level`` (None: not at that
        level)."""
        files = (self.human_files if human else self.metric_files).get(name, {})
        if level not in files:
            return None
        key = (human, name, level)
        if key not in self._cache:
            got = read_scores(files[level], level, self.domain_names)
            expect = {"sys": 1, "domain": len(self.domain_names), "seg": self.n_segments,
                      "doc": len(dict.fromkeys(self.docs_per_seg))}[level]  # fmt: skip
            for system, values in got.items():
                if system not in self.systems:
                    raise InputError(f"{files[level]}: {system!r} is not a system of {self.lp} (no "
                                     f"system-outputs/{self.lp}/{system}.txt): two test sets mixed?")  # fmt: skip
                if len(values) != expect:
                    raise InputError(f"{files[level]}: {system} has {len(values)} scores; the {level} level of "
                                     f"{self.lp} has {expect}")  # fmt: skip
                if not human and any(v is None for v in values):
                    raise InputError(f"{files[level]}: {system} has None scores: a metric scores every "
                                     "segment (mt-metrics-eval refuses None in metric scores too)")  # fmt: skip
            self._cache[key] = got
        return self._cache[key]

    @staticmethod
    def parse_metric(name: str) -> tuple[str, set[str]]:
        """``BASENAME-REF`` -> (BASENAME, the references it used; empty for ``src``)."""
        if "-" not in name:
            raise InputError(f"metric file name {name!r} is not BASENAME-REF")
        base, refs = name.rsplit("-", 1)
        return base, set() if refs == "src" else set(refs.split("."))

    def display_name(self, name: str) -> str:
        """mt-metrics-eval's display name: the base name, ``*`` before a non-primary one, ``[noref]`` after a
        reference-free one."""
        base, refs = self.parse_metric(name)
        if self.info.primary is not None and base not in self.info.primary:
            base = "*" + base
        return base + ("" if refs else "[noref]")

    def is_primary(self, name: str) -> bool:
        return self.info.primary is None or self.parse_metric(name)[0] in self.info.primary


def _lp_files(folder: Path, lp: str, suffix: str) -> list[Path]:
    return sorted(p for p in folder.glob(f"{lp}.*{suffix}") if p.name.startswith(lp + "."))


def read_evalset(root: str | Path, lp: str, info: LpInfo | None = None) -> EvalSet:  # noqa: C901
    """Read language pair ``lp`` of the test-set folder ``root`` (``.../mt-metrics-eval-v2/wmt23``)."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: no such mt-metrics-eval test-set folder (give DIR/wmt23, a folder holding sources/, "
                         "documents/, references/, system-outputs/, human-scores/, metric-scores/)")  # fmt: skip
    docs = root / "documents" / f"{lp}.docs"
    if not docs.exists():
        have = sorted(p.name[: -len(".docs")] for p in (root / "documents").glob("*.docs"))
        raise InputError(f"{root}: no language pair {lp!r} (it has {', '.join(have) or 'none'})", param="lp")
    std = STANDARD.get(root.name, {}).get(lp)
    # a folder that is not named after a year mtsig knows: no standard reference, gold, outliers or primaries to
    # assume (task_data asks for them where more than one could be meant)
    info = info or std or LpInfo("", {}, frozenset(), None)
    doc_lines = _lines(docs)
    evs = EvalSet(root=root, lp=lp, info=info, n_segments=len(doc_lines))
    for i, ln in enumerate(doc_lines, start=1):
        cells = ln.split()
        if len(cells) != 2:
            raise InputError(f"{docs}: line {i}: expected 'DOMAIN DOCID'")
        evs.domains_per_seg.append(cells[0])
        evs.docs_per_seg.append(cells[1])
    src = root / "sources" / f"{lp}.txt"
    if src.exists() and len(_lines(src)) != evs.n_segments:
        raise InputError(f"{src}: {len(_lines(src))} lines but {docs} has {evs.n_segments}: two test sets mixed?")
    for p in _lp_files(root / "references", lp, ".txt"):
        name = p.name[len(lp) + 1 : -len(".txt")]
        if len(_lines(p)) != evs.n_segments:
            raise InputError(f"{p}: {len(_lines(p))} lines but {docs} has {evs.n_segments}: two test sets mixed?")
        evs.refs.add(name)
    out_dir = root / "system-outputs" / lp
    for p in sorted(out_dir.glob("*.txt")) if out_dir.is_dir() else []:
        evs.systems.add(p.stem)
    for p in _lp_files(root / "human-scores", lp, ".score"):
        parts = p.name.split(".")
        name, level = ".".join(parts[1:-2]), parts[-2]
        if level not in LEVELS:
            raise InputError(f"{p}: level {level!r} is not one of {', '.join(LEVELS)}")
        evs.human_files.setdefault(name, {})[level] = p
    mdir = root / "metric-scores" / lp
    for p in sorted(mdir.glob("*.score")) if mdir.is_dir() else []:
        m = re.fullmatch(r"(.+)\.(sys|domain|doc|seg)\.score", p.name)
        if m is None:
            raise InputError(f"{p}: not NAME-REF.LEVEL.score")
        evs.parse_metric(m.group(1))
        evs.metric_files.setdefault(m.group(1), {})[m.group(2)] = p
    if not evs.systems:
        raise InputError(f"{out_dir}: no system outputs of {lp}")
    if not evs.info.std_ref and len(evs.refs) == 1:  # an unknown year with one reference: that one
        evs.info = LpInfo(next(iter(evs.refs)), evs.info.std_gold, evs.info.outliers, evs.info.primary)
    return evs


def _unknown_year(evs: EvalSet, what: str, flag: str, have: list[str]) -> InputError:
    known = ", ".join(sorted(STANDARD))
    return InputError(f"{evs.root}: the folder is not named after a year mtsig knows ({known}), so its standard "
                      f"{what} for {evs.lp} cannot be known, and it has several ({', '.join(have) or 'none'}): give "
                      f"{flag}, or name the folder after its year as mt-metrics-eval does (a year's standard "
                      "reference, human scores, outliers and primary metrics come from its name)",
                      param=flag.lstrip("-"))  # fmt: skip


def gold_for(evs: EvalSet, level: str, gold: str | None, strict: bool = True) -> str | None:
    """The gold scores of a level: the user's, the year's standard, or, in a folder of no known year, the only human
    scores it has at that level (several: an error when ``strict``, else None)."""
    gold = gold or evs.info.std_gold.get(level)
    if gold is None and evs.root.name not in STANDARD:
        have = sorted(n for n, lv in evs.human_files.items() if level in lv)
        if len(have) == 1:
            return have[0]
        if strict and have:
            raise _unknown_year(evs, f"human scores ({level} level)", "--gold", have)
    return gold


def check_selection(evs: EvalSet, refs: set[str] | None, exclude: tuple[str, ...] = ()) -> None:
    """Names the user gave that the folder does not have, and a standard reference that cannot be known: errors,
    never a silently smaller table."""
    for r in sorted(refs or ()):
        if r not in evs.refs:
            raise InputError(f"--ref {r}: no such reference of {evs.lp} in {evs.root / 'references'} (it has "
                             f"{', '.join(sorted(evs.refs)) or 'none'})", param="ref")  # fmt: skip
    if not refs and not evs.info.std_ref:
        raise _unknown_year(evs, "reference", "--ref", sorted(evs.refs))
    unknown = [x for x in exclude if x not in evs.systems]
    if unknown:
        raise InputError(f"--exclude {unknown[0]}: not a system of {evs.lp} in {evs.root / 'system-outputs'} (it "
                         f"has {', '.join(sorted(evs.systems))})", param="exclude")  # fmt: skip


def language_pairs(root: str | Path) -> list[str]:
    """The language pairs of a test-set folder (from its documents)."""
    return sorted(p.name[: -len(".docs")] for p in (Path(root) / "documents").glob("*.docs"))


@dataclass(frozen=True)
class Scored:
    """The data of one task: the systems compared, and per metric (display name) its scores and the gold scores
    over them (``(S,)`` at system level, ``(S, N)`` at segment level; NaN where the gold score is None)."""

    lp: str
    level: str
    systems: tuple[str, ...]
    gold: np.ndarray
    metrics: dict[str, np.ndarray]


def task_data(evs: EvalSet, level: str, *, refs: set[str] | None = None, gold: str | None = None,  # noqa: PLR0913
              include_human: bool = False, include_outliers: bool = False, primary: bool = True,
              exclude: tuple[str, ...] = ()) -> Scored:  # fmt: skip
    """mt-metrics-eval's ``GetCorrelations``: the systems (every output but the main references, human outputs
    unless ``include_human``, outliers unless ``include_outliers``, and ``exclude``; those with gold scores), the
    gold scores (``gold``, default the standard one of the level) and every metric whose references are main
    references (the standard one by default), primary ones only with ``primary``."""
    check_selection(evs, refs)  # (--exclude is checked by the caller: a task set's names span its pairs)
    main_refs = refs or {evs.info.std_ref}
    gold = gold_for(evs, level, gold)
    if gold is None:
        raise InputError(f"{evs.lp}: no standard gold scores at {level} level; give gold", param="gold")
    gold_scores = evs.scores(level, gold, True)
    if gold_scores is None:
        have = ", ".join(sorted(evs.human_files)) or "none"
        raise InputError(f"{evs.lp}: no {gold!r} human scores at {level} level (the folder has: {have})", param="gold")
    systems = evs.systems - main_refs
    if not include_human:
        systems -= evs.human_systems
    if not include_outliers:
        systems -= evs.info.outliers
    systems -= set(exclude)
    systems &= {s for s, v in gold_scores.items() if v and any(x is not None for x in v)}
    names = tuple(sorted(systems))
    if len(names) < 3:
        why = f" after --exclude {' '.join(exclude)}" if exclude else ""
        raise InputError(f"{evs.lp}: {len(names)} system(s) with gold scores at {level} level{why}: a correlation "
                         "over systems needs at least 3 (with 2, every metric correlates ±1 and nothing is learnt)",
                         param="exclude" if exclude else None)  # fmt: skip
    g = np.array([[np.nan if x is None else x for x in gold_scores[s]] for s in names], dtype=np.float64)
    metrics = {}
    for name in sorted(evs.metric_files):
        _, mrefs = evs.parse_metric(name)
        if (primary and not evs.is_primary(name)) or not mrefs <= main_refs:
            continue
        scores = evs.scores(level, name, False)
        if scores is None:
            continue
        missing = [s for s in names if s not in scores]
        if missing:
            raise InputError(f"{evs.metric_files[name][level]}: no scores of {', '.join(missing)}")
        metrics[evs.display_name(name)] = np.array([scores[s] for s in names], dtype=np.float64)
    if level == "sys":
        g = g[:, 0]
        metrics = {k: v[:, 0] for k, v in metrics.items()}
    return Scored(lp=evs.lp, level=level, systems=names, gold=g, metrics=metrics)


def meta_data(evs: EvalSet, *, refs: set[str] | None = None, gold: str | None = None, include_human: bool = False,  # noqa: PLR0913
              include_outliers: bool = False, primary: bool = True, exclude: tuple[str, ...] = ()):  # fmt: skip
    """The data of ``mtsig meta`` from one language pair of an mt-metrics-eval folder: the systems mt-metrics-eval
    would compare (see :func:`task_data`), the gold segment scores (NaN where None) and system scores, every metric's
    stored system scores and, where it has them, segment scores, and each segment's document."""
    from mtsig.metaeval.core import MetaData, MetricScores

    check_selection(evs, refs, exclude)
    sys_d = task_data(evs, "sys", refs=refs, gold=gold, include_human=include_human,
                      include_outliers=include_outliers, primary=primary, exclude=exclude)  # fmt: skip
    seg_gold = gold_for(evs, "seg", gold, strict=False)
    seg_d = None
    if seg_gold is not None and evs.scores("seg", seg_gold, True) is not None:
        seg_d = task_data(evs, "seg", refs=refs, gold=seg_gold, include_human=include_human,
                          include_outliers=include_outliers, primary=primary, exclude=exclude)  # fmt: skip
    systems = list(sys_d.systems)
    H = None
    if seg_d is not None:
        at = {s: i for i, s in enumerate(seg_d.systems)}
        H = np.full((len(systems), evs.n_segments), np.nan)
        for i, s in enumerate(systems):
            if s in at:
                H[i] = seg_d.gold[at[s]]
    metrics = []
    for name, sysv in sys_d.metrics.items():
        seg = None
        if seg_d is not None and name in seg_d.metrics:
            at = {s: i for i, s in enumerate(seg_d.systems)}
            seg = np.full((len(systems), evs.n_segments), np.nan)
            for i, s in enumerate(systems):
                if s in at:
                    seg[i] = seg_d.metrics[name][at[s]]
        metrics.append(MetricScores(name=name, segments=seg, systems=np.asarray(sysv, dtype=np.float64),
                                    source=f"{evs.root}/metric-scores/{evs.lp}"))  # fmt: skip
    if not metrics:
        raise InputError(f"{evs.root}: no metric of {evs.lp} has system scores with the chosen references")
    gold_name = gold_for(evs, "sys", gold, strict=False)
    used = ", ".join(sorted(refs or {evs.info.std_ref}))
    which = "primary metrics" if primary else "every metric"
    notes = (f"{evs.test_set} {evs.lp}: gold {gold_name}, reference(s) {used}, {len(systems)} systems, {which}",)
    return MetaData(systems=tuple(systems), human=H, human_systems=np.asarray(sys_d.gold, dtype=np.float64),
                    metrics=tuple(metrics), notes=notes, item_documents=tuple(evs.docs_per_seg))  # fmt: skip


def human_scores(evs: EvalSet, *, gold: str | None = None, include_outliers: bool = False,
                 exclude: tuple[str, ...] = ()):  # fmt: skip
    """The gold segment scores of one language pair as ``mtsig human`` ranks them: ``LP.GOLD.seg.score`` with the
    folder's documents and domains (``documents/LP.docs``), every scored system (the human translations too)
    except the year's outliers (unless ``include_outliers``) and ``exclude``."""
    from mtsig.io.human import read_human

    name = gold_for(evs, "seg", gold)
    files = evs.human_files.get(name or "", {})
    if "seg" not in files:
        have = sorted(n for n, lv in evs.human_files.items() if "seg" in lv)
        raise InputError(f"{evs.root}: no segment-level human scores {name!r} for {evs.lp} (it has "
                         f"{', '.join(have) or 'none'}): give --gold", param="gold")  # fmt: skip
    h = read_human(str(files["seg"]), input_format="mtme-seg", docs=str(evs.root / "documents" / f"{evs.lp}.docs"))
    unknown = [x for x in exclude if x not in h.systems]
    if unknown:
        raise InputError(f"--exclude {unknown[0]!r}: not a system of {files['seg']} (it has "
                         f"{', '.join(h.systems)})", param="exclude")  # fmt: skip
    drop = set(exclude) | (set() if include_outliers else set(evs.info.outliers))
    kept = [x for x in h.systems if x not in drop]
    h = h.select(kept)
    left = sorted(drop & set(evs.info.outliers) - set(exclude))
    note = f"{evs.test_set} {evs.lp}: gold {name} ({files['seg'].name}), documents from documents/{evs.lp}.docs"
    if left:
        note += f"; the year's outliers left out: {', '.join(left)}"
    from dataclasses import replace

    return replace(h, notes=(*h.notes, note))


def text_inputs(root: str | Path, lp: str, refs: Sequence[str] | None = None, *, allow_empty: bool = False,
                unescape: bool = True):  # fmt: skip
    """The texts of one language pair for ``score``/``compare``/``analyze``: the references (the year's standard
    one, or ``refs``) as a :class:`~mtsig.io.segments.RefSet` with the folder's documents and domains, and
    ``{system: output file}`` of every system output except the references in use and the year's outliers."""
    from mtsig.io.load import load_references

    evs = read_evalset(root, lp)
    if not refs and not evs.info.std_ref:
        raise _unknown_year(evs, "reference", "--ref", sorted(evs.refs))
    names = list(refs) if refs else [evs.info.std_ref]
    unknown = [r for r in names if r not in evs.refs]
    if unknown:
        raise InputError(f"{evs.root}: no reference {unknown[0]!r} of {lp} (it has {', '.join(sorted(evs.refs))})",
                         param="ref_translator")  # fmt: skip
    rs = load_references([str(evs.root / "references" / f"{lp}.{r}.txt") for r in names], allow_empty=allow_empty,
                         unescape=unescape)  # fmt: skip
    rs.units["document"] = list(evs.docs_per_seg)
    rs.units["domain"] = list(evs.domains_per_seg)
    out = evs.root / "system-outputs" / lp
    systems = {s: str(out / f"{s}.txt") for s in sorted(evs.systems) if s not in names and s not in evs.info.outliers}
    return rs, systems, evs


def check_translated(path: str, name: str) -> None:
    """mt-metrics-eval marks a segment a system did not translate with ``[No translation supplied]``: scoring the
    marker as a translation would be a silent wrong number, so such a system is refused."""
    with open(path, encoding="utf-8") as f:
        missing = sum(1 for ln in f if ln.rstrip("\n") == NO_TRANSLATION)
    if missing:
        raise InputError(f"{path}: {name} has {missing} segment(s) {NO_TRANSLATION!r} (mt-metrics-eval's mark of a "
                         "missing output): leave the system out (name the others with -s)",
                         param="systems")  # fmt: skip


__all__ = ["EvalSet", "LpInfo", "STANDARD", "Scored", "check_translated", "human_scores", "language_pairs", "meta_data",
           "read_evalset", "read_scores", "task_data", "text_inputs", "NO_TRANSLATION"]  # fmt: skip
