"""One schema for every surface: each command's settings and inputs, read from the flags its module declares.

A command's flags are made once, by its module (:mod:`mtsig.commands`), mostly from declared settings classes
(:func:`mtsig.declare.add_flags` keeps each flag's declaration on it) and, for the inputs, with :func:`web` marking
what a flag names on disk. :func:`schema` walks that parser into :class:`Field` records, and everything other than
the command line is made from them:

- the web app's form of the command (``mtsig serve``: one control per field, its choices from the registries, its
  range and default from the declaration);
- the command line a form stands for (:func:`argv_of`), which the web app runs exactly as a user would type it:
  parsed by the same parser, checked by the same checks, so a surface never re-encodes a command;
- the list of what a surface does not offer, each with its reason (``Schema.off``).

A setting added to a command's declarations is in its form, its check and its command line with no other code.
"""

from __future__ import annotations

import argparse
import math
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtsig.errors import InputError
from mtsig.marks import NAMINGS, PATH_KINDS, Web, off, web  # noqa: F401 - the marks, re-exported

#: the other kinds of field: from the flag's action, type, choices and number of values
VALUE_KINDS = ("bool", "choice", "choices", "int", "float", "text", "texts")
#: the commands the web app offers, in the order of its tabs
SERVED = ("compare", "analyze", "score", "human", "meta")
#: the longest value a field takes as text (names, numbers, a test set's name): longer is refused, not cut
MAX_VALUE = 1000


@dataclass(frozen=True)
class Field:
    """One setting or input of a command as every surface sees it."""

    #: its name in a form (and in :func:`argv_of`'s values)
    name: str
    #: the argparse destination (the command's namespace)
    dest: str
    #: the command line's spelling (its first option string); None for a positional argument
    flag: str | None
    #: one of :data:`PATH_KINDS` or :data:`VALUE_KINDS`
    kind: str
    help: str
    #: the heading of the group it is in (the command's ``--help`` headings)
    group: str
    choices: tuple[str, ...] | None
    #: the value that applies when it is not given (None: none, or the command decides)
    default: Any
    low: float | None = None
    high: float | None = None
    open: bool = False
    naming: str = "stem"
    #: whether it takes several values (files, names, choices)
    many: bool = False
    #: one of the inputs most runs give (shown first)
    main: bool = False
    #: a list of numbers (``texts`` whose words must each be a number: the scale's bounds, levels)
    numbers: bool = False

    @property
    def is_path(self) -> bool:
        return self.kind in PATH_KINDS

    def shown_default(self) -> str:
        """The default as a form shows it (empty when there is none to show)."""
        d = self.default
        if d is None or d is False or d == () or d == []:
            return ""
        if isinstance(d, (tuple, list)):
            return " ".join(map(str, d))
        return str(d)


@dataclass(frozen=True)
class Schema:
    """A command's fields in the order of its flags, and what is not offered (``dest -> reason``)."""

    command: str
    fields: tuple[Field, ...]
    off: Mapping[str, str]

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def by_dest(self, dest: str) -> Field | None:
        return next((f for f in self.fields if f.dest == dest), None)

    @property
    def paths(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.is_path)

    def groups(self) -> list[tuple[str, list[Field]]]:
        out: dict[str, list[Field]] = {}
        for f in self.fields:
            out.setdefault(f.group, []).append(f)
        return list(out.items())


def parser_of(command: str) -> argparse.ArgumentParser:
    """The command's parser, as the command line builds it."""
    from mtsig.cli import COMMANDS, build_parser

    if command not in COMMANDS:
        raise InputError(f"unknown command {command!r}: {', '.join(COMMANDS)}")
    return build_parser(command).commands[command]


def schema(command: str) -> Schema:
    """The fields of ``command`` (one of :data:`SERVED`), from its parser."""
    fields: list[Field] = []
    offs: dict[str, str] = {}
    for group in parser_of(command)._action_groups:
        for action in group._group_actions:
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                continue
            w: Web = getattr(action, "mtsig_web", None) or Web()
            if w.off:
                offs[action.dest] = w.off
                continue
            fields.append(_field(action, w, group.title or "options"))
    names = [f.name for f in fields]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"{command}: form field(s) {', '.join(dup)} named twice")
    return Schema(command, tuple(fields), offs)


def _choices(action: argparse.Action, w: Web) -> tuple[str, ...] | None:
    if action.choices is not None:
        return tuple(str(c) for c in action.choices)
    if w.names is not None:
        names = w.names() if callable(w.names) else w.names
        return tuple(str(n) for n in names)
    return None


def _kind(action: argparse.Action, w: Web, choices: tuple[str, ...] | None) -> tuple[str, bool]:
    many = action.nargs in ("+", "*") or (isinstance(action.nargs, int) and action.nargs > 1)
    if w.kind is not None:
        return w.kind, w.kind in ("files", "named")
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._StoreConstAction)):
        return "bool", False
    if choices is not None:
        return ("choices" if many else "choice"), many
    if action.type is int or w.value in ("int", "ints"):
        return ("texts" if many else "int"), many
    if action.type is float or w.value in ("float", "floats"):
        return ("texts" if many else "float"), many
    return ("texts" if many else "text"), many


def _field(action: argparse.Action, w: Web, group: str) -> Field:
    choices = _choices(action, w)
    kind, many = _kind(action, w, choices)
    if not action.option_strings and kind not in PATH_KINDS:
        raise ValueError(f"positional argument {action.dest!r}: mark what it names (mtsig.surface.web)")
    default = w.default if w.default is not None else action.default
    if default is argparse.SUPPRESS:
        default = None
    help_text = (action.help or "").replace("%%", "%")
    numbers = kind == "texts" and (action.type in (int, float) or w.value in ("ints", "floats"))
    return Field(name=w.form or action.dest, dest=action.dest, flag=action.option_strings[0] if action.option_strings
                 else None, kind=kind, help=help_text, group=group, choices=choices, default=default, low=w.low,
                 high=w.high, open=w.open, naming=w.naming, many=many, main=w.main,
                 numbers=numbers)  # fmt: skip


