"""What a flag says to the surfaces other than the command line (the web app's forms), kept on its argparse action
as ``mtsig_web``: what it names on disk, its name in a form, why it is not offered. :mod:`mtsig.surface` reads the
marks; this module imports nothing of mtsig's, so that a command's flags can be marked without importing the
surfaces."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

#: what a flag may name on disk: one file, several, several each given as ``NAME=FILE``, or a folder
PATH_KINDS = ("file", "files", "named", "dir")
#: how an uploaded file of a ``named`` field gets its name: after the file (``stem``), or as the file's own kind
#: says (``systems``: a WMT XML or SGML file holds several systems and is given as it is; ``scores``: a table or
#: COMET's output of several systems as it is, a file of one system's scores named after it)
NAMINGS = ("stem", "systems", "scores")


@dataclass(frozen=True)
class Web:
    """What a flag says to surfaces other than the command line.

    ``kind``: one of :data:`PATH_KINDS` where the value names files (None: read from the action); ``form``: the
    field's name in a form (default: the flag's ``dest``); ``off``: why no other surface offers it; ``names``: the
    choices where the flag checks names itself (a registry's keys: plugins included); ``default``: the value that
    applies when the flag is not given (the declaration's); ``value``: the declared value kind (``int``,
    ``strs`` ...); ``naming``: one of :data:`NAMINGS` for a ``named`` field; ``main``: one of the inputs most runs
    give (a form shows it first; the group's others behind a click)."""

    kind: str | None = None
    form: str | None = None
    off: str | None = None
    low: float | None = None
    high: float | None = None
    open: bool = False
    names: Callable[[], Any] | Sequence[str] | None = None
    default: Any = None
    value: str | None = None
    naming: str = "stem"
    main: bool = False


def web(action: argparse.Action, kind: str | None = None, **kw: Any) -> argparse.Action:
    """Mark a hand-written flag: ``kind`` one of :data:`PATH_KINDS` (what it names on disk) or None; the keywords
    are :class:`Web`'s. Returns the action (``web(g.add_argument(...), "files", form="ref")``)."""
    if kind is not None and kind not in PATH_KINDS:
        raise ValueError(f"unknown path kind {kind!r}")
    if kw.get("naming", "stem") not in NAMINGS:
        raise ValueError(f"unknown naming {kw['naming']!r}")
    old = getattr(action, "mtsig_web", None)
    base = dict(old.__dict__) if old is not None else {}
    base.update(kw)
    if kind is not None:
        base["kind"] = kind
    action.mtsig_web = Web(**base)  # type: ignore[attr-defined]
    return action


def off(action: argparse.Action, reason: str) -> argparse.Action:
    """Mark a flag that no surface but the command line offers, with the reason the web app's docs give."""
    return web(action, off=reason)
