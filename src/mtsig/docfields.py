"""Settings documented once, where they are declared: an options dataclass field carries its description in its
metadata (:func:`setting`), and the API's docstrings are written from those descriptions (:func:`parameters`),
so a keyword's documentation cannot drift from the option it sets."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import Any


def setting(default: Any = dataclasses.MISSING, doc: str = "", *, factory: Callable[[], Any] | None = None) -> Any:
    """A dataclass field with its description (what :func:`parameters` writes into the API's docstrings)."""
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={"doc": doc})
    return dataclasses.field(default=default, metadata={"doc": doc})


def field_docs(*classes: type) -> dict[str, str]:
    """Each field's description, by field name (the first class naming a field wins)."""
    out: dict[str, str] = {}
    for cls in classes:
        for f in dataclasses.fields(cls):
            if f.metadata.get("doc"):
                out.setdefault(f.name, f.metadata["doc"])
    return out


def field_defaults(*classes: type) -> dict[str, Any]:
    """Each field's default value, by field name (the first class naming a field wins)."""
    out: dict[str, Any] = {}
    for cls in classes:
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                out.setdefault(f.name, f.default)
            elif f.default_factory is not dataclasses.MISSING:
                out.setdefault(f.name, f.default_factory())
    return out


def parameters(fn: Callable, docs: Mapping[str, str], *, skip: tuple[str, ...] = ()) -> str:
    """The numpydoc ``Parameters`` section of ``fn``: one entry per parameter, in the signature's order, each from
    ``docs``. Parameters that share one description are listed together. A parameter without a description is an
    error here (at import), never a silent gap in ``help()``."""
    groups: list[tuple[list[str], str]] = []
    for p in inspect.signature(fn).parameters.values():
        if p.name in skip:
            continue
        name = "**" + p.name if p.kind is p.VAR_KEYWORD else p.name
        doc = docs.get(p.name)
        if not doc:
            raise TypeError(f"{fn.__name__}: parameter {p.name} has no description")
        if groups and groups[-1][1] == doc:
            groups[-1][0].append(name)
        else:
            groups.append(([name], doc))
    lines = ["Parameters", "----------"]
    for names, doc in groups:
        lines.append(", ".join(names))
        lines += _wrap(doc, 112, "    ")
    return "\n".join(lines)


def _wrap(text: str, width: int, indent: str) -> list[str]:
    """``text`` filled greedily into lines of at most ``width`` characters (a longer word alone on its line), each
    indented: textwrap's fill without breaking words at hyphens, at a fraction of its cost (the entry points are
    documented when :mod:`mtsig.api` is imported, by every command)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(indent) + len(line) + 1 + len(word) > width:
            lines.append(indent + line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(indent + line)
    return lines


def document(fn: Callable, docs: Mapping[str, str], *, skip: tuple[str, ...] = ()) -> Callable:
    """Put the generated ``Parameters`` section in place of ``{parameters}`` in ``fn``'s docstring."""
    text = inspect.cleandoc(fn.__doc__ or "")
    if "{parameters}" not in text:
        raise TypeError(f"{fn.__name__}: its docstring has no {{parameters}} place")
    fn.__doc__ = text.replace("{parameters}", parameters(fn, docs, skip=skip))
    return fn
