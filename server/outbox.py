"""Messages to one client, in order, from code that cannot wait.

The referee's states reach the event loop in plain callbacks, and a
WebSocket send is a coroutine; an outbox queues each message and one
task sends them in order. The queue is bounded in bytes: a client that
stops reading (or reads too slowly to follow a fast game) is dropped
rather than allowed to make the server hold its backlog.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable

__all__ = ["Outbox", "OUTBOX_LIMIT"]

OUTBOX_LIMIT = 4 << 20
"""Most bytes waiting for one slow client before it is dropped."""


class Outbox:
    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        on_overflow: Callable[[], None],
        limit: int = OUTBOX_LIMIT,
    ) -> None:
        self._send = send
        self._on_overflow = on_overflow
        self._limit = limit
        self._queue: deque[str] = deque()
        self._size = 0
        self._wake = asyncio.Event()
        self._closed = False
        self._task = asyncio.get_running_loop().create_task(self._run())

    def put(self, text: str) -> None:
        if self._closed:
            return
        self._queue.append(text)
        self._size += len(text)
        if self._size > self._limit:
            self.close()
            self._on_overflow()
            return
        self._wake.set()

    async def _run(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._queue:
                    text = self._queue.popleft()
                    self._size -= len(text)
                    await self._send(text)
                if self._closed:
                    return
        except Exception:  # the connection is gone: its handler ends it
            self._closed = True

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait (bounded) until everything queued has been sent."""
        self._closed = True
        self._wake.set()
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(self._task), timeout)

    def close(self) -> None:
        self._closed = True
        self._queue.clear()
        self._size = 0
        self._task.cancel()
