"""The C engine keeps its own card table; it must agree with protocol.cards."""
from __future__ import annotations

from protocol import _engine
from protocol.cards import BASE, CARDS, NAME_TO_ID, PASS, SIMPLE, shop_ids
from protocol import engine


def test_c_table_matches_python_table() -> None:
    table = _engine.card_table()
    assert len(table) == len(CARDS) == 14
    for card, row in zip(CARDS, table):
        none = lambda v: -1 if v is None else v  # noqa: E731  (the C side writes -1 for "none")
        assert row == {
            "name": card.name,
            "cost": none(card.cost),
            "atk": none(card.atk),
            "def": none(card.def_),
            "per_player": card.per_player,
            "points": card.points,
            "attacks": card.attacks,
            "defends": card.defends,
            "defend_coins": card.defend_coins,
            "coins": card.coins,
            "bean": card.bean,
            "buys": card.buys,
        }, card.name


def test_ids_and_sets() -> None:
    assert [c.id for c in CARDS] == list(range(14))
    assert NAME_TO_ID["Sorcerer's Stipend"] == 0 and NAME_TO_ID["Golem"] == 13
    assert SIMPLE == tuple(range(1, 9)) and BASE == tuple(range(1, 14))
    assert shop_ids(False) == SIMPLE and shop_ids(True) == BASE
    # 80 shop cards in a 4-player base game, + the Stipend: the engine's hand limit.
    assert 4 * sum(CARDS[c].per_player for c in BASE) + 1 == _engine.MAX_CARDS


def test_contract_constants() -> None:
    assert (engine.INVESTING, engine.ATTACKING, engine.DEFENDING, engine.BUY, engine.END, engine.FAULT) == tuple(range(6))
    assert engine.PASS == PASS == _engine.PASS == -1
