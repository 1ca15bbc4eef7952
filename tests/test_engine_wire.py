"""Game.from_wire / to_wire and the move conversions; plus a leak check of the C API."""
from __future__ import annotations

import copy
import gc
import pickle
import random
import tracemalloc
from collections.abc import Callable

import pytest

from protocol.cards import NAMES, PER_PLAYER, SIMPLE
from protocol.engine import (
    BUY,
    DEFENDING,
    END,
    FAULT,
    INVESTING,
    PASS,
    Game,
    IllegalMove,
    move_from_wire,
    move_to_wire,
)


def wire(**changes: object) -> dict:
    d = Game(2).to_wire(0)
    d.update(changes)
    return d


def player(*cards: tuple[str, int], coins: int = 0, buys: int = 1) -> dict:
    return {"coins": coins, "buys": buys, "cards": [{"name": "Sorcerer's Stipend", "uses": 0}] + [{"name": n, "uses": u} for n, u in cards]}


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ([], "state must be an object"),
        ({k: v for k, v in wire().items() if k != "day"}, "state lacks 'day'"),
        (wire(day=4), "day must be 1..3"),
        (wire(day=True), "day must be an integer"),
        (wire(shop={"Golem": 1}), "shop must list exactly the simple or the base set"),
        (wire(shop={NAMES[c]: -1 for c in SIMPLE}), "shop count of Board of Monopoly must be >= 0"),
        (wire(players=[player()]), "a game has 2 to 4 players, not 1"),
        (wire(players=[player(("Golem", 0)), player()]), "'Golem' is not a card of this game"),
        (wire(players=[player(("Pass", 0)), player()]), "'Pass' is not a card of this game"),
        (wire(players=[player(("Worker", -1)), player()]), "uses must be 0..255"),
        (wire(players=[player(coins=-(10**50)), player()]), "player 0 coins must be >= 0, not a negative integer of about 51 digits"),
        (wire(players=[{"coins": 1, "buys": 1}, player()]), "player 0 lacks 'cards'"),
        (wire(phase={"name": "income"}), "unknown phase 'income'"),
        (wire(phase={"name": "attacking", "attacker": 2, "attacker_card": False}), "attacker must be 0..1"),
        (wire(phase={"name": "attacking", "attacker": 0, "attacker_card": True}), "attacker_card must be an integer"),
        (wire(phase={"name": "attacking", "attacker": 0, "attacker_card": 0}), "attacker_card must be 1..0"),
        (wire(phase={"name": "end", "winner": True}), "winner must be an integer"),
        (wire(phase={"name": "fault", "forfiet": 0, "reason": 3}), "fault reason must be a string"),
        (wire(player=7), "player must be 0..1"),
        (wire(players=[player(buys=0), player(buys=0)], phase={"name": "buy"}), "nobody has buys left"),
        (wire(players=[player(*[("Worker", 0)] * 60), player()]), "exceed 81"),
    ],
)
def test_from_wire_rejects_malformed_states(state: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        Game.from_wire(state)  # type: ignore[arg-type]


def test_from_wire_takes_the_set_from_the_shop() -> None:
    assert not Game.from_wire(Game(2).to_wire()).base
    assert Game.from_wire(Game(3, base=True).to_wire()).base


def test_from_wire_round_trips_every_phase() -> None:
    g = Game(2, base=True)
    states = []
    rng = random.Random(5)
    for _ in range(30):
        h = g.copy()
        while not h.is_over:
            p = h.pending()[0]
            states.append((h.to_wire(p), h.phase))
            h.play(p, rng.choice(h.legal_moves(p)))
        states.append((h.to_wire(), h.phase))
    f = g.copy()
    f.forfeit(1, "timeout")
    states.append((f.to_wire(), FAULT))
    assert {ph for _, ph in states} == {0, 1, 2, 3, 4, 5}
    for d, ph in states:
        back = Game.from_wire(d)
        assert back.phase == ph and back.to_wire(d.get("player")) == d


def three_player_defense(p1_cards: list[tuple[str, int]], thug_uses: int = 1) -> Game:
    d = {
        "day": 2,
        "phase": {"name": "attacking", "attacker": 0, "attacker_card": 1},
        "shop": {NAMES[c]: PER_PLAYER[c] * 3 for c in range(1, 14)},
        "players": [player(("Thug", thug_uses)), player(*p1_cards), player(("Worker", 0))],
        "player": 2,
    }
    return Game.from_wire(d)


def test_earlier_defender_with_a_card_in_use_is_taken_to_have_chosen_it() -> None:
    g = three_player_defense([("Worker", 1), ("Ghost", 0)])
    assert g.phase == DEFENDING and g.pending() == (2,)
    g.play(2, 1)
    assert [c for c, _ in g.cards(1)] == [0, 6]  # its Worker fainted to the Thug
    assert g.phase == BUY


def test_earlier_player_without_defending_card_in_use_was_not_asked() -> None:
    g = three_player_defense([("Board of Monopoly", 0)] * 0)
    g.play(2, 1)
    assert not g.alive(1)


def test_earlier_defender_whose_choice_is_hidden_is_taken_to_defend() -> None:
    g = three_player_defense([("Worker", 0), ("Ghost", 0)])  # as a --fair referee sends it
    g.play(2, 1)
    assert [c for c, _ in g.cards(1)] == [0, 3]  # its best defender, the Ghost, fainted


def test_ambiguous_earlier_defender_counts_the_attackers_uses() -> None:
    g = three_player_defense([("Worker", 1)], thug_uses=1)  # first fight: it was asked
    g.play(2, 1)
    assert g.alive(1) and [c for c, _ in g.cards(1)] == [0]
    g = three_player_defense([("Worker", 1)], thug_uses=2)  # impossible with one Thug; > its uses
    g.play(2, 1)
    assert not g.alive(1)


def test_defending_state_without_player_key_asks_the_first_defender() -> None:
    g = three_player_defense([("Worker", 0)])
    d = g.to_wire()
    h = Game.from_wire(d)
    assert h.pending() == (1,)
    with pytest.raises(ValueError, match="player 1 cannot be the defender"):
        Game.from_wire({**d, "player": 1, "players": [d["players"][0], player(), d["players"][2]]})


def test_move_to_wire() -> None:
    g = Game(2)
    assert move_to_wire(g, 3) == 3
    g.play(0, 0), g.play(1, 0)
    assert g.phase == BUY
    assert move_to_wire(g, PASS) == "Pass" and move_to_wire(g, 6) == "Ghost"
    assert move_from_wire(g, move_to_wire(g, 6)) == 6


def test_illegal_move_is_a_value_error_with_a_reason() -> None:
    e = IllegalMove("card cannot attack")
    assert isinstance(e, ValueError) and e.reason == "card cannot attack"
    assert IllegalMove.__module__ == "protocol.engine"


def test_properties_and_views() -> None:
    g = Game(4, base=True, max_days=7)
    assert (g.n_players, g.base, g.max_days, g.phase) == (4, True, 7, INVESTING)
    assert g.attacker is None and g.attacker_card is None and g.winner is None and g.fault is None
    assert g.removed() == g.lost() == {c: 0 for c in range(1, 14)}
    with pytest.raises(IndexError):
        g.coins(4)
    with pytest.raises(ValueError, match="n_players"):
        Game(5)
    with pytest.raises(ValueError, match="max_days"):
        Game(2, max_days=-1)
    with pytest.raises(TypeError):
        g.play(0, "1")  # type: ignore[arg-type]
    assert copy.deepcopy(g) == g and copy.copy(g) == g
    assert type(g.copy()) is Game
    with pytest.raises(TypeError):
        hash(g)


def test_end_state_properties() -> None:
    g = Game(2)
    g.playout(1)
    assert g.phase == END and g.is_over and g.pending() == () and g.legal_moves(0) == []


def test_no_leaks_in_the_c_api() -> None:
    def churn() -> None:
        base = Game(3, base=True)
        for seed in range(100):
            g = base.copy()
            g.playout(seed)
            for p in range(3):
                g.cards(p), g.coins(p), g.legal_moves(p)
            g.key(), g.shop(), g.removed(), g.lost(), g.fault
            Game.from_wire(g.to_wire(0))
            h = base.copy()
            h.play(0, 1)
            h.legal_moves(1), h.pending(), h.to_wire(1)
            try:
                h.play(0, 1)
            except IllegalMove:
                pass
            try:
                h.play(1, -5)
            except IllegalMove:
                pass
            h.forfeit(1, f"reason {seed}")
            h.to_wire(), h.copy().fault

    # 300 rounds: leaking one small object per round would add >= 9,600 bytes.
    growth = memory_growth(churn)
    assert growth < 5_000, f"memory grew by {growth} bytes"


def memory_growth(churn: Callable[[], None]) -> int:
    """Bytes still allocated after three more rounds of `churn` than after
    one (the first round, untraced, warms caches up)."""
    churn()
    gc.collect()
    tracemalloc.start()
    try:
        churn()
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        for _ in range(3):
            churn()
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return second - first


def test_pickle_keeps_hidden_answers_and_faults() -> None:
    g = Game(3, base=True)
    g.play(0, 2)
    h = pickle.loads(pickle.dumps(g))
    assert type(h) is Game and h == g and h.pending() == (1, 2)
    h.play(1, 0), h.play(2, 0)
    assert h.phase == BUY and h.coins(0) == 1  # p0 paid 2 (no card to attack with)
    g.forfeit(2, "timeout")
    assert pickle.loads(pickle.dumps(g)).fault == (2, "timeout")


def test_setstate_rejects_corrupt_states() -> None:
    raw, reason, decisions, bigs = Game(2).__getstate__()
    with pytest.raises(ValueError, match="another build"):
        Game(2).__setstate__((raw[:-1], reason, decisions, bigs))
    corrupt = bytearray(raw)
    corrupt[0] = 9  # n_players
    with pytest.raises(ValueError, match="inconsistent pickled state"):
        Game(2).__setstate__((bytes(corrupt), reason, decisions, bigs))


def test_a_game_never_initialised_is_inert() -> None:
    g = Game.__new__(Game)
    assert g.pending() == () and g.playout(1) == -1
