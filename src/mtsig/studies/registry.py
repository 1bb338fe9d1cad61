"""The studies, one entry each: name, help, design (its options), the function that runs it, its figure.

``mtsig study NAME`` is generated from this registry: one subcommand per study whose flags are its design's
fields (:mod:`mtsig.studies.design`), so a study is offered only its own options. A new study is one module that
defines a design dataclass, a run function ``run(table, design, runner) -> StudyResult`` and a figure function
``draw(fig, result)``, and calls :func:`register_study` (a plugin does so from the ``mtsig.studies`` entry
point group, see :mod:`mtsig.plugins`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mtsig.errors import InputError
from mtsig.registry import Registry
from mtsig.studies.replicates import Runner
from mtsig.studies.result import StudyResult


@dataclass(frozen=True)
class Study:
    """One study. ``design``, ``run`` and ``draw`` may be given as ``"module:name"`` strings, imported when the
    study is first used (so running one study does not import the others)."""

    name: str
    #: one line for ``mtsig study --help``
    help: str
    #: a frozen dataclass of options (see :mod:`mtsig.studies.design`)
    design: type | str
    run: Callable[[Any, Any, Runner], StudyResult] | str
    #: ``draw(fig, result)``: the study's figure on a matplotlib figure
    draw: Callable[[Any, StudyResult], None] | str
    #: its replicates run through the executor (``--jobs``, ``--dask``)
    replicated: bool = True
    #: its figure is wide (panels side by side)
    wide: bool = False
    #: offered ``--resample-unit`` (run on the table of documents); False for a study that compares units itself
    unit_option: bool = True
    #: reads human judgments (``run(scores, design, runner)`` with :class:`~mtsig.io.human.HumanScores`) rather
    #: than a statistics table of system outputs
    human: bool = False

    @property
    def design_type(self) -> type:
        """The design class (imported if given by name)."""
        return _load(self.design) if isinstance(self.design, str) else self.design

    @property
    def run_fn(self) -> Callable[[Any, Any, Runner], StudyResult]:
        return _load(self.run) if isinstance(self.run, str) else self.run

    @property
    def draw_fn(self) -> Callable[[Any, StudyResult], None]:
        return _load(self.draw) if isinstance(self.draw, str) else self.draw

    def resolved(self) -> Study:
        """The entry with its ``"module:name"`` parts imported."""
        parts = {k: getattr(self, k) for k in ("design", "run", "draw")}
        if not any(isinstance(v, str) for v in parts.values()):
            return self
        return replace(self, **{k: _load(v) if isinstance(v, str) else v for k, v in parts.items()})


def _load(where: str) -> Any:
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def _check_study(study: Any) -> None:
    if not isinstance(study, Study) or not study.name:
        raise InputError("a study is a named Study entry")


#: the studies by name (plugins: the ``mtsig.studies`` entry-point group)
STUDIES: Registry[Study] = Registry("study", "mtsig.studies", check=_check_study)


def register_study(study: Study) -> Study:
    return STUDIES.register(study)


def get_study(name: str) -> Study:
    """The registered study ``name``, its parts imported."""
    study = STUDIES[name] = STUDIES.get(name).resolved()
    return study


def run_study(
    name: str, table, design: Any = None, run: Runner | None = None, resample_unit: str = "segment"
) -> StudyResult:
    """Run a registered study on a statistics table (``design``: its design, None for the defaults).

    ``resample_unit="document"`` (or ``"domain"``) runs it on the table of documents (:func:`mtsig.units.by_unit`):
    every sample, swap and resample then takes whole documents, and the result says so in its settings and notes.
    """
    study = get_study(name)
    if design is None:
        design = study.design_type()
    elif type(design) is not study.design_type:  # exactly its own: another study's options would pass unread
        raise InputError(f"study {name} takes a {study.design_type.__name__}, got a {type(design).__name__}")
    if study.human:
        from mtsig.io.human import HumanScores

        if not isinstance(table, HumanScores):
            raise InputError(f"study {name} replays human judgments: give HumanScores (mtsig.io.human.read_human)")
        return study.run_fn(table, design, run or Runner())
    if resample_unit == "segment":
        return study.run_fn(table, design, run or Runner())
    if not study.unit_option:
        raise InputError(f"study {name} compares the resampling units itself: use its --unit option")
    from mtsig.units import by_unit

    units = by_unit(table, resample_unit)
    res = study.run_fn(units, design, run or Runner())
    n, total = units.n_segments, units.n_segments_total
    note = (
        f"Run on {n} {resample_unit}s (the {total} segments summed per {resample_unit}): every sample, swap and "
        f"resample takes whole {resample_unit}s; where the tables say segments, read {resample_unit}s."
    )
    settings = {**res.settings, "resample unit": resample_unit, "units": n}
    return replace(res, settings=settings, notes=(*res.notes, note))


_R, _K, _C = "mtsig.studies.riezler:", "mtsig.studies.koehn:", "mtsig.studies.clark:"
_P = "mtsig.report.study_plots:draw_"  # the figures are display: they live in report/
for _s in (
    Study("type1", "Riezler & Maxwell Table 2, 4.3: equivalent systems, and rejection rates of every test under exact "
          "nulls", _R + "Type1Design", _R + "type1", _P + "type1", wide=True),
    Study("multiplicity", "Riezler & Maxwell 4.4: experimentwise error of all pairs, uncorrected and corrected",
          _R + "MultiplicityDesign", _R + "multiplicity", _P + "multiplicity"),
    Study("sensitivity", "Riezler & Maxwell 3: significant differences found by each metric, and where they disagree",
          _R + "SensitivityDesign", _R + "sensitivity", _P + "sensitivity", replicated=False),
    Study("runs", "Clark et al. Table 2, Figs. 1-2: p-values and differences by the number of optimizer runs",
          _C + "RunsDesign", _C + "runs", _P + "runs", wide=True),
    Study("power", "power of each test and the detectable difference by test-set size, from a pilot pair",
          _C + "PowerDesign", _C + "power", _P + "power", wide=True),
    Study("sampling", "Koehn Figs. 2-4: blocks of consecutive segments against broad samples",
          _K + "SamplingDesign", _K + "sampling", _P + "sampling", replicated=False, wide=True),
    Study("coverage", "Koehn Fig. 6: coverage of bootstrap intervals (percentile, t, BCa) on samples",
          _K + "CoverageDesign", _K + "coverage", _P + "coverage", wide=True),
    Study("testsize", "Koehn Table 3: conclusions and their correctness by test-set size",
          _K + "TestsizeDesign", _K + "testsize", _P + "testsize"),
    Study("levels", "Koehn Table 4: correctness of conclusions by the significance level they reach",
          _K + "LevelsDesign", _K + "levels", _P + "levels"),
    Study("units", "segment-level against document-level tests (under a document-level null) and intervals "
          "(on test sets drawn by documents)", "mtsig.studies.documents:UnitsDesign",
          "mtsig.studies.documents:units_study", _P + "units", wide=True, unit_option=False),
    Study("adaptive", "adaptive human evaluation (Pearmut, WMT26) replayed on a complete matrix of human scores: "
          "coverage of anytime and fixed-sample rank sets and WMT26's rule, annotations to resolve",
          "mtsig.studies.adaptive:AdaptiveDesign", "mtsig.studies.adaptive:adaptive", _P + "adaptive", wide=True,
          unit_option=False, human=True),
):  # fmt: skip
    register_study(_s)
