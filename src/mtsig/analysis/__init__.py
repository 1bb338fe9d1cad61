"""Where, not only whether: ``mtsig analyze`` (see :mod:`mtsig.analysis.core`)."""

from mtsig.analysis import builtin as _builtin  # noqa: F401 - registers the built-in analyses
from mtsig.analysis.context import MIN_BUCKET, AnalysisContext, Later
from mtsig.analysis.core import analyze_table
from mtsig.analysis.options import AnalysisSpec, AnalyzeOptions, default_specs
from mtsig.analysis.registry import ANALYSES, AnalysisEntry, register_analysis
from mtsig.analysis.result import Analysis, AnalyzeResult, AnalyzeSettings, Bucket, BucketComparison, BucketScore

__all__ = [
    "ANALYSES", "MIN_BUCKET", "Analysis", "AnalysisContext", "AnalysisEntry", "AnalysisSpec", "AnalyzeOptions",
    "AnalyzeResult", "AnalyzeSettings", "Bucket", "BucketComparison", "BucketScore", "Later", "analyze_table",
    "default_specs", "register_analysis",
]  # fmt: skip
