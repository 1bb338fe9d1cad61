"""Where heavy work runs: the executor seam.

An executor maps a function over work items and returns the results in order, exactly as
``[fn(x) for x in items]`` would. mtsig uses one for the text -> statistics pass (one item per system
run); resampling blocks are pure functions of the plan (:meth:`mtsig.resample.Plan.block_weights`), so
they can go through the same seam. Results never depend on the executor.

- :class:`SerialExecutor`: in this process.
- :class:`ForkExecutor`: this process and ``jobs - 1`` forked children, which inherit everything already
  computed (reference-side tables), take the next work item whenever they are free and send their results
  back through pipes; errors in a child are raised here. Only where ``os.fork`` exists.
- :class:`DaskExecutor`: the items as tasks on a Dask distributed cluster (``Client(address)``, or a
  ``LocalCluster`` of N single-threaded worker processes for ``local:N``); the function and items must
  pickle. Studies send their replicates this way (:func:`mtsig.studies.replicates.runner`).

``map(fn, items, progress)``: ``progress(n)``, when given, is called as items finish (forked children
report each finished item through a pipe of their own).
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

#: below this many segment-runs of work, forking costs more than it saves
MIN_FORK_WORK = 2000


Progress = Callable[[int], None]


class Executor(Protocol):
    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], progress: Progress | None = None) -> list[Any]: ...


class SerialExecutor:
    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], progress: Progress | None = None) -> list[Any]:
        out = []
        for x in items:
            out.append(fn(x))
            if progress is not None:
                progress(1)
        return out


class ForkExecutor:
    def __init__(self, jobs: int):
        self.jobs = max(1, int(jobs))

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], progress: Progress | None = None) -> list[Any]:
        return fork_map(fn, list(items), self.jobs, progress)


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


def _child(fn, items: list, tasks: Iterable[int], w: int, tick: int | None) -> None:
    """In a forked child: compute (writing a byte to ``tick`` per finished item), send ``(index, result)``
    pairs, leave without running any of the parent's code."""
    code = 0
    try:
        try:
            done = []
            for i in tasks:
                done.append((i, fn(items[i])))
                if tick is not None:
                    os.write(tick, b".")
            payload = ("ok", done)
        except BaseException as exc:  # noqa: BLE001 - sent to the parent and raised there
            payload = ("error", exc)
        if tick is not None:  # before the results: the parent reads ticks until every child closed its end
            os.close(tick)
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


class _Ticks:
    """The children's finished-item bytes, read by the parent between its own items and at the end."""

    def __init__(self, progress: Progress | None):
        self.progress = progress
        self.r, self.w = os.pipe() if progress is not None else (None, None)
        if self.r is not None:
            os.set_blocking(self.r, False)

    def drain(self, until_closed: bool = False) -> None:
        if self.r is None:
            return
        if until_closed:
            os.set_blocking(self.r, True)
        while True:
            try:
                data = os.read(self.r, 4096)
            except BlockingIOError:
                return
            if not data:
                return
            self.progress(len(data))

    def close(self) -> None:
        for fd in (self.r, self.w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass


def fork_map(fn: Callable[[Any], Any], items: list, jobs: int, progress: Progress | None = None) -> list:
    """``[fn(x) for x in items]`` split over ``jobs`` processes: this one and ``jobs - 1`` forked children,
    each taking the next item when it is free (round robin when there are more than :data:`MAX_QUEUED`)."""
    jobs = min(jobs, len(items))
    queue = _Queue(len(items)) if len(items) <= MAX_QUEUED else None
    groups = [range(j, len(items), jobs) for j in range(jobs)]
    ticks = _Ticks(progress)
    children = []
    try:
        for g in groups[1:]:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                if ticks.r is not None:
                    os.close(ticks.r)
                _child(fn, items, queue.take() if queue else g, w, ticks.w)
            os.close(w)
            children.append((pid, r))
        if ticks.w is not None:
            os.close(ticks.w)
            ticks.w = None
        out: list = [None] * len(items)
        error = None
        try:
            for i in queue.take() if queue else groups[0]:
                out[i] = fn(items[i])
                if progress is not None:
                    progress(1)
                    ticks.drain()
            ticks.drain(until_closed=True)
        except BaseException as exc:  # noqa: BLE001 - reap the children first
            error = exc
        error = _collect(children, out, error)
    finally:
        ticks.close()
        if queue:
            queue.close()
    if error is not None:
        raise error
    return out


#: seconds to wait for a Dask scheduler before saying it cannot be reached
DASK_CONNECT_TIMEOUT = 10


def _connect(client_class, address: str):
    """A client of the scheduler at ``address``; an address that is not one, or a scheduler that does not answer,
    is a one-line error."""
    from mtsig.errors import InputError

    try:
        return client_class(address, timeout=DASK_CONNECT_TIMEOUT)
    except ValueError as exc:
        raise InputError(
            f"--dask {address!r} is not a scheduler address (e.g. tcp://host:8786) nor local:N: {exc}"
        ) from None
    except (OSError, TimeoutError) as exc:
        raise InputError(
            f"--dask {address}: no Dask scheduler answered within {DASK_CONNECT_TIMEOUT} s ({type(exc).__name__})"
        ) from None


class DaskExecutor:
    """Items as tasks on a Dask distributed cluster: ``address`` of a running scheduler, or ``local:N`` for a
    ``LocalCluster`` of N single-threaded worker processes started here (and closed by :meth:`close`)."""

    def __init__(self, address: str):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:
            from mtsig.errors import InputError

            raise InputError("--dask needs Dask distributed: pip install 'mtsig[dask]'") from exc
        self.cluster = None
        if address.startswith("local:"):
            import logging
            import signal

            n = _workers(address)
            # the workers start with Ctrl-C ignored (a terminal sends it to the whole group): this process stops
            # them when it is interrupted, without a traceback from each of them
            old = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:  # silence_logs: not a warning per task that Ctrl-C stops
                self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                                            silence_logs=logging.ERROR)  # fmt: skip
            finally:
                signal.signal(signal.SIGINT, old)
            self.client = Client(self.cluster)
        else:
            self.client = _connect(Client, address)

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], progress: Progress | None = None) -> list[Any]:
        from dask.distributed import as_completed

        futures = self.client.map(fn, list(items), pure=False)
        for _ in as_completed(futures):  # interrupted: close() stops the workers
            if progress is not None:
                progress(1)
        return self.client.gather(futures)

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _workers(address: str) -> int:
    from mtsig.errors import InputError

    n = address.split(":", 1)[1]
    if not n.isdigit() or int(n) < 1:
        raise InputError(f"--dask local:N needs a number of workers of at least 1, got {address!r}")
    return int(n)
