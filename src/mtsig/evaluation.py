"""The one pass from text to statistics, and the statistics file.

A :class:`StatsTable` holds, for every metric and every system, an array of shape
``(n_runs, n_segments, d)``: per optimizer run, per segment, the metric's sufficient statistics.
Everything downstream (corpus scores, confidence intervals, paired tests, optimizer-run statistics)
works on these arrays only.

Statistics file (``mtsig stats -o FILE.npz``): a NumPy ``.npz`` archive with
- ``meta``: a JSON string ``{"format": "mtsig-stats", "format_version": 1, "mtsig_version",
  "n_segments", "keys" (docid/segid pairs or null), "systems": [{"name", "files", "n_runs"}],
  "metrics": [{"name", "options", "signature", "stat_names", "higher_is_better"}]}``;
- one array per metric and system, named ``"<metric>::<system index>"``, of shape
  ``(n_runs, n_segments, d)`` (float64), columns as listed in ``stat_names``.
``np.load(FILE)["meta"]`` and the arrays are readable without mtsig.
"""

from __future__ import annotations

import json
import os
import pickle
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtsig import __version__
from mtsig.errors import InputError
from mtsig.io.load import System
from mtsig.io.segments import RefSet
from mtsig.metrics import Metric, get_metric

FORMAT = "mtsig-stats"
FORMAT_VERSION = 1


@dataclass
class SystemInfo:
    name: str
    files: list[str]
    n_runs: int


@dataclass
class StatsTable:
    """Per-segment statistics of every system (and optimizer run) under every metric."""

    metrics: dict[str, Metric]
    systems: list[SystemInfo]
    stats: dict[str, dict[str, np.ndarray]]
    n_segments: int
    keys: list[tuple[str, str]] | None = None
    signatures: dict[str, str] = field(default_factory=dict)
    #: per metric and system, the corpus score of each run on a development set (for s_dev)
    dev_scores: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    #: the texts behind the statistics (references, systems), when computed from text in this process
    texts: tuple[RefSet, list[System]] | None = field(default=None, repr=False, compare=False)

    @property
    def system_names(self) -> list[str]:
        return [s.name for s in self.systems]

    def system(self, name: str) -> SystemInfo:
        for s in self.systems:
            if s.name == name:
                return s
        raise InputError(f"unknown system {name!r}; the systems are: {', '.join(self.system_names)}")

    def corpus_scores(self, metric: str, system: str) -> np.ndarray:
        """Corpus score of each run of ``system``."""
        m = self.metrics[metric]
        return np.asarray(m.score(self.stats[metric][system].sum(axis=1)), dtype=np.float64)

    # ---------------------------------------------------------------- file I/O
    def save(self, path: str) -> None:
        meta = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "mtsig_version": __version__,
            "n_segments": self.n_segments,
            "keys": [list(k) for k in self.keys] if self.keys else None,
            "dev_scores": self.dev_scores,
            "systems": [{"name": s.name, "files": s.files, "n_runs": s.n_runs} for s in self.systems],
            "metrics": [
                {
                    "name": name,
                    "metric": type(m).name,
                    "options": m.config,
                    "signature": self.signatures.get(name, m.signature),
                    "stat_names": m.stat_names,
                    "higher_is_better": m.higher_is_better,
                }
                for name, m in self.metrics.items()
            ],
        }
        arrays = {f"{name}::{i}": self.stats[name][s.name] for name in self.metrics for i, s in enumerate(self.systems)}
        with open(path, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)

    @classmethod
    def load(cls, path: str) -> StatsTable:
        try:
            z = np.load(path, allow_pickle=False)
            meta = json.loads(str(z["meta"]))
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same clear message
            raise InputError(f"{path}: not an mtsig statistics file ({exc})") from None
        if meta.get("format") != FORMAT:
            raise InputError(f"{path}: not an mtsig statistics file")
        if meta.get("format_version", 0) > FORMAT_VERSION:
            raise InputError(f"{path}: written by a newer mtsig (format {meta['format_version']})")
        systems = [SystemInfo(s["name"], list(s["files"]), int(s["n_runs"])) for s in meta["systems"]]
        metrics: dict[str, Metric] = {}
        stats: dict[str, dict[str, np.ndarray]] = {}
        sigs = {}
        for md in meta["metrics"]:
            m = get_metric(md["metric"], **md["options"])
            metrics[md["name"]] = m
            sigs[md["name"]] = md["signature"]
            stats[md["name"]] = {s.name: z[f"{md['name']}::{i}"] for i, s in enumerate(systems)}
        keys = [tuple(k) for k in meta["keys"]] if meta.get("keys") else None
        return cls(metrics, systems, stats, int(meta["n_segments"]), keys, sigs, meta.get("dev_scores") or {})

    def select(self, metrics: list[str] | None = None, systems: list[str] | None = None) -> StatsTable:
        """A view restricted to some metrics and/or systems (names checked)."""
        ms = list(self.metrics) if not metrics else metrics
        for m in ms:
            if m not in self.metrics:
                raise InputError(f"metric {m!r} is not in the statistics; it has: {', '.join(self.metrics)}")
        ss = [self.system(n) for n in systems] if systems else self.systems
        return StatsTable(
            {m: self.metrics[m] for m in ms},
            ss,
            {m: {s.name: self.stats[m][s.name] for s in ss} for m in ms},
            self.n_segments,
            self.keys,
            {m: self.signatures[m] for m in ms if m in self.signatures},
            {
                m: {s.name: v for s, v in ((s, self.dev_scores.get(m, {}).get(s.name)) for s in ss) if v is not None}
                for m in ms
                if m in self.dev_scores
            },
            self.texts,
        )


