"""The compiled parts (C extensions built by ``setup.py``; optional: each has a NumPy/Python reference that gives
the same numbers). An install without a C compiler succeeds and silently loses them, so the missing ones are said
at run time, once per process, in one line naming them all: the results are the same, only slower."""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

#: compiled part -> what runs slower without it
WHAT = {
    "_tok": "13a tokenization",
    "_ter": "TER (its edit-distance search: about 15x slower)",
    "_plan": "resampling plans",
    "_meta": "meta-evaluation's acc23 permutations (about 30x slower)",
    "_meteor": "METEOR's alignment search",
}
_said: list[bool] = []

#: threads of the compiled meta-evaluation kernels (acc23's and pce's; each call runs on one, the caller splits the
#: work): ``MTSIG_THREADS``, else two or the machine's cores if fewer. The same numbers with any count.
KERNEL_THREADS = (
    int(os.environ["MTSIG_THREADS"])
    if os.environ.get("MTSIG_THREADS", "").isdigit() and int(os.environ["MTSIG_THREADS"]) > 0
    else min(2, os.cpu_count() or 1)
)


def missing() -> list[str]:
    """The compiled parts this install lacks."""
    import importlib.util

    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(f"mtsig.{name}") is None
        except ImportError:
            return True

    return [name for name in WHAT if absent(name)]


def load(name: str) -> ModuleType | None:
    """``mtsig.<name>``, or None. The first part found missing is said once per process, in one line naming every
    missing part (no source line: the warning is about the install, not about a line of code)."""
    try:
        return importlib.import_module(f"mtsig.{name}")
    except ImportError:
        if not _said:
            _said.append(True)
            from mtsig.errors import MtsigWarning

            parts = missing() or [name]
            slower = "; ".join(WHAT.get(p, p) for p in parts)
            warnings.warn_explicit(
                f"mtsig was installed without its compiled parts ({', '.join('mtsig.' + p for p in parts)}): the "
                f"results are the same, slower ({slower}); install a C compiler and reinstall mtsig to get them",
                MtsigWarning,
                filename="mtsig",
                lineno=0,
            )
        return None
