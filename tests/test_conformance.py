"""Our referee reproduces every game recorded from the original driver.

Each seat is played by a replay bot answering with that seat's recorded
answers; the game has no chance, so our trace must equal the recorded
one line by line, as parsed JSON (the fault reason's wording aside).
The traces are the repository's own test data (tests/data/traces).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from driver.botspec import BotSpec
from driver.game import GameOptions, game_lines, play_game
from protocol.wire import decode_move, decode_state, encode
import tracedata

REPLAY = Path(__file__).parent / "bots" / "replay.py"
TRACE_FILES = [tracedata.DIR / (name + ".gz") for name in tracedata.names()]
NAME = re.compile(r"^(simple|base)_([234])p_.*\.jsonl\.gz$")


def _without_reason(value: Any) -> Any:
    if isinstance(value, dict) and value.get("phase", {}).get("name") == "fault":
        return {**value, "phase": {**value["phase"], "reason": "..."}}
    return value


def test_traces_are_present() -> None:
    assert len(TRACE_FILES) == 123


@pytest.mark.parametrize("path", TRACE_FILES, ids=[p.name.removesuffix(".jsonl.gz") for p in TRACE_FILES])
def test_replayed_game_matches_the_original(path: Path) -> None:
    match = NAME.match(path.name)
    assert match, f"unexpected trace name {path.name}"
    base, players = match.group(1) == "base", int(match.group(2))
    max_days = 12 if "maxdays12" in path.name else 100
    bots = [BotSpec((sys.executable, "-S", str(REPLAY), str(path), str(seat)), f"replay{seat}") for seat in range(players)]
    result = play_game(bots, GameOptions(base=base, max_days=max_days, timeout=5.0))
    expected = [_without_reason(orjson.loads(line)) for line in tracedata.read_bytes(path.name).splitlines()]
    ours = [_without_reason(orjson.loads(line)) for line in game_lines(result.trace)]  # our header is not the original's
    for number, (want, got) in enumerate(zip(expected, ours), start=1):
        assert got == want, f"{path.name} line {number} differs"
    assert len(ours) == len(expected)
    # Beyond equal values, the same bytes (compact, sorted keys), fault states aside.
    want_lines = tracedata.read_bytes(path.name).splitlines()
    for number, (want_line, got_line) in enumerate(zip(want_lines, game_lines(result.trace)), start=1):
        if b'"name":"fault"' not in want_line:
            assert got_line == want_line, f"{path.name} line {number}: same value, different bytes"
    final = expected[-1]["phase"]
    if final["name"] == "fault":
        assert result.fault is not None and result.fault[0] == final["forfiet"]
    else:
        assert result.winner == (None if final["winner"] is False else final["winner"])


@pytest.mark.parametrize("path", TRACE_FILES, ids=[p.name.removesuffix(".jsonl.gz") for p in TRACE_FILES])
def test_recorded_messages_fit_the_wire_models_byte_for_byte(path: Path) -> None:
    for line in tracedata.read_bytes(path.name).splitlines():
        if line.startswith(b"{"):
            assert encode(decode_state(line)) == line
        else:
            assert encode(decode_move(line)) == line
