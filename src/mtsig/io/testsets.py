"""Test sets by name (``-t wmt22 -l de-en``), through sacreBLEU's own registry and cache.

sacreBLEU downloads a test set once into its cache (``$SACREBLEU``, default ``~/.sacrebleu``) and extracts its
fields into plain-text files, one segment per line: the source, each reference, and for the test sets that have
them the document id and domain of every segment. mtsig reads those files, so its segments are exactly
sacreBLEU's (``sacrebleu -t wmt22 -l de-en`` and ``mtsig score -t wmt22 -l de-en`` score the same text), and
the documents and domains come along as resampling units. Offline, the cache serves; what sacreBLEU cannot
provide is a one-line error.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Sequence

from mtsig.errors import InputError, unknown_name
from mtsig.io.segments import RefSet, Segments
from mtsig.io.text import read_lines


def _dataset(name: str):
    try:
        from sacrebleu.dataset import DATASETS
    except ImportError:  # pragma: no cover - sacrebleu is a core dependency
        raise InputError("test sets by name need sacreBLEU (pip install sacrebleu)") from None
    if name not in DATASETS:
        raise unknown_name("test set", name, list(DATASETS))
    return DATASETS[name]


def _fetch(ds, name: str, langpair: str) -> tuple[list[str], list[str]]:
    """The field names and their text files, downloaded and extracted by sacreBLEU when not cached yet."""
    quiet = logging.getLogger("sacrebleu")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return list(ds.fieldnames(langpair)), list(ds.get_files(langpair))
    except SystemExit:  # sacreBLEU exits on a failed checksum or an SSL error
        raise InputError(f"test set {name} ({langpair}): sacreBLEU could not download or verify it") from None
    except Exception as exc:  # noqa: BLE001 - offline without a cache, a broken archive ...: one line each
        from sacrebleu.utils import SACREBLEU_DIR

        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        cached = _cached_files(ds, langpair)
        if cached:
            raise InputError(
                f"test set {name} ({langpair}) is in sacreBLEU's cache ({cached}) but could not be read: {why}; "
                "the cached copy is probably damaged: delete that folder and run again to download it afresh"
            ) from None
        raise InputError(
            f"test set {name} ({langpair}) is not in sacreBLEU's cache ({SACREBLEU_DIR}) and could not be "
            f"downloaded: {why}"
        ) from None
    finally:
        quiet.setLevel(level)


def _cached_files(ds, langpair: str) -> str | None:
    """The language pair's downloaded file in sacreBLEU's cache, when it is there (then reading it failed: a
    damaged copy); None when the cache does not have it."""
    import os

    try:
        path = ds._get_langpair_path(langpair)  # WMT XML test sets: one file per language pair
    except Exception:  # noqa: BLE001 - older formats have no such path: the test set's raw folder stands for it
        path = getattr(ds, "_rawdir", None)
        return path if path and os.path.isdir(path) and any(_downloaded(e) for e in os.scandir(path)) else None
    return path if os.path.isfile(path) and os.path.getsize(path) > 0 else None


def _downloaded(entry) -> bool:
    """Something sacreBLEU downloaded or extracted: not the lock file it takes before downloading (an attempt
    that failed offline leaves only that), not an empty file."""
    if entry.name.endswith(".lock"):
        return False
    return entry.is_dir() or entry.stat().st_size > 0


def _xml_units(ds, langpair: str, n: int, units: dict[str, list[str]]) -> dict[str, list[str]]:
    """The domains of a WMT XML test set read from its XML itself, where sacreBLEU's extracted domain file lost
    them (it drops every domain when some document has none): mtsig's reader keeps them, a document without one
    in the domain ``(no domain)``. Only when the XML gives the same documents, segment for segment."""
    if "domain" in units:
        return {}
    try:
        path = ds._get_langpair_path(langpair)
    except Exception:  # noqa: BLE001 - not a WMT XML test set
        return {}
    import os

    if not path.endswith(".xml") or not os.path.isfile(path):
        return {}
    from mtsig.io.wmtxml import load_wmt_xml

    try:
        ts = load_wmt_xml(path)
    except InputError:
        return {}
    if len(ts.keys) != n or ts.domains is None or ("document" in units and units["document"] != ts.documents):
        return {}
    return {"domain": list(ts.domains)}


def load_test_set(name: str, langpair: str | None, translators: Sequence[str] | None = None) -> RefSet:
    """The references (sacreBLEU's default ones, or those of ``translators``), the source and the units of a
    test set sacreBLEU knows."""
    ds = _dataset(name)
    pairs = sorted(ds.langpairs)
    if not langpair:
        raise InputError(f"test set {name}: give its language pair with -l (one of {', '.join(pairs)})")
    if langpair not in ds.langpairs:
        raise unknown_name(f"language pair of {name}", langpair, pairs)
    fields, files = _fetch(ds, name, langpair)
    by_field = dict(zip(fields, files))
    if translators:
        ref_files = []
        have = [f.split(":", 1)[1] for f in fields if f.startswith("ref:")]
        for t in translators:
            if f"ref:{t}" not in by_field:
                raise InputError(
                    f"test set {name} ({langpair}) has no reference by translator {t!r}; it has: "
                    + (", ".join(have) or "one reference without a translator name"),
                    param="ref_translator",
                )
            ref_files.append((t, by_field[f"ref:{t}"]))
    else:
        default = set(ds.get_reference_files(langpair))
        ref_files = [(f.split(":", 1)[1] if ":" in f else "ref", p) for f, p in by_field.items() if p in default]
    refs = [Segments(read_lines(p), name=t, source=f"{name}:{langpair}:{t}") for t, p in ref_files]
    n = len(refs[0])
    units = {}
    for field, unit in (("docid", "document"), ("domain", "domain")):
        if field in by_field:
            labels = read_lines(by_field[field])
            if len(labels) == n:
                units[unit] = labels
    units.update(_xml_units(ds, langpair, n, units))
    source = Segments(read_lines(by_field["src"]), name="source", source=f"{name}:{langpair}:src")
    return RefSet(refs, units=units, source=source)
