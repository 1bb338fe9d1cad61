"""Each setting declared once: a field of a frozen, keyword-only dataclass whose metadata says everything about it.

A field made by :func:`option` carries its default, the value kind (``bool``, ``int``, ``float``, ``str`` or the
several-value kinds ``ints``, ``floats``, ``strs``, ``pairs``), its range or choices, the command line's flag and
group, the command line's short help and the API's longer description. From that one declaration come:

- the API's validation (:func:`check_fields`: one :class:`~mtsig.errors.InputError` naming the parameter);
- the API's documentation (the ``doc`` metadata, read by :mod:`mtsig.docfields`);
- the command line's flags and their help (:func:`add_flags`) and the values given on it (:func:`given`);
- the recorded settings (the validated object's fields).

The settings every command shares (the seed, the level, the resampling unit ...) are declared once here too
(:func:`seed_option` and its neighbours) and used by each command's class, so ``--seed`` is written once.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any

import numpy as np

from mtsig.errors import InputError, unknown_name

#: value kinds: how a flag parses its values and what a field holds
ONE = {"int": int, "float": float, "str": str}
MANY = {"ints": int, "floats": float, "strs": str, "pairs": str}
KINDS = (*ONE, *MANY, "bool", "any")


@dataclass(frozen=True)
class Opt:
    """What a field says about itself.

    ``help`` is the command line's one-line help and ``doc`` the API's description (``help`` when not given).
    ``kind`` says how values are parsed and checked (``any``: the API checks it itself, no flag is made).
    ``low``/``high`` bound numbers (``open``: the bounds themselves excluded), ``choices`` is a tuple or a
    callable giving the names registered now, ``most`` bounds the number of ``pairs``. ``flag``/``short`` spell
    the flag (default ``--field-name``), ``group`` is its heading in ``--help``, ``cli=False`` keeps it off the
    command line, and ``none_ok`` accepts None where the default is not None."""

    help: str
    kind: str
    low: float | None = None
    high: float | None = None
    open: bool = False
    choices: Any = None
    metavar: str | None = None
    most: int | None = None
    doc: str | None = None
    flag: str | None = None
    short: str | None = None
    group: str | None = None
    cli: bool = True
    none_ok: bool = False
    #: a registry's lookup (``PAIRED_TESTS.get``): checks a name, case and plugins included, with its own message
    lookup: Callable[[str], Any] | None = None
    #: what a name is called in the error for one not among ``choices`` (default: the field's name)
    what: str | None = None
    #: whether ``--help`` adds "(default: X)" (False where the help says it in its own words)
    shown: bool = True
    #: whether a result records it in its settings when given (False for what changes no number of the result:
    #: kept distributions, the per-segment scores shown beside it)
    record: bool = True
    #: what the value names on disk (:data:`mtsig.marks.PATH_KINDS`: ``file``, ``files``, ``named``, ``dir``):
    #: a surface other than the command line takes it as an upload or a pick, never as typed text
    path: str | None = None
    #: the name of the setting in a web form, where it is not the field's own (``test`` for ``tests``)
    form: str | None = None
    #: why a surface other than the command line does not offer it (None: offered)
    web: str | None = None
    #: the names a surface offers where ``lookup`` checks them (a registry's ``keys``): choices that plugins extend
    names: Callable[[], Any] | None = None
    #: one of the inputs most runs give (a form shows it first)
    main: bool = False


def option(default: Any = MISSING, help: str = "", kind: str = "any", *, factory: Callable[[], Any] | None = None,
           **kw: Any) -> Any:  # noqa: A002 - argparse's word  # fmt: skip
    """A declared field: ``kind`` one of :data:`KINDS`; the other keywords are :class:`Opt`'s."""
    if kind not in KINDS:
        raise ValueError(f"unknown option kind {kind!r}")
    opt = Opt(help, kind, **kw)
    meta = {"opt": opt, "doc": opt.doc or help}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def opt_of(f: Field) -> Opt | None:
    return f.metadata.get("opt")


def declared(cls_or_obj: Any) -> list[tuple[Field, Opt]]:
    """The declared fields of a settings class (fields without a declaration are left out)."""
    return [(f, o) for f in fields(cls_or_obj) if (o := opt_of(f)) is not None]


def flag_of(name: str, o: Opt | None = None) -> str:
    return (o.flag if o is not None and o.flag else None) or "--" + name.replace("_", "-")


def default_of(f: Field) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return None


def choices_of(o: Opt) -> tuple | None:
    return tuple(o.choices()) if callable(o.choices) else o.choices


# ------------------------------------------------------------------------------------------------ checks
def _num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) >= 1000 else f"{x:g}"


