"""METEOR's paraphrase table: phrase lookup, paraphrase pairs, and the compact cache they load from.

The table (English: 5.3 million entries, 62 MB compressed) lists (probability, phrase, paraphrase) triples.
mtsig keeps it as flat arrays:

- ``blob``/``offsets``: every distinct phrase (the jar's tokens joined by one space) as UTF-8, in id order;
- ``hashes``/``hash_ids``: the 64-bit FNV-1a hash of each phrase, sorted, with the phrase's id, and
  ``buckets``: where the hashes of each value of their top bits start. A lookup hashes an n-gram of a line,
  finds the equal hashes and compares the bytes, so a collision never matches;
- ``pairs``: ``phrase_id << 32 | paraphrase_id`` sorted, ``order`` the position of each pair in the file
  (the jar tries a phrase's paraphrases in file order), ``pair_start`` where each phrase's pairs start.

The first use of a table builds these arrays (about 45 s for English) and writes them as one file in the
user cache directory (``$MTSIG_CACHE_DIR``, else the platform's: ``$XDG_CACHE_HOME/mtsig`` or ``~/.cache/mtsig``
on Linux, ``~/Library/Caches/mtsig`` on macOS, ``%LOCALAPPDATA%\\mtsig\\Cache`` on Windows), with a
JSON file holding the layout, the SHA-256 of the cache file and the size, modification time and SHA-256 of
the table it came from. Later runs read the file and check its SHA-256 (about 0.2 s); a cache whose checksum
fails, or whose table changed, is rebuilt. The lookups run in ``mtsig._meteor``; the numpy and Python
versions here are their reference (and the fallback without a C compiler).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

from mtsig._compiled import load
from mtsig.errors import InputError

_meteor = load("_meteor")
COMPILED = _meteor is not None

#: the cache layout's version: a cache of another version is rebuilt
CACHE_FORMAT = 4
_ARRAYS = ("blob", "offsets", "lengths", "hashes", "hash_ids", "buckets", "pairs", "order", "pair_start")
_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


def fnv1a_numpy(blob: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """FNV-1a (64-bit) of each ``blob[offsets[k]:offsets[k+1]]``, vectorized over phrases byte by byte."""
    starts, lens = offsets[:-1], np.diff(offsets)
    h = np.full(len(lens), _FNV_OFFSET, dtype=np.uint64)
    for k in range(int(lens.max(initial=0))):
        live = np.flatnonzero(lens > k)
        h[live] = (h[live] ^ blob[starts[live] + k].astype(np.uint64)) * _FNV_PRIME
    return h


def _fnv1a_bytes(data: bytes) -> int:
    h = int(_FNV_OFFSET)
    for b in data:
        h = ((h ^ b) * int(_FNV_PRIME)) & 0xFFFFFFFFFFFFFFFF
    return h


class Paraphrases:
    """A paraphrase table as flat arrays (see the module notes)."""

    blob: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray
    hashes: np.ndarray
    hash_ids: np.ndarray
    buckets: np.ndarray
    pairs: np.ndarray
    order: np.ndarray
    pair_start: np.ndarray

    def __init__(self, arrays: dict[str, np.ndarray]):
        for name in _ARRAYS:
            setattr(self, name, arrays[name])
        self.max_len = int(self.lengths.max()) if len(self.lengths) else 0

    def phrase(self, pid: int) -> str:
        return bytes(self.blob[self.offsets[pid] : self.offsets[pid + 1]]).decode("utf-8")

    def phrases(self, words: list[str]) -> tuple[list[int], list[int], list[int]]:
        """Every n-gram of ``words`` that is a phrase of the table: (start, length, id) lists, by start then
        length."""
        if _meteor is not None:
            ix = (self.hashes, self.hash_ids, self.buckets, self.blob, self.offsets)
            return _meteor.phrases(words, self.max_len, *ix)
        return self.phrases_python(words)  # pragma: no cover

    def phrases_python(self, words: list[str]) -> tuple[list[int], list[int], list[int]]:
        """:meth:`phrases` in Python (the reference of the compiled lookup)."""
        starts, lens, pids = [], [], []
        for p in range(len(words)):
            for L in range(1, min(self.max_len, len(words) - p) + 1):
                key = " ".join(words[p : p + L]).encode("utf-8")
                h = np.uint64(_fnv1a_bytes(key))
                k = int(np.searchsorted(self.hashes, h))
                while k < len(self.hashes) and self.hashes[k] == h:
                    pid = int(self.hash_ids[k])
                    if bytes(self.blob[self.offsets[pid] : self.offsets[pid + 1]]) == key:
                        starts.append(p)
                        lens.append(L)
                        pids.append(pid)
                        break
                    k += 1
        return starts, lens, pids

    def pair_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pairs, order, pair_start) as the compiled lookups take them."""
        return self.pairs, self.order, self.pair_start

    def find(self, src, other) -> list[tuple[int, int, int, int]]:
        """Matches of ``src`` phrases by their paraphrases in ``other``: ``(src_pos, other_pos, src_len,
        other_len)`` in the jar's order (source position, source length, table order, other position).
        ``src`` and ``other`` are the results of :meth:`phrases`."""
        if not src[2] or not other[2]:
            return []
        if _meteor is not None:
            return _meteor.para_find(*self.pair_arrays(), tuple(src), tuple(other))
        return self.find_python(src, other)  # pragma: no cover

    def find_python(self, src, other) -> list[tuple[int, int, int, int]]:
        """:meth:`find` with numpy (the reference of the compiled search)."""
        s_start, s_len, s_pid = src
        o_start, o_len, o_pid = other
        if not s_pid or not o_pid:
            return []
        keys = (np.asarray(s_pid, dtype=np.int64)[:, None] << 32 | np.asarray(o_pid, dtype=np.int64)[None, :]).ravel()
        pairs = self.pairs
        lo = np.searchsorted(pairs, keys)
        hit = np.flatnonzero(pairs[np.minimum(lo, len(pairs) - 1)] == keys)
        out = []
        for h in hit.tolist():
            si, oi = divmod(h, len(o_pid))
            k = int(lo[h])
            while k < len(pairs) and pairs[k] == keys[h]:  # a pair listed more than once: each is a match
                out.append((s_start[si], s_len[si], int(self.order[k]), o_start[oi], o_len[oi]))
                k += 1
        out.sort()
        return [(p, q, L, ol) for p, L, _, q, ol in out]


