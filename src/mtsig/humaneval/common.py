"""What every ranking procedure of human judgments shares: the checks of the judgments and the JSON's settings
(used by :mod:`mtsig.humaneval.protocols` and by the procedures in modules of their own, which
:mod:`~mtsig.humaneval.protocols` does not import)."""

from __future__ import annotations

from typing import Any

from mtsig.declare import changed
from mtsig.errors import InputError
from mtsig.io.human import HumanScores


def check_rankable(h: HumanScores) -> None:
    """Every system judged on some segment, and at least two systems."""
    empty = [s for k, s in enumerate(h.systems) if h.n_segments(k) == 0]
    if empty:
        raise InputError(f"no judged segment for system(s) {', '.join(empty)}")
    if len(h.systems) < 2:
        raise InputError(f"ranking needs at least two systems; the judgments have {len(h.systems)}")


def settings_of(h: HumanScores, opts: Any, unit: str, **extra) -> dict:
    """The JSON's settings: what the protocol ran with, then every other setting given (not at its default) under
    its own name."""
    out = {"protocol": opts.protocol, "input_format": h.input_format, "files": list(h.sources),
           "n_systems": len(h.systems), "n_segments": len(h.segments), "alpha": opts.alpha,
           "confidence": opts.confidence, "n_bootstrap": opts.n_bootstrap, "seed": opts.seed,
           "resample_unit": unit, **extra}  # fmt: skip
    return {**out, **changed(opts, tuple(out))}
