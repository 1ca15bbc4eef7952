"""One test per rule and per corner, with hand-computed expected states.

States are built with Game.from_wire, the same path a bot uses.
Card ids (protocol.cards): 0 Stipend, 1 Monopoly, 2 Incantation, 3 Worker,
4 Bean, 5 Bubble, 6 Ghost, 7 Senior Worker, 8 Gold Fish, 9 Wall, 10 Apprentice,
11 Thug, 12 Shield, 13 Golem.
"""
from __future__ import annotations

import pytest

from protocol.cards import BASE, NAMES, PER_PLAYER, SIMPLE
from protocol.engine import (
    ATTACKING,
    BUY,
    DEFENDING,
    END,
    INVESTING,
    PASS,
    Game,
    IllegalMove,
    move_from_wire,
)

STIPEND, MONOPOLY, INCANTATION, WORKER, BEAN, BUBBLE, GHOST, SENIOR, FISH = range(9)
WALL, APPRENTICE, THUG, SHIELD, GOLEM = range(9, 14)


def make(
    players: list[tuple[int, int, list]],
    phase: dict | None = None,
    *,
    day: int = 1,
    base: bool = False,
    shop: dict[int, int] | None = None,
    player: int | None = None,
    max_days: int = 100,
) -> Game:
    """players: (coins, buys, cards) with cards as ids or (id, uses); Stipend first is implied."""
    ids = BASE if base else SIMPLE
    counts = {c: PER_PLAYER[c] * len(players) for c in ids}
    counts.update(shop or {})
    d = {
        "day": day,
        "phase": phase or {"name": "buy"},
        "shop": {NAMES[c]: counts[c] for c in ids},
        "players": [
            {
                "coins": coins,
                "buys": buys,
                "cards": [
                    {"name": NAMES[c], "uses": u}
                    for c, u in ((x, 0) if isinstance(x, int) else x for x in [STIPEND, *cards])
                ]
                if cards is not None
                else [],
            }
            for coins, buys, cards in players
        ],
    }
    if player is not None:
        d["player"] = player
    return Game.from_wire(d, max_days=max_days)


def attacking(attacker: int, card: int | bool = False) -> dict:
    return {"name": "attacking", "attacker": attacker, "attacker_card": card}


def card_ids(g: Game, p: int) -> list[int]:
    return [c for c, _ in g.cards(p)]


def reason(g: Game, p: int, move: int) -> str:
    before = g.key()
    with pytest.raises(IllegalMove) as e:
        g.play(p, move)
    assert g.key() == before, "an illegal move must leave the state unchanged"
    return e.value.reason


# ------------------------------------------------------------------ setup, income, days


def test_new_game_is_day_one_after_income() -> None:
    g = Game(3, base=True)
    assert (g.day, g.phase, g.days_played) == (1, INVESTING, 0)
    assert g.pending() == (0, 1, 2)
    for p in range(3):
        assert (g.coins(p), g.buys(p), g.cards(p)) == (3, 1, ((STIPEND, 0),))
    assert g.shop() == {c: PER_PLAYER[c] * 3 for c in BASE}
    assert list(g.legal_moves(0)) == [0, 1, 2, 3]


def test_investments_are_a_range_that_scales_to_compounded_coins() -> None:
    # Magic Bean Stock compounds coins without limit: the legal investments
    # must not be materialised as a list.
    g = make([(10**15, 1, []), (2, 1, [])], {"name": "investing"})
    moves = g.legal_moves(0)
    assert len(moves) == 10**15 + 1 and moves[0] == 0 and moves[-1] == 10**15
    assert list(g.legal_moves(1)) == [0, 1, 2]


def test_max_days_zero_ends_at_once_without_income() -> None:
    g = Game(2, max_days=0)
    assert g.phase == END and g.winner is None
    w = g.to_wire()
    assert w["day"] == 1 and w["phase"] == {"name": "end", "winner": False}
    assert [(p["coins"], p["buys"]) for p in w["players"]] == [(1, 0), (1, 0)]


