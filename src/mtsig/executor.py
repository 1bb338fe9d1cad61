"""Where heavy work runs: the executor seam.

An executor maps a function over work items and returns the results in order, exactly as
``[fn(x) for x in items]`` would. mtsig uses one for the text -> statistics pass (one item per system
run); resampling blocks are pure functions of the plan (:meth:`mtsig.resample.Plan.block_weights`), so
they can go through the same seam. Results never depend on the executor.

- :class:`SerialExecutor`: in this process.
- :class:`ProcessExecutor`: ``jobs`` worker processes of a standard pool (``concurrent.futures``), each taking
  the next work item when it is free. On Linux they are forked and inherit everything already computed
  (reference-side tables), so only indices and results cross; elsewhere they are spawned and the function
  and items must pickle (as for Dask). Errors in a worker are raised here.
- :class:`DaskExecutor`: the items as tasks on a Dask distributed cluster (``Client(address)``, or a
  ``LocalCluster`` of N single-threaded worker processes for ``local:N``); the function and items must
  pickle. Studies send their replicates this way (:func:`mtsig.studies.replicates.runner`).

``map(fn, items, progress, weights=None)``: ``progress(n)``, when given, is called as items finish (forked children
report as their items finish) with ``n`` = 1, or the item's weight when ``weights`` gives one per item (the bar
then counts work, not items, and its estimate of the time left holds when items cost unlike amounts).
:func:`fork_call` runs one call in a forked child beside this process (analyze's shared comparison beside its other
analyses).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, Protocol

#: below this much work (segment-runs, each weighted by its metrics' ``Metric.work``, BLEU = 1), forking costs
#: more than it saves. Measured on two cores, 4 WMT22 de-en systems: with 7,936 segment-runs, BLEU took 0.18 s
#: serial vs 0.22-0.24 s with two workers and TER 0.25 vs 0.30-0.32 (chrF, weight 6: 0.48-0.64 vs 0.46-0.53);
#: with 31,744, BLEU broke even (0.30 vs 0.31) and TER gained (0.55 vs 0.50)
MIN_FORK_WORK = 40_000


Progress = Callable[[int], None]


class Executor(Protocol):
    def map(
        self,
        fn: Callable[[Any], Any],
        items: Sequence[Any],
        progress: Progress | None = None,
        weights: Sequence[int] | None = None,
    ) -> list[Any]: ...


class SerialExecutor:
    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], progress: Progress | None = None,
            weights: Sequence[int] | None = None) -> list[Any]:  # fmt: skip
        out = []
        for i, x in enumerate(items):
            out.append(fn(x))
            if progress is not None:
                progress(weights[i] if weights is not None else 1)
        return out


def start_method() -> str:
    """How worker processes start: ``fork`` on Linux (they inherit what this process computed, so the function
    and items need not pickle), ``spawn`` elsewhere (Windows has no fork; on macOS forking after numpy or the
    system's BLAS were loaded is unsafe)."""
    return "fork" if sys.platform.startswith("linux") else "spawn"


#: the function and items a forked worker inherited from the pool's initializer
_INHERITED: tuple | None = None


def _ignore_interrupt() -> None:
    """A worker leaves Ctrl-C to its parent, which stops every worker itself: a worker that died of the signal
    first would turn the interrupt into a broken pool, and one caught mid-write could hang the parent. The parent
    forks with SIGINT blocked (:func:`_interrupt_blocked`), so a Ctrl-C between the fork and this call waits, and
    is dropped here."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class _interrupt_blocked:
    """SIGINT blocked in this thread while workers are forked (a child inherits the mask, so it cannot be
    interrupted before it ignores the signal); on leaving, a Ctrl-C that came meanwhile is raised here."""

    def __enter__(self):
        import signal

        self.old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") \
            else None  # fmt: skip
        return self

    def __exit__(self, *exc) -> None:
        import signal

        if self.old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.old)


def _inherit(fn, items) -> None:
    global _INHERITED
    _ignore_interrupt()
    _INHERITED = (fn, items)


def _call_inherited(i: int):
    if _INHERITED is None:
        raise RuntimeError("a forked worker without the work it inherits")
    fn, items = _INHERITED
    return fn(items[i])


class ProcessExecutor:
    """``jobs`` worker processes of a standard pool (:class:`concurrent.futures.ProcessPoolExecutor`), each
    taking the next item when it is free; results come back in the items' order, so they do not depend on who
    computed what. Started by :func:`start_method`: forked workers receive only item indices; spawned ones
    need a function and items that pickle (module-level functions, plain data). An error in a worker is
    raised here; a worker that dies is a RuntimeError."""

    def __init__(self, jobs: int, method: str | None = None):
        self.jobs = max(1, int(jobs))
        self.method = method or start_method()

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], progress: Progress | None = None,
            weights: Sequence[int] | None = None) -> list[Any]:  # fmt: skip
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        items = list(items)
        jobs = min(self.jobs, len(items))
        if jobs <= 1:
            return SerialExecutor().map(fn, items, progress, weights)
        ctx = multiprocessing.get_context(self.method)
        out: list = [None] * len(items)
        pool = None
        try:
            with _interrupt_blocked():  # the workers start here, at the first submit
                if self.method == "fork":
                    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_inherit, initargs=(fn, items))
                    futures = {pool.submit(_call_inherited, i): i for i in range(len(items))}
                else:
                    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_ignore_interrupt)
                    futures = {pool.submit(fn, x): i for i, x in enumerate(items)}
            for f in as_completed(futures):
                out[futures[f]] = f.result()
                if progress is not None:
                    progress(weights[futures[f]] if weights is not None else 1)
        except BrokenProcessPool:
            if pool is not None:
                _stop(pool)
            raise RuntimeError("a worker process died without a result") from None
        except BaseException:  # an error here or Ctrl-C: the workers are stopped, not waited for
            if pool is not None:
                _stop(pool)
            raise
        pool.shutdown(wait=True)
        return out


#: a process pool was stopped mid-work: its manager thread may wait for ever on a result a killed worker never
#: finished sending, so the process must end without the interpreter's clean-up, which joins that thread
#: (:func:`mtsig.cli.run` ends with ``os._exit`` then)
ABANDONED = False


def _stop(pool) -> None:
    """A process pool ended at once: nothing new starts, its workers are killed and reaped (a worker mid-task is
    not waited for: after Ctrl-C, the command ends in a line, not when the task would have)."""
    global ABANDONED
    ABANDONED = True
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        try:
            proc.kill()
        except (OSError, AttributeError):  # already gone
            pass
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.join(timeout=5)


class ForkedCall:
    """One call run in a forked child beside this process (:func:`fork_call`): :meth:`result` waits for it and
    returns what it returned, or raises what it raised; :meth:`cancel` stops it. The child sends its result (or its
    exception) pickled through a pipe, then leaves without running any exit handler."""

    def __init__(self, pid: int, fd: int):
        self.pid, self.fd = pid, fd
        self.open, self.reaped = True, False

    def result(self) -> Any:
        import os
        import pickle

        try:
            f = os.fdopen(self.fd, "rb")
            self.open = False  # the file object owns the descriptor now
            with f:
                data = f.read()
            os.waitpid(self.pid, 0)
            self.reaped = True
        except BaseException:  # Ctrl-C while waiting: the child is stopped before the interrupt goes on
            self.cancel()
            raise
        if not data:
            raise RuntimeError("a forked worker died without a result")
        ok, value = pickle.loads(data)
        if not ok:
            raise value
        return value

    def cancel(self) -> None:
        import os
        import signal

        if self.open:
            self.open = False
            os.close(self.fd)
        if self.reaped:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:  # it had finished
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.reaped = True


def fork_call(fn: Callable[[], Any]) -> ForkedCall | None:
    """``fn()`` started in a forked child, which inherits everything computed here (None where workers do not fork:
    see :func:`start_method`; the caller then calls ``fn`` itself). An exception in the child is raised by
    :meth:`ForkedCall.result` (one that does not pickle, as a RuntimeError naming it)."""
    import os

    if start_method() != "fork":
        return None
    read, write = os.pipe()
    blocked = _interrupt_blocked().__enter__()  # the child must not be interrupted before it ignores SIGINT
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (its result is checked in the parent)
        try:  # nothing may leave this block but os._exit: the child must never return into the parent's code
            _ignore_interrupt()
            import pickle

            os.close(read)
            try:
                data = pickle.dumps((True, fn()), protocol=5)
            except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises it
                try:
                    data = pickle.dumps((False, exc), protocol=5)
                except Exception:  # noqa: BLE001 - an exception that does not pickle: its name and message
                    data = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")), protocol=5)
            with os.fdopen(write, "wb") as f:
                f.write(data)
        finally:
            os._exit(0)
    os.close(write)
    call = ForkedCall(pid, read)
    try:
        blocked.__exit__(None, None, None)  # a Ctrl-C that came during the fork is raised here
    except BaseException:
        call.cancel()
        raise
    return call


def executor_for(jobs: int, n_items: int, work: float) -> Executor:
    """Worker processes when there are several jobs, several items and enough work, and the workers can
    inherit the function (fork: the text pipeline's work function is a closure over reference-side tables);
    serial otherwise."""
    if jobs > 1 and n_items > 1 and work >= MIN_FORK_WORK and start_method() == "fork":
        return ProcessExecutor(jobs)
    return SerialExecutor()


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

    def __init__(self, address: str, job: dict | None = None):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:
            from mtsig.errors import InputError

            raise InputError("--dask needs Dask distributed: pip install 'mtsig[dask]'") from exc
        self.cluster = None
        kind = address.partition(":")[0].lower()
        if kind in BATCH_SYSTEMS:
            self.cluster = batch_cluster(address, job or {})
            self.client = Client(self.cluster)
            _wait_for_workers(self.client, address)
        elif address.startswith("local:"):
            import logging
            import signal

            n = _workers(address)
            # the workers start with Ctrl-C ignored (a terminal sends it to the whole group): this process stops
            # them when it is interrupted, without a traceback from each of them
            old = signal.signal(signal.SIGINT, signal.SIG_IGN)
            # silence_logs: not a warning per task that Ctrl-C stops, nor a worker's logged traceback when its
            # heartbeat meets the scheduler closing (seen once in CI); a task's own error still reaches this process
            # through its future and is raised here
            try:
                self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                                            silence_logs=logging.CRITICAL)  # fmt: skip
            finally:
                signal.signal(signal.SIGINT, old)
            self.client = Client(self.cluster)
        else:
            self.client = _connect(Client, address)

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], progress: Progress | None = None,
            weights: Sequence[int] | None = None) -> list[Any]:  # fmt: skip
        from dask.distributed import as_completed

        futures = self.client.map(fn, list(items), pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for f in as_completed(futures):  # interrupted: close() stops the workers
            if progress is not None:
                progress(weights[index[f.key]] if weights is not None else 1)
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

    kind, _, n = address.partition(":")
    if not n.isdigit() or int(n) < 1:
        raise InputError(f"--dask {kind}:N needs a number of workers of at least 1, got {address!r}")
    return int(n)


#: ``--dask KIND:N``: N single-process jobs of a batch system, through dask-jobqueue (the cluster extra)
BATCH_SYSTEMS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster"}
#: the command that submits a job of each batch system
SUBMIT = {"slurm": "sbatch", "pbs": "qsub", "sge": "qsub"}
#: the size of one job where the command line does not say (dask-jobqueue needs cores and memory)
JOB_DEFAULTS = {"cores": 1, "memory": "4GB", "walltime": "01:00:00"}
#: seconds to wait for the first worker of a batch cluster (its jobs may queue)
BATCH_WAIT = 600


def batch_cluster(address: str, job: dict):
    """A dask-jobqueue cluster of N jobs for ``slurm:N``, ``pbs:N`` or ``sge:N``, each one worker process of
    ``job``'s size (``cores``, ``memory``, ``walltime``, ``queue``, ``account``, ``directives``: lines added to the
    job script's header; ``python``: the interpreter the jobs run, this one by default)."""
    import shutil
    import sys

    from mtsig.errors import InputError

    kind = address.partition(":")[0].lower()
    n = _workers(address)
    try:
        import dask_jobqueue
    except ImportError:
        raise InputError(f"--dask {kind}:N needs dask-jobqueue: pip install 'mtsig[cluster]'") from None
    submit = SUBMIT[kind]
    if shutil.which(submit) is None:
        raise InputError(f"--dask {address}: {submit} is not on this machine's PATH; run mtsig where {kind} jobs are "
                         "submitted (a login node)")  # fmt: skip
    settings = {**JOB_DEFAULTS, **{k: v for k, v in job.items() if v not in (None, (), [])}}
    kwargs = {"cores": int(settings["cores"]), "memory": str(settings["memory"]), "processes": 1,
              "walltime": settings["walltime"], "python": settings.get("python") or sys.executable,
              "job_extra_directives": list(settings.get("directives") or [])}  # fmt: skip
    for key in ("queue", "account"):
        if settings.get(key):
            kwargs[key] = settings[key]
    try:
        cluster = getattr(dask_jobqueue, BATCH_SYSTEMS[kind])(**kwargs)
    except (ValueError, TypeError) as exc:
        raise InputError(f"--dask {address}: {exc}") from None
    cluster.scale(jobs=n)
    return cluster


def _wait_for_workers(client, address: str) -> None:
    from mtsig.errors import InputError

    try:
        client.wait_for_workers(1, timeout=BATCH_WAIT)
    except (TimeoutError, OSError) as exc:
        client.close()
        raise InputError(f"--dask {address}: no worker started within {BATCH_WAIT} s (are the jobs queued? "
                         f"squeue, qstat; {type(exc).__name__})") from None  # fmt: skip


# ------------------------------------------------------------------------------------------------ flags
#: ``--dask``'s help, one text for every command that has it
DASK_HELP = ("where the work goes: a Dask scheduler's address (tcp://host:8786), local:N (N worker processes here), "
             "or slurm:N, pbs:N, sge:N (N batch jobs of one worker each, sized by --job-*; pip install "
             "'mtsig[cluster]'); the same results wherever it runs")  # fmt: skip


def add_job_flags(g) -> list:
    """The size of each batch job of ``--dask slurm:N`` (and pbs, sge); returns the actions added."""
    return [
        g.add_argument("--job-cores", type=int, default=None, metavar="C",
                       help=f"--dask slurm:N: cores per job (default {JOB_DEFAULTS['cores']})"),
        g.add_argument("--job-memory", default=None, metavar="MEM",
                       help=f"--dask slurm:N: memory per job, e.g. 8GB (default {JOB_DEFAULTS['memory']})"),
        g.add_argument("--job-walltime", default=None, metavar="HH:MM:SS",
                       help=f"--dask slurm:N: time limit of each job (default {JOB_DEFAULTS['walltime']})"),
        g.add_argument("--job-queue", default=None, metavar="Q", help="--dask slurm:N: partition or queue"),
        g.add_argument("--job-account", default=None, metavar="A", help="--dask slurm:N: account to charge"),
        g.add_argument("--job-directive", action="append", default=[], metavar="LINE",
                       help="--dask slurm:N: a line for the job script's header, e.g. '--gres=gpu:0' (repeat)"),
    ]  # fmt: skip


def job_settings(a) -> dict:
    """The job size the command line gave (``--job-*``)."""
    return {"cores": getattr(a, "job_cores", None), "memory": getattr(a, "job_memory", None),
            "walltime": getattr(a, "job_walltime", None), "queue": getattr(a, "job_queue", None),
            "account": getattr(a, "job_account", None), "directives": getattr(a, "job_directive", None)}  # fmt: skip