def compute_stats(
    refs: RefSet, systems: list[System], metrics: list[Metric] | dict[str, Metric], jobs: int = 1
) -> StatsTable:
    """Read every system once per metric into statistics arrays.

    ``jobs > 1`` scores the systems' runs in that many processes (``fork``, after the reference-side
    work is done once in this process); the arrays are identical to a serial run.
    """
    if isinstance(metrics, list):
        metrics = {m.name: m for m in metrics}
    for m in metrics.values():
        m.prepare(refs)
    for m in sorted(metrics.values(), key=lambda m: -getattr(m, "ngram_order", 0)):
        m.warm()  # reference-side work once, largest n-gram order first
    tasks = [(si, ri) for si, s in enumerate(systems) for ri in range(s.n_runs)]
    ms = list(metrics.values())

    def work(task):
        si, ri = task
        return [m.stats(systems[si].runs[ri]) for m in ms]

    if jobs > 1 and len(tasks) > 1 and hasattr(os, "fork") and refs.n_segments * len(tasks) >= 2000:
        results = fork_map(work, tasks, jobs)
    else:
        results = [work(t) for t in tasks]
    by_task = dict(zip(tasks, results))
    stats: dict[str, dict[str, np.ndarray]] = {}
    sigs = {}
    for k, (name, m) in enumerate(metrics.items()):
        stats[name] = {
            s.name: np.stack([by_task[(si, ri)][k] for ri in range(s.n_runs)]) for si, s in enumerate(systems)
        }
        sigs[name] = m.signature
    infos = [SystemInfo(s.name, s.files, s.n_runs) for s in systems]
    return StatsTable(metrics, infos, stats, refs.n_segments, refs[0].keys, sigs, texts=(refs, systems))


def attach_dev(table: StatsTable, dev: StatsTable) -> None:
    """Record the development-set corpus score of every run (for s_dev); systems and runs must match."""
    for s in table.systems:
        try:
            d = dev.system(s.name)
        except InputError:
            raise InputError(f"no development-set output for system {s.name!r} (-d {s.name}=dev.run1,...)") from None
        if d.n_runs != s.n_runs:
            raise InputError(
                f"system {s.name!r} has {s.n_runs} test run(s) but {d.n_runs} development run(s); give one "
                "development output per optimizer run, in the same order"
            )
    for m in table.metrics:
        table.dev_scores[m] = {s.name: [float(x) for x in dev.corpus_scores(m, s.name)] for s in table.systems}


def build_metrics(names: list[str] | tuple[str, ...], **options: Any) -> dict[str, Metric]:
    if not names:
        raise InputError("no metric given")
    out: dict[str, Metric] = {}
    for n in names:
        # the user's segment scores may be asked for by the name given to them (-m comet --seg-name comet)
        m = get_metric("seg" if n == options.get("seg_name") else n, **options)
        if m.name in out:
            raise InputError(f"metric {n!r} given twice")
        out[m.name] = m
    return out


def fork_map(fn, items: list, jobs: int) -> list:
    """``[fn(x) for x in items]`` split over ``jobs`` processes: this one and ``jobs - 1`` forked children,
    which send their results back through pipes. Errors in a child are raised here."""
    jobs = min(jobs, len(items))
    groups = [list(range(j, len(items), jobs)) for j in range(jobs)]
    children = []
    for g in groups[1:]:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: compute, send, leave without running any of the parent's code
            code = 0
            try:
                os.close(r)
                try:
                    payload = ("ok", [fn(items[i]) for i in g])
                except BaseException as exc:  # noqa: BLE001 - sent to the parent and raised there
                    payload = ("error", exc)
                with os.fdopen(w, "wb") as fh:
                    pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException:  # noqa: BLE001
                code = 1
            finally:
                os._exit(code)
        os.close(w)
        children.append((pid, r, g))
    out: list = [None] * len(items)
    error = None
    try:
        for i in groups[0]:
            out[i] = fn(items[i])
    except BaseException as exc:  # noqa: BLE001 - reap the children first
        error = exc
    for pid, r, g in children:
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
        for i, v in zip(g, value):
            out[i] = v
    if error is not None:
        raise error
    return out
