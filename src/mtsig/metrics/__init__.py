"""Metrics and their registry (plugins add metrics through the ``mtsig.metrics`` entry point group)."""

from __future__ import annotations

from typing import Any

from mtsig.errors import InputError
from mtsig.metrics.base import Metric
from mtsig.metrics.bleu import BLEU, LengthRatio, ModifiedBLEU
from mtsig.metrics.chrf import CHRF, CHRFpp
from mtsig.metrics.depf import DepF
from mtsig.metrics.meteor import METEOR
from mtsig.metrics.nist import NIST
from mtsig.metrics.options import Option, SideInput
from mtsig.metrics.segscore import SegmentScores
from mtsig.metrics.ter import TER
from mtsig.registry import Registry

ENTRY_POINT_GROUP = "mtsig.metrics"


def _check_metric(cls: Any) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise TypeError(f"{cls!r} is not a subclass of mtsig.metrics.Metric")


def _metric_entry_point(name: str, cls: Any) -> bool:
    """A ``mtsig.metrics`` entry point is the metric's class, named as the metric."""
    if name != getattr(cls, "name", None):
        raise TypeError(f"entry point {name!r} names a metric called {getattr(cls, 'name', None)!r}")
    register_metric(cls)
    return True


#: the metrics by name (case-insensitive, with aliases); plugins through the ``mtsig.metrics`` entry-point group
REGISTRY: Registry[type[Metric]] = Registry(
    "metric",
    ENTRY_POINT_GROUP,
    aliases={"m-bleu": "mbleu", "modified-bleu": "mbleu", "len": "length", "chrfpp": "chrf++"},
    check=_check_metric,
    from_entry_point=_metric_entry_point,
    casefold=True,
)
ALIASES = REGISTRY.aliases
for _cls in (BLEU, NIST, ModifiedBLEU, LengthRatio, TER, CHRF, CHRFpp, DepF, SegmentScores, METEOR):
    REGISTRY.register(_cls)


def register_metric(cls: type[Metric]) -> type[Metric]:
    """Add a Metric subclass to the registry under ``cls.name`` (usable as a class decorator)."""
    return REGISTRY.register(cls)


def load_plugins() -> None:
    """Register the metrics that installed packages declare in the ``mtsig.metrics`` entry point group.

    A plugin that fails to load is reported with a warning and skipped.
    """
    REGISTRY.load_plugins()


def all_options(plugins: bool = False) -> dict[str, Option]:
    """Every option of every registered metric, each name once (first declaration); with ``plugins``,
    installed plugins are registered first (scanning entry points takes tens of milliseconds)."""
    if plugins:
        load_plugins()
    out: dict[str, Option] = {}
    for cls in REGISTRY.values():
        for k, o in cls.declared_options().items():
            out.setdefault(k, o)
    return out


def all_side_inputs(plugins: bool = False) -> dict[str, SideInput]:
    """Every side input of every registered metric, each name once (``plugins``: as for all_options)."""
    if plugins:
        load_plugins()
    out: dict[str, SideInput] = {}
    for cls in REGISTRY.values():
        for k, s in cls.side_inputs.items():
            out.setdefault(k, s)
    return out


def check_option_names(names, allowed_extra=()) -> None:
    """Raise an :class:`InputError` for a keyword that is no metric's option nor in ``allowed_extra``."""
    valid = {*all_options(), *all_side_inputs(), *allowed_extra}
    bad = [n for n in names if n not in valid]
    if bad:  # perhaps a plugin's option
        valid |= {*all_options(plugins=True), *all_side_inputs(plugins=True)}
        bad = [n for n in names if n not in valid]
    if bad:
        import difflib

        hint = difflib.get_close_matches(bad[0], sorted(valid), n=1)
        raise InputError(
            f"unknown option {bad[0]!r}"
            + (f" (did you mean {hint[0]!r}?)" if hint else "")
            + f"; the valid options are: {', '.join(sorted(valid))}"
        )


def get_metric(name: str, **options: Any) -> Metric:
    """Build the metric called ``name``; options it does not take are ignored (so one set of
    command-line options can serve several metrics)."""
    cls = REGISTRY.get(name)
    try:
        return cls(**{k: v for k, v in options.items() if k in cls.options})
    except InputError:
        raise
    except (TypeError, ValueError) as exc:
        raise InputError(f"metric {name!r}: {exc}") from None


__all__ = [
    "Metric",
    "BLEU",
    "NIST",
    "ModifiedBLEU",
    "LengthRatio",
    "TER",
    "CHRF",
    "CHRFpp",
    "DepF",
    "METEOR",
    "SegmentScores",
    "REGISTRY",
    "get_metric",
    "Option",
    "SideInput",
    "all_options",
    "all_side_inputs",
    "check_option_names",
    "register_metric",
    "load_plugins",
]