# ---------------------------------------------------------------------------------------------- building
def hash_buckets(sorted_hashes: np.ndarray) -> np.ndarray:
    """Where the sorted hashes of each value of their top bits start (about one phrase per bucket; the last
    entry is their number)."""
    bits = max(1, int(len(sorted_hashes) - 1).bit_length())
    top = (sorted_hashes >> np.uint64(64 - bits)).astype(np.int64)
    buckets = np.zeros((1 << bits) + 1, dtype=np.uint32)
    np.cumsum(np.bincount(top, minlength=1 << bits), out=buckets[1:])
    return buckets


def _read_table(path: Path) -> tuple[dict[str, int], list[int], list[int]]:
    """Distinct phrases with ids in order of first appearance, and the (phrase, paraphrase) id of each entry."""
    from mtsig.meteor.normalize import java_tokens

    ids: dict[str, int] = {}
    src: list[int] = []
    dst: list[int] = []

    def pid(line: str) -> int:
        key = " ".join(java_tokens(line))
        i = ids.get(key)
        if i is None:
            i = ids[key] = len(ids)
        return i

    def bad(line_no: int, what: str) -> InputError:
        return InputError(
            f"METEOR: {path} is not a paraphrase table: line {line_no:,} {what} (each entry is three lines: a "
            "score, a phrase, its paraphrase)",
            param="meteor_paraphrase",
        )

    line_no = 0
    try:
        with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
            while prob := f.readline():  # the entry's score (English's run from 0.01 to about 228)
                line_no += 1
                try:
                    value = float(prob)
                except ValueError:
                    raise bad(line_no, f"should be a score (a number), not {prob.strip()[:40]!r}") from None
                if not (value >= 0.0 and math.isfinite(value)):
                    raise bad(line_no, f"should be a score (a non-negative number), not {prob.strip()[:40]!r}")
                pair = [f.readline(), f.readline()]
                if not all(x.endswith("\n") and x.strip() for x in pair):
                    raise bad(line_no + 1, "and the next should be two phrases, one per line")
                line_no += 2
                src.append(pid(pair[0].rstrip("\n")))
                dst.append(pid(pair[1].rstrip("\n")))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InputError(f"METEOR: cannot read paraphrase table {path}: {exc}", param="meteor_paraphrase") from None
    if not src:
        raise InputError(f"METEOR: paraphrase table {path} has no entries", param="meteor_paraphrase")
    return ids, src, dst


