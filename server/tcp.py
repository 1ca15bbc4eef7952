"""The original server's protocol on TCP (`player/server.rkt`), byte for byte.

A client connects and sends three Racket datums, one per line in
play_gui (any whitespace between them works): the game number (an exact
non-negative integer), the player count (2, 3 or 4) and its seat index.
Games are keyed by (number, player count) and play the base set. The
server then writes each state for that seat as one line of compact JSON,
keys sorted, and reads each move as one JSON value (a newline after it
is optional, as with Racket's `read-json`). When the game ends every
seat gets the final state, with "player", and the connection is closed.

Where ours differs, and why (docs/server.md has the list):
- a game starts when every seat has a connection (the original asks
  seat 0 as soon as it is there, and waits for each seat when its turn
  comes: our referee asks hidden choices of everyone at once, each under
  its own timeout, so every seat must be there first);
- a connection that leaves mid-game forfeits, as a crashed bot does (the
  original waits for a new connection to that seat, for ever), and a
  seat already taken is refused (the original lets any newcomer replace
  the player of that seat);
- moves have the referee's per-move timeout (`--tcp-timeout`, generous
  since people play over TCP with play_gui; the original has none), and
  its fault rules (a two-element array is a fault; the original took its
  first element);
- a header that is not three valid datums, or does not come within 30
  seconds, closes the connection (the original ignored it and left the
  connection open);
- a finished game's number can be used again for a new game (the
  original's never started again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re

from server.guard import refusal
from server.hub import Hub, SeatRefused
from server.jsonstream import JsonValueStream, ValueTooLong

__all__ = ["serve_tcp", "parse_header", "HeaderError", "HEADER_TIMEOUT"]

log = logging.getLogger("economancy.server")

HEADER_LIMIT = 1024
"""Most bytes the three datums may take."""
HEADER_TIMEOUT = 30.0
"""Seconds a new connection has to send them."""
WRITE_BACKLOG = 1 << 20
"""Most bytes of states a client may leave unread before it is dropped."""
_READ = 1 << 16
_TOKEN = re.compile(rb"\s*(\+?[0-9]{1,40})(?=[\s()\[\]{}\";'`,])")
_SPACE = re.compile(rb"\s*")


class HeaderError(ValueError):
    """The first bytes of a connection are not the three datums we accept."""


def parse_header(data: bytes) -> tuple[tuple[int, int, int], int] | None:
    """The three numbers and how many bytes they took, or None if more bytes
    are needed. Raises HeaderError when they cannot be what we accept."""
    numbers: list[int] = []
    pos = 0
    while len(numbers) < 3:
        match = _TOKEN.match(data, pos)
        if match is None:
            start = _SPACE.match(data, pos).end()  # type: ignore[union-attr]
            rest = data[start:]
            if rest and not re.fullmatch(rb"\+?[0-9]{0,40}", rest):
                raise HeaderError(f"not a game number, player count and seat: {rest[:40]!r}")
            if len(rest) > 41:
                raise HeaderError("a number of more than 40 digits")
            return None  # a number still arriving, or nothing yet
        numbers.append(int(match.group(1)))
        pos = match.end()
    game, players, seat = numbers
    if players not in (2, 3, 4):
        raise HeaderError(f"player count {players} (2, 3 or 4)")
    if not 0 <= seat < players:
        raise HeaderError(f"seat {seat} of a {players}-player game")
    return (game, players, seat), pos


async def serve_tcp(hub: Hub, host: str, port: int) -> asyncio.Server:
    """Listen for the original's clients; every connection is handled on
    the event loop, so a silent or hostile one costs only its own socket."""
    return await asyncio.start_server(lambda r, w: _connection(hub, r, w), host, port, limit=_READ)


async def _connection(hub: Hub, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    peer = writer.get_extra_info("peername")
    key = hub.addresses.acquire(peer[0] if isinstance(peer, (tuple, list)) and peer else None)
    if key is None:  # one address holds too many connections already (server.guard)
        log.info("tcp %s: refused: too many connections from that address", peer)
        writer.write((refusal(hub.addresses.limit) + "\n").encode())
        writer.transport.close()  # flushes what fits, and costs no wait
        return
    try:
        await _serve(hub, reader, writer, peer)
    finally:
        hub.addresses.release(key)


async def _serve(hub: Hub, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: object) -> None:
    try:
        try:
            (number, players, index), rest = await asyncio.wait_for(_read_header(reader), HEADER_TIMEOUT)
        except (HeaderError, asyncio.TimeoutError, ConnectionError) as e:
            log.info("tcp %s: refused: %s", peer, e or "no header in time")
            return
        try:
            game, seat = hub.tcp_seat(number, players, index)
        except SeatRefused as e:
            log.info("tcp %s: refused: %s", peer, e)
            return
        await _play(hub, game, seat, reader, writer, rest, peer)
    finally:
        with contextlib.suppress(Exception):
            writer.close()
            await asyncio.wait_for(writer.wait_closed(), 5.0)


async def _read_header(reader: asyncio.StreamReader) -> tuple[tuple[int, int, int], bytes]:
    buf = b""
    while True:
        parsed = parse_header(buf)
        if parsed is not None:
            numbers, used = parsed
            return numbers, buf[used:]
        if len(buf) > HEADER_LIMIT:
            raise HeaderError(f"more than {HEADER_LIMIT} bytes without the three numbers")
        data = await reader.read(256)
        if not data:
            raise HeaderError("closed before sending the three numbers")
        buf += data


async def _play(hub, game, seat, reader, writer, rest: bytes, peer: object) -> None:  # type: ignore[no-untyped-def]
    done = asyncio.Event()
    link = None

    def deliver(line: bytes) -> None:
        writer.write(line + b"\n")
        if writer.transport.get_write_buffer_size() > WRITE_BACKLOG and link is not None:
            link.close_answers(f"left more than {WRITE_BACKLOG} bytes of states unread")
            writer.transport.abort()

    link = hub.connect_seat(game, seat, deliver, done.set)
    link.seat.note(f"connected over TCP (the original's protocol) from {_peer(peer)}")
    hub.maybe_start(game)
    stream = JsonValueStream(game.options.line_limit)
    pending = rest
    finished = asyncio.ensure_future(done.wait())
    try:
        while not done.is_set():
            try:
                for value in stream.feed(pending):
                    link.answer(value)
            except ValueTooLong as e:
                hub.seat_lost(game, seat, str(e))
                return
            read = asyncio.ensure_future(reader.read(_READ))
            await asyncio.wait({read, finished}, return_when=asyncio.FIRST_COMPLETED)
            if not read.done():
                read.cancel()
                break
            try:
                pending = read.result()
            except (ConnectionError, OSError):
                pending = b""
            if not pending:
                cut = " in the middle of a move" if stream.pending() else ""
                hub.seat_lost(game, seat, f"connection closed{cut}")
                return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.drain(), 10.0)  # the final state, then close
    finally:
        finished.cancel()


def _peer(peer: object) -> str:
    if isinstance(peer, tuple) and len(peer) >= 2:
        return f"{peer[0]}:{peer[1]}"
    return str(peer)
