"""``python -m mtsig``: the command line."""

from mtsig.cli import run

run()
