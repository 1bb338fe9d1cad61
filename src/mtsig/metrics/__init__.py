"""Metrics and their registry."""

from __future__ import annotations

from typing import Any

from mtsig.errors import unknown_name
from mtsig.metrics.base import Metric
from mtsig.metrics.bleu import BLEU, LengthRatio, ModifiedBLEU
from mtsig.metrics.chrf import CHRF, CHRFpp
from mtsig.metrics.nist import NIST
from mtsig.metrics.ter import TER

REGISTRY: dict[str, type[Metric]] = {
    cls.name: cls for cls in (BLEU, NIST, ModifiedBLEU, LengthRatio, TER, CHRF, CHRFpp)
}
ALIASES = {"m-bleu": "mbleu", "modified-bleu": "mbleu", "len": "length", "chrfpp": "chrf++"}


def get_metric(name: str, **options: Any) -> Metric:
    """Build the metric called ``name``; options it does not take are ignored (so one set of
    command-line options can serve several metrics)."""
    key = ALIASES.get(name.lower(), name.lower())
    if key not in REGISTRY:
        raise unknown_name("metric", name, list(REGISTRY))
    cls = REGISTRY[key]
    return cls(**{k: v for k, v in options.items() if k in cls.options})


__all__ = ["Metric", "BLEU", "NIST", "ModifiedBLEU", "LengthRatio", "TER", "REGISTRY", "get_metric"]
