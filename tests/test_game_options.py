"""The referee's game options: openings, per-game seeds, time controls, answer times."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from driver.botspec import BotOptions, BotSpec, parse_bot
from driver.game import GameOptions, game_lines, play_game, seat_seed, state_lines
from protocol.engine import Game, move_from_wire
from protocol.openings import OpeningError

BOTS = Path(__file__).parent / "bots"
SIMPLE = BotSpec((sys.executable, "-S", str(BOTS / "simple.py")), "simple")


def replay(trace: list[bytes], players: int, base: bool = False, max_days: int = 100) -> list[object]:
    """Check that `trace` is one whole game from the start, every state line
    exactly what the engine sends at that point; return the answers."""
    trace = game_lines(trace)
    game = Game(players, base=base, max_days=max_days)
    answers = []
    i = 0
    while i < len(trace) - 1:
        state = orjson.loads(trace[i])
        seat = state["player"]
        assert trace[i] == state_lines(game.to_wire(), [seat])[seat], f"line {i} is not the engine's state"
        answer = orjson.loads(trace[i + 1])
        answers.append(answer[0])
        game.play(seat, move_from_wire(game, answer[0]))
        i += 2
    assert orjson.loads(trace[-1]) == game.to_wire()
    return answers


def test_an_opening_is_traced_as_answers_and_the_bots_play_on_from_it() -> None:
    opening = [2, 0, "Worker", "Pass", 1, 1, "Pass", "Worker"]
    res = play_game([SIMPLE, SIMPLE], GameOptions(max_days=4, timeout=10, opening=opening))
    assert res.fault is None
    answers = replay(game_lines(res.trace), 2, max_days=4)
    assert answers[: len(opening)] == opening and len(answers) > len(opening)
    # One time per answer line: None for the referee's opening moves, seconds for the bots'.
    assert len(res.answer_times) == len(answers)
    assert res.answer_times[: len(opening)] == [None] * len(opening)
    assert all(isinstance(t, float) and 0 <= t < 10 for t in res.answer_times[len(opening):])
    assert res.moves == len(answers)


def test_an_opening_that_stops_inside_a_round_leaves_the_rest_to_the_bots() -> None:
    res = play_game([SIMPLE, SIMPLE, SIMPLE], GameOptions(max_days=2, timeout=10, opening=[3]))
    assert res.fault is None
    answers = replay(game_lines(res.trace), 3, max_days=2)
    assert answers[0] == 3 and res.answer_times[0] is None and res.answer_times[1] is not None


def test_a_bad_opening_is_refused_before_any_bot_starts() -> None:
    missing = BotSpec(("/nonexistent/bot",), "missing")  # would forfeit if it were started
    with pytest.raises(OpeningError, match="opening move 2"):
        play_game([missing, SIMPLE], GameOptions(opening=[0, 9]))


def test_our_bots_get_a_seed_per_game_and_seat_and_replay_the_same_game() -> None:
    rnd = parse_bot("random")
    options = GameOptions(max_days=3, timeout=30, seed=7)
    assert options.command(rnd, 0)[-2:] == ("--seed", str(seat_seed(7, 0)))
    assert seat_seed(7, 0) != seat_seed(7, 1) and seat_seed(None, 0) is None
    assert options.command(SIMPLE, 0) == SIMPLE.argv  # not ours: no seed unless asked for
    asked = GameOptions(seed=7, seats=(BotOptions(seed=True),))
    assert asked.command(SIMPLE, 0)[-2:] == ("--seed", str(seat_seed(7, 0)))
    assert GameOptions(seed=7, seats=(BotOptions(seed=False),)).command(rnd, 0) == rnd.argv
    first = play_game([rnd, rnd], options)
    again = play_game([rnd, rnd], options)
    other = play_game([rnd, rnd], GameOptions(max_days=3, timeout=30, seed=8))
    assert first.trace == again.trace and first.trace != other.trace


def _slow_start(seconds: float) -> BotSpec:
    """simple.py after `seconds` of start-up (a model or a JVM loading)."""
    code = (f"import runpy, sys, time; time.sleep({seconds}); sys.argv = [{str(BOTS / 'simple.py')!r}];"
            f" sys.path.insert(0, {str(BOTS)!r}); runpy.run_path(sys.argv[0], run_name='__main__')")
    return BotSpec((sys.executable, "-S", "-c", code), "slow-start")


def test_the_start_up_allowance_covers_a_slow_first_answer_only() -> None:
    slow = _slow_start(1.5)
    res = play_game([slow, SIMPLE], GameOptions(max_days=2, timeout=0.5, startup=20))
    assert res.fault is None and res.answer_times[0] > 1.0  # its first answer took the start-up time
    res = play_game([slow, SIMPLE], GameOptions(max_days=2, timeout=0.5, startup=20,
                                                 seats=(BotOptions(startup=0.2),)))
    assert res.fault is not None and res.fault[0] == 0
    assert "no first answer within 0.7 s" in res.fault[1] and "did the bot flush its output?" in res.fault[1]


def test_time_controls_are_per_seat() -> None:
    pausing = BotSpec((*SIMPLE.argv, "defender", "0.6"), "pausing")  # 0.6 s before each investment and buy
    fast_limit = GameOptions(max_days=2, timeout=0.3, seats=(BotOptions(timeout=20),))
    res = play_game([pausing, SIMPLE], fast_limit)
    assert res.fault is None  # seat 0 has 20 s a move, seat 1 answers at once
    res = play_game([SIMPLE, pausing], fast_limit)
    assert res.fault is not None and res.fault[0] == 1 and "no answer within 0.3 s" in res.fault[1]
    margin = GameOptions(max_days=2, timeout=0.3, seats=(BotOptions(), BotOptions(margin=20)))
    assert play_game([SIMPLE, pausing], margin).fault is None  # the margin is grace on top


@pytest.mark.parametrize(
    "bot", ["random", "expert", "evolved", "decent-repro", "alphabeta --depth 2", "mcts --iterations 40"]
)
def test_every_bot_of_ours_replays_its_game_from_the_same_seed(bot: str) -> None:
    """Each of our bots takes the referee's --seed, and, without a time
    budget, plays the same game again from the same seed."""
    spec = parse_bot(bot)
    options = GameOptions(max_days=3, timeout=30, seed=11)
    first = play_game([spec, parse_bot("random")], options)
    again = play_game([spec, parse_bot("random")], options)
    assert first.fault is None and again.fault is None
    assert first.trace == again.trace
