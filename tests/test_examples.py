"""The README's example bots play full games through the real driver."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(sys.executable).parent / "driver"
NODE = shutil.which("node")

SDK_BOT = f"{shlex.quote(sys.executable)} examples/sdk_bot.py"
NODE_BOT = "node examples/node_bot.js"
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def play(*bots: str, base: bool = False) -> list:
    """The trace of one game between `bots` played by `driver run`."""
    argv = [str(DRIVER), "run", *(["--base"] if base else []), *bots]
    game = subprocess.run(argv, capture_output=True, cwd=ROOT, timeout=120, stdin=subprocess.DEVNULL)
    assert game.stdout, game.stderr.decode()
    return [orjson.loads(line) for line in game.stdout.splitlines()]


def assert_full_game(trace: list, n_players: int) -> None:
    final = trace[-1]
    assert final["phase"]["name"] == "end", final
    asked = {m["player"] for m in trace if isinstance(m, dict) and "player" in m}
    assert asked == set(range(n_players)), "every seat was asked for moves"


@pytest.mark.parametrize("base", [False, True])
def test_sdk_example_plays_full_games(base: bool) -> None:
    assert_full_game(play(SDK_BOT, "random", base=base), 2)


@needs_node
@pytest.mark.parametrize("base", [False, True])
def test_node_example_plays_full_games(base: bool) -> None:
    assert_full_game(play(NODE_BOT, "random", base=base), 2)


@needs_node
def test_examples_play_each_other_four_handed() -> None:
    assert_full_game(play(NODE_BOT, SDK_BOT, "random", NODE_BOT), 4)
