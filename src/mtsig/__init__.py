"""mtsig: is the difference between two MT systems real?

Python API::

    import mtsig
    res = mtsig.score(["ref.A", "ref.B"], ["base=base.txt", "new=new.txt"], metrics=["bleu", "nist"])
    res.to_dict()
    cmp = mtsig.compare(["ref.A"], ["base=base.txt", "new=new.txt"], baseline="base", test=["ar"])

Tests on statistics arrays directly: :func:`paired_test` (any registered test) and its aliases
``approximate_randomization``, ``bootstrap_test``, ``paired_bootstrap``, ``paired_ttest``, ``wilcoxon_test``.
"""

from mtsig._version import __version__
from mtsig.api import compare, compute, score
from mtsig.errors import InputError, MtsigError
from mtsig.io.segments import RefSet, Segments
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

__all__ = [
    "__version__",
    "score",
    "compare",
    "compute",
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
