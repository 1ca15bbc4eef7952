"""A bot's bytes never reach a person's terminal raw: the `driver run`
summary, `driver check` and the tournament table escape them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from driver.cli import EXIT_CHECK_FAILED, EXIT_FORFEIT
from common.text import printable, printable_lines
from tournaments.outcomes import Result
from tournaments.standings import compute, render_text

BOTS = Path(__file__).parent / "bots"
PY = f"{sys.executable} -S"
# Anything a terminal acts on rather than shows (a newline only ends a line).
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def driver(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, timeout=300, cwd=Path(__file__).parents[1]
    )


def test_printable_shows_control_and_bidi_characters_as_escapes() -> None:
    assert printable("\x1b[2J\x1b]52;c;aGk=\x07") == "\\x1b[2J\\x1b]52;c;aGk=\\x07"
    assert printable("a\tb\nc\rd\x7f\x9b1m") == "a\\tb\\nc\\rd\\x7f\\x9b1m"
    assert printable("\u202egnp.exe \u2066x\u2069 \u2028") == "\\u202egnp.exe \\u2066x\\u2069 \\u2028"
    assert printable(b"ok \xff\x1b") == "ok \\xff\\x1b"  # bytes that are not UTF-8 are shown, not dropped
    assert printable("Sorcerer's Stipend, café, 金") == "Sorcerer's Stipend, café, 金"
    assert printable_lines(b"one\n\x1b[1Atwo\r\n\n") == ["one", "\\x1b[1Atwo\\r"]
    assert printable_lines(b"") == []


def test_the_run_summary_shows_a_bots_escape_codes_harmlessly() -> None:
    done = driver("run", "--timeout", "10", f"{PY} {BOTS / 'simple.py'}", f"{PY} {BOTS / 'escapes.py'}")
    assert done.returncode == EXIT_FORFEIT
    summary = done.stderr.decode()
    assert not CONTROL.search(summary), repr(summary)
    assert "answer is not JSON: I play \\x1b[2J" in summary  # the answer snippet in the reason
    assert "| escapes: \\x1b[2J\\x1b[H\\x1b]0;pwned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x9b31m\\u202egnp.exe" in summary


def test_check_shows_a_bots_escape_codes_harmlessly() -> None:
    done = driver("check", "--timeout", "10", f"{PY} {BOTS / 'escapes.py'}")
    assert done.returncode == EXIT_CHECK_FAILED
    out = done.stdout.decode()
    assert not CONTROL.search(out), repr(out)
    assert "FAILED well-formed: answer is not JSON: I play \\x1b[2J" in out
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in out


def test_the_tournament_table_escapes_forfeit_reasons() -> None:
    nasty = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J gone"
    standings = compute([(Result(("good", "bad"), None, 1), nasty)])
    table = render_text(standings)
    assert not CONTROL.search(table.replace("\n", " ")), repr(table)
    assert "forfeits: bad: 1 x \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J gone" in table
