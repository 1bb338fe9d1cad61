"""Replicates of a study through the executor seam.

A study's replicates are independent: replicate ``r`` draws only from streams keyed by ``r`` (never from a
generator shared with other replicates), so it can run anywhere. :class:`Runner` cuts them into tasks of
consecutive replicates and maps the tasks over an executor (serial, forked processes or Dask); results come
back in replicate order, so the same seed gives the same bytes whatever the executor or worker count.

A job is any picklable object with ``replicate(r)`` (Dask ships it to its workers).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from mtsig.executor import DaskExecutor, Executor, ProcessExecutor, SerialExecutor
from mtsig.resample import ProgressFactory

#: replicates per task: large enough to amortize shipping a job, small enough to balance workers
PER_TASK = 25


class Job(Protocol):
    def replicate(self, r: int) -> Any: ...


def _task(item: tuple[Job, int, int]) -> list:
    """Replicates ``start .. stop - 1`` of a job, with one BLAS thread (the workers are the parallelism)."""
    from threadpoolctl import threadpool_limits

    job, start, stop = item
    with threadpool_limits(1, user_api="blas"):
        return [job.replicate(r) for r in range(start, stop)]


@dataclass
class Runner:
    """Where a study's replicates run, and how progress is shown (``progress(label, total)``)."""

    executor: Executor = field(default_factory=SerialExecutor)
    progress: ProgressFactory | None = None

    def replicates(self, label: str, job: Job, n: int, per_task: int = PER_TASK) -> list:
        items = [(job, s, min(s + per_task, n)) for s in range(0, n, per_task)]
        tick = self.progress(label, n) if self.progress is not None else None
        sizes = [stop - start for _, start, stop in items]
        done = iter(sizes)

        def advance(k: int) -> None:  # tasks finish in any order; the bar counts replicates
            if tick is not None:
                for _ in range(k):
                    tick(next(done, 0))

        out = self.executor.map(_task, items, advance if tick is not None else None)
        return [x for part in out for x in part]


def runner(jobs: int = 1, dask: str | None = None, progress: ProgressFactory | None = None,
           job: dict | None = None) -> Runner:  # fmt: skip
    """Serial for ``jobs <= 1``, worker processes for more (:class:`~mtsig.executor.ProcessExecutor`: forked on
    Linux, spawned elsewhere; the replicate tasks pickle), or Dask for ``dask`` (a scheduler address, ``local:N``,
    or ``slurm:N``/``pbs:N``/``sge:N`` jobs of the size ``job`` gives). Close a Dask runner's executor when done."""
    if dask:
        return Runner(DaskExecutor(dask, job), progress)
    if jobs > 1:
        return Runner(ProcessExecutor(jobs), progress)
    return Runner(SerialExecutor(), progress)
