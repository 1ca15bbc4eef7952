"""The README's example bots play full games through the real driver."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, Game, move_from_wire

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


def sample_states(per_phase: int = 25) -> list[tuple[Game, int]]:
    """(game, player to answer) pairs from random games, `per_phase` of each
    decision kind, so every branch of a bot gets asked."""
    import random

    rng = random.Random(4)
    found: dict[int, list[tuple[Game, int]]] = {p: [] for p in (INVESTING, ATTACKING, DEFENDING, BUY)}
    while any(len(v) < per_phase for v in found.values()):
        game = Game(rng.choice((2, 3, 4)), base=rng.random() < 0.5)
        while not game.is_over:
            seats = game.pending()
            if len(found[game.phase]) < per_phase:
                found[game.phase].append((game.copy(), seats[0]))
            moves = [(seat, rng.choice(game.legal_moves(seat))) for seat in seats]
            for seat, move in moves:
                game.play(seat, move)
                if game.phase in (ATTACKING, DEFENDING) or game.is_over:
                    break
    return [sample for samples in found.values() for sample in samples]


@pytest.mark.parametrize("command", [pytest.param(NODE_BOT, marks=needs_node), SDK_BOT])
def test_examples_answer_every_kind_of_state_legally(command: str) -> None:
    samples = sample_states()
    lines = b"".join(orjson.dumps(game.to_wire(seat)) + b"\n" for game, seat in samples)
    bot = subprocess.run(shlex.split(command), input=lines, capture_output=True, cwd=ROOT, timeout=60)
    assert bot.returncode == 0, bot.stderr.decode()
    answers = bot.stdout.splitlines()
    assert len(answers) == len(samples)
    for (game, seat), answer in zip(samples, answers):
        (value,) = orjson.loads(answer)
        assert move_from_wire(game, value) in game.legal_moves(seat), (game.to_wire(seat), value)
