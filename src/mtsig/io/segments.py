"""The in-memory form of one text side: a list of segments plus where it came from.

A :class:`Segments` object memoizes its tokenizations, so several metrics that use the same tokenizer
(BLEU, NIST, length ...) tokenize each text only once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any


class _Memo:
    """A per-object cache for derived data (tokenizations, n-gram tables, parses ...)."""

    _cache: dict[Any, Any]

    def memo(self, key: Any, make):
        """Return the cached value for ``key``, computing it with ``make()`` the first time."""
        try:
            return self._cache[key]
        except KeyError:
            value = self._cache[key] = make()
            return value

    def peek(self, key: Any, default: Any = None) -> Any:
        """The cached value for ``key``, or ``default`` (nothing is computed)."""
        return self._cache.get(key, default)

    def store(self, key: Any, value: Any) -> Any:
        """Cache ``value`` under ``key`` (replacing an older one) and return it."""
        self._cache[key] = value
        return value


@dataclass(eq=False)
class Segments(_Memo, Sequence[str]):
    """Segments of one file (a reference or one system output / optimizer run).

    ``keys`` holds the (docid, segid) of each segment when the text came from NIST SGML/XML;
    plain text has ``keys=None`` and is aligned by position.
    """

    lines: list[str]
    name: str = ""
    source: str = ""
    keys: list[tuple[str, str]] | None = None
    #: dependency parses of the segments (CoNLL-U input or a parser), for the dependency F-score
    parses: list | None = None
    #: segment-level scores a user brings (COMET, human judgments ...), for the ``seg`` metric
    seg_scores: Any = None
    #: index of the first segment in the whole file (a chunk of a larger file starts beyond 0)
    offset: int = 0
    #: the metric the segment scores came from, when their file says (COMET, MetricX): (name, lower is better)
    seg_metric: tuple[str, bool] | tuple[str, None] | None = None
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i):  # type: ignore[override]
        return self.lines[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self.lines)

    def slice(self, start: int, stop: int) -> Segments:
        """Segments ``start:stop`` as a new object (its own memo), numbered from ``offset + start``."""
        keys = self.keys[start:stop] if self.keys is not None else None
        parses = self.parses[start:stop] if self.parses is not None else None
        return Segments(self.lines[start:stop], self.name, self.source, keys, parses, None, self.offset + start)

    @classmethod
    def of(cls, obj: Segments | Sequence[str], name: str = "") -> Segments:
        """Wrap a list of strings (or return a Segments unchanged)."""
        if isinstance(obj, Segments):
            return obj
        if isinstance(obj, str):
            raise TypeError("expected a sequence of segment strings, got a single string")
        return cls(list(obj), name=name, source=name)


@dataclass(eq=False)
class RefSet(_Memo):
    """The references of one test set: one :class:`Segments` per reference, all of the same length.

    Metrics keep reference-side work here (tokenized references, n-gram tables, NIST weights), so it is
    done once and shared by every system and every metric that needs the same thing.
    """

    refs: list[Segments]
    #: per-segment labels of the units segments can be resampled by (``"document"``, ``"domain"``)
    units: dict[str, list[str]] = field(default_factory=dict)
    #: the source segments, when the input carried them (WMT XML)
    source: Segments | None = None
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.refs = [Segments.of(r, name=f"ref{i + 1}") for i, r in enumerate(self.refs)]
        if not self.refs:
            from mtsig.errors import InputError

            raise InputError("no reference given")

    def __len__(self) -> int:
        return len(self.refs)

    def __iter__(self) -> Iterator[Segments]:
        return iter(self.refs)

    def __getitem__(self, i: int) -> Segments:
        return self.refs[i]

    @property
    def n_segments(self) -> int:
        return len(self.refs[0])
