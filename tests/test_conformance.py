"""Our referee reproduces every game recorded from the original driver.

Each seat is played by a replay bot answering with that seat's recorded
answers; the game has no chance, so our trace must equal the recorded
one line by line, as parsed JSON (the fault reason's wording aside).
The traces live in ../shared/traces next to the repository, or in
$ECONOMANCY_TRACES; without them the test is skipped, unless $CI is set.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from driver.botspec import BotSpec
from driver.game import GameOptions, game_lines, play_game
from protocol.wire import decode_move, decode_state, encode

REPLAY = Path(__file__).parent / "bots" / "replay.py"
TRACES = Path(os.environ.get("ECONOMANCY_TRACES", Path(__file__).resolve().parents[2] / "shared" / "traces"))
TRACE_FILES = sorted(TRACES.glob("*.jsonl")) if TRACES.is_dir() else []
NAME = re.compile(r"^(simple|base)_([234])p_.*\.jsonl$")


def _without_reason(value: Any) -> Any:
    if isinstance(value, dict) and value.get("phase", {}).get("name") == "fault":
        return {**value, "phase": {**value["phase"], "reason": "..."}}
    return value


def test_traces_are_present() -> None:
    if not TRACE_FILES:
        if os.environ.get("CI"):
            pytest.fail(f"no golden traces in {TRACES} (set $ECONOMANCY_TRACES)")
        pytest.skip(f"no golden traces in {TRACES}")
    assert len(TRACE_FILES) == 123


@pytest.mark.parametrize("path", TRACE_FILES, ids=[p.stem for p in TRACE_FILES])
def test_replayed_game_matches_the_original(path: Path) -> None:
    match = NAME.match(path.name)
    assert match, f"unexpected trace name {path.name}"
    base, players = match.group(1) == "base", int(match.group(2))
    max_days = 12 if "maxdays12" in path.name else 100
    bots = [BotSpec((sys.executable, "-S", str(REPLAY), str(path), str(seat)), f"replay{seat}") for seat in range(players)]
    result = play_game(bots, GameOptions(base=base, max_days=max_days, timeout=5.0))
    expected = [_without_reason(orjson.loads(line)) for line in path.read_bytes().splitlines()]
    ours = [_without_reason(orjson.loads(line)) for line in game_lines(result.trace)]
    for number, (want, got) in enumerate(zip(expected, ours), start=1):
        assert got == want, f"{path.name} line {number} differs"
    assert len(ours) == len(expected)
    # Beyond equal values, the same bytes (compact, sorted keys), fault states aside.
    for number, (want_line, got_line) in enumerate(zip(path.read_bytes().splitlines(), game_lines(result.trace)), start=1):
        if b'"name":"fault"' not in want_line:
            assert got_line == want_line, f"{path.name} line {number}: same value, different bytes"
    final = expected[-1]["phase"]
    if final["name"] == "fault":
        assert result.fault is not None and result.fault[0] == final["forfiet"]
    else:
        assert result.winner == (None if final["winner"] is False else final["winner"])


@pytest.mark.parametrize("path", TRACE_FILES, ids=[p.stem for p in TRACE_FILES])
def test_recorded_messages_fit_the_wire_models_byte_for_byte(path: Path) -> None:
    for line in path.read_bytes().splitlines():
        if line.startswith(b"{"):
            assert encode(decode_state(line)) == line
        else:
            assert encode(decode_move(line)) == line
