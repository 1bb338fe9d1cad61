"""``mtsig metrics``: the available metrics, their options and direction."""

from __future__ import annotations

import argparse

add_args = None  # no flags


def run(a: argparse.Namespace, table, prog) -> str:
    """Every registered metric (plugins included): its direction, description and options."""
    from mtsig.metrics import REGISTRY
    from mtsig.plugins import load_plugins

    load_plugins()
    lines = []
    for name, cls in REGISTRY.items():
        opts = ", ".join(f"{k}={o.default!r}" for k, o in cls.declared_options().items())
        direction = "higher" if cls.higher_is_better else "lower"
        direction = f"closest to {cls.target:g}" if cls.target is not None else direction
        lines += [f"{name:8s} {direction + ' is better':26s} {cls.description}", f"{'':8s} options: {opts}"]
    return "".join(x + "\n" for x in lines)
