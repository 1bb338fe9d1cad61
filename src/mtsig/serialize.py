"""One serializer for every result: ``to_dict`` reads each dataclass field's ``json`` metadata.

A field with no metadata is written under its own name, its value made plain: a result inside it becomes its
``to_dict()``, an interval its ``[low, high]``, a tuple a list, a mapping a new dict, all the way down. The
metadata (built with :func:`out` and attached with :func:`jfield`, or passed as ``metadata=out(...)``) says
otherwise:

- ``skip``: not in the JSON (decimals shown, kept distributions, what an interactive view opens);
- ``key``: the JSON's name for the field;
- ``omit``: left out when the value is None (``"none"``), when it is None or an empty mapping, list or tuple
  (``"empty"``), or when a
  callable ``omit(value, result)`` says so;
- ``convert``: ``convert(value, result)`` makes the value written (before any ``flatten``);
- ``flatten``: the value (a mapping) is merged into the result's own keys. It never overwrites one: keys that
  clash with a field written before it are kept apart under the field's own key (so a plugin's extra field
  named ``p_value`` cannot replace the test's).

The keys come in field order. A class uses it as ``to_dict = as_dict``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["as_dict", "jfield", "out", "plain"]

_KEY = "json"
_SCALARS = (str, int, float, bool, type(None))


#: a field as written: (name, key, omit, convert, flatten) (a tuple: a dataclass would cost start-up time)
_Spec = tuple[str, str, "Callable[[Any, Any], bool] | None", "Callable[[Any, Any], Any] | None", bool]


def _none(value: Any, _obj: Any) -> bool:
    return value is None


def _empty(value: Any, _obj: Any) -> bool:
    return value is None or (isinstance(value, (Mapping, list, tuple)) and len(value) == 0)


_OMIT: dict[str, Callable[[Any, Any], bool]] = {"none": _none, "empty": _empty}


def out(
    *,
    skip: bool = False,
    key: str | None = None,
    omit: str | Callable[[Any, Any], bool] | None = None,
    convert: Callable[[Any, Any], Any] | None = None,
    flatten: bool = False,
) -> dict[str, Any]:
    """A field's metadata for :func:`as_dict` (see the module's docstring)."""
    if isinstance(omit, str) and omit not in _OMIT:
        raise ValueError(f"omit must be one of {', '.join(_OMIT)} or a callable, got {omit!r}")
    return {_KEY: {"skip": skip, "key": key, "omit": omit, "convert": convert, "flatten": flatten}}


def jfield(default: Any = dataclasses.MISSING, **kw: Any) -> Any:
    """A dataclass field with :func:`out`'s metadata; ``default_factory``, ``repr`` and ``compare`` pass on to
    :func:`dataclasses.field`."""
    passed = {k: kw.pop(k) for k in ("default_factory", "repr", "compare", "init") if k in kw}
    return dataclasses.field(default=default, metadata=out(**kw), **passed)


_SPECS: dict[type, tuple[_Spec, ...]] = {}


def _specs(cls: type) -> tuple[_Spec, ...]:
    specs = _SPECS.get(cls)
    if specs is None:
        built = []
        for f in dataclasses.fields(cls):
            m = f.metadata.get(_KEY, {})
            if m.get("skip"):
                continue
            omit = m.get("omit")
            built.append((f.name, m.get("key") or f.name, _OMIT[omit] if isinstance(omit, str) else omit,
                          m.get("convert"), bool(m.get("flatten"))))  # fmt: skip
        specs = _SPECS[cls] = tuple(built)
    return specs


def as_dict(obj: Any) -> dict[str, Any]:
    """``obj``'s JSON as its fields' metadata declares it (module docstring)."""
    d: dict[str, Any] = {}
    for name, key, omit, convert, flatten in _specs(type(obj)):
        value = getattr(obj, name)
        if omit is not None and omit(value, obj):
            continue
        value = convert(value, obj) if convert is not None else plain(value)
        if not flatten:
            d[key] = value
            continue
        clash = {}
        for k, v in value.items():
            if k in d:
                clash[k] = v
            else:
                d[k] = v
        if clash:
            d[key] = clash
    return d


def plain(value: Any) -> Any:
    """``value`` as JSON holds it: results as their ``to_dict()``, intervals as ``[low, high]``, tuples as lists,
    mappings as new dicts (their values made plain too), other dataclasses by their fields; anything else as
    it is."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [x if isinstance(x, _SCALARS) else plain(x) for x in value]
    if isinstance(value, Mapping):
        return {k: v if isinstance(v, _SCALARS) else plain(v) for k, v in value.items()}
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return value
    for method in ("to_dict", "to_list"):
        if hasattr(value, method):
            return getattr(value, method)()
    return as_dict(value)