def test_day_cycle_and_max_days_end_state() -> None:
    g = Game(2, max_days=4)
    expected_coins = [3, 3 + 1, 3 + 1 + 1, 3 + 1 + 1 + 2]  # Stipend: 2, then 1, 1, then 2
    for day_index in range(4):
        assert g.day == day_index % 3 + 1 and g.days_played == day_index
        assert g.coins(0) == expected_coins[day_index] and g.buys(0) == 1
        g.play(0, 0), g.play(1, 0)  # tie at 0: no attack
        assert g.phase == BUY
        g.play(0, PASS), g.play(1, PASS)
    assert g.phase == END and g.winner is None
    assert g.day == 2 and g.days_played == 4  # the new day shows, before its income
    assert (g.coins(0), g.buys(0)) == (7, 0)


@pytest.mark.parametrize("card", range(1, 14))
@pytest.mark.parametrize("day", [1, 2, 3])
def test_income_of_each_card(card: int, day: int) -> None:
    # End the buy phase of the previous day: the next day's income applies.
    g = make([(5, 1, [card]), (0, 1, [])], day=(day + 1) % 3 + 1, base=True)
    g.play(0, PASS), g.play(1, PASS)
    assert g.day == day and g.phase == INVESTING
    stipend = 2 if day == 1 else 1
    extra = {
        WORKER: {2: 1, 3: 1},
        GHOST: {3: 1},
        SENIOR: {1: 1, 2: 1, 3: 1},
        FISH: {3: 4},
        WALL: {1: 1},
        APPRENTICE: {1: 1, 2: 1},
        THUG: {2: 1},
    }.get(card, {}).get(day, 0)
    coins = 5 + stipend + extra
    if card == BEAN:
        coins += coins // 3
    assert g.coins(0) == coins
    assert g.buys(0) == (2 if card == APPRENTICE and day == 3 else 1)
    assert (g.coins(1), g.buys(1)) == (2 if day == 1 else 1, 1)


def test_magic_bean_stock_applies_left_to_right() -> None:
    # The spec's example: Stipend, Worker, Bean, Senior Worker on day 1 from 0 coins.
    g = make([(0, 1, [WORKER, BEAN, SENIOR]), (0, 1, [SENIOR, BEAN])], day=3)
    g.play(0, PASS), g.play(1, PASS)
    assert g.day == 1
    assert g.coins(0) == 3  # 2, 2, 2 + 0, 3
    assert g.coins(1) == 4  # 2, 3, 3 + 1


def test_eliminated_player_gets_no_income_and_is_never_asked() -> None:
    g = make([(0, 1, []), (4, 0, None), (0, 1, [])])
    assert g.pending() == (0, 2) and not g.alive(1)
    g.play(0, PASS), g.play(2, PASS)
    assert g.phase == INVESTING and g.pending() == (0, 2)
    assert (g.coins(1), g.buys(1)) == (0, 0)


# ------------------------------------------------------------------ investing


def test_investment_tie_means_no_attack() -> None:
    g = Game(2)
    g.play(0, 2), g.play(1, 2)
    assert g.phase == BUY and g.attacker is None
    assert g.coins(0) == g.coins(1) == 1


def test_unique_highest_investment_attacks_and_everyone_pays() -> None:
    g = make([(3, 1, [WORKER]), (3, 1, [WORKER]), (3, 1, [WORKER])], {"name": "investing"})
    g.play(0, 1), g.play(1, 2), g.play(2, 0)
    assert g.phase == ATTACKING and g.attacker == 1 and g.pending() == (1,)
    assert [g.coins(p) for p in range(3)] == [2, 1, 3]


def test_eliminated_players_count_as_zero_investment() -> None:
    g = make([(3, 1, [WORKER]), (0, 0, None), (3, 1, [WORKER])], {"name": "investing"})
    assert g.pending() == (0, 2)
    g.play(0, 0), g.play(2, 0)
    assert g.phase == BUY  # 0, 0, 0: a tie


def test_investments_are_hidden_until_all_answered() -> None:
    g = Game(2)
    w = g.to_wire(1)
    g.play(0, 3)
    assert g.to_wire(1) == w and g.pending() == (1,)


def test_attacker_without_attacking_card_skips_the_attack() -> None:
    g = make([(3, 1, [BUBBLE]), (3, 1, [])], {"name": "investing"})
    g.play(0, 1), g.play(1, 0)
    assert g.phase == BUY and g.coins(0) == 2


# ------------------------------------------------------------------ attacking


