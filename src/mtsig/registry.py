"""One registry shape for everything a newcomer or a plugin adds: metrics, test kinds, paired tests,
corrections, studies, formats, analyses, human-judgment protocols and meta-evaluation statistics.

A :class:`Registry` is a ``dict`` (name -> entry) with

- :meth:`Registry.register`: add an entry under its name (``entry.name`` unless a name is given; a class
  decorator too), checked by the registry's own ``check``;
- :meth:`Registry.get`: the entry called ``name`` (aliases followed, case as registered); an unknown name first
  loads the installed plugins of the registry's entry-point group, then raises an :class:`UnknownNameError`
  that lists the names known (``get(name, default)`` behaves like ``dict.get``);
- :meth:`Registry.names`: the names, in registration order;
- :meth:`Registry.load_plugins`: the registry's entry-point group, once. An entry point is an object
  ``register`` accepts (``from_entry_point``: e.g. a metric class), a module that registers on import, or a
  function of no arguments that registers when called. A plugin that fails to load is a warning.

The registries themselves live beside what they hold (``mtsig.metrics.REGISTRY``,
``mtsig.stats.kinds.KINDS``, ``mtsig.stats.paired.PAIRED_TESTS``, ``mtsig.stats.multiple.CORRECTIONS``,
``mtsig.studies.registry.STUDIES``, ``mtsig.report.render.FORMATS``, ``mtsig.analysis.core.ANALYSES``,
``mtsig.humaneval.protocols.PROTOCOLS``, ``mtsig.metaeval.core.STATISTICS``); :data:`ALL` lists them by
entry-point group, so that :func:`mtsig.plugins.load_plugins` loads every group.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from mtsig.errors import InputError, unknown_name

T = TypeVar("T")
_MISSING: Any = object()

#: every registry by its entry-point group (filled as registries are created; test kinds and paired tests share
#: one group)
ALL: dict[str, list[Registry]] = {}
#: the entry-point groups whose plugins were loaded (a group is loaded once, whichever of its registries asks)
_LOADED: set[str] = set()


class Registry(dict, Generic[T]):
    """Named entries of one kind (see the module's docstring)."""

    def __init__(  # noqa: PLR0913 - each keyword is one of the registry's own settings
        self,
        kind: str,
        group: str | None = None,
        *,
        aliases: dict[str, str] | None = None,
        check: Callable[[Any], None] | None = None,
        from_entry_point: Callable[[str, Any], bool] | None = None,
        casefold: bool = False,
        builtin: str | None = None,
    ):
        super().__init__()
        #: the module that registers the built-in entries, imported when the registry is first read (so that
        #: importing the registry, or a settings class that names it, does not import every entry)
        self._builtin = builtin
        #: what an entry is called in messages ("metric", "correction", ...)
        self.kind = kind
        #: the entry-point group plugins declare their entries in
        self.group = group
        self.aliases: dict[str, str] = dict(aliases or {})
        self._check = check
        self._from_entry_point = from_entry_point
        self._casefold = casefold
        if group:
            ALL.setdefault(group, []).append(self)

    def key(self, name: str) -> str:
        """The registered spelling of ``name`` (aliases followed; lowercased where the registry is
        case-insensitive)."""
        k = name.lower() if self._casefold else name
        return self.aliases.get(k, k)

    def register(self, entry: T, name: str | None = None, *, replace: bool = False) -> T:
        """Add ``entry`` under ``name`` (default: ``entry.name``); returns it (usable as a class decorator). A name
        already registered is an error unless ``replace`` (a plugin must not silently replace a built-in)."""
        if self._check is not None:
            self._check(entry)
        raw = name if name is not None else entry.name  # type: ignore[attr-defined]
        k = raw.lower() if self._casefold else raw
        if k in self.aliases:
            raise InputError(f"{self.kind} {raw!r} is already an alias of {self.aliases[k]!r}: choose another name")
        if dict.__contains__(self, k) and not replace and dict.__getitem__(self, k) is not entry:
            raise InputError(f"{self.kind} {raw!r} is already registered; register(..., replace=True) to replace it")
        dict.__setitem__(self, k, entry)
        return entry

    def _load_builtin(self) -> None:
        if self._builtin is not None:
            module, self._builtin = self._builtin, None
            import importlib

            importlib.import_module(module)

    def __getitem__(self, name: str) -> T:
        self._load_builtin()
        return dict.__getitem__(self, self.key(name) if isinstance(name, str) else name)

    def __iter__(self):
        self._load_builtin()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load_builtin()
        return dict.__len__(self)

    def keys(self):  # type: ignore[override]
        self._load_builtin()
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self._load_builtin()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self._load_builtin()
        return dict.items(self)

    def get(self, name: str, default: Any = _MISSING) -> T:  # type: ignore[override]
        """The entry called ``name``; an unknown name loads the group's plugins first, then raises (or returns
        ``default`` when one is given)."""
        self._load_builtin()
        k = self.key(name)
        if k not in self and self.group not in _LOADED:
            self.load_plugins()
        if k in self:
            return self[k]
        if default is not _MISSING:
            return default
        raise unknown_name(self.kind, name, tuple(self))

    def __contains__(self, name: object) -> bool:
        self._load_builtin()
        return super().__contains__(self.key(name) if isinstance(name, str) else name)

    def names(self) -> tuple[str, ...]:
        """The registered names, in registration order (plugins registered so far included)."""
        return tuple(self)

    def load_plugins(self) -> None:
        """Register the entries of installed plugins (this registry's entry-point group), once."""
        if not self.group or self.group in _LOADED:
            return
        self._load_builtin()  # the built-in entries first: a plugin may not take their names
        _LOADED.add(self.group)
        from importlib.metadata import entry_points

        for ep in entry_points(group=self.group):
            try:
                obj = ep.load()
                if self._from_entry_point is not None and self._from_entry_point(ep.name, obj):
                    continue
                if callable(obj):
                    obj()
            except Exception as exc:  # noqa: BLE001 - a broken plugin must not break mtsig
                warnings.warn(f"mtsig: {self.kind} plugin {ep.name!r} ({ep.value}) could not be loaded: {exc}",
                              stacklevel=2)  # fmt: skip
