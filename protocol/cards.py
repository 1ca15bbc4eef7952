"""The Economancy cards as plain Python data.

Card ids are stable and used everywhere a move is an int (docs/architecture.md).
The C engine keeps its own static copy of this table for speed;
tests/test_engine_cards.py checks that the two agree.
"""
from __future__ import annotations

from collections import namedtuple

_FIELDS = ("id", "name", "cost", "atk", "def_", "per_player", "points", "attacks", "defends", "defend_coins",
           "coins", "bean", "buys")


TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import NamedTuple

    class _CardFields(NamedTuple):
        """The fields as type checkers see them (the same as `_FIELDS`)."""

        id: int
        name: str
        cost: int | None
        atk: int | None
        def_: int | None
        per_player: int
        points: int = 0
        attacks: int = 1
        defends: int = 1
        defend_coins: int = 0
        coins: tuple[int, int, int] = (0, 0, 0)  # income on days 1, 2, 3
        bean: bool = False  # Magic Bean Stock: + running coins // 3
        buys: tuple[int, int, int] = (0, 0, 0)  # extra buys on days 1, 2, 3
else:
    _CardFields = namedtuple("_Card", _FIELDS, defaults=(0, 1, 1, 0, (0, 0, 0), False, (0, 0, 0)))


class Card(_CardFields):
    """One card's rules. ``None`` means the card has no such level or cost.

    A named tuple, not a dataclass (nor typing.NamedTuple at run time):
    every bot imports this table, and `dataclasses` (with the `inspect` it
    pulls in) was a fifth of a bot's start-up, `typing` another few
    milliseconds."""

    __slots__ = ()

    @property
    def can_attack(self) -> bool:
        return self.attacks > 0

    @property
    def can_defend(self) -> bool:
        return self.def_ is not None and self.defends > 0


STIPEND = 0
PASS = -1
PASS_NAME = "Pass"

CARDS: tuple[Card, ...] = (
    Card(0, "Sorcerer's Stipend", None, None, None, 0, attacks=0, defends=0, coins=(2, 1, 1)),
    Card(1, "Board of Monopoly", 2, 1, 1, 2, points=1),
    Card(2, "Incantation", 4, 1, 1, 3, points=3),
    Card(3, "Worker", 1, 1, 2, 2, coins=(0, 1, 1)),
    Card(4, "Magic Bean Stock", 1, 1, 1, 1, bean=True),
    Card(5, "Bubble", 2, 9, 2, 1, attacks=0),
    Card(6, "Ghost", 2, 3, 2, 2, coins=(0, 0, 1)),
    Card(7, "Senior Worker", 2, 2, 2, 2, coins=(1, 1, 1)),
    Card(8, "Gold Fish", 3, 1, 2, 1, coins=(0, 0, 4)),
    Card(9, "Wall of Wealth", 1, 1, 2, 2, defends=2, coins=(1, 0, 0)),
    Card(10, "Apprentice", 3, 2, 1, 1, coins=(1, 1, 0), buys=(0, 0, 1)),
    Card(11, "Thug", 3, 4, 4, 1, coins=(0, 1, 0)),
    Card(12, "Shield of Greed", 4, 2, 7, 1, defend_coins=1),
    Card(13, "Golem", 5, 7, 7, 1),
)

NAMES: tuple[str, ...] = tuple(c.name for c in CARDS)
NAME_TO_ID: dict[str, int] = {c.name: c.id for c in CARDS}

SIMPLE: tuple[int, ...] = tuple(range(1, 9))
BASE: tuple[int, ...] = tuple(range(1, 14))

# Per-id columns, for code that indexes by card id.
COST: tuple[int | None, ...] = tuple(c.cost for c in CARDS)
ATK: tuple[int | None, ...] = tuple(c.atk for c in CARDS)
DEF: tuple[int | None, ...] = tuple(c.def_ for c in CARDS)
PER_PLAYER: tuple[int, ...] = tuple(c.per_player for c in CARDS)
POINTS: tuple[int, ...] = tuple(c.points for c in CARDS)
ATTACKS: tuple[int, ...] = tuple(c.attacks for c in CARDS)
DEFENDS: tuple[int, ...] = tuple(c.defends for c in CARDS)


def shop_ids(base: bool) -> tuple[int, ...]:
    """The ids sold in a game of this set (base: 13 cards, simple: 8)."""
    return BASE if base else SIMPLE
