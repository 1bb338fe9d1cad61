"""The statistics table and its file format.

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

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtsig._version import __version__
from mtsig.errors import InputError
from mtsig.io.load import System
from mtsig.io.segments import RefSet
from mtsig.metrics import Metric, get_metric

FORMAT = "mtsig-stats"
#: 2: a checksum of the meta data and arrays (files of version 1, without it, are refused)
FORMAT_VERSION = 2


def _checksum(meta: dict, arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of the meta data (without its checksum) and of every array's name, type, shape and bytes."""
    import hashlib
    import json

    h = hashlib.sha256(json.dumps({k: v for k, v in meta.items() if k != "checksum"}, sort_keys=True).encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _read_archive(path: str) -> tuple[dict, dict[str, np.ndarray]]:
    """The meta data and arrays of a statistics file, its format and checksum checked."""
    import json

    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            arrays = {k: z[k] for k in z.files if k != "meta"}
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a statistics file") from None
    except Exception as exc:  # noqa: BLE001 - any unreadable archive gets the same clear message
        raise InputError(f"{path}: not an mtsig statistics file, or a damaged one ({type(exc).__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise InputError(f"{path}: not an mtsig statistics file")
    version = meta.get("format_version", 0)
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise InputError(f"{path}: written by a newer mtsig (format {version})")
    if version < 2:
        raise InputError(
            f"{path}: written by an older mtsig (format {version}, without a checksum): "
            "write it again with `mtsig stats`"
        )
    if meta.get("checksum") != _checksum(meta, arrays):
        raise InputError(f"{path}: the statistics or their description were changed after mtsig wrote them (checksum)")
    return meta, arrays


def _metric_of(path: str, md: dict) -> Metric:
    """The metric a file describes, rebuilt from its options, checked against the file's column names."""
    m = get_metric(md["metric"], **md["options"])
    if list(m.stat_names) != list(md["stat_names"]):
        raise InputError(
            f"{path}: metric {md['name']!r} with its options has the statistics {m.stat_names}, but the file "
            f"lists {md['stat_names']}: the file was edited or damaged"
        )
    return m


def _array(path: str, arrays: dict, key: str, want: tuple[int, int, int]) -> np.ndarray:
    """One array of a statistics file, checked: present, of shape (runs, segments, statistics), finite."""
    if key not in arrays:
        raise InputError(f"{path}: the statistics {key!r} are missing")
    a = arrays[key]
    if a.dtype.kind not in "iuf":
        raise InputError(f"{path}: {key} holds {a.dtype} values, not real numbers: the file was edited")
    if a.shape != want:
        raise InputError(f"{path}: {key} has shape {a.shape}, expected {want} (runs, segments, statistics)")
    if not np.all(np.isfinite(a)):
        raise InputError(f"{path}: {key} holds NaN or infinite statistics")
    return a.astype(np.float64, copy=False)


def _check_consistent(path: str, metrics: dict, stats: dict, systems: list) -> None:
    """Statistics a metric cannot produce (negative or fractional counts, more matches than n-grams), no system,
    or two systems of one name: the file was edited, even if its checksum was recomputed."""
    if not systems:
        raise InputError(f"{path}: the statistics file holds no system")
    if not metrics:
        raise InputError(f"{path}: the statistics file holds no metric")
    names = [s.name for s in systems]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"{path}: system name(s) {', '.join(map(repr, twice))} appear more than once")
    for mname, m in metrics.items():
        for sname, a in stats[mname].items():
            why = m.check_stats(a)
            if why:
                raise InputError(
                    f"{path}: {mname} of {sname!r}: {why}, which {mname} never produces: the file was edited"
                )


def _dev_scores(path: str, dev: Any, metrics: dict, systems: list) -> dict[str, dict[str, list[float]]]:
    """The development-set scores of a file: per metric of the file, per system, one finite score per run."""
    runs = {s.name: s.n_runs for s in systems}
    bad = InputError(f"{path}: the development scores are not one number per run of each system: the file was edited")
    if not isinstance(dev, dict):
        raise bad
    out: dict[str, dict[str, list[float]]] = {}
    for m, by in dev.items():
        if m not in metrics or not isinstance(by, dict):
            raise bad
        out[m] = {}
        for name, xs in by.items():
            if name not in runs or not isinstance(xs, list) or len(xs) != runs[name]:
                raise bad
            if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x) for x in xs):
                raise bad
            out[m][name] = [float(x) for x in xs]
    return out


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
    #: per-segment labels of the units segments can be resampled by: ``{"document": [...], "domain": [...]}``
    units: dict[str, list[str]] = field(default_factory=dict)
    #: what one row is: "segment", or (a table built by :func:`mtsig.units.by_unit`) "document" or "domain"
    unit: str = "segment"
    #: the names of the rows' units, and the segments behind them (tables of units only)
    unit_names: list[str] | None = None
    n_segments_total: int | None = None

    @property
    def system_names(self) -> list[str]:
        return [s.name for s in self.systems]

    def system(self, name: str) -> SystemInfo:
        for s in self.systems:
            if s.name == name:
                return s
        raise InputError(f"unknown system {name!r}; the systems are: {', '.join(self.system_names)}")

    @property
    def has_runs(self) -> bool:
        """Whether some system has several optimizer runs."""
        return any(s.n_runs > 1 for s in self.systems)

    def directions(self) -> dict[str, str]:
        return {m: self.metrics[m].direction for m in self.metrics}

    def decimals(self) -> dict[str, int]:
        return {m: self.metrics[m].decimals for m in self.metrics}

    def corpus_scores(self, metric: str, system: str) -> np.ndarray:
        """Corpus score of each run of ``system``."""
        m = self.metrics[metric]
        return np.asarray(m.score(self.stats[metric][system].sum(axis=1)), dtype=np.float64)

    # ---------------------------------------------------------------- file I/O
    def save(self, path: str) -> None:
        if self.unit != "segment":
            raise InputError("a table of documents or domains is not saved: save the table of segments")
        meta = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "mtsig_version": __version__,
            "n_segments": self.n_segments,
            "keys": [list(k) for k in self.keys] if self.keys else None,
            "units": {k: list(v) for k, v in self.units.items()},
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
        arrays: dict[str, Any] = {
            f"{name}::{i}": self.stats[name][s.name] for name in self.metrics for i, s in enumerate(self.systems)
        }
        meta["checksum"] = _checksum(meta, arrays)
        import json

        with open(path, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)

    @classmethod
    def load(cls, path: str) -> StatsTable:
        """Read a statistics file, refusing one that is damaged, edited or not mtsig's (one-line errors)."""
        meta, arrays = _read_archive(path)
        try:
            systems = [SystemInfo(s["name"], list(s["files"]), int(s["n_runs"])) for s in meta["systems"]]
            n = int(meta["n_segments"])
            metrics: dict[str, Metric] = {}
            stats: dict[str, dict[str, np.ndarray]] = {}
            for md in meta["metrics"]:
                if md["name"] in metrics:
                    raise InputError(f"{path}: metric {md['name']!r} appears more than once: the file was edited")
                metrics[md["name"]] = m = _metric_of(path, md)
                stats[md["name"]] = {
                    s.name: _array(path, arrays, f"{md['name']}::{i}", (s.n_runs, n, len(m.stat_names)))
                    for i, s in enumerate(systems)
                }
            _check_consistent(path, metrics, stats, systems)
            sigs = {md["name"]: md["signature"] for md in meta["metrics"]}
            keys = [tuple(k) for k in meta["keys"]] if meta.get("keys") else None
            dev = _dev_scores(path, meta.get("dev_scores") or {}, metrics, systems)
            units = {str(k): [str(x) for x in v] for k, v in (meta.get("units") or {}).items()}
            for k, v in units.items():
                if len(v) != n:
                    raise InputError(f"{path}: {len(v)} {k} labels for {n} segments: the file was edited")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"{path}: a damaged mtsig statistics file ({type(exc).__name__}: {exc})") from None
        return cls(metrics, systems, stats, n, keys, sigs, dev, units=units)

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
            self.units,
            self.unit,
            self.unit_names,
            self.n_segments_total,
        )


def pooled_runs(stats: np.ndarray) -> np.ndarray:
    """``(runs, N, d)`` statistics with the runs pooled, ``(N, d)`` (summed segment by segment; Clark et al.,
    section 4.2): a read-only view of the only run when there is one (no copy: memory at a million segments)."""
    if stats.shape[0] != 1:
        return stats.sum(axis=0)
    view = stats[0].view()
    view.flags.writeable = False
    return view
