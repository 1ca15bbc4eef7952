"""A bot's start-up is part of every game it plays: our bots answer their
first state without loading what they do not need for it (numpy, pydantic,
click, orjson, dataclasses and typing, shutil for argparse's help width),
which took longer than a bare Python bot's whole start-up. The search bots
search in C: the Python reference modules of bots/search stay unloaded too,
and the champion solves its first state's matrix game without numpy."""

from __future__ import annotations

import subprocess

import pytest

from bots import registry
from driver.game import state_lines
from protocol.engine import Game

HEAVY = ("numpy", "pydantic", "click", "orjson", "dataclasses", "typing", "inspect", "shutil", "importlib.resources")
REFERENCES = ("bots.search.evaluation", "bots.search.mcts", "bots.search.alphabeta", "bots.search.mixed",
              "bots.search.matrix", "bots.search.actions")
# A budget the first answer's search always has time for (the first state is a bid of 0, 1 or 3 coins).
SEARCH_BUDGET = ("--time", "0.05")


def loaded_answering_the_first_state(name: str, options: tuple[str, ...] = ()) -> set[str]:
    """The modules bot `name` imports to start and answer a 2-player game's first state."""
    argv = registry.resolve(name)
    assert argv is not None
    state = state_lines(Game(2).to_wire(), [0])[0] + b"\n"
    done = subprocess.run([argv[0], "-X", "importtime", *argv[1:], *options], input=state, capture_output=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.startswith(b"["), done.stderr[-2000:]
    return {line.rsplit(b"|", 1)[1].strip().decode() for line in done.stderr.splitlines()
            if line.startswith(b"import time:")}


@pytest.mark.parametrize("name", ["random", "expert", "decent-repro", "evolved"])
def test_a_bot_answers_its_first_state_without_heavy_imports(name: str) -> None:
    loaded = loaded_answering_the_first_state(name)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.parametrize("name", ["mcts", "alphabeta", "champion"])
def test_a_search_bot_answers_its_first_state_in_c_without_heavy_imports(name: str) -> None:
    loaded = loaded_answering_the_first_state(name, SEARCH_BUDGET)
    assert "bots.search.core" in loaded  # the C search answered, not a Python reference
    assert not loaded & set(HEAVY + REFERENCES), sorted(loaded & set(HEAVY + REFERENCES))
