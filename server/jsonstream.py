"""Cutting a byte stream into JSON values, as the original server reads moves.

The original server reads each move with Racket's `read-json`, which
takes one JSON value from the connection and leaves the rest: a client
may end its move with a newline or not, and may put several values in
one write. Our referee reads one answer per line, so the TCP side finds
where each value ends and hands the referee that value's bytes as one
line. It does not decode the value: the referee decodes it exactly as it
decodes a bot's line, so both paths apply the same rules and write the
same trace.

A value that cannot be JSON is still cut out (up to the next newline or
the size limit) and handed on as it is: the referee then faults it as
"not JSON", with the bytes in the trace, as it would a bot's garbage.
"""

from __future__ import annotations

__all__ = ["ValueTooLong", "JsonValueStream"]

_WHITESPACE = b" \t\r\n"
_OPEN = {ord("["): ord("]"), ord("{"): ord("}")}
_DELIMITERS = frozenset(b" \t\r\n[]{},:\"")


class ValueTooLong(ValueError):
    """More than `limit` bytes arrived without completing one value."""


class JsonValueStream:
    """Feed bytes in, take complete top-level JSON values (as bytes) out.

    Only the structure is scanned (brackets, strings and their escapes),
    so the cost is linear in the input and the memory is bounded by
    `limit` bytes of one unfinished value.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._scan = 0  # bytes of _buf already scanned for the current value
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._stack: list[int] = []

    def feed(self, data: bytes) -> list[bytes]:
        """Add `data`; return every value it completes, in order. Raises
        ValueTooLong when the unfinished value passes the limit."""
        self._buf += data
        values = []
        while True:
            value = self._next()
            if value is None:
                break
            values.append(value)
        if len(self._buf) > self.limit:
            raise ValueTooLong(f"more than {self.limit} bytes without a complete JSON value")
        return values

    def pending(self) -> bytes:
        """The bytes of an unfinished value (what a closed connection left)."""
        return bytes(self._buf).strip(_WHITESPACE)

    def _next(self) -> bytes | None:
        buf = self._buf
        # Skip whitespace between values.
        start = 0
        while start < len(buf) and buf[start] in _WHITESPACE:
            start += 1
        if start:
            del buf[:start]
            self._scan = 0
        if not buf:
            return None
        first = buf[0]
        if first in _OPEN or first == ord('"'):
            end = self._scan_structured()
        else:
            end = self._scan_scalar()
        if end is None:
            return None
        value = bytes(buf[:end])
        del buf[:end]
        self._reset()
        return value

    def _reset(self) -> None:
        self._scan = 0
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._stack.clear()

    def _scan_structured(self) -> int | None:
        """End (exclusive) of the array, object or string starting the buffer,
        or None while it is unfinished. A closing bracket that does not match
        ends the value there: it is garbage, and the referee will say so."""
        buf = self._buf
        i = self._scan
        stack = self._stack
        while i < len(buf):
            c = buf[i]
            i += 1
            if self._in_string:
                if self._escape:
                    self._escape = False
                elif c == 0x5C:  # backslash
                    self._escape = True
                elif c == 0x22:  # quote
                    self._in_string = False
                    if not stack:
                        return i
                elif c == 0x0A:  # a raw newline cannot be in a JSON string: cut the garbage here
                    return i
                continue
            if c == 0x22:
                self._in_string = True
            elif c in _OPEN:
                stack.append(_OPEN[c])
            elif c in (0x5D, 0x7D):
                if not stack or stack.pop() != c:
                    return i
                if not stack:
                    return i
        self._scan = i
        return None

    def _scan_scalar(self) -> int | None:
        """A bare number or literal ends at the first delimiter; garbage that
        starts with something else ends at the end of its line."""
        buf = self._buf
        first = buf[0]
        if first in b"-0123456789tfn":
            for i in range(max(self._scan, 1), len(buf)):
                if buf[i] in _DELIMITERS:
                    return i
            self._scan = len(buf)
            return None
        nl = buf.find(b"\n", self._scan)
        if nl < 0:
            self._scan = len(buf)
            return None
        return nl
