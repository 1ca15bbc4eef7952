"""Exact JSON for the wire: integers of any size, compact sorted output.

The original driver (Racket) reads and writes integers of any size, and
Magic Bean Stock grows purses past 2**64 in long games. orjson, our fast
path, cannot encode an int beyond 64 bits and decodes one as a float
(`[99999999999999999999]` came back as `[1e+20]`), or fails when it
overflows a double. So every state, answer and trace line goes through
this one pair:

- `dumps(value)`: orjson with sorted keys; if orjson refuses the value
  (an int beyond 64 bits, or nesting deeper than its 254 levels), an
  iterative encoder that writes each leaf with orjson and each big int
  as its digits, so the bytes are the ones orjson would write.
- `loads(data)`: orjson; the exact parser below runs instead only when
  the input holds a run of 19 or more digits (an integer orjson may not
  hold exactly) or orjson refused it. That parser reads the same
  grammar as orjson (strict RFC 8259) without recursion and tells a
  document that is not JSON (`NotJSON`) from valid JSON that breaks a
  limit: nesting deeper than `MAX_DEPTH` (`TooDeep`), an integer longer
  than `max_digits` (`NumberTooLong`), a float beyond a double
  (`NumberOutOfRange`).

Integers longer than Python's own limit for int/str conversion (4300
digits by default) are converted piecewise (`digits_to_int`,
`int_to_digits`), never by lifting that process-wide limit.

Start-up matters (the SDK imports this in every bot): orjson only; the
stdlib's json and the exact parser's regular expressions are loaded the
first time a slow path runs.
"""

from __future__ import annotations

import re
from functools import lru_cache, partial
from typing import Any

import orjson

__all__ = [
    "MAX_DEPTH",
    "DEFAULT_MAX_DIGITS",
    "JSONError",
    "NotJSON",
    "JSONLimitError",
    "TooDeep",
    "NumberTooLong",
    "NumberOutOfRange",
    "dumps",
    "loads",
    "digits_to_int",
    "int_to_digits",
    "digits_of",
    "describe_int",
]

MAX_DEPTH = 1024
"""Deepest nesting read (orjson's own limit, so both paths agree)."""

DEFAULT_MAX_DIGITS = 4300
"""Longest integer `loads` reads by default: Python's default int limit."""

_SORTED = orjson.OPT_SORT_KEYS
_I64_MIN = -(2**63)
_U64_MAX = 2**64 - 1
_CHUNK = 4000  # digits converted at once: below Python's 4300-digit default limit
_SMALL = 10**_CHUNK


class JSONError(ValueError):
    """A document `loads` cannot return; `problem` completes "answer ..." or
    "message ..." (e.g. "is not JSON (...)", "nests deeper than 1024 levels")."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class NotJSON(JSONError):
    """Not a JSON document."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"is not JSON ({detail})")
        self.detail = detail


class JSONLimitError(JSONError):
    """Valid JSON (as far as it was read) that breaks one of our limits."""


class TooDeep(JSONLimitError):
    def __init__(self, limit: int = MAX_DEPTH) -> None:
        super().__init__(f"nests deeper than {limit} levels")
        self.limit = limit


class NumberTooLong(JSONLimitError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"has a number longer than {limit} digits")
        self.limit = limit


class NumberOutOfRange(JSONLimitError):
    def __init__(self) -> None:
        super().__init__("has a fractional number beyond the range of a double (about 1.8e308)")


# ------------------------------------------------------------------ numbers


@lru_cache(maxsize=64)
def _pow10(k: int) -> int:
    power: int = 10**k  # k >= 0: an int (typeshed says Any for any int exponent)
    return power


def digits_to_int(text: str) -> int:
    """The int written as `text` (an optional "-", then decimal digits), of
    any length, in O(n**1.6) rather than through the 4300-digit limit."""
    if len(text) <= _CHUNK:
        return int(text)
    if text[0] == "-":
        return -digits_to_int(text[1:])
    low = len(text) // 2
    return digits_to_int(text[:-low]) * _pow10(low) + digits_to_int(text[-low:])


