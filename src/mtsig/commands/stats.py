"""``mtsig stats``: the per-segment statistics written to an .npz file (score once, test many times)."""

from __future__ import annotations

import argparse
import sys

from mtsig.commands.common import input_flags


def add_args(p: argparse.ArgumentParser) -> None:
    input_flags(p, stats_input=False)
    p.add_argument("--output", "-o", required=True, metavar="FILE.npz", help="statistics file to write")


def run(a: argparse.Namespace, table, prog) -> None:
    try:
        table.save(a.output)
    except OSError as exc:
        from mtsig.errors import InputError

        raise InputError(f"--output {a.output}: cannot write ({exc.strerror or exc})") from None
    print(
        f"wrote statistics of {len(table.systems)} system(s) x {len(table.metrics)} metric(s), "
        f"{table.n_segments} segments, to {a.output}",
        file=sys.stderr,
    )
