"""A seat played over the network, as the referee sees it: a bot whose
standard input and output are pipes to the server's event loop.

The referee (`driver.game.play_game`, in a game thread) serves a network
seat exactly as it serves a bot process: it writes state lines to one
pipe and reads answer lines from another, in the same selector loop,
under the same timeouts, line limit and fault rules, and writes the same
trace. The event loop holds the other ends (`SeatLink`) and moves lines
between them and a client connection (TCP, WebSocket, a browser).

A client that goes away closes the answer pipe: the referee reads end of
file, as from a bot that closed its output, and faults the seat when it
next asks it ("disconnected", with the reason). When the referee is done
with the seat it closes the state pipe, and the event loop, having
delivered every state (the final one included), sees end of file there:
that is how the connection side learns that the game is over.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Callable

from driver.process import LINE_LIMIT, STDERR_LIMIT, PipeEndpoint

__all__ = ["NetworkSeat", "SeatLink"]

_PIPE_FLAGS = os.O_NONBLOCK | os.O_CLOEXEC
_READ_CHUNK = 1 << 16


class NetworkSeat(PipeEndpoint):
    """The referee's side of a network seat (see the module's docstring): a
    `PipeEndpoint` over two fresh pipes, whose other ends (`net_states_fd`,
    `net_answers_fd`) the event loop holds. Its end is told as
    "disconnected (why)"."""

    def __init__(self, name: str, *, line_limit: int = LINE_LIMIT, stderr_limit: int = STDERR_LIMIT) -> None:
        states_read, states_write = os.pipe2(_PIPE_FLAGS)
        answers_read, answers_write = os.pipe2(_PIPE_FLAGS)
        super().__init__(name, states_write, answers_read, line_limit=line_limit, stderr_limit=stderr_limit,
                         isolation="none: a seat played over the network")
        self.net_states_fd: int | None = states_read  # the event loop reads states here
        self.net_answers_fd: int | None = answers_write  # and writes answers here
        self.ended = "disconnected"

    def disconnected(self, reason: str) -> None:
        """The client went away (or was sent away) for `reason`: the fault's
        words if the referee asks the seat again, and a line of its kept
        "standard error"."""
        self.ended = f"disconnected ({reason})"
        self.note(f"disconnected: {reason}")


class SeatLink:
    """The event loop's side of a network seat: states out to a client,
    answers in from it.

    `deliver(line)` is called for every state line the referee writes
    (without its newline), `finished()` once after the last one. A client
    that is not attached (a person reloading the page) misses nothing it
    needs: the last state asked of it is kept and sent again on `attach`.
    """

    def __init__(
        self,
        seat: NetworkSeat,
        loop: asyncio.AbstractEventLoop,
        deliver: Callable[[bytes], None] | None = None,
        finished: Callable[[], None] | None = None,
    ) -> None:
        self.seat = seat
        self.loop = loop
        self._deliver = deliver
        self._finished = finished
        self._partial = bytearray()
        self._pending_out = bytearray()  # answers the pipe did not take yet
        self.asked: bytes | None = None  # the state line awaiting this seat's answer
        self.last: bytes | None = None  # the last state line delivered
        self.done = False  # the referee closed the state pipe
        self.closed = False  # the client side is gone (answers pipe closed)
        assert seat.net_states_fd is not None
        loop.add_reader(seat.net_states_fd, self._on_states)

    # -- states: referee -> client ----------------------------------------

    def attach(self, deliver: Callable[[bytes], None] | None, finished: Callable[[], None] | None = None) -> None:
        """Route states to a (new) client; sends it the question it owes."""
        self._deliver = deliver
        if finished is not None:
            self._finished = finished
        if deliver is not None and self.asked is not None:
            deliver(self.asked)

    def _on_states(self) -> None:
        fd = self.seat.net_states_fd
        if fd is None:
            return
        try:
            data = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.loop.remove_reader(fd)
            os.close(fd)
            self.seat.net_states_fd = None
            self.done = True
            self.asked = None
            if self._finished is not None:
                self._finished()
            self.close_answers("game over")
            return
        self._partial += data
        *lines, rest = self._partial.split(b"\n")
        self._partial = bytearray(rest)
        for line in lines:
            self.last = bytes(line)
            self.asked = self.last if not _is_final(line) else None
            if self._deliver is not None:
                self._deliver(self.last)

    # -- answers: client -> referee ----------------------------------------

    def answer(self, value: bytes) -> None:
        """Hand the referee one answer (one JSON value, any bytes): newlines
        become spaces so that it is one line, as a bot's answer is."""
        if self.closed:
            return
        self.asked = None
        line = value.replace(b"\r", b" ").replace(b"\n", b" ") + b"\n"
        if len(self._pending_out) + len(line) > 4 * self.seat.line_limit:
            self.close_answers("sent answers faster than the referee asks for them")
            return
        self._pending_out += line
        self._flush()

    def _flush(self) -> None:
        fd = self.seat.net_answers_fd
        if fd is None:
            self._pending_out.clear()
            return
        try:
            n = os.write(fd, self._pending_out)
        except BlockingIOError:
            n = 0
        except OSError as e:
            if e.errno == errno.EPIPE:  # the referee is gone already
                self._pending_out.clear()
                return
            raise
        del self._pending_out[:n]
        if self._pending_out:
            self.loop.add_writer(fd, self._on_writable)

    def _on_writable(self) -> None:
        fd = self.seat.net_answers_fd
        if fd is None:
            return
        self.loop.remove_writer(fd)
        self._flush()

    def close_answers(self, reason: str) -> None:
        """The client is gone (or must go): the referee reads end of file and
        faults the seat, with `reason`, when it next asks it. States still
        coming are read and dropped until the referee lets go of the seat."""
        if self.closed:
            return
        self.closed = True
        if not self.done:
            self.seat.disconnected(reason)
        fd = self.seat.net_answers_fd
        if fd is not None:
            self.loop.remove_writer(fd)
            os.close(fd)
            self.seat.net_answers_fd = None
        self._pending_out.clear()
        self._deliver = None


def _is_final(line: bytes | bytearray) -> bool:
    """Whether a state line sent to a seat is the game's final state. The
    lines come from our referee (sorted keys: "phase" before "player"), so a
    look at the phase's name is enough."""
    return b'"phase":{"name":"end"' in line or b'"phase":{"forfiet":' in line
