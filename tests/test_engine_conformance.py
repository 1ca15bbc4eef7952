"""Replay the 123 games recorded from the original driver directly on Game.

The game has no chance, so feeding each recorded answer back must give
every recorded state exactly (as parsed JSON); the fault reason text is
the only thing allowed to differ (docs of /work/shared/traces).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from protocol.engine import FAULT, Game, IllegalMove, move_from_wire


def _traces_dir() -> Path | None:
    env = os.environ.get("ECONOMANCY_TRACES")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[1].parent / "shared" / "traces")
    for c in candidates:
        if c.is_dir() and any(c.glob("*.jsonl")):
            return c
    return None


TRACES = _traces_dir()
FILES = sorted(TRACES.glob("*.jsonl")) if TRACES else []


def _without_reason(state: dict) -> dict:
    phase = dict(state["phase"])
    phase.pop("reason", None)
    return {**state, "phase": phase}


def replay(path: Path) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    first = lines[0]
    m = re.search(r"maxdays(\d+)", path.name)
    game = Game(
        len(first["players"]),
        base=path.name.startswith("base"),
        max_days=int(m.group(1)) if m else 100,
    )
    i = 0
    while i < len(lines) - 1:
        state = lines[i]
        p = state["player"]
        assert game.to_wire(p) == state, f"{path.name}: line {i + 1} differs"
        assert p in game.pending(), f"{path.name}: line {i + 1}: player {p} not pending"
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
        assert _without_reason(got) == _without_reason(final), f"{path.name}: final state differs"
    else:
        assert got == final, f"{path.name}: final state differs"


def test_traces_present() -> None:
    if not FILES:
        if os.environ.get("CI"):
            pytest.fail("golden traces not found (set ECONOMANCY_TRACES)")
        pytest.skip("golden traces not found (set ECONOMANCY_TRACES)")
    assert len(FILES) == 123


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_trace(path: Path) -> None:
    replay(path)
