"""The runs of ``mtsig serve``: a bounded queue (``limit`` at a time; the others wait and say where they stand),
each run a child process (:mod:`mtsig.serve.worker`) whose progress lines are read as they come, which a cancel
kills. Whatever a run writes lives in ``results/.work/ID`` until its bundle moves to ``results/ID``; the work
folder is removed when the run ends, however it ends."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Job:
    id: str
    spec: dict[str, Any]
    state: str = "queued"  # queued, running, done, failed, cancelled
    progress: tuple[str, int, int] | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
    process: asyncio.subprocess.Process | None = None
    task: asyncio.Task | None = None

    def status(self, position: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "state": self.state, "elapsed": round(time.time() - self.started, 1)}
        if self.progress is not None:
            label, done, total = self.progress
            out["progress"] = {"label": label, "done": done, "total": total}
        if position is not None:
            out["position"] = position
        if self.error:
            out["error"] = self.error
        return out


class Jobs:
    """The queue: ``limit`` runs at a time, the rest waiting in order."""

    def __init__(self, results: Path, limit: int = 2) -> None:
        self.results = results
        self.work = results / ".work"
        self.limit = limit
        self.jobs: dict[str, Job] = {}
        self._slots: asyncio.Semaphore | None = None

    @property
    def slots(self) -> asyncio.Semaphore:
        if self._slots is None:  # made on the server's event loop
            self._slots = asyncio.Semaphore(self.limit)
        return self._slots

    def position(self, job: Job) -> int | None:
        """Where a waiting run stands (1: next)."""
        if job.state != "queued":
            return None
        waiting = [j for j in self.jobs.values() if j.state == "queued"]
        return waiting.index(job) + 1

    def running(self) -> int:
        return sum(j.state == "running" for j in self.jobs.values())

    def submit(self, job: Job) -> Job:
        self.jobs[job.id] = job
        job.task = asyncio.get_running_loop().create_task(self._run(job))
        return job

    async def _run(self, job: Job) -> None:
        work = self.work / job.id
        try:
            async with self.slots:
                if job.state == "cancelled":
                    return
                job.state, job.started = "running", time.time()
                spec = work / "spec.json"
                spec.write_text(json.dumps(job.spec), encoding="utf-8")
                job.process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "mtsig.serve.worker", str(spec), str(work), str(self.results / job.id),
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)  # fmt: skip
                assert job.process.stdout is not None
                async for line in job.process.stdout:
                    self._read(job, line)
                stderr = await job.process.stderr.read() if job.process.stderr else b""
                code = await job.process.wait()
                if job.state == "cancelled":
                    return
                if code == 0 and (self.results / job.id / "manifest.json").is_file():
                    job.state = "done"
                else:
                    job.state = "failed"
                    job.error = job.error or _last_line(stderr) or f"the run ended with status {code}"
        finally:
            shutil.rmtree(work, ignore_errors=True)  # the uploads and any half-written file: never kept

    @staticmethod
    def _read(job: Job, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if "progress" in msg:
            label, done, total = msg["progress"]
            job.progress = (str(label), int(done), int(total))
        elif "error" in msg:
            job.error = str(msg["error"])

    async def cancel(self, job: Job) -> None:
        if job.state not in ("queued", "running"):
            return
        was = job.state
        job.state = "cancelled"
        if was == "running" and job.process is not None and job.process.returncode is None:
            job.process.kill()
        if job.task is not None:
            await asyncio.wait([job.task], timeout=10)


def _last_line(stderr: bytes) -> str:
    lines = [x for x in stderr.decode("utf-8", "replace").splitlines() if x.strip()]
    return lines[-1] if lines else ""