# ------------------------------------------------------------------------------------------------ values to argv
def _number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _clean(f: Field, text: str) -> str:
    """One value as typed, checked: no control characters, not too long, not read as a flag."""
    if len(text) > MAX_VALUE:
        raise InputError(f"{f.name}: at most {MAX_VALUE:,} characters, got {len(text):,}", param=f.name)
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise InputError(f"{f.name}: a control character (such as a NUL byte or a line break) in {text[:40]!r}",
                         param=f.name)  # fmt: skip
    if text.startswith("-") and not _number(text):
        raise InputError(f"{f.name}: {text!r} starts with '-' (a value, not a flag)", param=f.name)
    return text


def _words(f: Field, text: str) -> list[str]:
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise InputError(f"{f.name}: {exc} in {text[:60]!r}", param=f.name) from None
    return [_clean(f, w) for w in words]


def _given(values: Mapping[str, Any], name: str) -> list[str]:
    v = values.get(name)
    if v is None:
        return []
    return [str(x) for x in v] if isinstance(v, (list, tuple)) else [str(v)]


_TRUE = ("1", "on", "true", "yes")


def _at_default(f: Field, words: list[str]) -> bool:
    d = f.default
    if d is None:
        return False
    if isinstance(d, (tuple, list)):
        return [str(x) for x in d] == words
    return len(words) == 1 and words[0] == str(d)


def values_argv(f: Field, given: list[str]) -> list[str]:
    """The words a (non-path) field adds to the command line for the values ``given`` (empty when not given, or at
    its default)."""
    if f.kind == "bool":
        on = any(v.strip().lower() in _TRUE for v in given)
        return [f.flag] if on and f.flag else []
    if f.kind == "choices":
        words = [_clean(f, v.strip()) for v in given if v.strip()]
    elif f.kind == "texts":
        words = [w for v in given for w in _words(f, v)]
    else:
        texts = [v.strip() for v in given if v.strip()]
        if len(texts) > 1:
            raise InputError(f"{f.name}: give one value, got {len(texts)}", param=f.name)
        words = [_clean(f, t) for t in texts]
    if not words or _at_default(f, words):
        return []
    assert f.flag is not None  # a positional is a path
    return [f.flag, *words]


def name_of(path: str, default: str, keep: str = "") -> str:
    """A name taken from a file's name (what the command line shows): its stem, other characters than letters,
    digits, ``.``, ``-`` and ``keep`` as ``_``, at most 64 characters."""
    import re

    return re.sub(rf"[^\w.{keep}-]", "_", Path(path).stem)[:64] or default


def unused(name: str, taken: set[str]) -> str:
    """``name``, with ``_`` appended until no other name has it."""
    while name in taken:
        name += "_"
    return name


def holds_systems(path: str) -> bool:
    """A WMT XML or SGML file may hold several systems: given as it is, it gives each of them."""
    return Path(path).suffix.lower() in (".xml", ".sgm", ".sgml")


def _one_system_scores(path: str) -> bool:
    from mtsig.io.segscores import read_score_file

    return read_score_file(path).kind in ("column", "metricx")


def named(f: Field, paths: list[str]) -> list[str]:
    """A ``named`` field's files as the command line takes them: ``NAME=FILE``, the name from the file's name
    (unique), or the file as it is where it names its systems itself (:data:`NAMINGS`)."""
    out: list[str] = []
    taken: set[str] = set()
    for p in paths:
        if (f.naming == "systems" and holds_systems(p)) or (f.naming == "scores" and not _one_system_scores(p)):
            out.append(p)
            continue
        name = unused(name_of(p, f.dest.rstrip("s") or "file", "+" if f.naming == "stem" else ""), taken)
        taken.add(name)
        out.append(f"{name}={p}")
    return out


def path_argv(f: Field, paths: list[str]) -> list[str]:
    """The words a path field adds for the files ``paths`` (as the command will read them)."""
    if not paths:
        return []
    if f.kind in ("file", "dir") and len(paths) > 1:
        raise InputError(f"{f.name}: give one {'folder' if f.kind == 'dir' else 'file'}, got {len(paths)}",
                         param=f.name)  # fmt: skip
    words = named(f, paths) if f.kind == "named" else list(paths)
    return [f.flag, *words] if f.flag else words


def argv_of(sch: Schema, values: Mapping[str, Any], paths: Mapping[str, list[str]]) -> list[str]:
    """The command line (after ``mtsig``) that a form's ``values`` (field name -> text or texts) and ``paths``
    (field name -> the files given, as the command will read them) stand for: the command, its positional inputs,
    the files, then every other field given, each part in the order of the flags; a field at its default is left
    out."""
    unknown = sorted(set(paths) - {f.name for f in sch.paths})
    if unknown:
        raise InputError(f"no input {', '.join(unknown)} in {sch.command}'s form", param=unknown[0])
    head: list[str] = []
    files: list[str] = []
    rest: list[str] = []
    for f in sch.fields:
        if f.is_path:
            (head if f.flag is None else files).extend(path_argv(f, list(paths.get(f.name, []))))
        else:
            rest.extend(values_argv(f, _given(values, f.name)))
    return [sch.command, *head, *files, *rest]


def command_line(argv: Sequence[str]) -> str:
    """The command as a shell takes it."""
    return shlex.join(["mtsig", *argv])
