"""``mtsig.analyze``: where systems differ, from Python. Its own module, beside :mod:`mtsig.api`, so that a score
or a comparison does not import the analyses' declarations (``mtsig.api`` is what every command imports)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from mtsig.analysis.options import AnalyzeOptions
from mtsig.api import DEFAULT_METRICS, _docs, _keywords, _resampling, _seed, _table
from mtsig.declare import Keywords
from mtsig.docfields import document
from mtsig.inputs import LoadOptions
from mtsig.metrics import check_option_names
from mtsig.resample import ProgressFactory
from mtsig.table import StatsTable

if TYPE_CHECKING:
    from mtsig.analysis.options import AnalysisSpec

__all__ = ["analyze"]

_ANALYZE = Keywords(AnalyzeOptions, LoadOptions, skip=("dev_refs", "dev_systems"),
                    api={"by": ((), "str | Sequence[str]"), "cutoffs": (None, "Mapping[str, Sequence[float]] | None"),
                         "out_labels": (None, "Mapping[str, str] | None")})  # fmt: skip


@_ANALYZE.signature(after="stats")
def analyze(  # noqa: PLR0913 - the settings are keywords from the declarations, the rest written here
    refs: Any = None,
    systems: Any = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    stats: StatsTable | str | None = None,
    rng: int | None = None,
    progress: ProgressFactory | None = None,
    fork: bool = False,
    **settings: Any,
):
    """Where systems differ: scores, differences and corrected p-values per bucket (compare-mt's analyses, with
    significance).

    {parameters}

    Returns
    -------
    AnalyzeResult
        ``to_dict()`` is the JSON of ``mtsig analyze``; ``get(kind)`` one analysis.

    Examples
    --------
    >>> import mtsig
    >>> ref = [f"sentence {i} about the cat on the mat" for i in range(50)]
    >>> a = [f"sentence {i} about a cat on the mat" for i in range(50)]
    >>> b = [f"sentence {i} about the cat on the mat" if i % 4 else f"sentence {i} on a mat" for i in range(50)]
    >>> res = mtsig.analyze([ref], {"A": a, "B": b}, by=["ref-length"], seed=1)
    >>> [x.kind for x in res.analyses]
    ['corpus', 'ref-length']
    """
    from mtsig.analysis.core import analyze_table

    given = _ANALYZE.take(settings, AnalyzeOptions)
    load = LoadOptions(**_ANALYZE.take(settings, LoadOptions))
    check_option_names(settings, _OWN)  # what is left: metric options
    if "by" in given:  # names or parsed specs: AnalyzeOptions parses the names (checking them first)
        by = given["by"]
        given["by"] = cast("tuple[AnalysisSpec, ...]", (by,) if isinstance(by, str) else tuple(by))
    if "cutoffs" in given:
        given["cutoffs"] = {k: tuple(v) for k, v in (given["cutoffs"] or {}).items()}
    if "out_labels" in given:
        given["out_labels"] = dict(given["out_labels"] or {})
    given["seed"] = _seed(given.get("seed"), rng)
    opts = AnalyzeOptions(**given)
    resampling = _resampling(opts.n_resamples, opts.seed, progress, None)
    return analyze_table(_table(refs, systems, metrics, stats, load, settings), opts, resampling, fork=fork)


#: analyze's own keywords, offered with the metric options when a keyword is misspelled
_OWN = _keywords(analyze)


def _document() -> None:
    from mtsig.analyze_docs import DOCS as ANALYZE  # the analyses themselves are imported by analyze() alone

    document(analyze, {**_docs(AnalyzeOptions, LoadOptions), **ANALYZE})


_document()
