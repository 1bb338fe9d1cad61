"""Build the optional C extension (the TER search); everything else is in pyproject.toml.

The extension is optional: when it cannot be compiled (no C compiler), mtsig installs anyway and TER
falls back to sacreBLEU's pure-Python search (slow, same numbers), with a warning.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("mtsig._ter", ["src/mtsig/_ter.c"], optional=True, extra_compile_args=["-O3"])])
