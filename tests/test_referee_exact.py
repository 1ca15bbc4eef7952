"""The referee reads, judges and traces numbers exactly, as the original
does (Racket's integers are unbounded): an answer is traced as received,
a huge legal investment is accepted, and valid JSON that breaks a limit
is reported as such rather than as "not JSON"."""

from __future__ import annotations

import json
import sys

import pytest

from driver.botspec import BotSpec
from driver.game import STARTUP, GameOptions, game_lines, interpret_reply, play_game, state_lines
from driver.process import Reply, ReplyKind
from protocol.engine import Game
from protocol.exactjson import int_to_digits

# A bot that sends its first answer verbatim (argv[1]), then passes quietly.
RAW = r"""
import json, sys
first = sys.argv[1].encode()
for line in sys.stdin.buffer:
    state = json.loads(line)
    if state["phase"]["name"] in ("end", "fault"):
        continue
    sys.stdout.buffer.write((first if first else b"[0]") + b"\n")
    sys.stdout.flush()
    first = b""
"""


def raw_bot(answer: bytes) -> BotSpec:
    return BotSpec((sys.executable, "-S", "-c", RAW, answer.decode()), "raw")


PASSIVE = BotSpec((sys.executable, "-S", "-c", RAW, "[0]"), "passive")


@pytest.mark.parametrize(
    ("answer", "traced", "reason"),
    [
        (b"[99999999999999999999]", b"[99999999999999999999]", "player attempted to invest more coins than they have"),
        (b"[ 12345678901234567890123 ]", b"[12345678901234567890123]", "player attempted to invest more coins than they have"),
        (b"[-99999999999999999999]", b"[-99999999999999999999]", "bad move: -99999999999999999999"),
        (b"[" * 300 + b"1" + b"]" * 300, b"[" * 300 + b"1" + b"]" * 300, "bad move: [[["),
        (b"[" * 2000 + b"]" * 2000, None, "answer nests deeper than 1024 levels: [[[["),
        (b"[" + b"9" * 5000 + b"]", None, "answer has a number longer than 4300 digits: [999"),
        (b"[1e400]", None, "answer has a fractional number beyond the range of a double"),
        # A value cut short is not over yet: like the original (one JSON value read from
        # the stream, driver.framing), the referee waits for the rest until the timeout.
        (b"[1e400", b'"timeout"', "timeout"),
        (b"[1,", b'"timeout"', "timeout"),
    ],
    ids=["20 digits", "23 digits, spaces", "negative", "300 deep", "2000 deep", "5000 digits", "1e400", "1e400 cut", "cut"],
)
def test_answers_are_traced_as_received_and_faulted_for_what_they_break(
    answer: bytes, traced: bytes | None, reason: str
) -> None:
    cut = traced == b'"timeout"'  # waited for: a short clock (the verdict is a timeout however slow the machine)
    result = play_game([raw_bot(answer), PASSIVE], GameOptions(timeout=3.0 if cut else 20.0, startup=3.0 if cut else STARTUP))
    assert result.fault is not None and result.fault[0] == 0
    assert result.fault[1].startswith(reason), result.fault[1][:120]
    line = game_lines(result.trace)[1]  # state, then seat 0's answer
    if traced is not None:
        assert line == traced
    else:  # not a readable value: its (bounded) text, as for any bad answer
        assert json.loads(line) == answer.decode()[:200] + "..." * (len(answer) > 200)


def rich_game(purse: int, other: int = 3) -> Game:
    wire = Game(2, base=True).to_wire()
    for seat, coins in enumerate((purse, other)):
        wire["players"][seat]["coins"] = coins
    return Game.from_wire(wire)


def test_a_huge_legal_investment_is_taken_exactly() -> None:
    game = rich_game(16 * 10**24)
    answer, move, reason = interpret_reply(game, Reply(ReplyKind.LINE, b"[15999999999999999999999999]"))
    assert (answer, move, reason) == (b"[15999999999999999999999999]", 15999999999999999999999999, None)
    game.play(0, move), game.play(1, 3)
    assert (game.coins(0), game.coins(1)) == (1, 0)  # each paid its bid


def test_the_digit_limit_grows_with_the_largest_purse() -> None:
    purse = 7**6000  # 5071 digits: more than Python's 4300
    game = rich_game(purse)
    invest = purse // 10**50  # 5021 digits, legal
    line = b"[" + int_to_digits(invest).encode() + b"]"
    answer, move, reason = interpret_reply(game, Reply(ReplyKind.LINE, line))
    assert reason is None and move == invest and answer == line
    too_long = b"[" + b"9" * 5100 + b"]"  # longer than any purse: no legal move has it
    answer, move, reason = interpret_reply(game, Reply(ReplyKind.LINE, too_long))
    assert reason is not None and reason.startswith("answer has a number longer than")


def test_states_with_big_purses_are_sent_exactly() -> None:
    game = rich_game(6218256728297497601, 16 * 10**24)
    state = game.to_wire()
    lines = state_lines(state, [0, 1])
    for seat, line in lines.items():
        assert line == json.dumps({**state, "player": seat}, separators=(",", ":"), sort_keys=True).encode()
        assert b'"coins":6218256728297497601}' in line and b'"coins":16000000000000000000000000}' in line
