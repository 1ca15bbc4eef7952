"""A bot's start-up is part of every game it plays: our bots answer their
first state without loading what they do not need for it (numpy, pydantic,
click, orjson, dataclasses and typing), which took longer than a bare
Python bot's whole start-up."""

from __future__ import annotations

import subprocess

import pytest

from bots import registry
from driver.game import state_lines
from protocol.engine import Game

HEAVY = ("numpy", "pydantic", "click", "orjson", "dataclasses", "typing", "inspect")
# The searches keep their configuration in dataclasses (bots.search); only the champion's mixed root needs numpy.
SEARCH_HEAVY = ("numpy", "pydantic", "click", "orjson")


@pytest.mark.parametrize("name, heavy", [("random", HEAVY), ("expert", HEAVY), ("decent-repro", HEAVY),
                                         ("mcts", SEARCH_HEAVY), ("alphabeta", SEARCH_HEAVY)])
def test_a_bot_answers_its_first_state_without_heavy_imports(name: str, heavy: tuple[str, ...]) -> None:
    argv = registry.resolve(name)
    assert argv is not None
    state = state_lines(Game(2).to_wire(), [0])[0] + b"\n"
    done = subprocess.run([argv[0], "-X", "importtime", *argv[1:], "--time", "0.05"] if name in ("mcts", "alphabeta")
                          else [argv[0], "-X", "importtime", *argv[1:]], input=state, capture_output=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith(b"["), done.stderr[-2000:]
    loaded = {line.rsplit(b"|", 1)[1].strip().decode() for line in done.stderr.splitlines() if line.startswith(b"import time:")}
    assert not loaded & set(heavy), sorted(loaded & set(heavy))
