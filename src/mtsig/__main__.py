"""``python -m mtsig``: the command line."""

if __name__ == "__main__":  # imported (documentation tools inspect every module): nothing runs
    try:
        from mtsig.cli import run
    except KeyboardInterrupt:  # Ctrl-C while starting: the same one line as later
        import os
        import sys

        print("mtsig: interrupted", file=sys.stderr)
        os._exit(130)
    run()
