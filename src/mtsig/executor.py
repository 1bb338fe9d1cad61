"""Where heavy work runs: the executor seam.

An executor maps a function over work items and returns the results in order, exactly as
``[fn(x) for x in items]`` would. mtsig uses one for the text -> statistics pass (one item per system
run); resampling blocks are pure functions of the plan (:meth:`mtsig.resample.Plan.block_weights`), so
they can go through the same seam. Results never depend on the executor.

- :class:`SerialExecutor`: in this process.
- :class:`ForkExecutor`: this process and ``jobs - 1`` forked children, which inherit everything already
  computed (reference-side tables), take the next work item whenever they are free and send their results
  back through pipes; errors in a child are raised here. Only where ``os.fork`` exists.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

#: below this many segment-runs of work, forking costs more than it saves
MIN_FORK_WORK = 2000


class Executor(Protocol):
    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]: ...


class SerialExecutor:
    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return [fn(x) for x in items]


class ForkExecutor:
    def __init__(self, jobs: int):
        self.jobs = max(1, int(jobs))

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return fork_map(fn, list(items), self.jobs)


def executor_for(jobs: int, n_items: int, work: int) -> Executor:
    """A fork executor when there are several jobs, several items and enough work; serial otherwise."""
    if jobs > 1 and n_items > 1 and hasattr(os, "fork") and work >= MIN_FORK_WORK:
        return ForkExecutor(jobs)
    return SerialExecutor()


#: tasks handed out through a pipe of 4-byte indices (its buffer, 64 KiB on Linux, holds them all)
MAX_QUEUED = 16_000


class _Queue:
    """Task indices every process takes the next one from (reads of 4 bytes from a pipe do not interleave),
    so that a process that finishes early takes more: the results do not depend on who computes what."""

    def __init__(self, n: int):
        self.r, w = os.pipe()
        os.write(w, b"".join(i.to_bytes(4, "little") for i in range(n)))
        os.close(w)

    def take(self) -> Iterator[int]:
        while len(data := os.read(self.r, 4)) == 4:
            yield int.from_bytes(data, "little")

    def close(self) -> None:
        os.close(self.r)


def _child(fn, items: list, tasks: Iterable[int], w: int) -> None:
    """In a forked child: compute, send ``(index, result)`` pairs, leave without running any of the parent's
    code."""
    code = 0
    try:
        try:
            payload = ("ok", [(i, fn(items[i])) for i in tasks])
        except BaseException as exc:  # noqa: BLE001 - sent to the parent and raised there
            payload = ("error", exc)
        with os.fdopen(w, "wb") as fh:
            pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        os._exit(code)


def _collect(children, out: list, error: BaseException | None) -> BaseException | None:
    """Read every child's results into ``out`` (reaping all of them); return the first error."""
    for pid, r in children:
        with os.fdopen(r, "rb") as fh:
            data = fh.read()
        os.waitpid(pid, 0)
        if error is not None:
            continue
        if not data:
            error = RuntimeError("a worker process died without a result")
            continue
        status, value = pickle.loads(data)
        if status == "error":
            error = value
            continue
        for i, v in value:
            out[i] = v
    return error


def fork_map(fn: Callable[[Any], Any], items: list, jobs: int) -> list:
    """``[fn(x) for x in items]`` split over ``jobs`` processes: this one and ``jobs - 1`` forked children,
    each taking the next item when it is free (round robin when there are more than :data:`MAX_QUEUED`)."""
    jobs = min(jobs, len(items))
    queue = _Queue(len(items)) if len(items) <= MAX_QUEUED else None
    groups = [range(j, len(items), jobs) for j in range(jobs)]
    children = []
    try:
        for g in groups[1:]:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                _child(fn, items, queue.take() if queue else g, w)
            os.close(w)
            children.append((pid, r))
        out: list = [None] * len(items)
        error = None
        try:
            for i in queue.take() if queue else groups[0]:
                out[i] = fn(items[i])
        except BaseException as exc:  # noqa: BLE001 - reap the children first
            error = exc
        error = _collect(children, out, error)
    finally:
        if queue:
            queue.close()
    if error is not None:
        raise error
    return out
