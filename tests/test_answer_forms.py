"""Answers are read as the original driver reads them: one JSON value from
the bot's output stream (Racket's `read-json`), whatever the lines.

Each row is one form of answer, written by tests/bots/forms.py for every
move of a game. The accepted forms play the whole game and give the same
trace, byte for byte, as a bot that writes one compact line per answer
(the trace holds the value read, re-encoded, as the original's does).
Everything the original rejects is still a fault, and the bounds (size,
nesting, time) stay. `driver check` passes the lenient forms with a
warning, since a driver that reads lines would refuse them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from driver.botspec import BotOptions, BotSpec
from driver.game import GameOptions, play_game
from driver.process import LINE_LIMIT

BOTS = Path(__file__).parent / "bots"
GOOD = BotSpec((sys.executable, "-S", str(BOTS / "simple.py")), "simple")


def forms_bot(template: str) -> BotSpec:
    pad = (str(LINE_LIMIT + 16),) if "PAD" in template else ()
    return BotSpec((sys.executable, "-S", str(BOTS / "forms.py"), json.dumps(template), *pad), "forms")


ACCEPTED = [
    ("one line", "[MOVE]\n"),
    ("pretty-printed over several lines", "[\n  MOVE\n]\n"),
    ("no newline after it", "[MOVE]"),
    ("a space after it and no newline", "[MOVE] "),
    ("spaces, then the newline", "[MOVE]   \n"),
    ("blank lines before it", "\n\n  [MOVE]\n"),
    ("a carriage return before the newline", "[MOVE]\r\n"),
    ("tabs and newlines between tokens", "[\t\n MOVE\r\n\t]"),
]

REJECTED = [
    # (form, template, words of the fault reason; the first answer asked is an investment of 0)
    ("a bare value", "MOVE\n", "one-element array"),
    ("two values in the array", "[MOVE, MOVE]\n", "one-element array"),
    ("an empty array", "[]\n", "one-element array"),
    ("an object", '{"move": MOVE}\n', "one-element array"),
    ("words", "move MOVE\n", "not JSON"),
    ("a missing comma", "[MOVE MOVE]\n", "not JSON"),
    ("a trailing comma", "[MOVE,]\n", "not JSON"),
    ("a leading zero", "[0MOVE]\n", "not JSON"),
    ("a single-quoted string", "['MOVE']\n", "not JSON"),
    ("a form feed before it (not JSON whitespace)", "\f[MOVE]\n", "not JSON"),
    ("a no-break space inside it", "[\u00a0MOVE]\n", "not JSON"),
    ("garbage after it (read as the next answer)", "[MOVE]x\n", "not JSON"),
    ("a fraction", "[MOVE.5]\n", "bad move"),
    ("nested deeper than the bound", "[" * 1100 + "MOVE" + "]" * 1100 + "\n", "deeper than"),
    ("longer than the bound", "[PADMOVE]\n", f"longer than {LINE_LIMIT} bytes"),  # PAD: LINE_LIMIT + 16 spaces
    ("never closed", "[MOVE\n", "timeout"),
    ("nothing at all", "", "timeout"),
]


def _play(bot: BotSpec, timeout: float = 10.0, startup: float = 30.0) -> tuple[list[bytes], tuple[int, str] | None]:
    result = play_game([bot, GOOD], GameOptions(max_days=4, timeout=timeout, seats=(BotOptions(startup=startup),)))
    return result.trace, result.fault


@pytest.fixture(scope="module")
def plain_trace() -> list[bytes]:
    trace, fault = _play(forms_bot("[MOVE]\n"))
    assert fault is None
    return trace


@pytest.mark.parametrize(("form", "template"), ACCEPTED, ids=[row[0] for row in ACCEPTED])
def test_accepted_form_plays_the_whole_game_with_the_same_trace(form: str, template: str,
                                                                 plain_trace: list[bytes]) -> None:
    trace, fault = _play(forms_bot(template))
    assert fault is None, fault
    assert trace == plain_trace  # byte for byte: the value read, re-encoded compactly


@pytest.mark.parametrize(("form", "template", "words"), REJECTED, ids=[row[0] for row in REJECTED])
def test_rejected_form_is_a_fault(form: str, template: str, words: str) -> None:
    # The forms that never complete an answer wait out a short timeout: the
    # outcome is the same however slow the machine (even if it never started).
    waits = words == "timeout"
    trace, fault = _play(forms_bot(template), timeout=2.0 if waits else 10.0, startup=1.0 if waits else 30.0)
    assert fault is not None and fault[0] == 0, fault
    assert words in fault[1], fault[1]
    assert json.loads(trace[-1])["phase"]["name"] == "fault"


def _check(template: str) -> subprocess.CompletedProcess[str]:
    bot = f"{sys.executable} -S {BOTS / 'forms.py'} {json.dumps(json.dumps(template))}"
    return subprocess.run([sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "check", bot],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_check_warns_about_answers_only_a_stream_reader_accepts() -> None:
    done = _check("[\n  MOVE\n]")
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.strip().startswith("answer form"))
    assert "warning" in line and "spread over several lines" in line and "not followed by a newline" in line
    assert "PASS" in done.stdout


@pytest.mark.slow
def test_check_is_silent_about_one_line_answers() -> None:
    done = _check("[MOVE]\n")
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.strip().startswith("answer form"))
    assert line.split() == ["answer", "form", "ok"]


def _values(data: bytes, step: int) -> list[tuple[str, bytes]]:
    from driver.framing import ValueScanner

    scanner, buf, out = ValueScanner(1 << 20), bytearray(), []
    for i in range(0, len(data), step):
        buf += data[i : i + step]
        while (found := scanner.find(buf, eof=i + step >= len(data))) is not None:
            out.append((found.kind.value, bytes(buf[found.start : found.end])))
            del buf[: found.after]
    return out


@pytest.mark.parametrize("data", [
    b'[3]\n["Senior Worker"]\n', b'[\n  3\n]\n[ "Pass" ]', b'[1] [2]   \r\n["a]\\"b"]\n', b'{"a": [1, {"b": 2}]}[0]',
    b"5\ntrue [1]", b'garbage here\n[1]\n', b'[1]x\n[2]\n',
], ids=lambda d: d[:16].decode(errors="replace"))
def test_the_scanner_finds_the_same_values_whatever_the_reads(data: bytes) -> None:
    # A pipe may deliver an answer in any pieces: one byte at a time, the
    # values found are those of the whole stream read at once. (Garbage is
    # reported as soon as it is seen, so its snippet may be shorter.)
    whole = _values(data, len(data))
    assert whole
    for step in (1, 3):
        pieces = _values(data, step)
        assert [kind for kind, _ in pieces] == [kind for kind, _ in whole]
        for (kind, got), (_, want) in zip(pieces, whole):
            assert got == want if kind != "garbage" else want.startswith(got) and got
