"""Making a bot's text harmless to show to a person.

A bot's answers and standard error are hostile input. Shown raw in a
terminal, its bytes can move the cursor, clear the screen, rewrite
earlier lines, set the window title (OSC 0) or write the clipboard (OSC
52); Unicode bidi controls can reorder what is displayed so that the
text reads other than it is. Every place that shows bot text to a person
(the `driver run` summary, `driver check`, tournament tables, and the
viewer and server pages along with their HTML escaping) passes it
through `printable` first.
"""

from __future__ import annotations

import re

__all__ = ["printable", "printable_lines"]

_UNSAFE = re.compile(
    "["
    "\x00-\x1f\x7f-\x9f"  # C0 controls (ESC, CR, BS, ...), DEL, C1 controls (CSI as one byte, ...)
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, overrides, isolates
    "\u2028\u2029"  # line and paragraph separators
    "\u00ad\u180e\u200b-\u200d\u2060-\u2065\ufeff"  # invisible: soft hyphen, zero widths, joiners, BOM
    "]"
)
"""What `printable` escapes; the viewer's table renderer (viewer/static/table.js,
`INVISIBLE`) escapes the same characters in the browser."""
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str | bytes) -> str:
    """`text` as one line that a terminal shows as it is: control and bidi
    characters written as visible escapes (ESC as \\x1b, a newline as \\n).
    Bytes that are not UTF-8 are shown as \\xNN."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    return _UNSAFE.sub(_escape, text)


def printable_lines(text: str | bytes) -> list[str]:
    """`text` split into lines (at \\n only), each made `printable`."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    return [printable(line) for line in text.rstrip("\n").split("\n")] if text.strip("\n") else []
