"""The wire models accept every state the engine produces, encode it to the
original's bytes, and reject malformed messages."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from protocol.engine import Game
from protocol.exactjson import int_to_digits
from protocol.wire import (
    Attacking,
    End,
    Fault,
    Move,
    State,
    decode_move,
    decode_state,
    encode,
    messages_schema,
    move_schema,
    state_schema,
)


def random_states(n_players: int, base: bool, seed: int, max_days: int = 100) -> list[dict[str, Any]]:
    """Every state one random game sends (with "player"), and its final state."""
    rng = random.Random(seed)
    game = Game(n_players, base=base, max_days=max_days)
    states = []
    while not game.is_over:
        for seat in game.pending():
            states.append(game.to_wire(seat))
        seat = game.pending()[0]
        game.play(seat, rng.choice(game.legal_moves(seat)))
    states.append(game.to_wire())
    states.extend(game.to_wire(seat) for seat in range(n_players))
    return states


@pytest.mark.parametrize("n_players", [2, 3, 4])
@pytest.mark.parametrize("base", [False, True], ids=["simple", "base"])
def test_every_engine_state_validates_and_round_trips(n_players: int, base: bool) -> None:
    phases = set()
    for seed in range(8):
        for state in random_states(n_players, base, seed):
            data = orjson.dumps(state, option=orjson.OPT_SORT_KEYS)
            model = decode_state(data)
            assert model.to_wire() == state
            assert encode(model) == data
            phase = model.phase
            phases.add((phase.name, isinstance(phase, Attacking) and phase.attacker_card is not False))
    assert {("investing", False), ("buy", False), ("end", False)} <= phases
    assert ("attacking", False) in phases and ("attacking", True) in phases


def test_fault_state_and_index_zero_survive() -> None:
    game = Game(2)
    game.forfeit(0, "bad move: -3")
    state = decode_state(orjson.dumps(game.to_wire(1)))
    assert isinstance(state.phase, Fault) and state.phase.forfiet == 0 and state.player == 1
    end = decode_state(
        orjson.dumps({**game.to_wire(), "phase": {"name": "end", "winner": 0}})
    )
    assert isinstance(end.phase, End) and end.phase.winner == 0 and end.phase.winner is not False
    draw = State.model_validate({**game.to_wire(), "phase": {"name": "end", "winner": False}})
    assert draw.phase.winner is False  # type: ignore[union-attr]
    assert encode(draw).count(b'"winner":false') == 1


def test_encoding_is_compact_with_sorted_keys() -> None:
    assert encode({"b": 1, "a": [1, {"d": 2, "c": "x"}]}) == b'{"a":[1,{"c":"x","d":2}],"b":1}'


GOOD = Game(3, base=True).to_wire(2)


def changed(path: list[Any], value: Any) -> dict[str, Any]:
    state = orjson.loads(orjson.dumps(GOOD))
    target = state
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return state


@pytest.mark.parametrize(
    "state",
    [
        changed(["day"], 4),
        changed(["day"], "1"),
        changed(["day"], True),
        changed(["phase"], {"name": "income"}),
        changed(["phase"], {"name": "attacking", "attacker": 1}),
        changed(["phase"], {"name": "attacking", "attacker": 5, "attacker_card": False}),
        changed(["phase"], {"name": "attacking", "attacker": 1, "attacker_card": True}),
        changed(["phase"], {"name": "end", "winner": 3}),
        changed(["phase"], {"name": "fault", "forfeit": 1, "reason": "x"}),
        changed(["phase", "name"], "Investing"),
        changed(["shop", "Nonesuch"], 2),
        changed(["shop", "Golem"], -1),
        changed(["shop", "Golem"], KeyError),
        changed(["players"], []),
        changed(["players", 0, "coins"], -1),
        changed(["players", 0, "coins"], 2.5),
        changed(["players", 0, "buys"], KeyError),
        changed(["players", 0, "cards", 0, "name"], "Sorcerers Stipend"),
        changed(["players", 0, "cards", 0, "uses"], None),
        changed(["players", 0, "extra"], 1),
        changed(["player"], 3),
        changed(["player"], -1),
        changed(["players"], KeyError),
    ],
)
def test_malformed_states_are_rejected(state: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        decode_state(orjson.dumps(state))


@pytest.mark.parametrize("answer", [b"[0]", b"[12]", b'["Pass"]', b'["Golem"]', b" [3] \r\n"])
def test_moves_are_accepted(answer: bytes) -> None:
    assert decode_move(answer).value == orjson.loads(answer)[0]


@pytest.mark.parametrize(
    "answer", [b"[]", b"[1,2]", b"[true]", b"[1.5]", b"[null]", b"1", b'"Pass"', b'{"move":1}', b"[[1]]", b"[1"]
)
def test_malformed_moves_are_rejected(answer: bytes) -> None:
    with pytest.raises(ValueError):
        decode_move(answer)


def test_schemas_describe_the_messages() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for schema in (state_schema(), move_schema(), messages_schema()):
        jsonschema.Draft202012Validator.check_schema(schema)
    any_message = jsonschema.Draft202012Validator(messages_schema())
    states = random_states(4, True, 1)
    for value in [*states, [3], ["Pass"]]:
        any_message.validate(value)
    for bad in ([], [1, 2], {"day": 1}, changed(["players", 0, "coins"], -1)):
        assert not any_message.is_valid(bad)
    assert Move.model_json_schema()["minItems"] == 1



@pytest.mark.parametrize("coins", [2**63, 6218256728297497601, 16 * 10**24, 3**10000], ids=lambda c: f"{c.bit_length()}bits")
def test_models_take_and_write_big_integers_byte_for_byte(coins: int) -> None:
    digits = int_to_digits(coins).encode()
    data = encode(changed(["players", 1, "coins"], coins))
    assert b'"coins":' + digits + b"}" in data
    model = decode_state(data)
    assert model.players[1].coins == coins and encode(model) == data
    assert decode_move(b"[" + digits + b"]").value == coins
    assert encode(decode_move(b"[99999999999999999999]")) == b"[99999999999999999999]"


def test_models_report_json_that_breaks_a_limit() -> None:
    with pytest.raises(ValueError, match="nests deeper than 1024 levels"):
        decode_move(b"[" * 2000 + b"]" * 2000)
    with pytest.raises(ValueError, match="is not JSON"):
        decode_state(b'{"day": 1,')