def int_to_digits(n: int) -> str:
    """The decimal digits of `n`, of any size (see `digits_to_int`)."""
    if -_SMALL < n < _SMALL:
        return str(n)
    if n < 0:
        return "-" + int_to_digits(-n)
    low = digits_of(n) // 2
    high, rest = divmod(n, _pow10(low))
    return int_to_digits(high) + int_to_digits(rest).zfill(low)


def digits_of(n: int) -> int:
    """An upper bound, within one, of the number of decimal digits of |n|,
    found without converting it."""
    return int(abs(n).bit_length() * 0.30103) + 1


def describe_int(n: int) -> str:
    """`n` for a message: its digits, or its size when it has more than 40."""
    if -(10**40) < n < 10**40:
        return str(n)
    return f"{'a negative' if n < 0 else 'an'} integer of about {digits_of(n)} digits"


# ------------------------------------------------------------------ encoding


def dumps(value: Any) -> bytes:
    """Compact JSON with sorted keys and no newline, exact for ints of any
    size; raises TypeError for what orjson cannot encode (e.g. a set)."""
    try:
        return orjson.dumps(value, option=_SORTED)
    except TypeError:
        return _dumps_exact(value)


def _dumps_exact(value: Any) -> bytes:
    """The bytes orjson would write if it took big ints and any depth:
    containers walked without recursion, and every part orjson takes
    (a leaf, or a whole subtree such as a state's shop) written by orjson."""
    out: list[bytes] = []
    todo: list[tuple[bool, Any]] = [(False, value)]  # (already bytes, item), popped from the end
    while todo:
        raw, item = todo.pop()
        if raw:
            out.append(item)
            continue
        if isinstance(item, (dict, list, tuple)):
            try:
                out.append(orjson.dumps(item, option=_SORTED))
                continue
            except TypeError:
                pass  # something inside needs us: open it
        if isinstance(item, dict):
            keys = list(item)
            if not all(type(k) is str for k in keys):
                raise TypeError("Dict key must be str")
            keys.sort()
            todo.append((True, b"}"))
            for n, key in enumerate(reversed(keys)):
                todo.append((False, item[key]))
                todo.append((True, orjson.dumps(key) + b":"))
                if n < len(keys) - 1:
                    todo.append((True, b","))
            todo.append((True, b"{"))
        elif isinstance(item, (list, tuple)):
            todo.append((True, b"]"))
            for n, element in enumerate(reversed(item)):
                todo.append((False, element))
                if n < len(item) - 1:
                    todo.append((True, b","))
            todo.append((True, b"["))
        elif isinstance(item, int) and not isinstance(item, bool) and not _I64_MIN <= item <= _U64_MAX:
            out.append(int_to_digits(item).encode())
        else:
            out.append(orjson.dumps(item))
    return b"".join(out)


# ------------------------------------------------------------------ decoding

_DIGIT_MARKS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x2E for b in range(256))
_LONG_RUN = b"0" * 19  # 19 digits: 10**18, the first size orjson may not hold exactly


def loads(data: bytes | str, *, max_digits: int | None = DEFAULT_MAX_DIGITS) -> Any:
    """Parse one JSON document exactly. `max_digits` bounds an integer's
    length (None: no bound but the input's). Raises NotJSON or a
    JSONLimitError (both ValueErrors)."""
    if isinstance(data, str):
        try:
            data = data.encode()
        except UnicodeEncodeError:
            raise NotJSON("a lone surrogate") from None
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as problem:
        text = _text(data)
        # Only a number (beyond a double) or the depth can stop orjson on a
        # document the exact parser might read; anything else is not JSON,
        # and orjson says so without the exact parser's Python-speed walk.
        if not any(word in problem.msg for word in ("number", "depth", "recursion")):
            raise NotJSON(f"{problem.msg} at character {problem.pos}") from None
        return _Parser(text, max_digits).document()
    if data.translate(_DIGIT_MARKS).find(_LONG_RUN) < 0:
        return value
    # Valid JSON (orjson read it) with a long integer: the stdlib's C parser
    # reads it again exactly, or ours if the stdlib's recursion runs out.
    import json

    text = data.decode()
    try:
        return json.loads(text, parse_int=partial(_int_token, max_digits))
    except RecursionError:
        return _Parser(text, max_digits).document()


def _text(data: bytes) -> str:
    try:
        return data.decode()
    except UnicodeDecodeError as problem:
        raise NotJSON(f"not UTF-8 at byte {problem.start}") from None