def test_attacker_may_stop_and_uses_reset_when_the_attack_ends() -> None:
    g = make([(0, 1, [WORKER, GHOST]), (0, 1, [WORKER, WORKER])], attacking(0))
    g.play(0, 1)
    g.play(1, 1)  # Worker vs Worker: atk 1 vs def 2 both ways, nobody faints
    assert g.phase == ATTACKING and g.cards(0) == ((0, 0), (WORKER, 1), (GHOST, 0))
    assert g.legal_moves(0) == [0, 2]
    g.play(0, 0)
    assert g.phase == BUY
    assert g.cards(0) == ((0, 0), (WORKER, 0), (GHOST, 0))
    assert g.cards(1) == ((0, 0), (WORKER, 0), (WORKER, 0))


def test_defenders_use_is_visible_to_later_defenders() -> None:
    g = make([(0, 1, [GHOST]), (0, 1, [WORKER]), (0, 1, [WORKER])], attacking(0))
    g.play(0, 1)
    assert g.phase == DEFENDING and g.pending() == (1,) and g.attacker_card == 1
    g.play(1, 1)
    assert g.pending() == (2,)
    assert g.to_wire(2)["players"][1]["cards"][1] == {"name": "Worker", "uses": 1}
    assert g.to_wire(2)["phase"] == attacking(0, 1)


def test_defending_card_faints_and_later_indexes_shift() -> None:
    g = make([(0, 1, [THUG, THUG]), (0, 1, [WORKER, GHOST])], attacking(0), base=True)
    g.play(0, 1), g.play(1, 1)  # Thug atk 4 > Worker def 2: Worker faints
    assert card_ids(g, 1) == [STIPEND, GHOST] and g.removed()[WORKER] == 1
    g.play(0, 2)
    assert g.legal_moves(1) == [1]  # the Ghost moved from index 2 to 1
    g.play(1, 1)
    assert card_ids(g, 1) == [STIPEND]


def test_attacking_card_faints_when_any_defender_is_stronger() -> None:
    g = make([(0, 1, [WORKER]), (0, 1, [WORKER]), (0, 1, [GHOST])], attacking(0))
    g.play(0, 1), g.play(1, 1), g.play(2, 1)  # Ghost atk 3 > Worker def 2
    assert card_ids(g, 0) == [STIPEND]
    assert card_ids(g, 1) == [STIPEND, WORKER] and card_ids(g, 2) == [STIPEND, GHOST]
    assert g.phase == BUY


def test_bubble_defends_with_attack_nine() -> None:
    g = make([(0, 1, [GOLEM]), (0, 1, [BUBBLE])], attacking(0), base=True)
    g.play(0, 1)
    assert g.legal_moves(1) == [1]
    g.play(1, 1)  # Golem atk 7 > Bubble def 2 and Bubble atk 9 > Golem def 7
    assert card_ids(g, 0) == [STIPEND] and card_ids(g, 1) == [STIPEND]
    assert g.removed()[GOLEM] == 1 and g.removed()[BUBBLE] == 1
    assert g.phase == BUY


def test_bubble_cannot_attack() -> None:
    g = make([(0, 1, [BUBBLE, WORKER]), (0, 1, [WORKER])], attacking(0))
    assert g.legal_moves(0) == [0, 2]
    assert reason(g, 0, 1) == "card cannot attack"


def test_wall_of_wealth_defends_twice_then_its_owner_is_eliminated() -> None:
    g = make([(0, 1, [WORKER, WORKER, WORKER]), (0, 1, [WALL])], attacking(0), base=True)
    g.play(0, 1), g.play(1, 1)
    assert g.cards(1) == ((0, 0), (WALL, 1))
    g.play(0, 2)
    assert g.legal_moves(1) == [1]
    g.play(1, 1)
    assert g.cards(1) == ((0, 0), (WALL, 2))
    g.play(0, 3)  # nobody can defend: the fight happens at once
    assert not g.alive(1) and (g.coins(1), g.buys(1)) == (0, 0)
    assert g.phase == END and g.winner == 0
    assert g.removed()[WALL] == 1


def test_wall_of_wealth_does_not_defend_again_after_fainting() -> None:
    g = make([(0, 1, [GHOST, WORKER]), (0, 1, [WALL, WORKER])], attacking(0), base=True)
    g.play(0, 1), g.play(1, 1)  # Ghost atk 3 > Wall def 2
    assert card_ids(g, 1) == [STIPEND, WORKER]
    g.play(0, 2)
    assert g.legal_moves(1) == [1]