def _check_number(name: str, x: Any, o: Opt) -> None:
    whole = o.kind in ("int", "ints")
    number = isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
    if not number or (whole and math.isfinite(x) and x != int(x)):
        raise InputError(f"{name} must be {'a whole number' if whole else 'a number'}, got {x!r}", param=name)
    if not math.isfinite(x):
        raise InputError(f"{name} must be finite, got {x!r}", param=name)
    below = o.low is not None and (x <= o.low if o.open else x < o.low)
    above = o.high is not None and (x >= o.high if o.open else x > o.high)
    if (below or above) and o.open and o.low is not None and o.high is not None:
        raise InputError(f"{name} must lie strictly between {_num(o.low)} and {_num(o.high)}, got {x!r}", param=name)
    if below or above:
        lo = "" if o.low is None else (f"above {_num(o.low)}" if o.open else f"at least {_num(o.low)}")
        hi = "" if o.high is None else (f"below {_num(o.high)}" if o.open else f"at most {_num(o.high)}")
        raise InputError(f"{name} must be {' and '.join(x for x in (lo, hi) if x)}, got {x!r}", param=name)


def _check_pairs(name: str, x: Any, o: Opt) -> None:
    if isinstance(x, str) or any(len(p) != 2 or not all(isinstance(s, str) for s in p) for p in x):
        raise InputError(f"{name}: give each pair as A:B (system names)", param=name)
    if o.most is not None and len(x) > o.most:
        raise InputError(f"{name}: this study takes {o.most} pair, got {len(x)}", param=name)


def check_value(name: str, x: Any, o: Opt) -> None:
    """One value against its declaration (an :class:`InputError` naming ``name`` when it does not fit)."""
    if o.kind == "any":
        return
    if o.kind == "bool":
        if not isinstance(x, (bool, np.bool_)):
            raise InputError(f"{name} must be True or False, got {x!r}", param=name)
        return
    if o.kind == "pairs":
        _check_pairs(name, x, o)
        return
    if o.kind in MANY and isinstance(x, (str, bytes)):
        raise InputError(f"{name} must be a list of values, got the string {x!r}", param=name)
    values = x if o.kind in MANY else (x,)
    if o.kind in ("ints", "floats") and not values:
        raise InputError(f"{name}: give at least one value", param=name)
    for v in values:
        if o.kind in ("int", "float", "ints", "floats"):
            _check_number(name, v, o)
        elif not isinstance(v, str):
            raise InputError(f"{name} must be a name (a string), got {v!r}", param=name)
        elif o.lookup is not None:
            o.lookup(v)
        elif (choices := choices_of(o)) is not None and v not in choices:
            raise unknown_name(o.what or name.replace("_", " "), v, tuple(str(c) for c in choices))


def check_given(parser: argparse.ArgumentParser, values: Any) -> None:
    """Each value given on the command line (``values``: its namespace) against the declaration its flag was made
    from (:func:`add_flags` keeps it on the flag): the checks the settings classes make, made before any input is
    read (the web app's check of a run before it is queued)."""
    for action in parser._actions:
        o = getattr(action, "mtsig_opt", None)
        x = getattr(values, action.dest, None)
        if o is None or x is None or (o.kind == "bool" and x is False):
            continue
        check_value(action.dest, tuple(x) if isinstance(x, list) else x, o)


def check_fields(obj: Any) -> None:
    """Validate every declared field of ``obj`` against its kind, range and choices. None is accepted where it is
    the default (it means "not given": the command's own choice applies) or where ``none_ok`` says so."""
    for f, o in declared(obj):
        x = getattr(obj, f.name)
        if x is None:
            if default_of(f) is not None and not o.none_ok:
                raise InputError(f"{f.name} must be given a value, got None", param=f.name)
            continue
        check_value(f.name, x, o)


class Checked:
    """The base of a settings class: every declared field is checked when an object is made."""

    def __post_init__(self):
        check_fields(self)


# ------------------------------------------------------------------------------------------------ flags
def _pair(text: str) -> tuple[str, str]:
    if text.count(":") != 1:
        raise argparse.ArgumentTypeError(f"give each pair as A:B (system names), got {text!r}")
    a, b = text.split(":")
    return a, b


def _shown(default: Any) -> str:
    if default is None or isinstance(default, bool) or default == () or default == {}:
        return ""
    return f" (default: {' '.join(map(str, default)) if isinstance(default, tuple) else default})"


