"""What keeps one client from shutting the server out: the limits every
connection lives under, on the HTTP/WebSocket port and the TCP game port.

- **Per address**: at most `PER_ADDRESS` open connections from one client
  address (an IPv6 client: its /64, what one host usually gets), counted
  over both ports; the next is refused with a line that says why (HTTP:
  a 503 with the reason; TCP: the reason as one line of text) and closed.
- **Slow requests**: an HTTP request's headers must arrive within
  `HEADER_TIMEOUT` seconds of the connection (or of the previous
  response on a kept-alive connection), else a 408 and the connection is
  closed; a request body has `BODY_TIMEOUT` (`server.app`). The TCP
  port's header has its own 30 s (`server.tcp`).
- **Open files**: at start the soft limit on open files is raised to the
  hard limit (`raise_open_files`), with a warning when that still leaves
  few; the HTTP server's global bound on connections is set from it, so a
  crowd of slow clients from many addresses meets the header timeout long
  before the server runs out of descriptors. asyncio's listeners keep
  accepting after an error (out of descriptors: they pause 1 s and retry).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["PER_ADDRESS", "HEADER_TIMEOUT", "BODY_TIMEOUT", "LOW_FILES", "AddressLimiter", "address_key",
           "guarded_http", "raise_open_files", "connection_budget", "refusal"]

log = logging.getLogger("economancy.server")

PER_ADDRESS = 128
"""Open connections one client address may hold (`driver connect -j 64`,
its relays and a browser fit)."""
HEADER_TIMEOUT = 10.0
"""Seconds an HTTP request's headers may take to arrive."""
BODY_TIMEOUT = 10.0
"""Seconds an HTTP request's body (16 KiB at most) may take to arrive."""
LOW_FILES = 4096
"""Below this many open files (after raising the soft limit) the server warns."""
_RESERVED_FILES = 256  # descriptors kept for the store, journals, bot processes and pipes


def address_key(host: str | None) -> str:
    """What counts as one client: its IPv4 address, or the /64 of its IPv6 one."""
    if not host:
        return "?"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


class AddressLimiter:
    """Open connections per client address, over every port of the server."""

    def __init__(self, limit: int = PER_ADDRESS) -> None:
        self.limit = limit
        self.open: dict[str, int] = {}

    def acquire(self, host: str | None) -> str | None:
        """The key to release later, or None when the address has `limit` open."""
        key = address_key(host)
        held = self.open.get(key, 0)
        if held >= self.limit:
            return None
        self.open[key] = held + 1
        return key

    def release(self, key: str) -> None:
        held = self.open.get(key, 0) - 1
        if held > 0:
            self.open[key] = held
        else:
            self.open.pop(key, None)


def refusal(limit: int) -> str:
    """What a refused client reads."""
    return f"too many connections from your address (at most {limit} at once); close some and try again"


def _http_response(status: str, text: str) -> bytes:
    body = (text + "\n").encode()
    return (f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def guarded_http(limiter: AddressLimiter, header_timeout: float = HEADER_TIMEOUT) -> type[asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol (h11) with the per-address bound and the
    header timeout; a WebSocket upgraded from it keeps its place in the
    count until it closes."""

    class GuardedH11(H11Protocol):
        _key: str | None = None
        _refused = False
        _head_timer: asyncio.TimerHandle | None = None
        _head_cycle: Any = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            self._key = limiter.acquire(peer[0] if isinstance(peer, (tuple, list)) and peer else None)
            if self._key is None:
                self._refused = True
                transport.write(_http_response("503 Service Unavailable", refusal(limiter.limit)))
                transport.close()
                return
            super().connection_made(transport)
            self._arm_head()

        def _arm_head(self) -> None:
            self._head_cycle = self.cycle
            self._head_timer = self.loop.call_later(header_timeout, self._head_late)

        def _disarm_head(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return
            self.transport.write(_http_response("408 Request Timeout",
                                                f"request headers not received within {header_timeout:g} s"))
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._head_timer is not None and self.cycle is not self._head_cycle:
                self._disarm_head()  # the headers came: the app bounds the body

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._head_timer is None and not self.transport.is_closing():
                self._arm_head()  # the next request on this connection has as long

        def handle_websocket_upgrade(self, event: Any) -> None:
            self._disarm_head()
            super().handle_websocket_upgrade(event)
            key, self._key = self._key, None  # the WebSocket protocol's end releases it now
            upgraded = self.transport.get_protocol()
            if key is not None:
                lost: Callable[[Exception | None], None] = upgraded.connection_lost

                def connection_lost(exc: Exception | None) -> None:
                    limiter.release(key)
                    lost(exc)

                upgraded.connection_lost = connection_lost  # type: ignore[method-assign]

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            self._disarm_head()
            if self._key is not None:
                limiter.release(self._key)
                self._key = None
            super().connection_lost(exc)

    return GuardedH11


def raise_open_files() -> tuple[int, int]:
    """Raise the soft limit on open files to the hard one; (soft, hard) after.
    Warns when the server is still left with fewer than LOW_FILES."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    infinite = resource.RLIM_INFINITY
    if soft != infinite and (hard == infinite or soft < hard):
        target = hard if hard != infinite else max(soft, 1 << 20)  # the kernel's usual nr_open
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as e:
            log.warning("could not raise the open-file limit from %s to %s: %s", soft, hard, e)
    if soft != infinite and soft < LOW_FILES:
        log.warning("only %d open files allowed (ulimit -n, hard limit %s): the server can hold about %d connections;"
                    " raise the hard limit for more", soft, hard, connection_budget(soft))
    return soft, hard


def connection_budget(files: int) -> int:
    """Connections the server may hold open with `files` descriptors (no limit: 65,536)."""
    if files == resource.RLIM_INFINITY or files < 0:
        return 1 << 16
    return max(64, files - _RESERVED_FILES)
