"""The one step from what a caller gives (``refs``, ``systems``, side inputs, loading settings) to one typed,
checked value, :class:`Inputs`: the references read (or a test set fetched), their documents attached, every
system read and matched against them, the side inputs attached and the metrics built. The API calls it once per
set of texts; nothing after it reads a file or inspects a caller's value again.

``refs``: file paths, lists of segment strings or a :class:`~mtsig.io.segments.RefSet`. ``systems``: specs as on
the command line (``"FILE"``, ``"NAME=FILE"``, ``"NAME=run1,run2"``, a glob) or a dict ``{name: spec | list of
segments | list of runs}``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mtsig.declare import option
from mtsig.errors import InputError
from mtsig.io.load import System, attach_docids, load_references, load_systems, parse_system_spec
from mtsig.io.segments import RefSet, Segments
from mtsig.metrics import Metric, all_side_inputs
from mtsig.pipeline import build_metrics
from mtsig.tokenize import DEFAULT_TOKENIZER, MTEVAL_TOKENIZERS


@dataclass(frozen=True, kw_only=True)
class LoadOptions:
    """How the texts are read: the loading keywords of ``compute``, ``score``, ``compare`` and ``analyze``."""

    test_set: str | None = option(
        None,
        "a test set sacreBLEU knows (wmt22 ...), instead of -r: its references, documents and domains, from "
        "sacreBLEU's cache or downloaded",
        "str",
        short="-t",
        metavar="NAME",
        group="inputs",
        shown=False,
        doc='A test set sacreBLEU knows (``"wmt22"``, with ``langpair`` ``"de-en"``) instead of ``refs``: its '
        "references (sacreBLEU's default ones, or ``ref_translator``'s), documents and domains, from sacreBLEU's "
        "cache or downloaded.",
    )
    langpair: str | None = option(
        None,
        "the language pair of --test-set, --mtme or --wmt25",
        "str",
        short="-l",
        metavar="SRC-TGT",
        group="inputs",
        shown=False,
        doc="The language pair of ``test_set`` (``SRC-TGT``), of ``mtme`` or of ``wmt25``.",
    )
    mtme: str | None = option(
        None,
        "an mt-metrics-eval test-set folder (.../mt-metrics-eval-v2/wmt23) instead of -r: the references of -l "
        "(the year's standard one, or --ref-translator's), documents, domains and system outputs (all but the "
        "references and outliers; -s NAME ... picks)",
        "str",
        metavar="DIR",
        group="inputs",
        shown=False,
        path="dir",
        doc="An mt-metrics-eval test-set folder (``.../mt-metrics-eval-v2/wmt23``) instead of ``refs``: the "
        "references of ``langpair`` (the year's standard one, or ``ref_translator``'s) with its documents and "
        "domains, and its system outputs (all but the references and the year's outliers, or those ``systems`` "
        "names).",
    )
    wmt25: str | None = option(
        None,
        "WMT25's general-MT data (wmt25-general-mt/data) instead of -r: the reference of -l (refA, or "
        "--ref-translator's) and the outputs in systems/ (all that translated the pair; -s NAME ... picks), one "
        "segment per paragraph, documents and domains as units",
        "str",
        metavar="DIR",
        group="inputs",
        shown=False,
        path="dir",
        doc="WMT25's general-MT data (``wmt25-general-mt/data``, or the repository) instead of ``refs``: the test "
        "set's reference of ``langpair`` (``refA``, or ``ref_translator``'s) and the outputs in ``systems/`` (all "
        "that translated the pair, or those ``systems`` names), one segment per paragraph, documents and domains as "
        "units.",
    )
    ref_translator: Sequence[str] | None = option(
        None,
        "with a WMT XML test set: the translators whose references to use (default: all); with --mtme or "
        "--wmt25: the references (e.g. refA refB)",
        "strs",
        metavar="T",
        group="inputs",
        shown=False,
        doc="With WMT XML references, the translators whose references to use (default: all of them); with "
        '``mtme`` or ``wmt25``, the references (``["refA", "refB"]``).',
    )
    docids: Any = option(
        None,
        "the document of each segment, one id per line (plain-text input; SGML/XML brings its own): what "
        "--resample-unit document resamples",
        "str",
        metavar="FILE",
        group="inputs",
        shown=False,
        path="file",
        main=True,
        doc="The document of each segment (a file of one id per line, or a list), for plain-text input: what "
        '``resample_unit="document"`` resamples. SGML and WMT XML input bring their documents along.',
    )
    allow_empty_refs: bool = option(False, "accept empty reference segments", "bool", group="inputs",
                                    doc="Accept empty reference segments (refused by default).")  # fmt: skip
    dev_refs: Any = option(
        None,
        "development-set references (for s_dev)",
        "strs",
        metavar="REF",
        group="inputs",
        shown=False,
        path="files",
        doc="Development-set references and outputs (``dev_systems``: one per optimizer run, same names and order): "
        "add s_dev.",
    )
    dev_systems: Any = option(
        None,
        "development-set outputs, one per optimizer run, as -s: NAME=dev.run1,dev.run2,...",
        "strs",
        short="-d",
        metavar="SYS",
        group="inputs",
        shown=False,
        path="named",
        doc="See ``dev_refs``.",
    )
    jobs: int = option(
        1,
        "processes to score systems in, and for analyze its shared comparison (default: CPUs, at most 4; 1 = no "
        "extra process)",
        "int",
        short="-j",
        group="inputs",
        shown=False,
        web="processes: a run of the web app takes the command line's default (the machine's CPUs, at most 4); "
        "mtsig serve --jobs sets how many runs go at once",
        doc="Processes to score systems in (1: in this process).",
    )

    def __post_init__(self):
        if isinstance(self.jobs, bool) or int(self.jobs) != self.jobs or self.jobs < 1:
            raise InputError(f"jobs must be a whole number of processes, at least 1; got {self.jobs!r}", param="jobs")
        if (self.dev_refs is None) != (self.dev_systems is None):
            raise InputError(
                "s_dev needs both development references (dev_refs) and outputs (dev_systems)",
                param=("dev_refs", "dev_systems"),
            )
        if self.langpair and not (self.test_set or self.mtme or self.wmt25):
            raise InputError("langpair goes with a test set by name (test_set, -t), an mt-metrics-eval folder "
                             "(mtme) or WMT25's data (wmt25)", param="langpair")  # fmt: skip
        named = [n for n in ("test_set", "mtme", "wmt25") if getattr(self, n)]
        if len(named) > 1:
            raise InputError(f"give one test set: {' or '.join(named)}, not both", param=tuple(named))
        if self.mtme and not self.langpair:
            from mtsig.metaeval.mtme import language_pairs

            raise InputError(f"{self.mtme}: give its language pair (langpair, -l; one of "
                             f"{', '.join(language_pairs(self.mtme)) or 'none'})", param="langpair")  # fmt: skip

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    def given(self) -> dict[str, Any]:
        """The settings that differ from their defaults, by name (statistics files take none of them)."""
        default = LoadOptions()
        return {n: getattr(self, n) for n in self.names() if getattr(self, n) != getattr(default, n)}

    def for_dev(self) -> LoadOptions:
        """The settings the development set is read with: the test set's, without what names the test set."""
        return LoadOptions(allow_empty_refs=self.allow_empty_refs, jobs=self.jobs)


