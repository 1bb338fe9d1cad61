"""mtsig: is the difference between two MT systems real?

Python API::

    import mtsig
    res = mtsig.score(["ref.A", "ref.B"], ["base=base.txt", "new=new.txt"], metrics=["bleu", "nist"])
    res.to_dict()
    cmp = mtsig.compare(["ref.A"], ["base=base.txt", "new=new.txt"], baseline="base", test=["ar"])

Tests on statistics arrays directly: :func:`paired_test` (any registered test) and its aliases
``approximate_randomization``, ``bootstrap_test``, ``paired_bootstrap``, ``paired_ttest``, ``wilcoxon_test``.

The names below are imported on first use (``import mtsig`` alone loads nothing heavy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtsig._version import __version__

_WHERE = {
    "score": "mtsig.api",
    "compare": "mtsig.api",
    "analyze": "mtsig.api_analyze",
    "study": "mtsig.api",
    "AnalyzeResult": "mtsig.analysis",
    "compute": "mtsig.api",
    "human": "mtsig.humaneval",
    "meta": "mtsig.metaeval",
    "MetaResult": "mtsig.metaeval",
    "ThresholdsResult": "mtsig.thresholds",
    "aso": "mtsig.stats.aso",
    "multi_aso": "mtsig.stats.aso",
    "HumanResult": "mtsig.humaneval",
    "plot": "mtsig.api",
    "report_html": "mtsig.api",
    "StatsTable": "mtsig.table",
    "Segments": "mtsig.io.segments",
    "RefSet": "mtsig.io.segments",
    "get_metric": "mtsig.metrics",
    "REGISTRY": "mtsig.metrics",
    "InputError": "mtsig.errors",
    "MtsigError": "mtsig.errors",
    "Resampling": "mtsig.resample",
    "ScoreResult": "mtsig.results",
    "CompareResult": "mtsig.results",
    "PAIRED_TESTS": "mtsig.stats.paired",
    "paired_test": "mtsig.stats.paired",
    "approximate_randomization": "mtsig.stats.paired",
    "bootstrap_test": "mtsig.stats.paired",
    "paired_bootstrap": "mtsig.stats.paired",
    "paired_ttest": "mtsig.stats.paired",
    "wilcoxon_test": "mtsig.stats.paired",
}

__all__ = [
    "__version__",
    "score",
    "compare",
    "analyze",
    "study",
    "AnalyzeResult",
    "compute",
    "human",
    "HumanResult",
    "meta",
    "MetaResult",
    "thresholds",
    "ThresholdsResult",
    "aso",
    "multi_aso",
    "plot",
    "report_html",
    "StatsTable",
    "Segments",
    "RefSet",
    "get_metric",
    "REGISTRY",
    "InputError",
    "MtsigError",
    "Resampling",
    "ScoreResult",
    "CompareResult",
    "PAIRED_TESTS",
    "paired_test",
    "approximate_randomization",
    "bootstrap_test",
    "paired_bootstrap",
    "paired_ttest",
    "wilcoxon_test",
]


def __getattr__(name: str):
    import importlib

    if name == "thresholds":  # a callable module: mtsig.thresholds(...) runs the command, mtsig.thresholds.FITS
        return importlib.import_module("mtsig.thresholds")
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mtsig' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # for type checkers and editors
    from mtsig.analysis import AnalyzeResult
    from mtsig.api import compare, compute, score, study
    from mtsig.api_analyze import analyze
    from mtsig.errors import InputError, MtsigError
    from mtsig.humaneval import HumanResult, human
    from mtsig.io.segments import RefSet, Segments
    from mtsig.metaeval import MetaResult, meta
    from mtsig.metrics import REGISTRY, get_metric
    from mtsig.resample import Resampling
    from mtsig.results import CompareResult, ScoreResult
    from mtsig.stats.paired import (
        PAIRED_TESTS,
        approximate_randomization,
        bootstrap_test,
        paired_bootstrap,
        paired_test,
        paired_ttest,
        wilcoxon_test,
    )
    from mtsig.table import StatsTable
    from mtsig.thresholds import ThresholdsResult
