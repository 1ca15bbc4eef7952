"""The original driver's play_simple, play_points and play_attack, reproduced
as bots (spec section 9; player/play_simple.rhm, play_points.rhm,
play_attack.rhm): each rule the original states, on a hand-built state."""

from __future__ import annotations

import random
import subprocess

import orjson
import pytest

from bots import attack_repro, points_repro, registry, simple_repro
from bots.inprocess import play_game
from exploit.styles import make_style
from exploit.target import resolve_target
from protocol.cards import NAME_TO_ID as ID
from protocol.engine import PASS
from test_expert import build

REPROS = {"simple-repro": simple_repro, "points-repro": points_repro, "attack-repro": attack_repro}


def test_play_simple_invests_a_random_non_zero_amount_and_zero_only_when_broke() -> None:
    decide = simple_repro.decide_with(random.Random(1))
    game = build("investing", [(3, []), (3, [])])
    assert {decide(game, 0) for _ in range(60)} == {1, 2, 3}
    assert decide(build("investing", [(0, []), (3, [])]), 0) == 0


def test_play_simple_attacks_with_its_strongest_card_and_never_stops_while_one_is_ready() -> None:
    game = build("attacking", [(0, ["Worker", "Ghost", "Ghost"]), (0, ["Bubble"])], attacker=0)
    assert simple_repro.candidates(game, 0) == [2, 3]  # both Ghosts (attack 3), never 0 nor the Worker


def test_play_simple_buys_any_affordable_card_in_stock_else_passes() -> None:
    game = build("buy", [(2, []), (2, [])], shop={"Bubble": 0})
    assert set(simple_repro.candidates(game, 0)) == {ID["Board of Monopoly"], ID["Worker"], ID["Magic Bean Stock"],
                                                     ID["Ghost"], ID["Senior Worker"]}
    assert simple_repro.candidates(build("buy", [(0, []), (2, [])]), 0) == [PASS]


def test_play_points_invests_nothing_and_buys_worker_gold_fish_then_incantations_and_a_fifth_card_board() -> None:
    decide = points_repro.decide_with(random.Random(1))
    assert decide(build("investing", [(5, ["Ghost"]), (0, ["Worker"])]), 0) == 0
    assert decide(build("buy", [(3, []), (3, [])]), 0) == ID["Worker"]
    assert decide(build("buy", [(3, ["Worker"]), (3, [])]), 0) == ID["Gold Fish"]
    assert decide(build("buy", [(4, ["Worker", "Gold Fish"]), (3, [])]), 0) == ID["Incantation"]
    assert decide(build("buy", [(4, ["Worker", "Gold Fish", "Incantation", "Incantation"]), (3, [])]), 0) \
        == ID["Board of Monopoly"]
    # Attacks as play_simple: its strongest ready card.
    game = build("attacking", [(0, ["Worker", "Ghost"]), (0, ["Bubble"])], attacker=0)
    assert points_repro.candidates(game, 0) == [2]


def test_play_attack_buys_two_ghosts_then_senior_workers() -> None:
    decide = attack_repro.decide_with(random.Random(1))
    assert decide(build("buy", [(3, []), (3, [])]), 0) == ID["Ghost"]
    assert decide(build("buy", [(3, ["Ghost", "Ghost"]), (3, [])]), 0) == ID["Senior Worker"]
    assert decide(build("buy", [(1, ["Ghost", "Ghost"]), (3, [])]), 0) == ID["Worker"]


def test_play_attack_bids_and_attacks_only_with_a_card_that_beats_every_defender() -> None:
    decide = attack_repro.decide_with(random.Random(1))
    # A Ghost beats their Worker: outbid them by one (2 of 6 coins).
    assert decide(build("investing", [(6, ["Ghost"]), (1, ["Worker"])]), 0) == 2
    # Their Bubble beats it: no bid, and no attack.
    assert decide(build("investing", [(6, ["Ghost"]), (1, ["Bubble"])]), 0) == 0
    game = build("attacking", [(0, ["Ghost"]), (0, ["Bubble"])], attacker=0)
    assert attack_repro.candidates(game, 0) == [0]
    game = build("attacking", [(0, ["Ghost"]), (0, ["Worker"])], attacker=0)
    assert attack_repro.candidates(game, 0) == [1]


@pytest.mark.parametrize("name", list(REPROS))
def test_each_reproduction_is_a_bot_by_name_in_process_and_as_a_process(name: str) -> None:
    module = REPROS[name]
    assert registry.module(name) == module.__name__
    # In-process (the exploiter's games) it is the same policy as the style of that name.
    style = name.removesuffix("-repro")
    for base in (False, True):
        ours = play_game([resolve_target(name).factory(3), make_style("expert")], base=base)
        again = play_game([make_style(style, random.Random(3)), make_style("expert")], base=base)
        assert ours.key() == again.key() and ours.fault is None
    # As a process it answers a state over the wire.
    game = build("buy", [(3, []), (3, [])])
    bot = subprocess.run([*registry.resolve(name), "--seed", "1"], input=orjson.dumps(game.to_wire(0)) + b"\n",
                         capture_output=True, timeout=60)
    assert bot.returncode == 0, bot.stderr
    expected = {"simple-repro": {"Board of Monopoly", "Worker", "Magic Bean Stock", "Bubble", "Ghost", "Senior Worker",
                                 "Gold Fish"},
                "points-repro": {"Worker"}, "attack-repro": {"Ghost"}}[name]
    answer = orjson.loads(bot.stdout)
    assert len(answer) == 1 and answer[0] in expected, answer
