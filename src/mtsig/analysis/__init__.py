"""Where, not only whether: ``mtsig analyze`` (see :mod:`mtsig.analysis.core`).

The names below are imported on first use: importing a submodule (the settings of
:mod:`mtsig.analysis.options`, which the API's signature reads) does not import every analysis. The built-in
analyses register themselves when :data:`ANALYSES` is first read."""

from __future__ import annotations

from typing import TYPE_CHECKING

_WHERE = {
    "ANALYSES": "mtsig.analysis.registry", "AnalysisEntry": "mtsig.analysis.registry",
    "register_analysis": "mtsig.analysis.registry", "MIN_BUCKET": "mtsig.analysis.context",
    "AnalysisContext": "mtsig.analysis.context", "Later": "mtsig.analysis.context",
    "analyze_table": "mtsig.analysis.core", "AnalysisSpec": "mtsig.analysis.options",
    "AnalyzeOptions": "mtsig.analysis.options", "default_specs": "mtsig.analysis.options",
    "Analysis": "mtsig.analysis.result", "AnalyzeResult": "mtsig.analysis.result",
    "AnalyzeSettings": "mtsig.analysis.result", "Bucket": "mtsig.analysis.result",
    "BucketComparison": "mtsig.analysis.result", "BucketScore": "mtsig.analysis.result",
}  # fmt: skip

__all__ = [
    "ANALYSES", "MIN_BUCKET", "Analysis", "AnalysisContext", "AnalysisEntry", "AnalysisSpec", "AnalyzeOptions",
    "AnalyzeResult", "AnalyzeSettings", "Bucket", "BucketComparison", "BucketScore", "Later", "analyze_table",
    "default_specs", "register_analysis",
]  # fmt: skip


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_WHERE[name]), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


if TYPE_CHECKING:
    from mtsig.analysis.context import MIN_BUCKET, AnalysisContext, Later
    from mtsig.analysis.core import analyze_table
    from mtsig.analysis.options import AnalysisSpec, AnalyzeOptions, default_specs
    from mtsig.analysis.registry import ANALYSES, AnalysisEntry, register_analysis
    from mtsig.analysis.result import Analysis, AnalyzeResult, AnalyzeSettings, Bucket, BucketComparison, BucketScore
