"""Replay the 123 games recorded from the original driver directly on Game.

The game has no chance, so feeding each recorded answer back must give
every recorded state exactly (as parsed JSON); the fault reason text is
the only thing allowed to differ (tests/data/traces/README.md).
"""
from __future__ import annotations

import json
import re

import pytest

import tracedata
from protocol.engine import FAULT, Game, IllegalMove, move_from_wire


NAMES = tracedata.names()


def _without_reason(state: dict) -> dict:
    phase = dict(state["phase"])
    phase.pop("reason", None)
    return {**state, "phase": phase}


def replay(name: str) -> None:
    lines = [json.loads(line) for line in tracedata.read_text(name).splitlines() if line.strip()]
    first = lines[0]
    m = re.search(r"maxdays(\d+)", name)
    game = Game(
        len(first["players"]),
        base=name.startswith("base"),
        max_days=int(m.group(1)) if m else 100,
    )
    i = 0
    while i < len(lines) - 1:
        state = lines[i]
        p = state["player"]
        assert game.to_wire(p) == state, f"{name}: line {i + 1} differs"
        assert p in game.pending(), f"{name}: line {i + 1}: player {p} not pending"
        rebuilt = Game.from_wire(state, days_played=game.days_played, max_days=game.max_days)
        assert rebuilt.to_wire(p) == state and p in rebuilt.pending()
        assert rebuilt.legal_moves(p) == game.legal_moves(p)
        answer = lines[i + 1]
        if isinstance(answer, list) and len(answer) == 1:
            try:
                game.play(p, move_from_wire(game, answer[0]))
            except IllegalMove as e:
                game.forfeit(p, e.reason)
        else:
            game.forfeit(p, f"move is not in an array: {answer!r}")
        i += 2
    final = lines[-1]
    assert "player" not in final
    assert game.is_over
    got = game.to_wire()
    if game.phase == FAULT:
        assert _without_reason(got) == _without_reason(final), f"{name}: final state differs"
    else:
        assert got == final, f"{name}: final state differs"


def test_traces_present() -> None:
    assert len(NAMES) == 123


@pytest.mark.parametrize("name", NAMES)
def test_trace(name: str) -> None:
    replay(name)
