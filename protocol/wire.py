"""The messages of the Economancy protocol, as pydantic models, and their encoding.

The models are the contract with bots written in any language: `driver
schema` prints their JSON Schema, and tests validate every state the
engine produces against them. They are deliberately kept out of the hot
paths (the referee's loop and the bots encode and decode plain dicts
with `protocol.exactjson`): validating each message would cost more than
the game.

Field names are the wire's, byte for byte, including the original's
`forfiet`. Numbers are exact integers of any size (Magic Bean Stock grows
purses past 2**64). Encoding is compact JSON with object keys sorted,
which makes our traces byte-identical to the original driver's; encoding
and decoding go through `protocol.exactjson`, the one exact JSON pair.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, RootModel, StrictInt, StrictStr, TypeAdapter, model_validator
from pydantic.json_schema import models_json_schema

from protocol import exactjson
from protocol.cards import BASE, NAMES, SIMPLE

__all__ = [
    "CARD_NAMES",
    "SHOP_CARD_NAMES",
    "Card",
    "Player",
    "Investing",
    "Attacking",
    "Buy",
    "End",
    "Fault",
    "Phase",
    "State",
    "Move",
    "encode",
    "decode",
    "decode_state",
    "decode_move",
    "state_schema",
    "move_schema",
    "messages_schema",
]

CARD_NAMES: tuple[str, ...] = NAMES
"""Every card a player can hold, in card-id order."""

SHOP_CARD_NAMES: tuple[str, ...] = tuple(NAMES[i] for i in BASE)
"""Every card a shop can list (the base set; the simple set is its first 8)."""

CardName = Literal[CARD_NAMES]  # type: ignore[valid-type]
ShopCardName = Literal[SHOP_CARD_NAMES]  # type: ignore[valid-type]

Count = Annotated[StrictInt, Field(ge=0)]
Index = Annotated[StrictInt, Field(ge=0, le=3)]
# Ints first and strictly: in Python 0 == False, so a Literal[False] tried
# first would swallow index 0.
CountOrFalse = Annotated[Union[Count, Literal[False]], Field(union_mode="left_to_right")]
IndexOrFalse = Annotated[Union[Index, Literal[False]], Field(union_mode="left_to_right")]

_STRICT = ConfigDict(extra="forbid", frozen=True)
_SHOP_SETS = (frozenset(NAMES[i] for i in SIMPLE), frozenset(NAMES[i] for i in BASE))


class Card(BaseModel):
    """One card in a player's list: `uses` counts its attacks or defenses
    in the current attack phase (0 outside of one)."""

    model_config = _STRICT
    name: CardName
    uses: Count


class Player(BaseModel):
    """A player's public position. An empty card list means eliminated."""

    model_config = _STRICT
    coins: Count
    buys: Count
    cards: list[Card]


class Investing(BaseModel):
    """Every player still in chooses, unseen by the others, how many coins to invest."""

    model_config = _STRICT
    name: Literal["investing"]


class Attacking(BaseModel):
    """`attacker_card` is false while the attacker chooses; then it is the
    index of the attacking card and the receiving defender chooses."""

    model_config = _STRICT
    name: Literal["attacking"]
    attacker: Index
    attacker_card: CountOrFalse


class Buy(BaseModel):
    """Every player with buys left names a card or "Pass", unseen by the others."""

    model_config = _STRICT
    name: Literal["buy"]


class End(BaseModel):
    """The game is over; `winner` is false for a draw. Bots must not answer."""

    model_config = _STRICT
    name: Literal["end"]
    winner: IndexOrFalse


class Fault(BaseModel):
    """Player `forfiet` (the original's spelling) broke the protocol and lost.
    Bots must not answer."""

    model_config = _STRICT
    name: Literal["fault"]
    forfiet: Index
    reason: str


Phase = Annotated[Union[Investing, Attacking, Buy, End, Fault], Field(discriminator="name")]


class State(BaseModel):
    """The whole game state, sent to a bot with `player` set to its own seat;
    the trace's final line is the same object without `player`."""

    model_config = _STRICT
    day: Annotated[StrictInt, Field(ge=1, le=3)]
    phase: Phase
    shop: dict[ShopCardName, Count]
    players: Annotated[list[Player], Field(min_length=2, max_length=4)]
    player: Index | None = None

    @model_validator(mode="after")
    def _consistent(self) -> State:
        """The shop lists exactly one card set, and seat numbers refer to players."""
        if frozenset(self.shop) not in _SHOP_SETS:
            raise ValueError("shop must list exactly the simple set (8 cards) or the base set (13 cards)")
        n = len(self.players)
        seats: dict[str, Any] = {"player": self.player}
        phase = self.phase
        if isinstance(phase, Attacking):
            seats["attacker"] = phase.attacker
        elif isinstance(phase, End):
            seats["winner"] = phase.winner
        elif isinstance(phase, Fault):
            seats["forfiet"] = phase.forfiet
        for field, seat in seats.items():
            if seat is not None and seat is not False and seat >= n:
                raise ValueError(f"{field} {seat} is not a seat of this {n}-player game")
        return self

    def to_wire(self) -> dict[str, Any]:
        """The plain JSON object, `player` omitted when unset."""
        return self.model_dump(mode="json", exclude_none=True)


class Move(RootModel[tuple[StrictInt | StrictStr]]):
    """A bot's answer: exactly one move in an array. An int is an investment
    or a card index (0 stops attacking); a string is a card name or "Pass"."""

    model_config = ConfigDict(frozen=True)

    @property
    def value(self) -> int | str:
        return self.root[0]


def encode(value: Any) -> bytes:
    """Compact JSON with sorted keys, no trailing newline: the original's bytes
    (integers exact, of any size)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_none=True)
    return exactjson.dumps(value)


def decode(data: bytes | str) -> Any:
    """Parse one JSON value exactly (raises exactjson.JSONError, a ValueError;
    integers of any length are read)."""
    return exactjson.loads(data, max_digits=None)


def decode_state(data: bytes | str | dict[str, Any]) -> State:
    """Parse and validate a state; raises exactjson.JSONError or
    pydantic.ValidationError (both ValueErrors)."""
    if not isinstance(data, dict):
        data = decode(data)
    return State.model_validate(data)


def decode_move(data: bytes | str | list[Any]) -> Move:
    """Parse and validate an answer; raises exactjson.JSONError or
    pydantic.ValidationError (both ValueErrors)."""
    if not isinstance(data, list):
        data = decode(data)
    return Move.model_validate(data)


_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def state_schema() -> dict[str, Any]:
    """JSON Schema of a state sent to a bot."""
    return {"$schema": _DIALECT, **TypeAdapter(State).json_schema()}


def move_schema() -> dict[str, Any]:
    """JSON Schema of a bot's answer."""
    return {"$schema": _DIALECT, **TypeAdapter(Move).json_schema()}


def messages_schema() -> dict[str, Any]:
    """One JSON Schema accepting any message of the protocol (a state or a
    move), with both under `$defs` for tools that want them by name."""
    _, definitions = models_json_schema([(State, "validation"), (Move, "validation")], ref_template="#/$defs/{model}")
    return {
        "$schema": _DIALECT,
        "title": "Economancy protocol message",
        "description": "A state (driver to bot, one JSON object per line) or a move (bot to driver).",
        "anyOf": [{"$ref": "#/$defs/State"}, {"$ref": "#/$defs/Move"}],
        **definitions,
    }
