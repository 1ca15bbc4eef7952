"""The play_decent reproduction: each of the original's choices on a hand-built state."""

from __future__ import annotations

import random

from bots import decent_repro
from bots.inprocess import play_game
from bots.random_bot import random_policy
from protocol.cards import NAME_TO_ID as ID
from protocol.engine import PASS
from test_expert import build


def test_invests_to_deny_an_opponent_whose_card_beats_all_our_defenders() -> None:
    # Their Ghost beats our Worker (3 > 2, and survives its attack of 1): match their coins.
    game = build("investing", [(5, ["Worker"]), (3, ["Ghost"])])
    assert decent_repro.candidates(game, 0) == [3]


def test_no_denial_when_one_defender_holds() -> None:
    # Our Ghost would make their Ghost faint too: no card of theirs beats all
    # ours, and none of ours beats all of theirs.
    game = build("investing", [(5, ["Worker", "Ghost"]), (3, ["Ghost", "Worker"])])
    assert decent_repro.candidates(game, 0) == [0]


def test_invests_one_more_than_the_richest_for_a_cheap_safe_attack() -> None:
    game = build("investing", [(6, ["Ghost"]), (2, ["Worker"])])
    assert decent_repro.candidates(game, 0) == [3]


def test_no_attack_investment_when_it_would_take_nearly_all_coins() -> None:
    # Cost 3 of 4 coins with a single safe attacker: the original holds back.
    game = build("investing", [(4, ["Ghost"]), (2, ["Worker"])])
    assert decent_repro.candidates(game, 0) == [0]


def test_ignores_opponents_it_expects_to_run_out_of_defenders() -> None:
    # Their Bubble would beat our Ghost, but they have one defense to our two attacks.
    game = build("investing", [(6, ["Ghost", "Ghost"]), (2, ["Bubble"])])
    assert decent_repro.candidates(game, 0) == [3]


def test_attacks_only_with_its_strongest_card_if_it_is_safe() -> None:
    game = build("attacking", [(0, ["Worker", "Ghost"]), (0, ["Worker", "Worker"])], attacker=0)
    assert decent_repro.candidates(game, 0) == [2]
    blocked = build("attacking", [(0, ["Worker", "Ghost"]), (0, ["Bubble", "Worker"])], attacker=0)
    assert decent_repro.candidates(blocked, 0) == [0]


def test_defends_with_its_highest_defense() -> None:
    game = build(
        "attacking",
        [(0, ["Ghost"]), (0, ["Incantation", "Worker", "Senior Worker"])],
        me=1, attacker=0, attacker_card=1, uses={(0, 1): 1},
    )
    assert sorted(decent_repro.candidates(game, 1)) == [2, 3]


def test_buy_route_by_number_of_cards() -> None:
    assert decent_repro.candidates(build("buy", [(3, []), (3, [])]), 0) == [ID["Worker"]]
    assert decent_repro.candidates(build("buy", [(3, ["Worker"]), (3, [])]), 0) == [ID["Gold Fish"]]
    third = build("buy", [(4, ["Worker", "Gold Fish"]), (3, [])])
    assert decent_repro.candidates(third, 0) == [ID["Incantation"]]
    poor = build("buy", [(2, ["Worker", "Gold Fish"]), (3, [])])
    assert decent_repro.candidates(poor, 0) == [ID["Board of Monopoly"]]
    fifth = build("buy", [(9, ["Worker", "Gold Fish", "Incantation", "Incantation"]), (3, [])])
    assert decent_repro.candidates(fifth, 0) == [ID["Board of Monopoly"]]


def test_buys_for_attack_when_the_route_is_out_of_reach() -> None:
    # Gold Fish sold out: the route offers several cards, so it buys a Ghost.
    game = build("buy", [(3, ["Worker"]), (3, [])], shop={"Gold Fish": 0})
    assert decent_repro.candidates(game, 0) == [ID["Ghost"]]
    two_ghosts = build("buy", [(3, ["Worker", "Ghost", "Ghost"]), (3, [])], shop={"Incantation": 0, "Board of Monopoly": 0})
    assert decent_repro.candidates(two_ghosts, 0) == [ID["Senior Worker"]]


def test_passes_only_when_nothing_in_stock_is_affordable() -> None:
    game = build("buy", [(0, ["Worker"]), (3, [])])
    assert decent_repro.candidates(game, 0) == [PASS]


def test_beats_random_most_of_the_time() -> None:
    rng = random.Random(3)
    wins = 0
    for n in range(40):
        seat = n % 2
        policies = [random_policy(rng), random_policy(rng)]
        policies[seat] = decent_repro.decide_with(rng)
        wins += play_game(policies).winner == seat
    assert wins >= 32