def _int_token(max_digits: int | None, token: str) -> int:
    if max_digits is not None and len(token) - (token[0] == "-") > max_digits:
        raise NumberTooLong(max_digits)
    return digits_to_int(token)


_LITERALS = (("true", True), ("false", False), ("null", None))


@lru_cache(maxsize=1)
def _grammar() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], Any]:
    """(whitespace, number, lone surrogate, the stdlib's string scanner),
    built on first use: most processes never need them."""
    from json.decoder import scanstring  # type: ignore[attr-defined]  # public in CPython, absent from typeshed

    return (
        re.compile(r"[ \t\n\r]*"),
        re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?"),
        re.compile("[\ud800-\udfff]"),
        scanstring,
    )


class _Parser:
    """Strict JSON without recursion; only for the documents orjson cannot
    read exactly, so clarity beats speed."""

    def __init__(self, text: str, max_digits: int | None) -> None:
        self.text = text
        self.max_digits = max_digits
        self.space, self.number_token, self.surrogate, self.scanstring = _grammar()

    def fail(self, what: str, at: int) -> NotJSON:
        return NotJSON(f"{what} at character {at}")

    def ws(self, i: int) -> int:
        return self.space.match(self.text, i).end()  # type: ignore[union-attr]

    def document(self) -> Any:
        text = self.text
        n = len(text)
        stack: list[list[Any]] = []  # open containers: [list] or [dict, pending key]
        i = self.ws(0)
        while True:
            # a value starts at i
            if i >= n:
                raise self.fail("unexpected end", i)
            c = text[i]
            if c == "[" or c == "{":
                if len(stack) >= MAX_DEPTH:
                    raise TooDeep()
                i = self.ws(i + 1)
                close = "]" if c == "[" else "}"
                if i < n and text[i] == close:
                    value: Any = [] if c == "[" else {}
                    i += 1
                elif c == "[":
                    stack.append([[]])
                    continue
                else:
                    key, i = self.key(i)
                    stack.append([{}, key])
                    continue
            elif c == '"':
                value, i = self.string(i)
            elif c == "-" or "0" <= c <= "9":
                value, i = self.number(i)
            else:
                for word, literal in _LITERALS:
                    if text.startswith(word, i):
                        value, i = literal, i + len(word)
                        break
                else:
                    raise self.fail(f"unexpected {c!r}", i)
            # the value is complete: hand it to the open containers
            while True:
                i = self.ws(i)
                if not stack:
                    if i != n:
                        raise self.fail("trailing data", i)
                    return value
                top = stack[-1]
                container = top[0]
                if type(container) is dict:
                    container[top[1]] = value
                    close = "}"
                else:
                    container.append(value)
                    close = "]"
                if i < n and text[i] == ",":
                    i = self.ws(i + 1)
                    if close == "}":
                        top[1], i = self.key(i)
                    break
                if i < n and text[i] == close:
                    stack.pop()
                    value, i = container, i + 1
                    continue
                raise self.fail(f"expected ',' or '{close}'", i)

    def key(self, i: int) -> tuple[str, int]:
        """An object key and its colon; returns where its value starts."""
        if i >= len(self.text) or self.text[i] != '"':
            raise self.fail("expected a key", i)
        key, i = self.string(i)
        i = self.ws(i)
        if i >= len(self.text) or self.text[i] != ":":
            raise self.fail("expected ':'", i)
        return key, self.ws(i + 1)

    def string(self, i: int) -> tuple[str, int]:
        try:
            value, end = self.scanstring(self.text, i + 1, True)
        except ValueError as problem:  # JSONDecodeError
            raise self.fail(getattr(problem, "msg", "bad string"), i) from None
        if self.surrogate.search(value):
            raise self.fail("a lone surrogate in a string", i)
        return value, end

    def number(self, i: int) -> tuple[int | float, int]:
        match = self.number_token.match(self.text, i)
        if match is None:
            raise self.fail("bad number", i)
        token = match.group()
        if match.group(1) is None and match.group(2) is None:
            return _int_token(self.max_digits, token), match.end()
        value = float(token)
        if value in (float("inf"), float("-inf")):
            raise NumberOutOfRange()
        return value, match.end()
