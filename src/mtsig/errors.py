"""Exceptions raised by mtsig.

Every problem with the user's input is an :class:`InputError` whose message is one line that names the
file (and the line, where one applies). The command line prints that message and exits with status 2;
it never shows a traceback for bad input.
"""

from __future__ import annotations


class MtsigError(Exception):
    """Base class of all mtsig errors."""


class InputError(MtsigError, ValueError):
    """The input files or arguments are not usable as given.

    Messages use the Python API's names; ``param`` names the argument at fault, so that the command line
    can say it with its flag (``n_bootstrap`` -> ``--n-bootstrap``).
    """

    def __init__(self, message: str = "", *, param: str | tuple[str, ...] | None = None):
        super().__init__(message)
        self.param = param

    @property
    def params(self) -> tuple[str, ...]:
        """The API arguments the message names."""
        if self.param is None:
            return ()
        return (self.param,) if isinstance(self.param, str) else tuple(self.param)


class UnknownNameError(InputError, KeyError):
    """An unknown metric, tokenizer, test or method name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def unknown_name(kind: str, name: str, known: list[str] | tuple[str, ...]) -> UnknownNameError:
    """Build the error for an unknown ``kind`` called ``name``, listing the known names."""
    return UnknownNameError(f"unknown {kind} {name!r}; choose from: {', '.join(sorted(known))}")


class MtsigWarning(UserWarning):
    """Something the user should know that does not stop the work (the command line prints it once)."""
