"""A study's design: a frozen dataclass whose fields are the study's options, one name for the flag, the field and
the JSON key (``--n-resamples`` is ``n_resamples`` is ``"n_resamples"``).

Each field is declared with :func:`mtsig.declare.option` (default, help, value kind and range), as every command's
settings are; a design is validated once when made, and the command line makes one flag per field
(:func:`add_flags`), so a study is offered exactly the options it reads and refuses the others.
"""

from __future__ import annotations

import argparse
from dataclasses import Field
from typing import Any

from mtsig.declare import Checked, Opt, as_dict, check_fields, option
from mtsig.declare import add_flags as _add_flags
from mtsig.declare import flag_of as _flag_of
from mtsig.declare import given as _given
from mtsig.resample import DEFAULT_SEED, MAX_RESAMPLES  # noqa: F401 - the studies' bound on resamples

#: the most replicates (null pairs, families, draws) a study runs: each is a whole test
MAX_REPLICATES = 1_000_000


def seed_option() -> Any:
    return option(DEFAULT_SEED, "random seed (always reported)", "int", low=0)


def metric_option() -> Any:
    return option(None, "the metric studied (default: the first of -m)", "str")


def pairs_option(help: str, most: int | None = None) -> Any:  # noqa: A002
    return option(None, help, "pairs", metavar="A:B", most=most)


def opt_of(f: Field) -> Opt:
    return f.metadata["opt"]


def flag_of(name: str) -> str:
    return _flag_of(name)


def check_design(design: Any) -> None:
    """Validate every field of a design against its declared kind, range and choices (None: the default)."""
    check_fields(design)


class Design(Checked):
    """The base of a study design: subclasses are frozen dataclasses whose fields are declared with
    :func:`option`; every field is checked when a design is made."""


def design_dict(design: Any) -> dict[str, Any]:
    """The design as JSON: field name -> value (tuples as lists)."""
    return as_dict(design)


# ------------------------------------------------------------------------------------------------ flags
def add_flags(group: argparse._ArgumentGroup, design: type) -> None:
    """One flag per field of ``design`` under ``group``; values not given stay None (the design's default
    applies)."""
    _add_flags(group, design, groups={"options": group})


def design_from(design: type, values: dict[str, Any]) -> Any:
    """The design from the flags given (None: not given, the default applies); lists become tuples."""
    return design(**_given(design, values))
