"""Human judgments: rank systems from DA, MQM and ESA scores with significance (``mtsig human``,
:func:`mtsig.human`)."""

from __future__ import annotations

from collections.abc import Sequence

from mtsig.humaneval.protocols import PROTOCOLS, HumanOptions, Protocol, register_protocol, run_human
from mtsig.humaneval.result import HumanComparison, HumanResult, HumanSystem
from mtsig.io.human import HumanScores, read_human


def human(  # noqa: PLR0913 - every setting is a keyword, typed and documented
    files: str | Sequence[str] | HumanScores,
    *,
    protocol: str = "mtsig",
    input_format: str | None = None,
    standardize: str | None = None,
    mqm_weights: str | dict | None = None,
    da_score: str = "z",
    docs=None,
    lp: str | None = None,
    test: str = "ar",
    correction: str = "holm",
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int | None = None,
    n_bootstrap: int = 2_000,
    seed: int | None = None,
    resample_unit: str | None = None,
    min_common: int = 10,
    segments: bool = False,
    progress=None,
) -> HumanResult:
    """Rank systems from human judgments: per system its score, interval, wins, cluster and rank range; per pair
    a test; the clusters.

    files:
        Files of one format (``wmt-da``, ``wmt-da-seg``, ``mqm``, ``tsv``; recognised from the first line unless
        ``input_format`` says), or the :class:`~mtsig.io.human.HumanScores` they were read into.
    protocol:
        ``mtsig`` (default: paired tests on the segments both systems were judged on, every pair, ``correction``,
        simultaneous rank sets), ``wmt22``, ``wmt24``, ``wmt25`` (WMT's procedures; see
        :mod:`mtsig.humaneval.protocols`), or a registered one.
    standardize, mqm_weights, da_score:
        ``"annotator"`` z-standardizes each annotator's scores first; MQM weights (a file or
        ``{(severity, category or None): weight}``); ``z`` or ``raw`` scores of WMT's segment-score files.
    docs:
        The test set's documents (a ``.docs`` file of ``DOMAIN DOCID`` lines, or the WMT XML test set): each
        judged segment's document and domain (WMT DA segment ids are placed as WMT numbers them: the documents
        sorted by id). WMT DA judgment files bring their documents without it, from their HITs.
    lp:
        The language pair to rank (``"en-ja"``), of files that hold several (Appraise's ESA exports).
    test, correction, alpha, confidence, n_resamples, n_bootstrap, seed, resample_unit, min_common:
        The mtsig protocol's paired test (``ar`` with 10,000 shuffles, or ``paired-bootstrap``), its correction and
        level; the level of the intervals and rank sets and their joint bootstrap resamples; the seed (12345 when
        None, always reported); the resampling unit (None: ``document`` wherever the judgments come in documents,
        as WMT DA's HITs, MQM, a doc column or ``docs`` give them, else ``segment``); the fewest segments two
        systems must share to be tested. ``n_resamples`` None: enough that a pair's p-value can reach a tenth of
        the corrected threshold (as ``compare`` chooses it).
    segments:
        Also the per-segment scores used (``result.segments``; JSON ``"segments"``).

    Examples
    --------
    >>> import mtsig, tempfile, os
    >>> rows = ["system\\tsegment\\tscore"] + [f"{s}\\t{i}\\t{i % 7 + (3 if s == 'good' else 0)}"
    ...                                       for s in ("good", "bad") for i in range(40)]
    >>> path = os.path.join(tempfile.mkdtemp(), "scores.tsv")
    >>> _ = open(path, "w").write("\\n".join(rows) + "\\n")
    >>> res = mtsig.human(path)
    >>> [s.name for s in res.systems], res.get("good", "bad").significant
    (['good', 'bad'], True)
    """
    from mtsig.resample import DEFAULT_SEED

    if isinstance(files, HumanScores):
        h = files
    else:
        h = read_human(files, input_format=input_format, standardize=standardize, mqm_weights=mqm_weights,
                       da_score=da_score, docs=docs, lp=lp)  # fmt: skip
    if isinstance(files, HumanScores) and docs is not None:
        from mtsig.io.documents import Documents, read_documents

        h = h.with_documents(docs if isinstance(docs, Documents) else read_documents(docs))
    opts = HumanOptions(protocol=protocol, test=test, correction=correction, alpha=alpha, confidence=confidence,
                        n_resamples=n_resamples, n_bootstrap=n_bootstrap,
                        seed=DEFAULT_SEED if seed is None else seed, resample_unit=resample_unit,
                        min_common=min_common, segments=segments)  # fmt: skip
    return run_human(h, opts, progress)


__all__ = ["PROTOCOLS", "HumanComparison", "HumanOptions", "HumanResult", "HumanScores", "HumanSystem", "Protocol",
           "human", "read_human", "register_protocol", "run_human"]  # fmt: skip
