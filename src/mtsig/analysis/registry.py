"""The analyses ``mtsig analyze`` offers, by name: each declares how it is called (its argument), whether it
runs by default, its default bucket cutoffs and the settings it reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from mtsig.registry import Registry


class AnalysisEntry(NamedTuple):
    """A registered analysis: ``run(ctx, arg)`` returns its analyses, or a :class:`Later` when it put derived
    metrics into ``ctx.batch`` (tested together once every analysis has been prepared)."""

    name: str
    #: ``run(ctx: AnalysisContext, arg: str | None) -> list[Analysis] | Later`` (typed loosely here: the registry
    #: must not import the context, which imports the registry)
    run: Callable[[Any, str | None], Any]
    help: str
    takes_arg: bool = False
    needs_arg: bool = False
    #: run when no --by is given
    default: bool = True
    #: puts its metrics into the shared comparison (``ctx.batch``) and returns a :class:`Later`
    batched: bool = False
    #: its default bucket cutoffs (None: it takes no ``cutoffs``); ``--bucket-cutoffs NAME=...`` replaces them
    cutoffs: tuple[float, ...] | None = None
    #: the settings of :class:`~mtsig.analysis.options.AnalyzeOptions` it reads beyond the tests' own (a setting
    #: given while no analysis that reads it runs is reported)
    options: tuple[str, ...] = ()
    #: reads the words (a statistics file alone cannot serve it)
    needs_texts: bool = True


#: the analyses by name (plugins: the ``mtsig.analyses`` entry-point group, loaded when ``--by`` names an
#: analysis that is not a built-in one)
ANALYSES: Registry[AnalysisEntry] = Registry("analysis", "mtsig.analyses", builtin="mtsig.analysis.builtin")


def register_analysis(entry: AnalysisEntry) -> AnalysisEntry:
    """Add an analysis (``mtsig analyze --by NAME`` and ``mtsig.analyze(by=[NAME])`` offer it)."""
    return ANALYSES.register(entry)


def with_cutoffs() -> list[str]:
    """The analyses that take bucket cutoffs."""
    return [name for name, e in ANALYSES.items() if e.cutoffs is not None]