def test_shield_of_greed_earns_a_coin_each_defense() -> None:
    # No card has attack > 7, so a Shield never faints; its coin comes first anyway.
    g = make([(0, 1, [GOLEM, THUG]), (2, 1, [SHIELD])], attacking(0), base=True)
    g.play(0, 1), g.play(1, 1)
    assert g.coins(1) == 3 and card_ids(g, 1) == [STIPEND, SHIELD]
    g.play(0, 2)  # the used Shield cannot defend again: eliminated, no coin
    assert g.phase == END and g.winner == 0 and g.coins(1) == 0


def test_player_unable_to_defend_is_eliminated_and_not_asked() -> None:
    g = make([(0, 1, [WORKER]), (5, 1, []), (0, 1, [WORKER])], attacking(0))
    g.play(0, 1)
    assert g.pending() == (2,)
    assert len(g.to_wire(2)["players"][1]["cards"]) == 1  # unchanged until the fight
    g.play(2, 1)
    assert not g.alive(1) and g.to_wire()["players"][1] == {"coins": 0, "buys": 0, "cards": []}
    assert g.phase == BUY and g.pending() == (0, 2)  # two still in; p0's only attacker is used


def test_winner_checked_after_each_fight_and_uses_not_reset() -> None:
    g = make(
        [(0, 1, [INCANTATION, INCANTATION, MONOPOLY, THUG]), (0, 1, [INCANTATION, INCANTATION, MONOPOLY])],
        attacking(0),
        base=True,
    )
    assert g.phase == ATTACKING  # 7 points each: no winner yet
    g.play(0, 4), g.play(1, 1)  # Thug atk 4 > Incantation def 1
    assert g.phase == END and g.winner == 0
    w = g.to_wire()
    assert w["phase"] == {"name": "end", "winner": 0}
    assert w["players"][0]["cards"][4] == {"name": "Thug", "uses": 1}


# ------------------------------------------------------------------ buying


def test_buy_appends_at_the_right_end_and_uses_a_buy() -> None:
    g = make([(5, 2, [WORKER]), (1, 1, [])])
    g.play(0, GHOST), g.play(1, WORKER)
    assert card_ids(g, 0) == [STIPEND, WORKER, GHOST] and card_ids(g, 1) == [STIPEND, WORKER]
    assert (g.coins(0), g.buys(0), g.coins(1), g.buys(1)) == (3, 1, 0, 0)
    assert g.shop()[GHOST] == 3 and g.shop()[WORKER] == 3
    assert g.phase == BUY and g.pending() == (0,)  # a second round for the second buy
    g.play(0, PASS)
    assert g.phase == INVESTING and g.day == 2


def test_buys_are_hidden_until_the_round_resolves() -> None:
    g = make([(5, 1, []), (5, 1, [])])
    w = g.to_wire(1)
    g.play(0, GHOST)
    assert g.to_wire(1) == w


def test_sold_out_card_is_paid_not_received() -> None:
    g = make([(3, 1, []), (3, 1, [])], shop={BUBBLE: 0})
    assert BUBBLE in g.legal_moves(0)
    g.play(0, BUBBLE), g.play(1, PASS)
    assert card_ids(g, 0) == [STIPEND]
    assert g.shop()[BUBBLE] == 0 and g.lost()[BUBBLE] == 0
    assert g.day == 2 and g.coins(0) == 1 + 1 and g.coins(1) == 3 + 1  # paid 2; day 2 income


def test_contested_last_copies_all_pay_none_get_pile_empties() -> None:
    g = make([(3, 1, []), (3, 1, []), (3, 1, [])], shop={GHOST: 2})
    g.play(0, GHOST), g.play(1, GHOST), g.play(2, GHOST)
    assert all(card_ids(g, p) == [STIPEND] for p in range(3))
    assert g.shop()[GHOST] == 0 and g.lost()[GHOST] == 2
    assert [g.coins(p) for p in range(3)] == [1 + 1] * 3  # paid 2 each, then day 2 income


def test_contest_with_enough_copies_gives_everyone_a_copy() -> None:
    g = make([(3, 1, []), (3, 1, [])], shop={GHOST: 2})
    g.play(0, GHOST), g.play(1, GHOST)
    assert card_ids(g, 0) == card_ids(g, 1) == [STIPEND, GHOST] and g.shop()[GHOST] == 0


