"""The expert bot: each rule on a hand-built state.

`build` makes a Game from a readable description through the wire format
(the same path a bot's states take); the decent-repro and evolved tests
reuse it.
"""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest

from bots import expert
from protocol.cards import NAMES, NAME_TO_ID, shop_ids
from protocol.engine import ATTACKING, DEFENDING, PASS, Game

Hand = tuple[int, list[str]]  # (coins, card names after the Stipend)


def build(
    phase: str,
    players: list[Hand],
    *,
    me: int = 0,
    day: int = 1,
    shop: dict[str, int] | None = None,
    attacker: int | None = None,
    attacker_card: int | None = None,
    uses: dict[tuple[int, int], int] | None = None,
    buys: int = 1,
    base: bool = False,
) -> Game:
    """A game at `phase` ("investing", "attacking", "buy") as seen by `me`.

    Every player has the Stipend first; `uses[(player, index)]` marks used
    cards; `shop` overrides counts of the full shop of the set.
    """
    counts = {NAMES[c]: 2 * len(players) for c in shop_ids(base)}
    counts.update(shop or {})
    wire_phase: dict[str, object] = {"name": phase}
    if phase == "attacking":
        wire_phase.update(attacker=attacker, attacker_card=False if attacker_card is None else attacker_card)
    state = {
        "day": day,
        "phase": wire_phase,
        "shop": counts,
        "players": [
            {
                "coins": coins,
                "buys": buys if phase == "buy" else (buys if phase == "investing" else 0),
                "cards": [
                    {"name": name, "uses": (uses or {}).get((p, i), 0)}
                    for i, name in enumerate(["Sorcerer's Stipend", *cards])
                ],
            }
            for p, (coins, cards) in enumerate(players)
        ],
        "player": me,
    }
    return Game.from_wire(state)


ID = NAME_TO_ID


# ------------------------------------------------------------------ buying


def test_takes_the_buy_that_wins_at_once() -> None:
    game = build("buy", [(4, ["Incantation", "Board of Monopoly"]), (1, ["Worker"])])
    assert expert.winning_buys(game, 0) == [ID["Incantation"]]
    assert expert.decide(game, 0) == ID["Incantation"]


def test_no_win_from_a_contested_last_copy() -> None:
    # Both can afford the last Incantation: both would pay, nobody would get it.
    game = build(
        "buy",
        [(4, ["Incantation", "Board of Monopoly"]), (4, ["Worker"])],
        shop={"Incantation": 1, "Board of Monopoly": 0},
    )
    assert expert.contested(game, 0, ID["Incantation"])
    assert expert.winning_buys(game, 0) == []
    assert expert.decide(game, 0) != ID["Incantation"]


def test_no_win_when_the_opponent_can_tie_in_the_same_round() -> None:
    game = build("buy", [(4, ["Incantation", "Board of Monopoly"]), (4, ["Incantation", "Board of Monopoly"])])
    assert expert.winning_buys(game, 0) == []


def test_denies_a_winning_opponent_by_matching_their_points() -> None:
    # They reach 7 with a Board of Monopoly; our Incantation ties them at 7.
    game = build("buy", [(4, ["Incantation", "Board of Monopoly"]), (2, ["Incantation", "Incantation"])])
    assert expert.rival_winning_cards(game, 0) == {1: {ID["Board of Monopoly"]}}
    assert expert.decide(game, 0) == ID["Incantation"]


def test_denies_a_winning_opponent_by_contesting_the_last_copy() -> None:
    game = build(
        "buy",
        [(4, ["Worker"]), (4, ["Incantation", "Board of Monopoly"])],
        shop={"Incantation": 1, "Board of Monopoly": 0},
    )
    assert expert.denial_buy(game, 0) == ID["Incantation"]
    assert expert.decide(game, 0) == ID["Incantation"]


def test_never_passes_while_an_opponent_could_outnumber_our_defenses() -> None:
    # Two attackers (three with their buy) against our two defenders.
    game = build("buy", [(1, ["Magic Bean Stock", "Worker"]), (5, ["Worker", "Senior Worker"])], day=3)
    assert expert.exposed(game, 0)
    move = expert.decide(game, 0)
    assert move != PASS and expert.DEF[move] is not None


def test_not_exposed_with_more_defenses_than_their_attacks() -> None:
    game = build("buy", [(1, ["Worker", "Worker", "Bubble"]), (0, ["Worker"])])
    assert not expert.exposed(game, 0)


def test_buys_a_deterrent_against_attackers_we_cannot_hurt() -> None:
    # Their Worker attacks; neither our Worker nor our Stock could make it faint.
    game = build("buy", [(2, ["Worker", "Magic Bean Stock"]), (2, ["Worker"])], day=2)
    assert expert.deterrent_buy(game, 0, expert.in_stock(game, 0)) == ID["Ghost"]
    assert expert.decide(game, 0) == ID["Ghost"]


def test_no_deterrent_when_we_already_hold_one() -> None:
    game = build("buy", [(2, ["Ghost"]), (2, ["Worker"])], day=2)
    assert expert.deterrent_buy(game, 0, expert.in_stock(game, 0)) is None


def test_fastest_route_from_the_start_wins_on_day_five() -> None:
    game = build("buy", [(3, []), (3, [])])
    days, _, first = expert.fastest_route(game, 0)
    assert days == 5
    assert expert.POINTS[first] == 0  # income first: it pays for itself before day 5


