"""Ctrl-C while worker processes run (issue 60): a terminal sends SIGINT to the whole foreground process group, the
workers included. At 20 random moments of a parallel analyze, compare and human, the command must end with one line
("mtsig: interrupted"), exit 130, print no traceback and leave no process behind."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.data import DATA, need

WMT = DATA / "wmt22-de-en"


def _human_file(tmp_path: Path) -> Path:
    rng = random.Random(5)
    path = tmp_path / "h.tsv"
    rows = ["system\tsegment\tscore"]
    for k in range(120):
        q = rng.gauss(0, 1)
        rows += [f"s{k}\t{i}\t{q + rng.gauss(0, 1):.4f}" for i in range(1, 21)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    need(WMT)
    ref = str(WMT / "generaltest2022.de-en.ref.A.en")
    hyps = sorted(str(p) for p in WMT.glob("generaltest2022.de-en.hyp.*.en"))
    return {
        "analyze": ["analyze", "-r", ref, "-s", *hyps, "-m", "bleu", "chrf", "-j", "2"],
        "compare": ["compare", "-r", ref, "-s", *hyps, "-m", "bleu", "chrf", "ter", "-j", "2"],
        "human": ["human", str(_human_file(tmp_path)), "-j", "2", "--n-resamples", "20000"],
    }


def _run(argv: list[str], after: float | None):
    # a terminal's Ctrl-C: SIGINT at its default (a test runner started in the background of a non-interactive
    # shell inherits SIGINT ignored, and Python then keeps ignoring it)
    p = subprocess.Popen([sys.executable, "-m", "mtsig", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509 # fmt: skip
    t0 = time.monotonic()
    if after is not None:
        time.sleep(after)
        try:
            os.killpg(p.pid, signal.SIGINT)  # as a terminal does: to the whole process group
        except ProcessLookupError:
            pass
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise AssertionError(f"{argv[0]}: still running 60 s after Ctrl-C at {after:.2f} s (a hang)") from None
    time.sleep(0.3)
    try:
        os.killpg(p.pid, 0)
        left = True
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        left = False
    return p.returncode, err, left, time.monotonic() - t0


@pytest.mark.slow
def test_ctrl_c_at_twenty_moments_ends_in_one_line_with_exit_130_and_no_process_left(tmp_path):
    cmds = _commands(tmp_path)
    rng = random.Random(20261128)
    plan = ["analyze"] * 8 + ["compare"] * 6 + ["human"] * 6
    length = {}
    for name in cmds:  # how long each runs (the faster of two), to interrupt it while it works
        runs = [_run(cmds[name], None) for _ in range(2)]
        assert all(code == 0 and not left for code, _, left, _ in runs), (name, runs)
        length[name] = min(took for *_, took in runs)
    outcomes, finished_first = [], 0
    for name in plan:
        moment = rng.uniform(0.05, 0.6) * length[name]  # while it works (its start included)
        for _ in range(5):
            code, err, left, _ = _run(cmds[name], moment)
            assert not left, f"{name} at {moment:.2f} s: a process was left behind"
            assert "Traceback" not in err, f"{name} at {moment:.2f} s:\n{err}"
            if code == 0 and not err.strip():  # it finished before the signal (a fast run): earlier, again
                finished_first += 1
                assert finished_first <= 10, "runs keep finishing before Ctrl-C: is SIGINT ignored here?"
                moment /= 2
                continue
            lines = [ln for ln in err.splitlines() if ln.strip()]
            assert code == 130 and lines and lines[-1] == "mtsig: interrupted", (name, moment, code, err[-500:])
            outcomes.append((name, round(moment, 2)))
            break
    assert len(outcomes) == len(plan), outcomes


def test_an_interrupt_that_left_code_run_from_a_string_still_exits_130(tmp_path):
    # CPython remembers a KeyboardInterrupt that ended an exec of text (dataclasses build methods that way) and,
    # under ``python -m``, killed itself with SIGINT after mtsig's clean exit 130 (once in a CI run of the test above)
    (tmp_path / "runner.py").write_text(
        "import mtsig.cli as cli\n"
        "def interrupted(args):\n"
        "    exec('raise KeyboardInterrupt', {})\n"
        "cli._run = interrupted\n"
        "import multiprocessing  # the exit that tears modules down, as after a parallel run\n"
        "cli.run()\n",
        encoding="utf-8",
    )
    p = subprocess.run([sys.executable, "-m", "runner", "human", "h.tsv"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(tmp_path)})  # fmt: skip
    assert p.returncode == 130, (p.returncode, p.stderr)
    assert p.stderr.strip() == "mtsig: interrupted"