def test_winner_checked_after_each_buy_round() -> None:
    g = make([(4, 2, [INCANTATION, INCANTATION]), (9, 1, [])])
    g.play(0, INCANTATION), g.play(1, PASS)
    assert g.phase == END and g.winner == 0 and g.buys(0) == 1


def test_two_players_tied_at_seven_or_more_play_on() -> None:
    seven = [INCANTATION, INCANTATION, MONOPOLY]
    g = make([(0, 1, seven), (0, 1, seven)])
    g.play(0, PASS), g.play(1, PASS)
    assert g.phase == INVESTING and g.winner is None


def test_strictly_most_points_wins_among_several_at_seven() -> None:
    seven = [INCANTATION, INCANTATION, MONOPOLY]
    g = make([(0, 1, seven), (0, 1, seven), (0, 1, [*seven, MONOPOLY])])
    g.play(0, PASS), g.play(1, PASS), g.play(2, PASS)
    assert g.phase == END and g.winner == 2


def test_six_points_do_not_win() -> None:
    g = make([(0, 1, [INCANTATION, INCANTATION]), (0, 1, [])])
    g.play(0, PASS), g.play(1, PASS)
    assert g.phase == INVESTING


# ------------------------------------------------------------------ illegal moves


def test_every_illegal_move_reason() -> None:
    g = Game(2)
    assert reason(g, 0, 4) == "player attempted to invest more coins than they have"
    assert reason(g, 0, -3) == "bad move: -3"
    g.play(0, 0)
    assert reason(g, 0, 0) == "player 0 is not expected to move"

    g = make([(0, 1, [BUBBLE, WORKER, GHOST]), (0, 1, [WORKER, GHOST])], attacking(0))
    assert reason(g, 0, 4) == "attacker card index is too large"
    assert reason(g, 0, 1) == "card cannot attack"
    g.play(0, 2)
    assert reason(g, 1, 3) == "defender card index is too large"
    assert reason(g, 1, 0) == "card cannot defend"
    g.play(1, 1)
    assert reason(g, 0, 2) == "card for attack is already used to its maximum"

    g = make([(0, 1, [WORKER, GHOST, GHOST]), (0, 1, [(WORKER, 1), GHOST])], attacking(0))
    g.play(0, 2)
    assert reason(g, 1, 1) == "card for defend is already used to its maximum"

    g = make([(1, 1, []), (9, 1, [])])
    assert reason(g, 0, GHOST) == "player does not have enough coins to buy card"
    assert reason(g, 0, STIPEND) == "unrecognized card name"
    assert reason(g, 0, GOLEM) == "unrecognized card name"  # not in the simple set
    assert reason(g, 0, 99) == "unrecognized card name"

    g = Game(2, max_days=0)
    assert reason(g, 0, 0) == "the game is over"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(-3, "bad move: -3"), (True, "bad move: true"), (1.0, "bad move: 1.0"), ("2", 'bad move: "2"'), ([1], "bad move: [1]"), (None, "bad move: null")],
)
def test_move_from_wire_rejects_non_integers(value: object, expected: str) -> None:
    with pytest.raises(IllegalMove) as e:
        move_from_wire(Game(2), value)
    assert e.value.reason == expected and str(e.value) == expected


def test_move_from_wire_buy_names() -> None:
    g = make([(5, 1, []), (5, 1, [])])
    assert move_from_wire(g, "Pass") == PASS
    assert move_from_wire(g, "Ghost") == GHOST
    for bad in ("Nope", "pass", "ghost"):
        with pytest.raises(IllegalMove, match="unrecognized card name"):
            move_from_wire(g, bad)
    with pytest.raises(IllegalMove, match="bad move: 3"):
        move_from_wire(g, 3)


def test_forfeit_freezes_the_state() -> None:
    g = Game(2)
    g.play(0, 2)  # hidden, dropped by the fault
    before = g.to_wire()
    g.forfeit(1, "too slow")
    assert g.is_over and g.fault == (1, "too slow") and g.pending() == ()
    after = g.to_wire()
    assert after["phase"] == {"name": "fault", "forfiet": 1, "reason": "too slow"}
    assert {**after, "phase": before["phase"]} == before
