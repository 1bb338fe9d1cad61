"""The compiled parts (C extensions built by ``setup.py``; optional: each has a NumPy/Python reference that gives
the same numbers). An install without a C compiler succeeds and silently loses them, so a missing one is said at
run time, once, in one line: the results are the same, only slower."""

from __future__ import annotations

import importlib
import warnings
from types import ModuleType

#: compiled part -> what runs slower without it
WHAT = {
    "_tok": "13a tokenization",
    "_ter": "TER (its edit-distance search: about 15x slower)",
    "_plan": "resampling plans",
    "_meteor": "METEOR's alignment search",
}
_said: set[str] = set()


def load(name: str) -> ModuleType | None:
    """``mtsig.<name>``, or None with a one-line warning (once per part and process) when it was not built."""
    try:
        return importlib.import_module(f"mtsig.{name}")
    except ImportError:
        if name not in _said:
            _said.add(name)
            from mtsig.errors import MtsigWarning

            warnings.warn(
                f"the compiled part mtsig.{name} is missing (mtsig was installed without a C compiler): "
                f"{WHAT.get(name, name)} runs in Python, with the same results but slower; install a C compiler "
                "and reinstall mtsig to get it",
                MtsigWarning,
                stacklevel=2,
            )
        return None
