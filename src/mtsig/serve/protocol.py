"""uvicorn's HTTP/1.1 protocol (h11) with two guards against clients that hold connections without sending:

- a request's headers must arrive within :attr:`Guarded.header_timeout` seconds (uvicorn has no such limit: a
  client sending a header line every few seconds would hold its connection for ever);
- at most :attr:`Guarded.max_connections` connections at once; one more, and the connection that has waited longest
  on its client (headers or body not sent, or idle between requests) is closed to make room. A crowd of slow
  clients therefore cannot lock out one that sends its request at once (a person with the token): each slow one
  loses its place to the next arrival, and the server never runs out of file descriptors.

The limits are set on the class by :func:`configure` before the server starts (one server per process)."""

from __future__ import annotations

import asyncio
import resource

from uvicorn.protocols.http.h11_impl import H11Protocol

#: descriptors kept free for everything else (files, SQLite, the workers' pipes, the listening socket)
RESERVE_FDS = 64


def raise_fd_limit() -> int:
    """The soft limit of open files raised to the hard limit where it is lower; returns the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))
        except (ValueError, OSError):
            pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Guarded(H11Protocol):
    header_timeout: float = 10.0
    max_connections: int = 500

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._last = self.loop.time()
        self._served: object | None = None  # the last request whose headers arrived
        self._timer: asyncio.TimerHandle | None = self.loop.call_later(self.header_timeout, self._too_slow)
        if len(self.connections) > self.max_connections:
            self._make_room()

    def data_received(self, data: bytes) -> None:
        self._last = self.loop.time()
        super().data_received(data)
        if self.cycle is not None and self.cycle is not self._served:  # a request's headers are in
            self._served = self.cycle
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        elif self._timer is None and self._between_requests():  # the next request's headers have begun
            self._timer = self.loop.call_later(self.header_timeout, self._too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _too_slow(self) -> None:
        self._timer = None
        if self._between_requests() and not self.transport.is_closing():
            self.transport.close()

    def waiting_on_client(self) -> bool:
        """Headers not all in, idle between requests, or a body not all sent."""
        return self._between_requests() or bool(self.cycle.more_body)

    def _make_room(self) -> None:
        waiting = [c for c in self.connections if c is not self and isinstance(c, Guarded) and c.waiting_on_client()
                   and not c.transport.is_closing()]  # fmt: skip
        if waiting:
            min(waiting, key=lambda c: c._last).transport.abort()
        else:  # every other connection is being answered: this one waits its turn elsewhere
            self.transport.abort()


def configure(*, header_timeout: float, max_connections: int) -> type[Guarded]:
    Guarded.header_timeout = header_timeout
    Guarded.max_connections = max_connections
    return Guarded