def build_paraphrases(path: Path) -> Paraphrases:
    """The arrays of the table at ``path`` (no cache)."""
    ids, src, dst = _read_table(path)
    encoded = [k.encode("utf-8") for k in ids]  # dicts keep insertion order: id order
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    blob = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    lengths = np.fromiter((k.count(" ") + 1 if k else 0 for k in ids), dtype=np.int8, count=len(ids))
    if _meteor is not None:
        hashes = np.frombuffer(_meteor.phrase_hashes(blob, offsets), dtype=np.uint64)
    else:  # pragma: no cover
        hashes = fnv1a_numpy(blob, offsets)
    by_hash = np.argsort(hashes, kind="stable")
    keys = np.asarray(src, dtype=np.int64) << 32 | np.asarray(dst, dtype=np.int64)
    by_key = np.argsort(keys, kind="stable")
    pair_start = np.zeros(len(ids) + 1, dtype=np.uint32)
    np.cumsum(np.bincount(np.asarray(src, dtype=np.int64), minlength=len(ids)), out=pair_start[1:])
    return Paraphrases(
        {
            "blob": blob,
            "offsets": offsets,
            "lengths": lengths,
            "hashes": hashes[by_hash],
            "hash_ids": by_hash.astype(np.int32),
            "buckets": hash_buckets(hashes[by_hash]),
            "pairs": keys[by_key],
            "order": by_key.astype(np.int32),
            "pair_start": pair_start,
        }
    )


# ---------------------------------------------------------------------------------------------- the cache
def cache_dir() -> Path:
    """``$MTSIG_CACHE_DIR/meteor``, else the platform's user cache directory (platformdirs: Linux
    ``$XDG_CACHE_HOME/mtsig`` or ``~/.cache/mtsig``, macOS ``~/Library/Caches/mtsig``, Windows
    ``%LOCALAPPDATA%\\mtsig\\Cache``) + ``/meteor``."""
    env = os.environ.get("MTSIG_CACHE_DIR")
    if env:
        return Path(env) / "meteor"
    try:
        from platformdirs import user_cache_dir
    except ImportError:  # the meteor extra brings platformdirs; without it, the XDG convention
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(base) / "mtsig" / "meteor"
    return Path(user_cache_dir("mtsig", appauthor=False)) / "meteor"


def _sha256(path: Path) -> str:
    from mtsig.meteor.resources import sha256_file

    return sha256_file(path)


def _source_id(path: Path) -> dict:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def source_digest(path: Path) -> str:
    """The SHA-256 of the table at ``path``: from its cache's notes when they describe this very file (same
    size and modification time), else computed (about 0.2 s for English's 62 MB)."""
    src = _source_id(path)
    _, meta_file = _cache_files(src)
    try:
        meta = json.loads(meta_file.read_text())
        if meta.get("size") == src["size"] and meta.get("mtime_ns") == src["mtime_ns"]:
            digest = meta.get("source_sha256")
            if isinstance(digest, str) and len(digest) == 64:
                return digest
    except (OSError, ValueError, AttributeError):
        pass
    return _sha256(path)


def _cache_files(src: dict) -> tuple[Path, Path]:
    stem = f"para-{hashlib.sha256(src['path'].encode()).hexdigest()[:16]}-v{CACHE_FORMAT}"
    d = cache_dir()
    return d / (stem + ".bin"), d / (stem + ".json")


def _remove_other_formats(data_file: Path) -> None:
    """Delete the caches of the same table in other layouts (older mtsig versions), which would only take space."""
    table_key = data_file.name.rsplit("-v", 1)[0]
    for old in data_file.parent.glob(table_key + "*"):
        if old.suffix in (".bin", ".json", ".pkl") and not old.name.startswith(data_file.stem):
            old.unlink(missing_ok=True)


