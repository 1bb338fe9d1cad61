"""The runs of ``mtsig serve``, kept in SQLite in ``--results`` (``runs.sqlite``), so that a restart loses none: each
run's command line, its state and how it ended. A bundle (the numbers) is a folder of its own beside it; the store
says what became of every run that never made one (failed, cancelled, interrupted).

States: ``queued``, ``running``, ``done``, ``failed``, ``cancelled``, ``interrupted`` (the server stopped while the
run was queued or running). At start-up, :meth:`Store.recover` marks the runs a stopped server left queued or
running as interrupted, with the reason."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the states a run ends in
FINAL = ("done", "failed", "cancelled", "interrupted")
#: the states of a run not ended
LIVE = ("queued", "running")
FILE = "runs.sqlite"


@dataclass(frozen=True)
class Row:
    id: str
    command: str
    argv: list[str]
    state: str
    created: float
    started: float | None
    finished: float | None
    error: str | None
    summary: dict[str, Any]


class Store:
    """One SQLite file, written from the server's event loop (each call a short transaction)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILE
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, command TEXT NOT NULL, argv TEXT NOT NULL, "
            "state TEXT NOT NULL, created REAL NOT NULL, started REAL, finished REAL, error TEXT, "
            "summary TEXT NOT NULL DEFAULT '{}')"
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _run(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def add(self, run_id: str, command: str, argv: list[str]) -> None:
        self._run("INSERT INTO runs (id, command, argv, state, created) VALUES (?, ?, ?, 'queued', ?)",
                  (run_id, command, json.dumps(argv), time.time()))  # fmt: skip

    def started(self, run_id: str) -> None:
        self._run("UPDATE runs SET state='running', started=? WHERE id=? AND state='queued'", (time.time(), run_id))

    def end(self, run_id: str, state: str, error: str | None = None, summary: dict | None = None) -> bool:
        """The run ended in ``state`` (one of :data:`FINAL`); False when it had ended already (a cancel is final:
        nothing after it changes the run)."""
        if state not in FINAL:
            raise ValueError(state)
        with self._lock:
            cur = self._db.execute(
                "UPDATE runs SET state=?, finished=?, error=?, summary=? WHERE id=? AND state IN ('queued', 'running')",
                (state, time.time(), error, json.dumps(summary or {}), run_id),
            )
            return cur.rowcount == 1

    def get(self, run_id: str) -> Row | None:
        rows = self._run("SELECT id, command, argv, state, created, started, finished, error, summary FROM runs "
                         "WHERE id=?", (run_id,))  # fmt: skip
        return _row(rows[0]) if rows else None

    def rows(self, limit: int = 500) -> list[Row]:
        rows = self._run("SELECT id, command, argv, state, created, started, finished, error, summary FROM runs "
                         "ORDER BY created DESC LIMIT ?", (limit,))  # fmt: skip
        return [_row(r) for r in rows]

    def live(self) -> list[Row]:
        rows = self._run("SELECT id, command, argv, state, created, started, finished, error, summary FROM runs "
                         "WHERE state IN ('queued', 'running') ORDER BY created")  # fmt: skip
        return [_row(r) for r in rows]

    def recover(self) -> list[Row]:
        """Runs a stopped server left queued or running, marked interrupted with the reason; returns them."""
        left = self.live()
        for r in left:
            when = "waiting in the queue" if r.state == "queued" else "running"
            self.end(r.id, "interrupted", f"the server stopped while the run was {when}; its uploads were removed: "
                     "submit it again")  # fmt: skip
        return left


def _row(r: tuple) -> Row:
    try:
        summary = json.loads(r[8] or "{}")
    except ValueError:
        summary = {}
    return Row(r[0], r[1], json.loads(r[2]), r[3], r[4], r[5], r[6], r[7], summary)