@dataclass(frozen=True)
class Inputs:
    """Everything read and checked: the references, the systems (each with its runs) and the metrics."""

    refs: RefSet
    systems: tuple[System, ...]
    metrics: dict[str, Metric]

    @property
    def n_runs(self) -> int:
        return sum(s.n_runs for s in self.systems)

    @property
    def work(self) -> float:
        """A size of the scoring work (segments x runs x each metric's cost), for choosing the executor."""
        return self.refs.n_segments * self.n_runs * sum(m.work for m in self.metrics.values())


def resolve(
    refs: Any,
    systems: Any,
    metrics: Sequence[str],
    load: LoadOptions,
    options: Mapping[str, Any],
) -> Inputs:
    """Read and check every input once. ``options``: metric options and side inputs by keyword (names already
    checked by the caller)."""
    if not (load.mtme or load.wmt25):  # a folder's systems are named, not files
        _check_stdin_once(refs, systems)
    side = all_side_inputs()
    metric_opts = {k: v for k, v in options.items() if k not in side}
    ms = build_metrics(list(metrics), **metric_opts)
    unescape = metric_opts.get("tokenize", DEFAULT_TOKENIZER) not in MTEVAL_TOKENIZERS
    if load.mtme:
        if refs is not None:
            raise InputError("give references or an mt-metrics-eval folder, not both", param=("refs", "mtme"))
        from mtsig.metaeval.mtme import text_inputs

        assert load.langpair is not None  # LoadOptions asks for it with mtme
        rs, folder, _ = text_inputs(load.mtme, load.langpair, load.ref_translator, allow_empty=load.allow_empty_refs,
                                    unescape=unescape)  # fmt: skip
        systems = _folder_systems(systems, folder, load.mtme)
    elif load.wmt25:
        if refs is not None:
            raise InputError("give references or WMT25's data, not both", param=("refs", "wmt25"))
        rs, systems = _wmt25_inputs(load, systems)
    elif load.test_set:
        from mtsig.io.testsets import load_test_set

        if refs is not None:
            raise InputError("give references or a test set by name, not both", param=("refs", "test_set"))
        rs = load_test_set(load.test_set, load.langpair, load.ref_translator)
    else:
        rs = _refs(refs, unescape, load.allow_empty_refs, load.ref_translator)
    if load.docids is not None:
        attach_docids(rs, load.docids)
    ss = _systems(systems, rs, unescape)
    for name, side_input in side.items():
        if options.get(name):
            side_input.attach(rs, ss, options[name])
    if options.get("seg_scores"):
        from mtsig.io.segscores import adopt_file_metric

        ms = adopt_file_metric(ms, ss, metric_opts)
    return Inputs(rs, tuple(ss), ms)


