"""Plugins: what installed packages add to mtsig's registries, through entry points.

Every registry (:class:`mtsig.registry.Registry`) has its entry-point group:

- ``mtsig.metrics``: a :class:`~mtsig.metrics.base.Metric` subclass per entry point, named as the metric;
- ``mtsig.tests`` (test kinds and paired tests), ``mtsig.corrections``, ``mtsig.studies``, ``mtsig.formats``,
  ``mtsig.analyses``, ``mtsig.protocols`` (human-judgment protocols), ``mtsig.meta_statistics``: a module that
  registers on import, or a function of no arguments that registers when called.

Scanning entry points takes tens of milliseconds, so a registry loads its group's plugins only when a name it is
asked for is unknown, and the command line loads them all only when they may matter (help, or a flag that is
not a built-in one). A plugin that fails to load is reported with a warning and skipped.
"""

from __future__ import annotations

#: the groups of the registries that are not imported by every command (loaded by name, see load_plugins)
GROUPS = ("mtsig.metrics", "mtsig.tests", "mtsig.corrections", "mtsig.studies", "mtsig.formats", "mtsig.analyses",
          "mtsig.protocols", "mtsig.meta_statistics")  # fmt: skip


def load_plugins() -> None:
    """Register every installed plugin (of every registry's group), once."""
    import importlib.metadata

    import mtsig.metrics  # noqa: F401 - its entry points are classes: its registry must load them
    from mtsig.registry import _LOADED, ALL

    for group in GROUPS:
        if group in _LOADED:
            continue
        regs = ALL.get(group)
        if regs:
            regs[0].load_plugins()
            continue
        _LOADED.add(group)  # a registry whose module is not imported yet: its plugins register on import or call
        for ep in importlib.metadata.entry_points(group=group):
            _call(ep)


def _call(ep) -> None:
    import warnings

    try:
        obj = ep.load()
        if callable(obj):
            obj()
    except Exception as exc:  # noqa: BLE001 - a broken plugin must not break mtsig
        warnings.warn(f"mtsig: plugin {ep.name!r} ({ep.value}) could not be loaded: {exc}", stacklevel=2)
