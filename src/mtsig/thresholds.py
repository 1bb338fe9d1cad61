"""``mtsig thresholds`` from Python: ``mtsig.thresholds(metrics, accuracy)`` returns the Δ each metric needs for each
share of human judgments to agree with it (Kocmi et al. 2024) as a :class:`ThresholdsResult`. The fits and the
functions reading them are :mod:`mtsig.fits` (also importable from here, as before)."""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mtsig.fits import (  # noqa: F401 - the fits' names, importable from here too
    ACCURACIES,
    ALIASES,
    FITS,
    POINTS,
    accuracy,
    delta_for,
    fit_for,
    human_agreement,
    load_fits,
    scale_of,
    thresholds_table,
)
from mtsig.serialize import as_dict, jfield


@dataclass(frozen=True, kw_only=True)
class ThresholdsResult:
    """The Δ each metric needs for each share of human judgments to agree with it (``mtsig thresholds``)."""

    #: per fit, per accuracy in % (as printed: "50", "55", ...), the Δ on the paper's scale, None where no Δ gives it
    thresholds: dict[str, dict[str, float | None]]
    #: per fit, its (a in %, b)
    fits: dict[str, list[float]]
    #: each metric asked for -> the fit used
    names: dict[str, str]
    #: decimals shown (``-w``; None: 3)
    decimals: int | None = jfield(None, repr=False, compare=False, skip=True)

    to_dict = as_dict

    @property
    def accuracies(self) -> list[str]:
        """The accuracies asked for, as printed ("50", "55", ...): the columns of every table."""
        return list(next(iter(self.thresholds.values()), {}))

    @property
    def shown_decimals(self) -> int:
        """The decimals each Δ is shown with (``-w``, else 3)."""
        return 3 if self.decimals is None else self.decimals

    def cells(self) -> tuple[list[str], list[list[str]]]:
        """The table as shown (every format's and the notebook's): its header and rows, "-" where no Δ gives it."""
        d, accs = self.shown_decimals, self.accuracies
        rows = [[f, *("-" if v[k] is None else f"{v[k]:.{d}f}" for k in accs)] for f, v in self.thresholds.items()]
        return ["metric (fit)", *(f"{k}%" for k in accs)], rows

    def to_pandas(self):
        """One row per fit: its name, a, b and the Δ of each accuracy (a column per accuracy); needs pandas."""
        from mtsig.frames import frame

        rows = [{"fit": f, "a": self.fits[f][0], "b": self.fits[f][1], **v} for f, v in self.thresholds.items()]
        return frame(rows, ["fit", "a", "b", *self.accuracies])

    def _repr_html_(self) -> str:
        """A notebook's display: the table as shown (the report's modules import this one, so it is written here)."""
        import html

        header, rows = self.cells()
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def scales(self) -> dict[str, float]:
        """Per fit, what mtsig's numbers of the metric are multiplied by to be on the fit's scale."""
        return {f: scale_of(f) for f in self.thresholds}

    def delta(self, metric: str, accuracy: float) -> float | None:  # noqa: F811 - the keyword names the percentage
        """The Δ ``metric`` (a name asked for, or a fit's) needs for ``accuracy`` % of humans to agree."""
        fit = self.names.get(metric, metric)
        return self.thresholds[fit][f"{accuracy:g}"]


def thresholds(metrics: Sequence[str] | None = None, accuracy: Sequence[float] = ACCURACIES,  # noqa: F811
               fits: str | None = None) -> ThresholdsResult:  # fmt: skip
    """``mtsig thresholds``: for each metric (mtsig's names, score-file names or the paper's; None: every fit), the
    Δ it needs before ``accuracy`` % of human judgments agree with it (Kocmi et al. 2024); ``fits``: a
    thresholds.json of other fits (``{metric: [a, b]}``). Also ``mtsig.thresholds(...)``."""
    return ThresholdsResult(**thresholds_table(metrics, accuracy, fits))


class _CallableModule(types.ModuleType):
    """This module, callable: ``mtsig.thresholds(...)`` is :func:`thresholds`, as every command is a function of
    mtsig, while ``from mtsig.thresholds import ...`` keeps working (a function of the same name on the package
    would be replaced by the module as soon as anything imported it)."""

    def __call__(self, *args: Any, **kwargs: Any) -> ThresholdsResult:
        return thresholds(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
