"""Build the optional C extensions (the TER search; the 13a tokenization rules and word coding; the
resampling plans' bootstrap counts and stratified totals; METEOR's alignment search); everything else is in
pyproject.toml.

All are optional: when they cannot be compiled (no C compiler), mtsig installs anyway; TER falls back to
sacreBLEU's pure-Python search (slow, same numbers, with a warning), tokenization to the same rules as Python
regular expressions (slower, same tokens), the resampling kernels to numpy (slower, same numbers), METEOR's
search to its Python version (slower, same alignments).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("mtsig._ter", ["src/mtsig/_ter.c"], optional=True, extra_compile_args=["-O3"]),
        Extension("mtsig._tok", ["src/mtsig/_tok.c"], optional=True, extra_compile_args=["-O3"]),
        Extension("mtsig._meteor", ["src/mtsig/_meteor.c"], optional=True, extra_compile_args=["-O3"]),
        Extension("mtsig._plan", ["src/mtsig/_plan.c"], optional=True, extra_compile_args=["-O3"]),
    ]
)
