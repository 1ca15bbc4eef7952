"""Every bot of ours answers every state the original can send, however
rich Magic Bean Stock made the players: states from the original's long
game (purses past 2**62) and synthetic ones (1.6e25, past a double's
1.8e308, and past Python's 4300-digit conversion limit), in every phase,
in process through the SDK and as real processes through the referee."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

import tracedata
from bots.alphabeta import AlphaBetaPolicy
from bots.decent_repro import decide_with
from bots.evolved.bot import policy as evolved_policy
from bots.evolved.bot import shipped_genome
from bots.expert import decide as expert_decide
from bots.mcts import MctsPolicy
from bots.random_bot import random_policy
from bots.sdk import Decide, Session
from bots.search.evaluation import FEATURES, evaluate_all, features, load_weights
from bots.search.mcts import MctsConfig
from driver.botspec import parse_bot
from driver.game import interpret_reply, state_lines
from driver.process import BotGroup
from protocol.engine import ATTACKING, DEFENDING, INVESTING, Game
from protocol.exactjson import dumps, loads

LONG_TRACE = "base_2p_points_decent_long.jsonl"

POLICIES: dict[str, Callable[[], Decide]] = {
    "random": lambda: random_policy(random.Random(1)),
    "expert": lambda: expert_decide,
    "evolved": lambda: evolved_policy(shipped_genome(), random.Random(1)),
    "decent-repro": lambda: decide_with(random.Random(1)),
    "mcts": lambda: MctsPolicy(iterations=30, seed=1),
    "mcts-rm-eval": lambda: MctsPolicy(iterations=30, seed=1, config=MctsConfig(selection="rm", leaf="eval")),
    "alphabeta": lambda: AlphaBetaPolicy(seconds=0.05, seed=1),  # late states finish no depth: its fallback answers
}

SCALES = {"1.6e25": 16 * 10**24, "past a double": 10**400, "past 4300 digits": 7**6000}


def trace_states() -> list[bytes]:
    """The long game's states in which a purse is past 2**62."""
    lines = [line for line in tracedata.read_bytes(LONG_TRACE).splitlines() if b'"player"' in line]
    return [line for line in lines if any(p["coins"] > 2**62 for p in loads(line)["players"])]


def synthetic_states(scale: int) -> list[bytes]:
    """A base-set game in each phase (investing, attacking, defending,
    buying) with both purses near `scale`, each player with an army."""
    cards = ["Sorcerer's Stipend", "Magic Bean Stock", "Thug", "Wall of Wealth", "Incantation", "Golem"]
    start = Game(2, base=True).to_wire()
    start["players"] = [
        {"coins": scale + seat, "buys": 1, "cards": [{"name": name, "uses": 0} for name in cards]} for seat in (0, 1)
    ]
    investing = Game.from_wire(start, days_played=40, max_days=100)
    lines = [dumps(investing.to_wire(seat)) for seat in (0, 1)]
    attacking = investing.copy()
    attacking.play(0, scale // 2), attacking.play(1, scale // 3)
    assert attacking.phase == ATTACKING and attacking.attacker == 0
    lines.append(dumps(attacking.to_wire(0)))
    defending = attacking.copy()
    defending.play(0, 2)  # the Thug
    assert defending.phase == DEFENDING
    lines.append(dumps(defending.to_wire(1)))
    buying = attacking.copy()
    buying.play(0, 0)  # stop attacking: the buy round
    lines.extend(dumps(buying.to_wire(seat)) for seat in (0, 1))
    return lines


def answer_all(make: Callable[[], Decide], lines: list[bytes]) -> None:
    for line in lines:
        state = loads(line, max_digits=None)
        reply = Session(make(), max_days=100).answer(line)  # the SDK checks the move is legal
        assert reply is not None
        game = Game.from_wire(state)
        (value,) = loads(reply, max_digits=None)
        if game.phase == INVESTING:
            assert type(value) is int and 0 <= value <= game.coins(state["player"])


@pytest.mark.parametrize("bot", list(POLICIES))
def test_every_bot_answers_the_long_games_rich_states(bot: str) -> None:
    answer_all(POLICIES[bot], trace_states())


@pytest.mark.parametrize("scale", list(SCALES), ids=list(SCALES))
@pytest.mark.parametrize("bot", list(POLICIES))
def test_every_bot_answers_every_phase_at_any_size(bot: str, scale: str) -> None:
    answer_all(POLICIES[bot], synthetic_states(SCALES[scale]))


def test_the_evaluation_still_ranks_two_huge_purses_by_the_coins_that_part_them() -> None:
    weights = load_weights()
    coins = FEATURES.index("coins")
    for scale in SCALES.values():
        game = Game.from_wire(loads(synthetic_states(scale)[0], max_digits=None))
        assert features(game, 1)[coins] - features(game, 0)[coins] == 1.0  # 1 coin apart, exactly
        values = evaluate_all(game, weights)
        assert all(0.0 < v < 1.0 for v in values)


# ---------------------------------------------------------------- real processes

COMMANDS = {
    "random": "random",
    "expert": "expert",
    "evolved": "evolved",
    "decent-repro": "decent-repro",
    "mcts": "mcts --time 0.2",
    "alphabeta": "alphabeta --time 0.2",
}


@pytest.mark.parametrize("bot", list(COMMANDS))
def test_every_bot_process_answers_rich_states_through_the_referee(bot: str) -> None:
    """The referee's own encoding, pipes and answer checks, on states it
    would send in a long game (a 1.6e25 purse and the long trace's last)."""
    lines = synthetic_states(SCALES["1.6e25"]) + trace_states()[-4:]
    spec = parse_bot(COMMANDS[bot])
    group = BotGroup.spawn([(spec.command(100), spec.name)])
    try:
        for line in lines:
            state = loads(line, max_digits=None)
            game = Game.from_wire(state, days_played=40)
            seat = state["player"]
            sent = state_lines(game.to_wire(), [seat])[seat]
            assert sent == line
            group.send(0, sent)
            ((_, reply),) = group.replies([0], 60.0)  # generous: start-up under load
            answer, move, reason = interpret_reply(game, reply)
            assert reason is None, f"{bot}: {reason} ({reply.detail})"
            game.play(seat, move)
    finally:
        group.close()
