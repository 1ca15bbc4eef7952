"""Where one answer ends in a bot's output: one JSON value, as the original reads it.

The original driver reads each answer with Racket's `read-json` straight
from the bot's output stream: it skips whitespace (space, tab, newline,
carriage return), reads exactly one JSON value and leaves whatever
follows in the stream for the next read. So an answer may be
pretty-printed over several lines, need not end with a newline, and may
be followed by spaces. `ValueScanner` finds that value's bytes in what a
bot has sent so far, without judging them: `protocol.exactjson.loads`
does that, so that every form the original rejects is still a fault.

Arrays, objects and strings end at their closing byte. A bare number or
literal (`5`, `true`) ends at the first byte that cannot continue it, or
at the end of the stream: `read-json` peeks at that byte too (and such an
answer is a fault anyway: a move is an array). A byte that cannot start
or continue JSON outside a string ends the value at once, so that garbage
is reported now rather than after the timeout.

The scanner resumes where it stopped, so a value that arrives a byte at
a time costs linear time; `limit` bounds the value's length.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

__all__ = ["WHITESPACE", "Found", "FoundKind", "ValueScanner"]

WHITESPACE = b" \t\r\n"
"""What may stand between answers and between the tokens of one (JSON's
whitespace, and Racket's `read-json`'s since it refuses other spaces)."""

_SKIP_SPACE = re.compile(rb"[ \t\r\n]*")
_PLAIN = re.compile(rb"[ \t\r\n,:0-9+\-.eEtrufalsn]*")  # inside a container, outside strings
_IN_STRING = re.compile(rb'[^"\\]*')
_SCALAR = re.compile(rb"[0-9A-Za-z+\-._]*")  # what can continue a bare number or literal
_OPEN, _CLOSE = frozenset(b"[{"), frozenset(b"]}")
_FLAT = re.compile(rb'[^\[\]{}"\\\n]*|[ \t\r]*"[^"\\\n\[\]{}]*"[ \t\r]*')  # no nesting, at most one plain string



def _end(pattern: re.Pattern[bytes], buffer: bytes | bytearray, pos: int) -> int:
    """Where `pattern`, which also matches the empty string, stops matching at `pos`."""
    match = pattern.match(buffer, pos)
    assert match is not None  # every pattern here matches the empty string
    return match.end()


class FoundKind(enum.Enum):
    VALUE = "value"  # a complete value (its bytes may still be invalid JSON: loads judges)
    GARBAGE = "garbage"  # a byte no JSON value can hold: the value ends there
    TOO_LONG = "too long"  # the value grew past the limit before it ended


@dataclass(frozen=True, slots=True)
class Found:
    """One value's place in the buffer: bytes `start:end`; `after` is where
    the next search starts (past the garbage's line for GARBAGE)."""

    kind: FoundKind
    start: int
    end: int
    after: int
    newline_before: bool  # a newline stood between the previous value and this one


class ValueScanner:
    """Finds the next JSON value in a growing buffer; call `find` again as
    bytes arrive (the same buffer, grown at its end) and `reset` after the
    caller removed a found value's bytes from the buffer's front."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.reset()

    def reset(self) -> None:
        self._pos = 0  # next byte to look at
        self._start = -1  # the value's first byte, once seen
        self._depth = 0
        self._in_string = False
        self._scalar = False
        self._newline = False
        self._discarding = False  # the rest of a garbage line that had no newline yet

    @property
    def started(self) -> bool:
        """Whether the value's first byte has arrived."""
        return self._start >= 0

    def pending_length(self, buffer: bytes | bytearray) -> int:
        """Bytes of the unfinished value held so far (0 before it starts)."""
        return len(buffer) - self._start if self._start >= 0 else 0

    def find(self, buffer: bytes | bytearray, eof: bool = False) -> Found | None:
        """The next value if it is complete (or can be judged), else None.
        `eof`: nothing more will come, so a bare scalar ends here."""
        n = len(buffer)
        pos = self._pos
        if self._discarding:
            newline = buffer.find(b"\n", pos)
            if newline < 0:
                self._pos = n
                return None
            self._discarding = False
            pos = newline + 1
        if self._start < 0:
            skipped = _end(_SKIP_SPACE, buffer, pos)
            self._newline = self._newline or b"\n" in buffer[pos:skipped]
            pos = self._pos = skipped
            if pos == n:
                return None
            self._start = pos
            first = buffer[pos]
            if first == 0x5B:  # the usual answer, `[3]` or `["Worker"]` on a line of its own: found at once
                end = buffer.find(b"]", pos)
                if 0 < end < buffer.find(b"\n", pos) and _FLAT.fullmatch(buffer, pos + 1, end):
                    self._pos = end + 1
                    return self._found(FoundKind.VALUE, end + 1, end + 1)
            if first in _OPEN:
                self._depth = 1
            elif first == 0x22:  # "
                self._in_string = True
            elif first == 0x2D or 0x30 <= first <= 0x39 or first in b"tfn":
                self._scalar = True
            else:
                return self._garbage(buffer, pos)
            pos += 1
        if self._scalar:
            pos = _end(_SCALAR, buffer, pos)
            self._pos = pos
            if pos < n or eof:
                return self._found(FoundKind.VALUE, pos, pos)
            return self._check_length(n)
        while pos < n:
            if self._in_string:
                pos = _end(_IN_STRING, buffer, pos)
                if pos >= n:
                    break
                if buffer[pos] == 0x5C:  # backslash: skip the escaped byte
                    if pos + 1 >= n:
                        break
                    pos += 2
                    continue
                pos += 1  # the closing quote
                self._in_string = False
                if self._depth == 0:
                    self._pos = pos
                    return self._found(FoundKind.VALUE, pos, pos)
                continue
            pos = _end(_PLAIN, buffer, pos)
            if pos >= n:
                break
            byte = buffer[pos]
            if byte == 0x22:
                self._in_string = True
            elif byte in _OPEN:
                self._depth += 1
            elif byte in _CLOSE:
                self._depth -= 1
                if self._depth == 0:
                    self._pos = pos + 1
                    return self._found(FoundKind.VALUE, pos + 1, pos + 1)
            else:
                return self._garbage(buffer, pos)
            pos += 1
        self._pos = pos
        return self._check_length(n)

    def _check_length(self, n: int) -> Found | None:
        if n - self._start > self.limit:
            return self._found(FoundKind.TOO_LONG, n, n)
        return None

    def _garbage(self, buffer: bytes | bytearray, pos: int) -> Found:
        """The value ends at a byte JSON cannot hold there: report it with
        the rest of its line, and go on after that line."""
        newline = buffer.find(b"\n", pos)
        end = len(buffer) if newline < 0 else newline
        found = self._found(FoundKind.GARBAGE, end, end if newline < 0 else newline + 1)
        self._discarding = newline < 0  # the rest of its line, when it comes, is part of it
        return found

    def _found(self, kind: FoundKind, end: int, after: int) -> Found:
        if end - self._start > self.limit:  # it ended, but in the same read that took it past the limit
            kind = FoundKind.TOO_LONG
        found = Found(kind, self._start, end, after, self._newline)
        self.reset()
        return found