def _folder_systems(systems: Any, folder: dict[str, str], root: str) -> Any:
    """The systems of an mt-metrics-eval folder: all of them (``systems`` None), or those ``systems`` names; other
    specs (files of one's own) are read as given."""
    from mtsig.metaeval.mtme import check_translated

    if isinstance(systems, Mapping):
        return systems
    specs = [systems] if isinstance(systems, str) else list(systems or [])
    if not specs:
        chosen = dict(folder)
        specs = []
    else:
        chosen = {s: folder[s] for s in specs if s in folder}
        specs = [s for s in specs if s not in folder]
    if not chosen and not specs:
        raise InputError(f"{root}: no system outputs to compare", param="systems")
    for name, path in chosen.items():
        check_translated(path, name)
    return [f"{n}={p}" for n, p in chosen.items()] + specs


def _wmt25_inputs(load: LoadOptions, systems: Any) -> tuple[RefSet, dict[str, Any]]:
    """The references and outputs of WMT25's release; ``systems``: names of its systems, and ``NAME=FILE`` specs of
    one's own (one paragraph per line) read beside them."""
    from mtsig.io.wmt25texts import wmt25_texts

    if isinstance(systems, Mapping):
        raise InputError("with wmt25, name its systems (a list of names), or give NAME=FILE specs", param="systems")
    specs = [systems] if isinstance(systems, str) else list(systems or [])
    own = [s for s in specs if "=" in s]
    bare = [s for s in specs if "=" not in s and os.path.exists(s)]
    if bare:
        raise InputError(f"{bare[0]}: with wmt25, name a file of your own as NAME=FILE", param="systems")
    picked = [s for s in specs if "=" not in s]
    assert load.wmt25 is not None  # called for wmt25 only
    rs, found = wmt25_texts(load.wmt25, load.langpair, load.ref_translator, systems=picked if specs else None,
                            allow_empty=load.allow_empty_refs)  # fmt: skip
    out: dict[str, Any] = dict(found)
    for spec in own:
        name, path = spec.split("=", 1)
        if name in out:
            raise InputError(f"system {name!r} is in WMT25's data and given as {path}: name yours otherwise",
                             param="systems")  # fmt: skip
        out[name] = path
    return rs, out


def _is_lines(x: Any) -> bool:
    return isinstance(x, Segments) or (
        isinstance(x, Sequence) and not isinstance(x, str) and all(isinstance(s, str) for s in x)
    )


def _refs(refs: Any, unescape: bool, allow_empty: bool, translators: Sequence[str] | None = None) -> RefSet:
    if isinstance(refs, RefSet):
        return refs
    if isinstance(refs, str):
        refs = [refs]
    refs = list(refs)
    if refs and all(isinstance(r, str) for r in refs):
        return load_references(refs, allow_empty=allow_empty, unescape=unescape, translators=translators)
    if translators:
        raise InputError("ref_translator selects references of WMT XML files: give the references as files")
    if refs and all(_is_lines(r) for r in refs):
        n = {len(r) for r in refs}
        if len(n) != 1:
            raise InputError("references differ in length: " + ", ".join(str(len(r)) for r in refs))
        return RefSet([Segments.of(r, name=f"ref{i + 1}") for i, r in enumerate(refs)])
    raise InputError("refs must be file paths or lists of segment strings")


def _system_from_value(name: str, val: Any, refs: RefSet, unescape: bool) -> System:
    if isinstance(val, str):
        (s,) = load_systems([f"{name}={val}"], refs, unescape=unescape)
        return s
    if _is_lines(val):
        return System(str(name), [Segments.of(val, name=str(name))], ["<memory>"])
    if isinstance(val, Sequence) and all(_is_lines(r) for r in val):
        runs = [Segments.of(r, name=f"{name}.run{i}") for i, r in enumerate(val)]
        return System(str(name), runs, ["<memory>"] * len(runs))
    raise InputError(f"system {name!r}: give a file spec, a list of segments or a list of runs")


def _systems(systems: Any, refs: RefSet, unescape: bool) -> list[System]:
    if isinstance(systems, str):
        systems = [systems]
    if not isinstance(systems, Mapping):
        return load_systems(list(systems), refs, unescape=unescape)
    out = [_system_from_value(name, val, refs, unescape) for name, val in systems.items()]
    for s in out:
        for r in s.runs:
            if len(r) != refs.n_segments:
                raise InputError(f"system {s.name!r} has {len(r)} segments but the references have {refs.n_segments}")
    return out


def _check_stdin_once(refs: Any, systems: Any) -> None:
    """Standard input can be read once: refuse ``-`` given for two inputs (the second would be empty)."""
    files = [r for r in ([refs] if isinstance(refs, str) else refs or []) if isinstance(r, str)]
    specs = [systems] if isinstance(systems, str) else systems.values() if isinstance(systems, Mapping) else systems
    for s in specs:
        if isinstance(s, str):
            files += parse_system_spec(s)[1] if s != "-" else ["-"]
    if files.count("-") > 1:
        raise InputError("standard input (-) can be read only once: give the other inputs as files")