def _read_cache(path: Path, src: dict, data_file: Path, meta_file: Path) -> Paraphrases | None:
    """The cached arrays when the cache is of this format, fresh and intact; None otherwise."""
    try:
        meta = json.loads(meta_file.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("format") != CACHE_FORMAT or meta.get("size") != src["size"]:
        return None
    if meta.get("mtime_ns") != src["mtime_ns"] and meta.get("source_sha256") != _sha256(path):
        return None  # changed (a touched but unchanged table keeps its cache)
    try:
        data = data_file.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        return None
    try:
        arrays = {
            name: np.frombuffer(data, dtype=np.dtype(dt), count=n, offset=at)
            for name, (dt, at, n) in meta["layout"].items()
        }
    except (KeyError, TypeError, ValueError):
        return None
    if set(arrays) != set(_ARRAYS) or not consistent(arrays):
        return None
    return Paraphrases(arrays)


def consistent(a: dict[str, np.ndarray]) -> bool:
    """Whether the arrays of a table index only inside each other, as the compiled lookups trust them to: a
    cache that was edited (and its checksum recomputed) is then rebuilt instead of read out of bounds."""
    try:
        expect = {"blob": "u1", "offsets": "i8", "lengths": "i1", "hashes": "u8", "hash_ids": "i4", "buckets": "u4",
                  "pairs": "i8", "order": "i4", "pair_start": "u4"}  # fmt: skip
        if any((a[k].dtype.kind, a[k].dtype.itemsize, a[k].ndim) != (t[0], int(t[1]), 1) for k, t in expect.items()):
            return False
        n = len(a["lengths"])
        off, P = a["offsets"], a["pairs"]
        if len(off) != n + 1 or off[0] != 0 or off[-1] != len(a["blob"]) or np.any(np.diff(off) < 0):
            return False
        if len(a["hashes"]) != n or len(a["hash_ids"]) != n or np.any(np.diff(a["hashes"]) < 0):
            return False
        if n and (a["hash_ids"].min() < 0 or a["hash_ids"].max() >= n or a["lengths"].min() < 0):
            return False
        b = a["buckets"]
        if len(b) < 2 or (len(b) - 1) & (len(b) - 2) or b[0] != 0 or b[-1] != n:
            return False
        if np.any(np.diff(b.astype(np.int64)) < 0):
            return False
        if np.any(np.diff(P) < 0) or len(a["order"]) != len(P) or len(a["pair_start"]) != n + 1:
            return False
        if len(P) and ((P >> 32).min() < 0 or (P >> 32).max() >= n or (P & 0xFFFFFFFF).max() >= n):
            return False
        if len(P) and (a["order"].min() < 0 or a["order"].max() >= len(P)):
            return False
        ps = a["pair_start"].astype(np.int64)
        return bool(ps[0] == 0 and ps[-1] == len(P) and not np.any(np.diff(ps) < 0))
    except (KeyError, ValueError, TypeError):
        return False


def _write_cache(table: Paraphrases, path: Path, src: dict, data_file: Path, meta_file: Path) -> None:
    layout, parts, at = {}, [], 0
    for name in _ARRAYS:
        a = np.ascontiguousarray(getattr(table, name))
        pad = -at % 64
        parts.append(b"\0" * pad)
        at += pad
        layout[name] = (a.dtype.str, at, int(a.size))
        parts.append(a.tobytes())
        at += a.nbytes
    data = b"".join(parts)
    tmp_name = None
    try:
        data_file.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=data_file.parent, prefix=".tmp-", delete=False) as tmp:
            tmp_name = tmp.name
            tmp.write(data)
        os.replace(tmp_name, data_file)
        tmp_name = None
        meta = {
            "format": CACHE_FORMAT,
            **src,
            "source_sha256": _sha256(path),
            "sha256": hashlib.sha256(data).hexdigest(),
            "layout": layout,
        }
        meta_file.write_text(json.dumps(meta, indent=1))
        _remove_other_formats(data_file)
    except OSError as exc:  # numbers do not change, but the table is rebuilt on every run: say so, once
        import warnings

        warnings.warn(
            f"METEOR: cannot write the paraphrase cache in {data_file.parent} ({exc.strerror or exc}): the table "
            "is rebuilt on every run (about a minute); set MTSIG_CACHE_DIR to a writable folder",
            stacklevel=2,
        )
    finally:  # interrupted (Ctrl-C) or failed: no half-written file stays behind
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass


def load_paraphrases(path: Path, *, use_cache: bool = True) -> Paraphrases:
    """The table at ``path``, from the cache when it is fresh (built and written there otherwise)."""
    if not use_cache:
        return build_paraphrases(path)
    src = _source_id(path)
    data_file, meta_file = _cache_files(src)
    table = _read_cache(path, src, data_file, meta_file)
    if table is None:
        import sys

        if sys.stderr is not None and sys.stderr.isatty():  # a minute of silence otherwise
            print(f"mtsig: building the METEOR paraphrase cache for {path.name} (about a minute, once)",
                  file=sys.stderr, flush=True)  # fmt: skip
        table = build_paraphrases(path)
        _write_cache(table, path, src, data_file, meta_file)
    return table


_TABLES: dict[tuple, Paraphrases] = {}


def paraphrases(path: Path) -> Paraphrases:
    """The table at ``path``, loaded once per process."""
    key = tuple(_source_id(path).values())
    if key not in _TABLES:
        _TABLES[key] = load_paraphrases(path)
    return _TABLES[key]