def add_flags(parser: argparse._ActionsContainer, cls: type, *, groups: dict[str, Any] | None = None,
              title: str = "options", skip: tuple[str, ...] = (),
              defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """One flag per declared field of ``cls`` (``skip``: fields left to the caller). A flag not given leaves its
    value None (the declaration's default applies, see :func:`given`), except where ``defaults`` gives the command
    line its own default. Each flag goes under its field's ``group`` heading (``title`` when it names none);
    ``groups`` collects the headings, so several classes can share them. Returns ``groups``."""
    groups = {} if groups is None else groups
    defaults = defaults or {}
    for f, o in declared(cls):
        if not o.cli or o.kind == "any" or f.name in skip:
            continue
        heading = o.group or title
        if heading not in groups:
            groups[heading] = parser.add_argument_group(heading)
        g = groups[heading]
        default = defaults[f.name] if defaults.get(f.name) is not None else default_of(f)
        flags = [flag_of(f.name, o), *([o.short] if o.short else [])]
        if o.kind == "bool":
            action = g.add_argument(*flags, dest=f.name, action="store_true", default=defaults.get(f.name, False),
                                    help=o.help)  # fmt: skip
            _declared_on(action, o, default_of(f))
            continue
        kw: dict[str, Any] = {"dest": f.name, "default": defaults.get(f.name),
                              "help": o.help + (_shown(default) if o.shown else "")}  # fmt: skip
        if o.kind == "pairs":
            kw.update(nargs="+", type=_pair, metavar=o.metavar or "A:B")
        elif o.kind in MANY:
            kw.update(nargs="+", type=MANY[o.kind], metavar=o.metavar)
        else:
            kw.update(type=ONE[o.kind], metavar=o.metavar)
        choices = choices_of(o)
        if choices is not None:
            kw.update(choices=choices, metavar=o.metavar)
        _declared_on(g.add_argument(*flags, **kw), o, default)
    return groups


def _declared_on(action: argparse.Action, o: Opt, default: Any) -> None:
    """The declaration a flag was made from, kept on it: the other surfaces (:mod:`mtsig.surface`) read the flag's
    kind, range, choices and default from there."""
    from mtsig.marks import Web

    action.mtsig_opt = o  # type: ignore[attr-defined]
    action.mtsig_web = Web(kind=o.path, form=o.form, off=o.web, low=o.low, high=o.high, open=o.open,  # type: ignore[attr-defined]
                           names=o.names or (o.choices if callable(o.choices) else None), default=default,
                           value=o.kind, main=o.main)  # fmt: skip


def given(cls: type, values: Any, *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The declared fields of ``cls`` given on the command line (``values``: its namespace or a dict); a value not
    given (None) is left out, so the declaration's default applies. Lists become tuples."""
    get = values.get if isinstance(values, Mapping) else (lambda k: getattr(values, k, None))
    out = {}
    for f, o in declared(cls):
        if f.name in skip or not o.cli or o.kind == "any":  # (an "any" field has no flag of its own)
            continue
        x = get(f.name)
        if x is None or (o.kind == "bool" and x is False):
            continue
        out[f.name] = tuple(tuple(v) if isinstance(v, list) else v for v in x) if isinstance(x, list) else x
    return out


def as_dict(obj: Any) -> dict[str, Any]:
    """The declared fields of a settings object as JSON: field name -> value (tuples as lists)."""

    def plain(x):
        return [plain(v) for v in x] if isinstance(x, (tuple, list)) else x

    return {f.name: plain(getattr(obj, f.name)) for f in fields(obj)}


def changed(obj: Any, recorded: Collection[str] = ()) -> dict[str, Any]:
    """The declared settings of ``obj`` that are not at their defaults, as JSON, except those in ``recorded``
    (which a result records under names of its own). A result adds these to its settings: a setting declared
    later is recorded when used, without a change to the result (and the JSON of a run at the defaults stays as
    it was)."""
    plain = as_dict(obj)
    return {f.name: plain[f.name] for f, o in declared(obj)
            if o.record and f.name not in recorded and getattr(obj, f.name) != default_of(f)}  # fmt: skip


# ------------------------------------------------------------------------------------------------ shared settings
# Declared once, used by every command's settings class (each may say more about what its count resamples).
def seed_option(default: int | None = None, *, group: str = "resampling") -> Any:
    from mtsig.resample import DEFAULT_SEED

    return option(default, f"random seed (default {DEFAULT_SEED}; always reported)", "int", low=0, shown=False,
                  group=group, doc=f"Random seed ({DEFAULT_SEED} when None; always reported); scipy's name "
                  "``rng`` is accepted as an integer seed.")  # fmt: skip


def count_option(default: int | None, help: str, doc: str | None = None, *, group: str = "resampling") -> Any:  # noqa: A002
    """A number of resamples (shuffles, bootstrap draws): 1 to :data:`mtsig.resample.MAX_RESAMPLES`."""
    from mtsig.resample import MAX_RESAMPLES

    return option(default, help, "int", low=1, high=MAX_RESAMPLES, doc=doc, group=group, metavar="N")


def level_option(default: float, help: str, doc: str | None = None, *, group: str = "tests") -> Any:  # noqa: A002
    """A level or probability strictly between 0 and 1 (alpha, confidence)."""
    return option(default, help, "float", low=0, high=1, open=True, doc=doc, group=group, metavar="LEVEL")


def unit_option(doc: str | None = None, *, group: str = "resampling", default: str | None = "segment",
                help: str | None = None) -> Any:  # noqa: A002  # fmt: skip
    from mtsig.units import UNITS

    return option(default, help or "what resampling draws or swaps: segment, document (whole documents: segments "
                  "of a document are not independent) or domain", "str", choices=UNITS, what="resampling unit",
                  doc=doc, group=group)  # fmt: skip


def alternative_option(help: str, doc: str | None = None) -> Any:  # noqa: A002
    from mtsig.stats.pvalues import ALTERNATIVES

    return option("two-sided", help, "str", choices=ALTERNATIVES, doc=doc, group="tests")


def baseline_option(doc: str = "Each system against this one (default: all pairs).") -> Any:
    return option(None, "compare each system with this one (default: all pairs)", "str", short="-b", doc=doc,
                  metavar="NAME",
                  group="tests")  # fmt: skip


# ------------------------------------------------------------------------------------------------ API keywords
class Keywords:
    """The keywords an API function takes from settings classes: one keyword-only parameter per field of each
    class (the first class naming a field wins), spelled as the field unless ``rename`` (field -> keyword) says
    otherwise, with the field's default and annotation unless ``api`` (keyword -> (default, annotation)) gives the
    API's own (one test or several: ``"ar"`` where the field holds ``("ar",)``); ``skip`` leaves fields out.

    :meth:`signature` puts them into a function's signature (what ``inspect.signature``, ``help()`` and the docs
    show), and :meth:`take` takes each class's values out of the function's ``**settings``: a setting added to a
    class is a keyword of the function, with its flag, check and description, without editing the function."""

    def __init__(self, *classes: type, rename: Mapping[str, str] | None = None,
                 api: Mapping[str, tuple[Any, str]] | None = None, skip: tuple[str, ...] = ()) -> None:  # fmt: skip
        self.classes = classes
        self.rename = dict(rename or {})
        self.api = dict(api or {})
        self.skip = skip  # fields the function does not take (analyze: the development sets)
        self._field = {v: k for k, v in self.rename.items()}  # keyword -> field

    def keyword(self, name: str) -> str:
        return self.rename.get(name, name)

    def names(self, cls: type | None = None) -> tuple[str, ...]:
        """The keywords of ``cls`` (default: of every class), in declaration order."""
        out: dict[str, None] = {}
        for c in (cls,) if cls is not None else self.classes:
            out.update({self.keyword(f.name): None for f in fields(c) if f.name not in self.skip})
        return tuple(out)

    def parameters(self) -> list:
        import inspect

        out, seen = [], set()
        for cls in self.classes:
            for f in fields(cls):
                k = self.keyword(f.name)
                if k in seen or f.name in self.skip:
                    continue
                seen.add(k)
                default, annotation = self.api.get(k, (_api_default(f), f.type))
                out.append(inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
        return out

    def signature(self, after: str, rest: str | None = "metric_options") -> Callable[[Callable], Callable]:
        """Decorator: the function's keyword-only parameters gain :meth:`parameters` after the parameter ``after``;
        its ``**settings`` is shown as ``**rest`` (the keywords it passes on to the metrics), or not at all."""
        import inspect

        def wrap(fn: Callable) -> Callable:
            sig = inspect.signature(fn)
            params = list(sig.parameters.values())
            at = [p.name for p in params].index(after) + 1
            clash = {p.name for p in params} & set(self.names())
            if clash:
                raise TypeError(f"{fn.__name__}: {', '.join(sorted(clash))} both written and declared")
            tail = [p for p in params[at:] if p.kind is not p.VAR_KEYWORD]
            if rest is not None:
                tail += [p.replace(name=rest) for p in params[at:] if p.kind is p.VAR_KEYWORD]
            fn.__signature__ = sig.replace(parameters=[*params[:at], *self.parameters(), *tail])  # type: ignore[attr-defined]
            return fn

        return wrap

    def take(self, settings: dict[str, Any], cls: type) -> dict[str, Any]:
        """``cls``'s values among ``settings`` (removed from it), by field name: those given only (the class's
        defaults apply to the rest)."""
        return {self._field.get(k, k): settings.pop(k) for k in self.names(cls) if k in settings}


def _api_default(f: Field) -> Any:
    """A field's default as an API keyword shows it: None for an empty mapping (given as ``None`` or a dict)."""
    value = default_of(f)
    return None if isinstance(value, Mapping) and not value else value
