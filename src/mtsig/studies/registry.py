"""The studies, one entry each: name, help, design (its options), the function that runs it, its figure.

``mtsig study NAME`` is generated from this registry: one subcommand per study whose flags are its design's
fields (:mod:`mtsig.studies.design`), so a study is offered only its own options. A new study is one module that
defines a design dataclass, a run function ``run(table, design, runner) -> StudyResult`` and a figure function
``draw(fig, result)``, and calls :func:`register_study` (a plugin does so from the ``mtsig.studies`` entry
point group, see :mod:`mtsig.plugins`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mtsig.errors import InputError, unknown_name
from mtsig.studies import clark, koehn, plots, riezler
from mtsig.studies.replicates import Runner
from mtsig.studies.result import StudyResult


@dataclass(frozen=True)
class Study:
    name: str
    #: one line for ``mtsig study --help``
    help: str
    #: a frozen dataclass of options (see :mod:`mtsig.studies.design`)
    design: type
    run: Callable[[Any, Any, Runner], StudyResult]
    #: ``draw(fig, result)``: the study's figure on a matplotlib figure
    draw: Callable[[Any, StudyResult], None]
    #: its replicates run through the executor (``--jobs``, ``--dask``)
    replicated: bool = True
    #: its figure is wide (panels side by side)
    wide: bool = False


STUDIES: dict[str, Study] = {}


def register_study(study: Study) -> Study:
    if not isinstance(study, Study) or not study.name:
        raise InputError("a study is a named Study entry")
    STUDIES[study.name] = study
    return study


def get_study(name: str) -> Study:
    if name not in STUDIES:
        raise unknown_name("study", name, tuple(STUDIES))
    return STUDIES[name]


def run_study(name: str, table, design: Any = None, run: Runner | None = None) -> StudyResult:
    """Run a registered study on a statistics table (``design``: its design, None for the defaults)."""
    study = get_study(name)
    if design is None:
        design = study.design()
    elif not isinstance(design, study.design):
        raise InputError(f"study {name} takes a {study.design.__name__}, got a {type(design).__name__}")
    return study.run(table, design, run or Runner())


def plot_study(res: StudyResult):
    """The figure of a study's result (matplotlib ``Figure``), drawn by the study's registered figure function."""
    from mtsig.report.plots import _figure_class

    study = get_study(res.study)
    Figure = _figure_class()
    fig = Figure(figsize=(11 if study.wide else 7, 4.2), layout="constrained")
    study.draw(fig, res)
    return fig


for _s in (
    Study("type1", "Riezler & Maxwell Table 2, 4.3: equivalent systems, and rejection rates of every test under exact "
          "nulls", riezler.Type1Design, riezler.type1, plots.draw_type1, wide=True),
    Study("multiplicity", "Riezler & Maxwell 4.4: experimentwise error of all pairs, uncorrected and corrected",
          riezler.MultiplicityDesign, riezler.multiplicity, plots.draw_multiplicity),
    Study("sensitivity", "Riezler & Maxwell 3: significant differences found by each metric, and where they disagree",
          riezler.SensitivityDesign, riezler.sensitivity, plots.draw_sensitivity, replicated=False),
    Study("runs", "Clark et al. Table 2, Figs. 1-2: p-values and differences by the number of optimizer runs",
          clark.RunsDesign, clark.runs, plots.draw_runs, wide=True),
    Study("power", "power of each test and the detectable difference by test-set size, from a pilot pair",
          clark.PowerDesign, clark.power, plots.draw_power, wide=True),
    Study("sampling", "Koehn Figs. 2-4: blocks of consecutive segments against broad samples",
          koehn.SamplingDesign, koehn.sampling, plots.draw_sampling, replicated=False, wide=True),
    Study("coverage", "Koehn Fig. 6: coverage of bootstrap intervals (percentile, t, BCa) on samples",
          koehn.CoverageDesign, koehn.coverage, plots.draw_coverage, wide=True),
    Study("testsize", "Koehn Table 3: conclusions and their correctness by test-set size",
          koehn.TestsizeDesign, koehn.testsize, plots.draw_testsize),
    Study("levels", "Koehn Table 4: correctness of conclusions by the significance level they reach",
          koehn.LevelsDesign, koehn.levels, plots.draw_levels),
):  # fmt: skip
    register_study(_s)
