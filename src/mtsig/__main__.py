"""``python -m mtsig``: the command line."""

from mtsig.cli import run

if __name__ == "__main__":  # imported (documentation tools inspect every module): nothing runs
    run()
