"""Server-sent events: one bounded queue per listener, a heartbeat, cheap fan-out.

A message is serialised once and the same string is handed to every listener, so ten
phones cost ten queue puts per change. Each message is a whole state snapshot, so a
slow listener whose queue is full simply loses its oldest snapshot.

>>> hub = Broadcaster(queue_size=2)
>>> listener = hub.listen()
>>> hub.publish("state", '{"version": 1}')
>>> next(listener)
'event: state\\ndata: {"version": 1}\\n\\n'
>>> hub.close(); list(listener)
[]
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Iterator

log = logging.getLogger(__name__)

_CLOSE = object()


class TooManyListenersError(RuntimeError):
    """More listeners than the server is configured to feed."""


class Broadcaster:
    """Fan-out of text messages to SSE listeners."""

    def __init__(
        self, queue_size: int = 8, heartbeat: float = 15.0, max_listeners: int = 64
    ) -> None:
        self.queue_size = queue_size
        self.heartbeat = heartbeat
        self.max_listeners = max_listeners
        self._queues: set[queue.Queue[object]] = set()
        self._lock = threading.Lock()
        self._closed = False

    @property
    def listeners(self) -> int:
        with self._lock:
            return len(self._queues)

    def publish(self, event: str, data: str) -> None:
        message = f"event: {event}\ndata: {data}\n\n"
        with self._lock:
            targets = list(self._queues)
        for q in targets:
            _put_latest(q, message)

    def close(self) -> None:
        """End every stream (server shutdown)."""
        with self._lock:
            self._closed = True
            targets = list(self._queues)
        for q in targets:
            _put_latest(q, _CLOSE)

    def listen(self, first: str | None = None) -> Iterator[str]:
        """A new listener: an iterator of SSE chunks (``first`` is sent at once)."""
        q: queue.Queue[object] = queue.Queue(maxsize=self.queue_size)
        with self._lock:
            if len(self._queues) >= self.max_listeners:
                raise TooManyListenersError(f"already {len(self._queues)} listeners")
            self._queues.add(q)
            closed = self._closed
        if closed:
            q.put_nowait(_CLOSE)
        return self._stream(q, first)

    def _stream(self, q: queue.Queue[object], first: str | None) -> Iterator[str]:
        try:
            if first is not None:
                yield first
            while True:
                try:
                    item = q.get(timeout=self.heartbeat)
                except queue.Empty:
                    yield ": heartbeat\n\n"
                    continue
                if item is _CLOSE:
                    return
                assert isinstance(item, str)
                yield item
        finally:
            with self._lock:
                self._queues.discard(q)
            log.debug("listener gone (%d left)", len(self._queues))


def _put_latest(q: queue.Queue[object], item: object) -> None:
    """Put without blocking; when full, drop the oldest message (a stale snapshot)."""
    while True:
        try:
            q.put_nowait(item)
            return
        except queue.Full:
            with contextlib.suppress(queue.Empty):
                q.get_nowait()
