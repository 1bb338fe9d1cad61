"""A study's design: a frozen dataclass whose fields are the study's options, one name for the flag, the field and
the JSON key (``--n-resamples`` is ``n_resamples`` is ``"n_resamples"``).

Each field is declared with :func:`option` (default, help, value kind and range); :func:`check_design` validates a
design once, and the command line makes one flag per field (:func:`add_flags`), so a study is offered exactly the
options it reads and refuses the others.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any

from mtsig.errors import InputError, unknown_name
from mtsig.resample import DEFAULT_SEED, MAX_RESAMPLES  # noqa: F401 - the studies' bound on resamples

#: the most replicates (null pairs, families, draws) a study runs: each is a whole test
MAX_REPLICATES = 1_000_000

#: value kinds: how a flag parses its values and what a field holds
_ONE = {"int": int, "float": float, "str": str}
_MANY = {"ints": int, "floats": float, "strs": str, "pairs": str}


@dataclass(frozen=True)
class Opt:
    """What a design field says about itself: help, value kind, range, choices (a tuple, or a callable giving the
    names registered now), and for ``pairs`` the most pairs it takes."""

    help: str
    kind: str
    low: float | None = None
    high: float | None = None
    #: the bounds themselves are excluded (e.g. a level strictly between 0 and 1)
    open: bool = False
    choices: Any = None
    metavar: str | None = None
    most: int | None = None


def option(default: Any, help: str, kind: str, **kw: Any) -> Field:  # noqa: A002 - argparse's word
    """A design field: ``kind`` is one of int, float, str (one value) or ints, floats, strs, pairs (several)."""
    if kind not in _ONE and kind not in _MANY:
        raise ValueError(f"unknown option kind {kind!r}")
    return field(default=default, metadata={"opt": Opt(help, kind, **kw)})


def seed_option() -> Field:
    return option(DEFAULT_SEED, "random seed (always reported)", "int", low=0)


def metric_option() -> Field:
    return option(None, "the metric studied (default: the first of -m)", "str")


def pairs_option(help: str, most: int | None = None) -> Field:  # noqa: A002
    return option(None, help, "pairs", metavar="A:B", most=most)


def opt_of(f: Field) -> Opt:
    return f.metadata["opt"]


def flag_of(name: str) -> str:
    return "--" + name.replace("_", "-")


def _choices(o: Opt) -> tuple | None:
    return tuple(o.choices()) if callable(o.choices) else o.choices


def _num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) >= 1000 else f"{x:g}"


def _check_number(name: str, x: Any, o: Opt) -> None:
    want = int if o.kind in ("int", "ints") else float
    if isinstance(x, bool) or not isinstance(x, (int, float)) or (want is int and x != int(x)):
        raise InputError(f"{name} must be {'a whole number' if want is int else 'a number'}, got {x!r}", param=name)
    if not math.isfinite(x):
        raise InputError(f"{name} must be finite, got {x!r}", param=name)
    below = o.low is not None and (x <= o.low if o.open else x < o.low)
    above = o.high is not None and (x >= o.high if o.open else x > o.high)
    if below or above:
        lo = "" if o.low is None else (f"above {_num(o.low)}" if o.open else f"at least {_num(o.low)}")
        hi = "" if o.high is None else (f"below {_num(o.high)}" if o.open else f"at most {_num(o.high)}")
        raise InputError(f"{name} must be {' and '.join(x for x in (lo, hi) if x)}, got {x!r}", param=name)


def _check_value(name: str, x: Any, o: Opt) -> None:
    if o.kind == "pairs":
        if any(len(p) != 2 or not all(isinstance(s, str) for s in p) for p in x):
            raise InputError(f"{name}: give each pair as A:B (system names)", param=name)
        if o.most is not None and len(x) > o.most:
            raise InputError(f"{name}: this study takes {o.most} pair, got {len(x)}", param=name)
        return
    values = x if o.kind in _MANY else (x,)
    if o.kind in ("ints", "floats") and not values:
        raise InputError(f"{name}: give at least one value", param=name)
    for v in values:
        if o.kind in ("int", "float", "ints", "floats"):
            _check_number(name, v, o)
        elif _choices(o) is not None and v not in _choices(o):
            raise unknown_name(name.replace("_", " "), v, _choices(o))


def check_design(design: Any) -> None:
    """Validate every field of a design against its declared kind, range and choices (None: the default)."""
    for f in fields(design):
        x = getattr(design, f.name)
        if x is not None:
            _check_value(f.name, x, opt_of(f))


class Design:
    """The base of a study design: subclasses are frozen dataclasses whose fields are declared with
    :func:`option`; every field is checked when a design is made."""

    def __post_init__(self):
        check_design(self)


def design_dict(design: Any) -> dict[str, Any]:
    """The design as JSON: field name -> value (tuples as lists)."""

    def plain(x):
        return [plain(v) for v in x] if isinstance(x, (tuple, list)) else x

    return {f.name: plain(getattr(design, f.name)) for f in fields(design)}


# ------------------------------------------------------------------------------------------------ flags
def _pair(text: str) -> tuple[str, str]:
    if text.count(":") != 1:
        raise argparse.ArgumentTypeError(f"give each pair as A:B (system names), got {text!r}")
    a, b = text.split(":")
    return a, b


def add_flags(group: argparse._ArgumentGroup, design: type) -> None:
    """One flag per field of ``design``; values not given stay None (the design's default applies)."""
    for f in fields(design):
        o = opt_of(f)
        default = f.default if f.default is not MISSING else None
        shown = (
            "" if default is None else f" ({' '.join(map(str, default)) if isinstance(default, tuple) else default})"
        )
        kw: dict[str, Any] = {"dest": f.name, "default": None, "help": o.help + shown}
        if o.kind == "pairs":
            kw.update(nargs="+", type=_pair, metavar=o.metavar or "A:B")
        elif o.kind in _MANY:
            kw.update(nargs="+", type=_MANY[o.kind], metavar=o.metavar)
        else:
            kw.update(type=_ONE[o.kind], metavar=o.metavar)
        choices = _choices(o)
        if choices is not None:
            kw.update(choices=choices, metavar=o.metavar or f.name.upper())
        group.add_argument(flag_of(f.name), **kw)


def design_from(design: type, values: dict[str, Any]) -> Any:
    """The design from the flags given (None: not given, the default applies); lists become tuples."""
    kw = {}
    for f in fields(design):
        x = values.get(f.name)
        if x is not None:
            kw[f.name] = tuple(tuple(v) if isinstance(v, list) else v for v in x) if isinstance(x, list) else x
    return design(**kw)
