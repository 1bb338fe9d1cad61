"""Where, not only whether: ``mtsig analyze`` (see :mod:`mtsig.analysis.core`)."""

from mtsig.analysis import render as _render  # noqa: F401 - registers the result's formats
from mtsig.analysis.core import ANALYSES, AnalysisSpec, AnalyzeOptions, analyze_table, register_analysis
from mtsig.analysis.result import Analysis, AnalyzeResult, Bucket, BucketComparison, BucketScore

__all__ = [
    "ANALYSES", "Analysis", "AnalysisSpec", "AnalyzeOptions", "AnalyzeResult", "Bucket", "BucketComparison",
    "BucketScore", "analyze_table", "register_analysis",
]  # fmt: skip
