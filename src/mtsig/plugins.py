"""Plugins: what installed packages add to mtsig's registries, through entry points.

- ``mtsig.metrics``: a :class:`~mtsig.metrics.base.Metric` subclass per entry point, named as the metric;
- ``mtsig.tests``, ``mtsig.studies``, ``mtsig.formats``: a module that registers on import, or a function of no
  arguments that registers when called (:func:`mtsig.stats.kinds.register_kind` and
  :func:`mtsig.stats.paired.register_test`; :func:`mtsig.studies.registry.register_study`;
  :func:`mtsig.report.render.register_format`).

Scanning entry points takes tens of milliseconds, so the command line loads plugins only when they may matter
(help, or a name or flag that is not a built-in one). A plugin that fails to load is reported with a warning
and skipped.
"""

from __future__ import annotations

import warnings

GROUPS = ("mtsig.tests", "mtsig.studies", "mtsig.formats")
_loaded = False


def load_plugins() -> None:
    """Register every installed plugin (metrics, tests and kinds, studies, formats), once."""
    global _loaded
    from mtsig.metrics import load_plugins as load_metrics

    load_metrics()
    if _loaded:
        return
    _loaded = True
    from importlib.metadata import entry_points

    for group in GROUPS:
        for ep in entry_points(group=group):
            try:
                obj = ep.load()
                if callable(obj):
                    obj()
            except Exception as exc:  # noqa: BLE001 - a broken plugin must not break mtsig
                warnings.warn(f"mtsig: plugin {ep.name!r} ({ep.value}) could not be loaded: {exc}", stacklevel=2)