def test_route_buys_points_when_income_could_not_pay_off() -> None:
    # 3 points and 4 coins on day 1: 7 points on day 3 with points cards
    # only; no income card could pay for itself in time.
    game = build("buy", [(4, ["Incantation"]), (0, [])])
    days, _, first = expert.fastest_route(game, 0)
    assert days == 3
    assert first in (ID["Incantation"], ID["Board of Monopoly"])


def test_day_income_follows_the_cycle() -> None:
    assert [expert.day_income(ID["Gold Fish"], d, 0) for d in (1, 2, 3)] == [0, 0, 4]
    assert [expert.day_income(ID["Worker"], d, 0) for d in (1, 2, 3)] == [0, 1, 1]
    assert expert.day_income(ID["Magic Bean Stock"], 2, 7) == 2


# --------------------------------------------------------------- investing


def test_matches_the_coins_of_an_opponent_who_could_eliminate_us() -> None:
    game = build("investing", [(5, ["Worker"]), (3, ["Worker", "Senior Worker"])])
    assert expert.can_eliminate(game, 1, 0)
    assert expert.decide(game, 0) == 3


def test_keeps_coins_when_the_block_is_out_of_reach() -> None:
    game = build("investing", [(2, ["Worker"]), (6, ["Worker", "Senior Worker"])])
    assert expert.decide(game, 0) == 0


def test_outbids_everyone_to_eliminate() -> None:
    game = build("investing", [(5, ["Worker", "Senior Worker"]), (3, ["Worker"])])
    assert expert.decide(game, 0) == 4


def test_invests_in_a_profitable_safe_attack() -> None:
    # Our Ghost beats their Incantations and Monopoly; losing one costs them
    # far more than the 3 coins of a sure attack.
    game = build(
        "investing",
        [(5, ["Ghost", "Worker", "Worker", "Worker"]), (2, ["Incantation", "Incantation", "Board of Monopoly"])],
    )
    assert expert.safe_attackers(game, 0) == [1]
    assert expert.decide(game, 0) == 3


def test_denies_an_attack_that_would_cost_more_than_matching() -> None:
    # Their Ghost would take one of our points cards; matching their 2 coins
    # is cheaper (and neither side has the numbers to eliminate the other).
    game = build("investing", [(5, ["Incantation", "Board of Monopoly", "Board of Monopoly"]), (2, ["Ghost", "Worker", "Worker"])])
    assert not expert.can_eliminate(game, 0, 1) and not expert.can_eliminate(game, 1, 0)
    assert expert.decide(game, 0) == 2


def test_invests_nothing_without_reason() -> None:
    game = build("investing", [(3, []), (3, [])])
    assert expert.decide(game, 0) == 0


# ---------------------------------------------------------- attack, defend


def test_attacks_with_a_card_that_wins_without_fainting() -> None:
    game = build(
        "attacking", [(0, ["Worker", "Ghost"]), (0, ["Incantation", "Worker"])], attacker=0
    )
    assert game.phase == ATTACKING
    assert expert.decide(game, 0) == 2


def test_stops_when_no_attack_is_safe() -> None:
    game = build("attacking", [(0, ["Worker"]), (0, ["Ghost", "Ghost"])], attacker=0)
    assert expert.decide(game, 0) == 0


def test_attacks_with_a_card_that_cannot_faint_to_run_out_defenders() -> None:
    # Two attacks against one defender: the Senior Worker cannot faint, the
    # Monopoly would.
    game = build(
        "attacking",
        [(0, ["Senior Worker", "Board of Monopoly"]), (0, ["Senior Worker"]), (0, ["Senior Worker"] * 3)],
        attacker=0,
    )
    assert expert.can_eliminate(game, 0, 1)
    assert expert.decide(game, 0) == 1


def test_risks_any_card_when_the_attacks_eliminate_every_opponent() -> None:
    game = build("attacking", [(0, ["Worker", "Board of Monopoly"]), (0, ["Ghost"])], attacker=0)
    assert expert.decide(game, 0) in (1, 2)


def test_defends_with_a_card_that_kills_the_attacker() -> None:
    # A Senior Worker attacks: Bubble survives it and makes it faint.
    game = build(
        "attacking",
        [(0, ["Senior Worker"]), (0, ["Incantation", "Worker", "Bubble"])],
        me=1, attacker=0, attacker_card=1, uses={(0, 1): 1},
    )
    assert game.phase == DEFENDING
    assert expert.decide(game, 1) == 3


def test_sacrifices_the_cheapest_card_when_every_defender_faints() -> None:
    game = build(
        "attacking",
        [(0, ["Ghost"]), (0, ["Incantation", "Worker", "Senior Worker"])],
        me=1, attacker=0, attacker_card=1, uses={(0, 1): 1},
    )
    assert expert.decide(game, 1) == 2  # the Worker, not the Incantation


# ------------------------------------------------------------- executable


@pytest.mark.parametrize("module", ["bots.expert", "bots.decent_repro", "bots.evolved"])
def test_bot_executable_answers_a_state(module: str) -> None:
    state = Game(2).to_wire(1)
    final = {**state, "phase": {"name": "end", "winner": 0}}
    lines = orjson.dumps(state) + b"\n" + orjson.dumps(final) + b"\n"
    done = subprocess.run(
        [sys.executable, "-m", module, "--seed", "1"], input=lines, capture_output=True, timeout=60, check=True
    )
    (answer,) = done.stdout.splitlines()
    move = orjson.loads(answer)
    assert isinstance(move, list) and len(move) == 1 and move[0] in range(0, 4)


def test_plays_every_player_count_and_both_sets() -> None:
    from bots.inprocess import play_game

    for players in (2, 3, 4):
        for base in (False, True):
            game = play_game([expert.decide] * players, base=base, max_days=30)
            assert game.fault is None
