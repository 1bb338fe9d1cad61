"""The runs of ``mtsig serve``: a bounded queue (``limit`` at a time, at most ``max_waiting`` waiting; one more is
refused), each run a worker process in a process group of its own (:mod:`mtsig.serve.worker`) whose progress lines
are read as they come, under a time and a memory limit. The store (:mod:`mtsig.serve.store`) keeps every run's
state across restarts.

Whatever a run writes lives in ``results/.work/ID`` (its uploads, its half-written bundle) until its bundle moves to
``results/ID``; the work folder is removed when the run ends, however it ends, and at start-up whatever a stopped
server left there is swept. The bundle is moved by the server, on its event loop, only while the run is not
cancelled: a cancel is final (no bundle appears after it)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtsig.serve.store import Store


class QueueFull(Exception):
    """No room in the queue: the run is refused (429)."""


@dataclass
class Job:
    id: str
    spec: dict[str, Any]
    state: str = "queued"  # queued, running, done, failed, cancelled, interrupted
    progress: tuple[str, int, int, int] | None = None
    #: the whole run's count where the command has one (analyze's analyses): (label, done, total)
    overall: tuple[str, int, int] | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
    process: asyncio.subprocess.Process | None = None
    task: asyncio.Task | None = None

    def status(self, position: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "state": self.state, "elapsed": round(time.time() - self.started, 1)}
        if self.progress is not None:
            label, done, total, stage = self.progress
            out["progress"] = {"label": label, "done": done, "total": total, "stage": stage}
        if self.overall is not None:
            label, done, total = self.overall
            out["overall"] = {"label": label, "done": done, "total": total}
        if position is not None:
            out["position"] = position
        if self.error:
            out["error"] = self.error
        return out


@dataclass(frozen=True)
class Limits:
    """What one run may take: ``seconds`` of wall-clock time, ``memory`` bytes of address space (None: no limit)."""

    seconds: float = 3600.0
    memory: int | None = None


def kill_group(process: asyncio.subprocess.Process | None) -> None:
    """End a worker and everything it started (its process group)."""
    if process is None or process.returncode is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def worker_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MTSIG_TOKEN", None)  # a worker needs no token
    return env


class Jobs:
    """The queue: ``limit`` runs at a time, at most ``max_waiting`` waiting in order."""

    def __init__(self, results: Path, store: Store, limit: int = 2, max_waiting: int = 16,
                 limits: Limits = Limits()) -> None:  # fmt: skip
        self.results = results
        self.work = results / ".work"
        self.store = store
        self.limit = limit
        self.max_waiting = max_waiting
        self.limits = limits
        self.jobs: dict[str, Job] = {}
        self._slots: asyncio.Semaphore | None = None

    @property
    def slots(self) -> asyncio.Semaphore:
        if self._slots is None:  # made on the server's event loop
            self._slots = asyncio.Semaphore(self.limit)
        return self._slots

    def sweep(self) -> None:
        """What a stopped server left in the work folder (uploads, half-written bundles): removed."""
        if self.work.exists():
            shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True, exist_ok=True)

    def waiting(self) -> int:
        return sum(j.state == "queued" for j in self.jobs.values())

    def position(self, job: Job) -> int | None:
        """Where a waiting run stands (1: next)."""
        if job.state != "queued":
            return None
        waiting = [j for j in self.jobs.values() if j.state == "queued"]
        return waiting.index(job) + 1

    def running(self) -> int:
        return sum(j.state == "running" for j in self.jobs.values())

    def room(self) -> bool:
        return self.waiting() + self.running() < self.limit + self.max_waiting

    def submit(self, job: Job, command: str, argv: list[str]) -> Job:
        if not self.room():
            raise QueueFull(f"the queue is full ({self.max_waiting} runs waiting): try again when one has finished")
        self.store.add(job.id, command, argv)
        self.jobs[job.id] = job
        job.task = asyncio.get_running_loop().create_task(self._run(job))
        return job

    async def _run(self, job: Job) -> None:
        work = self.work / job.id
        try:
            async with self.slots:
                if job.state != "queued":
                    return
                job.state, job.started = "running", time.time()
                self.store.started(job.id)
                await self._work(job, work)
        except asyncio.CancelledError:
            kill_group(job.process)
            if job.state in ("queued", "running"):
                job.state = "cancelled"
                self.store.end(job.id, "cancelled", "cancelled")
            raise
        except Exception as exc:  # noqa: BLE001 - the server's own failure: the run fails, the server stays up
            kill_group(job.process)
            self._end(job, "failed", f"the server could not run it: {exc}")
        finally:
            shutil.rmtree(work, ignore_errors=True)  # the uploads and any half-written file: never kept
            self.jobs.pop(job.id, None)

    async def _work(self, job: Job, work: Path) -> None:
        spec = work / "spec.json"
        spec.write_text(json.dumps(job.spec), encoding="utf-8")
        out = work / "bundle"
        env = worker_env()
        if self.limits.memory:
            env["MTSIG_SERVE_MEMORY"] = str(self.limits.memory)
        job.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "mtsig.serve.worker", "run", str(spec), str(out), cwd=work / "inputs", env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)  # fmt: skip
        stderr_task = asyncio.ensure_future(job.process.stderr.read() if job.process.stderr else _nothing())
        try:
            await asyncio.wait_for(self._follow(job), timeout=self.limits.seconds)
        except asyncio.TimeoutError:
            kill_group(job.process)
            await job.process.wait()
            self._end(job, "failed", f"the run took longer than this server allows ({_minutes(self.limits.seconds)}: "
                      "mtsig serve --max-run-minutes)")  # fmt: skip
            return
        stderr = await stderr_task
        code = await job.process.wait()
        kill_group(job.process)  # anything it left behind in its group
        if job.state != "running":  # cancelled while it ran: nothing of it is kept
            return
        if code == 0 and (out / "manifest.json").is_file():
            target = self.results / job.id
            os.replace(out, target)  # the bundle appears whole, and only for a run not cancelled
            summary = _summary(target)
            self._end(job, "done", None, summary)
        else:
            self._end(job, "failed", job.error or _why(code, stderr, self.limits))

    async def _follow(self, job: Job) -> None:
        assert job.process is not None and job.process.stdout is not None
        async for line in job.process.stdout:
            self._read(job, line)

    def _end(self, job: Job, state: str, error: str | None, summary: dict | None = None) -> None:
        if job.state in ("queued", "running"):
            job.state, job.error = state, error or job.error
            self.store.end(job.id, state, job.error, summary)

    @staticmethod
    def _read(job: Job, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if "progress" in msg:
            p = msg["progress"]
            job.progress = (str(p[0]), int(p[1]), int(p[2]), int(p[3]) if len(p) > 3 else 1)
        elif "overall" in msg:
            o = msg["overall"]
            job.overall = (str(o[0]), int(o[1]), int(o[2]))
        elif "error" in msg:
            job.error = str(msg["error"])

    async def cancel(self, job: Job) -> None:
        """Final: the run is marked cancelled first (no bundle can appear after), then its process group ended."""
        if job.state not in ("queued", "running"):
            return
        was = job.state
        job.state = "cancelled"
        self.store.end(job.id, "cancelled", "cancelled")
        if was == "running":
            kill_group(job.process)
        elif job.task is not None:
            job.task.cancel()  # a waiting run leaves the queue at once

    async def shutdown(self) -> None:
        """The server stops: every run still queued or running is ended and marked interrupted."""
        for job in list(self.jobs.values()):
            if job.state in ("queued", "running"):
                when = "waiting in the queue" if job.state == "queued" else "running"
                job.state = "interrupted"
                self.store.end(job.id, "interrupted", f"the server stopped while the run was {when}: submit it again")
                kill_group(job.process)
                if job.task is not None:
                    job.task.cancel()
        tasks = [j.task for j in self.jobs.values() if j.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=5)


async def _nothing() -> bytes:
    return b""


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 60 else f"{seconds:g} s"


#: what a process says when it could not allocate memory (Python, OpenBLAS, C++)
_OUT_OF_MEMORY = (
    b"MemoryError",
    b"Memory allocation",
    b"Cannot allocate memory",
    b"bad_alloc",
    b"out of memory",
    b"failed to map segment",
)


def _why(code: int | None, stderr: bytes, limits: Limits) -> str:
    if code == 3 or (limits.memory and any(x in stderr for x in _OUT_OF_MEMORY)):
        gb = (limits.memory or 0) / 2**30
        return f"the run needed more memory than this server allows ({gb:g} GB: mtsig serve --max-run-memory-gb)"
    if code is not None and code < 0:
        return f"the run was stopped by signal {-code}"
    lines = [x for x in stderr.decode("utf-8", "replace").splitlines() if x.strip()]
    return lines[-1] if lines else f"the run ended with status {code}"


def _summary(bundle: Path) -> dict[str, Any]:
    try:
        m = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: m.get(k) for k in ("systems", "metrics", "tests", "seed", "run")} if isinstance(m, dict) else {}
