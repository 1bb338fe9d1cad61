"""What a metric declares about itself: its options and the side inputs it reads.

Each option is declared once, on the metric, with its default, type and help; the command line's flags
are generated from these declarations (plugins included) and the Python API checks keyword names against
them, so a misspelled option is an error rather than a silently ignored keyword. Options with the same
name on several metrics (``tokenize``, ``lowercase``) are one option shared by all of them.

Side inputs are data beside the texts that a metric needs (dependency parses, segment scores): each is
declared with the function that attaches it to the loaded references and systems.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class Option(NamedTuple):
    """One metric option. ``flag`` defaults to ``--name-with-dashes``; a boolean option's flag sets the
    opposite of its default (so ``depf_labeled=True`` is switched off by ``--depf-unlabeled``)."""

    default: Any
    help: str = ""
    type: Callable[[str], Any] | None = None
    choices: tuple[Any, ...] | None = None
    flag: str | None = None
    short: str | None = None
    metavar: str | None = None
    #: ``file`` where the value names a file (other surfaces take it as an upload, never as typed text)
    path: str | None = None

    def flag_for(self, name: str) -> str:
        return self.flag or "--" + name.replace("_", "-")

    @property
    def is_bool(self) -> bool:
        return isinstance(self.default, bool)

    def value_type(self) -> Callable[[str], Any] | None:
        if self.type is not None:
            return self.type
        if self.default is None or self.is_bool:
            return None
        return type(self.default)


class SideInput(NamedTuple):
    """Data a metric reads beside the texts. ``attach(refs, systems, value)`` puts it on the segments."""

    help: str
    attach: Callable[..., None]
    metavar: str = "FILE"
    flag: str | None = None
    #: how other surfaces take it: ``files``, or ``named`` (each file as ``NAME=FILE``; ``naming`` as
    #: :data:`mtsig.surface.NAMINGS`)
    path: str = "files"
    naming: str = "stem"

    def flag_for(self, name: str) -> str:
        return self.flag or "--" + name.replace("_", "-")


def as_option(value: Any) -> Option:
    """A declared :class:`Option`, or a plain default value (plugins may declare ``{"name": default}``)."""
    return value if isinstance(value, Option) else Option(value)


TOKENIZE = Option(
    "13a",
    "13a (default), intl, zh, char, none (whitespace only), ... (sacreBLEU's), or mteval-13a / mteval-intl for "
    "exact parity with the NIST scorer",
    short="-tok",  # sacreBLEU's spelling (without it, -tok would read as -t ok)
)
LOWERCASE = Option(
    False, "lowercase (full Unicode; ASCII A-Z only with mteval-13a, as the NIST scorer does)", short="-lc"
)
