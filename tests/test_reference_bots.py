"""The `*-v1` bots: today's search bots as they were before the C core
(their Python searches), kept under their own names so that the
champion's goals are measured against the versions issue 22 names."""

from __future__ import annotations

import subprocess
import time

import orjson
import pytest

from bots import registry
from bots.alphabeta import AlphaBetaPolicy
from bots.alphabeta_v1 import AlphaBetaV1Policy
from bots.champion import ChampionPolicy
from bots.champion_v1 import ChampionV1Policy
from bots.inprocess import play_game
from bots.search.evaluation import CHAMPION_V1_WEIGHTS_FILE, CHAMPION_WEIGHTS_FILE, load_weights
from bots.search import alphabeta as python_alphabeta, mcts as python_mcts, mixed as python_mixed
from exploit.target import resolve_target
from protocol.engine import Game
from test_search_moves import random_state

V1 = {
    "mcts-v1": ("bots.mcts_v1", "--iterations 30", python_mcts.Searcher),
    "alphabeta-v1": ("bots.alphabeta_v1", "--depth 2", python_alphabeta.AlphaBeta),
    "champion-v1": ("bots.champion_v1", "--depth 2", python_mixed.MixedAlphaBeta),
}


@pytest.mark.parametrize("name", sorted(V1))
def test_a_v1_bot_is_registered_and_plays_a_whole_game_in_process_with_the_python_search(name: str) -> None:
    module, options, searcher = V1[name]
    assert registry.module(name) == module and registry.is_installed(name)
    target = resolve_target(f"{name} {options} --seed 3")
    assert target.inprocess  # the measurements play it in-process
    policy = target.factory(1)
    assert type(policy.searcher) is searcher
    game = play_game([policy, resolve_target("expert").factory(2)], max_days=6)
    assert game.is_over and game.fault is None


def test_alphabeta_v1_is_alphabeta_searching_in_python() -> None:
    # The C core is tested move for move against these references; here the
    # bots themselves: at a fixed depth and seed they play the same move.
    for seed in range(12):
        game = random_state(seed, 2, seed % 2 == 1)
        for player in game.pending():
            ours = AlphaBetaV1Policy(seconds=None, depth=2, seed=seed)(game, player)
            today = AlphaBetaPolicy(seconds=None, depth=2, seed=seed)(game, player)
            assert ours == today, (seed, player)


def test_champion_v1_is_the_champion_serialising_in_python_with_its_hand_tuned_weights() -> None:
    # Today's champion plays the learned weights (champion.json); given
    # champion-v1's own (champion-v1.json), it searches as champion-v1 did.
    v1_weights = load_weights(packaged=CHAMPION_V1_WEIGHTS_FILE)
    assert load_weights(packaged=CHAMPION_WEIGHTS_FILE) != v1_weights
    for seed in range(12):
        game = random_state(100 + seed, 2, seed % 2 == 0)
        for player in game.pending():
            ours = ChampionV1Policy(seconds=60, depth=2, seed=seed)(game, player)
            today = ChampionPolicy(seconds=60, depth=2, seed=seed, smab=False, weights=v1_weights,
                                   search="alphabeta")(game, player)
            assert ours == today, (seed, player)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(V1))
def test_a_v1_bot_runs_as_a_bot_program(name: str) -> None:
    line = orjson.dumps(Game(2).to_wire(0)) + b"\n"
    argv = [*(registry.resolve(name) or []), *V1[name][1].split(), "--seed", "1"]
    bot = subprocess.run(argv, input=line, capture_output=True, timeout=120)
    assert bot.returncode == 0, bot.stderr
    assert orjson.loads(bot.stdout)[0] in Game(2).legal_moves(0)


@pytest.mark.parametrize("name", ["mcts", "alphabeta", "mcts-v1", "alphabeta-v1"])
def test_cpu_makes_a_search_bot_count_its_time_in_cpu(name: str) -> None:
    # The strength measurements give the search opponents --cpu, as the
    # champion counts CPU: on a busy machine a wall-clock budget weakens them.
    wall = resolve_target(f"{name} --time 0.3 --seed 1").factory(1)
    cpu = resolve_target(f"{name} --time 0.3 --cpu --seed 1").factory(1)
    for policy, expected in ((wall, False), (cpu, True)):
        if hasattr(policy, "budget"):  # the C core's bots
            assert policy.budget.cpu is expected
        else:  # the Python references keep a clock
            assert (policy.searcher.clock is time.thread_time) is expected

