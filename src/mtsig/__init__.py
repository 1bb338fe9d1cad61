"""mtsig: is the difference between two MT systems real?

Python API::

    import mtsig
    res = mtsig.score(["ref.A", "ref.B"], ["base=base.txt", "new=new.txt"], metrics=["bleu", "nist"])
    res.to_dict()
    cmp = mtsig.compare(["ref.A"], ["base=base.txt", "new=new.txt"], baseline="base", test=["ar"])

Tests on statistics arrays directly: ``mtsig.stats.paired`` (``approximate_randomization`` ...).
"""

__version__ = "0.1.0"

from mtsig.api import compare, compute, score  # noqa: E402
from mtsig.errors import InputError, MtsigError  # noqa: E402
from mtsig.evaluation import StatsTable  # noqa: E402
from mtsig.io.segments import RefSet, Segments  # noqa: E402
from mtsig.metrics import REGISTRY, get_metric  # noqa: E402
from mtsig.stats.paired import (  # noqa: E402
    approximate_randomization,
    bootstrap_test,
    paired_bootstrap,
    paired_ttest,
    wilcoxon_test,
)

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
    "approximate_randomization",
    "bootstrap_test",
    "paired_bootstrap",
    "paired_ttest",
    "wilcoxon_test",
]
