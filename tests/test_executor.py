"""The executor seam's one-call fork (analyze's shared comparison runs there): the child's value or its own
exception comes back; where workers do not fork, nothing is started and the caller runs the call itself."""

from __future__ import annotations

import os
import sys

import pytest

from mtsig import executor
from mtsig.errors import InputError

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forking is mtsig's way on Linux only")


def test_fork_call_returns_the_child_value():
    call = executor.fork_call(lambda: (os.getpid(), [1.5, "x"]))
    assert call is not None
    pid, value = call.result()
    assert pid != os.getpid() and value == [1.5, "x"]


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("no")


def test_fork_call_raises_the_child_exception():
    def fail():
        raise InputError(f"bad input seen by {os.getpid()}")

    with pytest.raises(InputError, match="bad input seen by") as raised:
        executor.fork_call(fail).result()
    assert str(os.getpid()) not in str(raised.value)

    def odd():
        raise _Unpicklable("a lock inside")

    with pytest.raises(RuntimeError, match="_Unpicklable: a lock inside"):
        executor.fork_call(odd).result()

    def dies():
        os._exit(3)

    with pytest.raises(RuntimeError, match="died without a result"):
        executor.fork_call(dies).result()


def test_fork_call_cancel_reaps_and_no_fork_elsewhere(monkeypatch):
    import time

    call = executor.fork_call(lambda: time.sleep(60))
    call.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(call.pid, os.WNOHANG)  # reaped: no zombie left
    monkeypatch.setattr(executor, "start_method", lambda: "spawn")  # macOS and Windows: not forked
    assert executor.fork_call(lambda: 1) is None
