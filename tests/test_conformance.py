"""Our referee reproduces every game recorded from the original driver.

Each seat is played by a replay bot answering with that seat's recorded
answers; the game has no chance, so our trace must equal the recorded
one line by line, as parsed JSON (the fault reason's wording aside).
The traces are the repository's own test data (tests/data/traces).

Every trace is replayed with the replay bot in a thread of this process
behind a pair of pipes (a `PipeEndpoint`, which the referee serves as
it serves a bot process: same timeouts, line limit and fault rules); a
sample of them (each kind of game and every fault, none of the bulk
random `_x` series) through real bot processes too, as a tournament
plays them (the file: 8.3 s of CPU, against 23.5 s with all 123 games
through processes).
"""

from __future__ import annotations

import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from driver.botspec import BotSpec
from driver.game import GameOptions, GameResult, game_lines, play_game
from driver.process import PipeEndpoint
from protocol.wire import decode_move, decode_state, encode
import tracedata
from scripts import load_script

REPLAY = Path(__file__).parent / "bots" / "replay.py"
TRACE_FILES = [tracedata.DIR / (name + ".gz") for name in tracedata.names()]
NAME = re.compile(r"^(simple|base)_([234])p_.*\.jsonl\.gz$")
# Through bot processes: the first of each kind and every one-off, not the bulk series.
SAMPLE = [p for p in TRACE_FILES if not re.search(r"_(x\d+|[2-9])\.jsonl\.gz$", p.name)]

replay_bot = load_script(REPLAY)


def _without_reason(value: Any) -> Any:
    if isinstance(value, dict) and value.get("phase", {}).get("name") == "fault":
        return {**value, "phase": {**value["phase"], "reason": "..."}}
    return value


def test_traces_are_present() -> None:
    assert len(TRACE_FILES) == 123


class _ReplaySeat(PipeEndpoint):
    """A seat answered by tests/bots/replay.py's loop in a thread of ours."""

    def __init__(self, path: Path, seat: int) -> None:
        states_read, states_write = os.pipe2(os.O_CLOEXEC)
        answers_read, answers_write = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(states_write, False)  # the referee's ends, as NetworkSeat's
        os.set_blocking(answers_read, False)
        super().__init__(f"replay{seat}", states_write, answers_read)
        answers = iter(replay_bot.recorded_answers(str(path), seat))
        self._thread = threading.Thread(target=self._answer, args=(answers, states_read, answers_write), daemon=True)
        self._thread.start()

    @staticmethod
    def _answer(answers: Any, states_fd: int, answers_fd: int) -> None:
        with open(states_fd, "rb") as states, open(answers_fd, "wb", buffering=0) as out:
            replay_bot.answer(answers, states, out)

    def finish(self) -> None:
        self.release()
        self._thread.join(30)
        assert not self._thread.is_alive()


def _options(path: Path) -> tuple[int, GameOptions]:
    match = NAME.match(path.name)
    assert match, f"unexpected trace name {path.name}"
    base, players = match.group(1) == "base", int(match.group(2))
    max_days = 12 if "maxdays12" in path.name else 100
    return players, GameOptions(base=base, max_days=max_days, timeout=5.0)


@pytest.mark.parametrize("path", TRACE_FILES, ids=[p.name.removesuffix(".jsonl.gz") for p in TRACE_FILES])
def test_replayed_game_matches_the_original(path: Path) -> None:
    players, options = _options(path)
    seats = [_ReplaySeat(path, seat) for seat in range(players)]
    try:
        result = play_game(seats, options)
    finally:
        for seat in seats:
            seat.finish()
    _check(path, result)


@pytest.mark.parametrize("path", SAMPLE, ids=[p.name.removesuffix(".jsonl.gz") for p in SAMPLE])
def test_replayed_game_matches_the_original_with_bot_processes(path: Path) -> None:
    players, options = _options(path)
    bots = [BotSpec((sys.executable, "-S", str(REPLAY), str(path), str(seat)), f"replay{seat}") for seat in range(players)]
    _check(path, play_game(bots, options))


def _check(path: Path, result: GameResult) -> None:
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
