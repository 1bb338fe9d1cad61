"""Human judgments: rank systems from DA, MQM and ESA scores with significance (``mtsig human``,
:func:`mtsig.human`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mtsig.declare import Keywords
from mtsig.docfields import document, field_docs
from mtsig.humaneval.protocols import PROTOCOLS, HumanOptions, Protocol, register_protocol, run_human
from mtsig.humaneval.result import HumanComparison, HumanResult, HumanSystem
from mtsig.io.human import HumanScores, read_human

#: human's keywords: HumanOptions' settings, generated from their declarations (the seed: None for 12345)
_HUMAN = Keywords(HumanOptions, api={"seed": (None, "int | None")})

#: what the reading keywords mean (the settings' own descriptions are their declarations')
_DOCS = {
    "files": "Files of one format (``wmt-da``, ``wmt-da-seg``, ``mqm``, ``tsv``; recognised from the first line unless "
             "``input_format`` says), or the :class:`~mtsig.io.human.HumanScores` they were read into.",
    "input_format": "The files' format (None: recognised from the first line).",
    "standardize": "``\"annotator\"`` z-standardizes each annotator's scores first.",
    "mqm_weights": "MQM weights: a file or ``{(severity, category or None): weight}`` (default: Freitag et al.'s).",
    "da_score": "``z`` or ``raw`` scores of WMT's segment-score files.",
    "docs": "The test set's documents (a ``.docs`` file of ``DOMAIN DOCID`` lines, or the WMT XML test set): each "
            "judged segment's document and domain (WMT DA segment ids are placed as WMT numbers them: the documents "
            "sorted by id). WMT DA judgment files bring their documents without it, from their HITs.",
    "lp": "The language pair to rank (``\"en-ja\"``), of files that hold several (Appraise's ESA exports); of a "
          "Pearmut log, the campaign: its key, the key without its version suffix, or the pair (``\"en-cs\"``).",
    "reset": "Pearmut logs: ``campaign`` (WMT26's rule, the default: a ``__RESET__`` line empties the whole campaign) "
             "or ``annotator`` (Pearmut's own: it masks only its annotator's earlier lines).",
    "seed": "Random seed (12345 when None; always reported).",
    "resample_unit": "What resampling draws or swaps (None: ``document`` wherever the judgments come in documents, as "
                     "WMT DA's HITs, MQM, a doc column or ``docs`` give them, else ``segment``).",
    "progress": "A progress factory ``(label, total) -> advance(n)`` (no number depends on it).",
}  # fmt: skip


@_HUMAN.signature(after="lp", rest=None)
def human(  # noqa: PLR0913 - the reading keywords are written here, the settings come from their declarations
    files: str | Sequence[str] | HumanScores,
    *,
    input_format: str | None = None,
    standardize: str | None = None,
    mqm_weights: str | dict | None = None,
    da_score: str = "z",
    docs=None,
    lp: str | None = None,
    reset: str | None = None,
    progress=None,
    **settings: Any,
) -> HumanResult:
    """Rank systems from human judgments: per system its score, interval, wins, cluster and rank range; per pair
    a test; the clusters.

    {parameters}

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
    given = _HUMAN.take(settings, HumanOptions)
    if settings:
        from mtsig.errors import unknown_name

        raise unknown_name("setting of human", next(iter(settings)), _HUMAN.names())
    if given.get("seed", 0) is None:
        del given["seed"]  # the declared default
    if isinstance(files, HumanScores):
        h = files
    else:
        h = read_human(files, input_format=input_format, standardize=standardize, mqm_weights=mqm_weights,
                       da_score=da_score, docs=docs, lp=lp, reset=reset)  # fmt: skip
    if isinstance(files, HumanScores) and docs is not None:
        from mtsig.io.documents import Documents, read_documents

        h = h.with_documents(docs if isinstance(docs, Documents) else read_documents(docs))
    return run_human(h, HumanOptions(**given), progress)


document(human, {**field_docs(HumanOptions), **_DOCS})


__all__ = ["PROTOCOLS", "HumanComparison", "HumanOptions", "HumanResult", "HumanScores", "HumanSystem", "Protocol",
           "human", "read_human", "register_protocol", "run_human"]  # fmt: skip
