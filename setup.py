"""Build the optional C extensions (the TER search; the 13a tokenization rules and word coding; the
resampling plans' bootstrap counts and stratified totals; METEOR's alignment search); everything else is in
pyproject.toml.

All are optional: when they cannot be compiled (no C compiler), mtsig installs anyway; TER falls back to
sacreBLEU's pure-Python search (slow, same numbers, with a warning), tokenization to the same rules as Python
regular expressions (slower, same tokens), the resampling kernels to numpy (slower, same numbers), METEOR's
search to its Python version (slower, same alignments).
"""

from setuptools import Extension, setup

#: the offsets check every entry point shares
CHECKS = ["src/mtsig/_checks.h"]

setup(
    ext_modules=[
        Extension(f"mtsig.{name}", [f"src/mtsig/{name}.c"], depends=CHECKS, optional=True, extra_compile_args=["-O3"])
        for name in ("_ter", "_tok", "_meteor", "_plan", "_meta")
    ]
)
