"""The MCTS bot: reproducible with a seed, reuses its tree, finds an
obvious win, and stops at its deadline."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest

from bots.mcts import MctsPolicy
from bots.search.mcts import MctsConfig, Searcher
from bots.search.evaluation import load_weights
from protocol.engine import Game
from test_alphabeta import win_in_one
from test_search_moves import random_state


def test_a_seed_gives_the_same_moves() -> None:
    for selection in ("duct", "rm"):
        for seed in range(6):
            game = random_state(seed, 2 + seed % 3, seed % 2 == 1)
            me = game.pending()[0]
            config = MctsConfig(selection=selection)
            first = MctsPolicy(iterations=150, seed=seed, config=config)(game, me)
            again = MctsPolicy(iterations=150, seed=seed, config=config)(game, me)
            assert first == again


def test_different_seeds_can_differ() -> None:
    """The seed really drives the search (else the test above is vacuous)."""
    game = Game(2)
    game.play(0, 0)
    game.play(1, 0)  # the first buys: at the first bids nobody holds an attacker, and the C core searches only 0
    moves = {MctsPolicy(iterations=20, seed=seed, config=MctsConfig(selection="rm"))(game, 0) for seed in range(12)}
    assert len(moves) > 1


def test_the_subtree_of_the_move_played_is_reused() -> None:
    searcher = Searcher(load_weights(), seed=3)
    game = Game(2)
    mine = searcher.choose(game, 0, iterations=400)
    theirs = searcher.root.moves[1][max(range(len(searcher.root.moves[1])), key=searcher.root.counts[1].__getitem__)]
    expected = searcher.root.children[(mine, theirs)]
    game.play(0, mine)
    game.play(1, theirs)
    me = game.pending()[0]
    searcher.choose(game, me, iterations=10)
    assert searcher.root is expected and expected.visits > 10


def test_the_tree_is_sized_from_the_budget_unless_given() -> None:
    from bots.mcts import parser, policy_from

    for options, nodes in ((["--time", "0.1"], 1 << 17), (["--time", "2"], 1 << 20), (["--iterations", "100000"], 1 << 19),
                           (["--tree-nodes", "4096"], 4096)):
        assert policy_from(parser().parse_args(options)).searcher.max_nodes == nodes, options
    with pytest.raises(ValueError, match="--tree-nodes"):
        policy_from(parser().parse_args(["--tree-nodes", "0"]))


def test_a_new_game_drops_the_tree() -> None:
    policy = MctsPolicy(iterations=50, seed=1)
    policy(Game(2), 0)
    assert policy.searcher.core.nodes > 0
    policy.new_game(Game(2), 0)
    assert policy.searcher.core.nodes == 0


def test_mcts_takes_a_win_in_one() -> None:
    # Passing also wins later against a broke opponent, and a playout's win
    # counts the same whenever it comes: a few hundred iterations can pick
    # either. Enough of them find the move that never risks the game.
    assert [MctsPolicy(iterations=2000, seed=seed)(win_in_one(), 0) for seed in range(5)] == [1] * 5


def test_a_decided_move_stops_the_search_early() -> None:
    searcher = Searcher(load_weights(), seed=0)
    assert searcher.choose(win_in_one(), 0, iterations=50_000) == 1
    assert searcher.iterations < 50_000


def test_stopping_early_never_changes_the_move(monkeypatch) -> None:
    """The early stop only skips iterations that could not overtake the
    leader: with and without it, the same seed plays the same move."""
    states = [random_state(seed, 2, seed % 2 == 0) for seed in range(12)]
    early, stopped = [], 0
    for game in states:
        searcher = Searcher(load_weights(), seed=5)
        early.append(searcher.choose(game, game.pending()[0], iterations=3000))
        stopped += 0 < searcher.iterations < 3000
    assert stopped >= 3  # else this test compares nothing
    monkeypatch.setattr(Searcher, "_decided", lambda *args: False)
    full = [Searcher(load_weights(), seed=5).choose(game, game.pending()[0], iterations=3000) for game in states]
    assert early == full


def test_the_search_stops_at_its_first_clock_reading_past_the_deadline(monkeypatch) -> None:
    """The time budget is kept whatever the machine's speed or load: on a
    clock that advances a millisecond per reading, a 0.3 s search makes
    one iteration per reading and stops at the first reading past its
    deadline. (How long a real move takes on a busy machine is a figure
    for bench/search.py, not a test.)"""
    ticks = itertools.count()
    game = random_state(11, 2, True)
    searcher = Searcher(load_weights(), seed=1, clock=lambda: next(ticks) * 1e-3)
    searcher.choose(game, game.pending()[0], seconds=0.3)
    readings = next(ticks)
    assert 0 < searcher.iterations <= 300
    assert readings <= 302, readings  # the start, one per iteration, the one past the deadline



def test_bad_budgets_are_refused() -> None:
    result = subprocess.run([sys.executable, "-m", "bots.mcts", "--time", "-1"], capture_output=True, text=True)
    assert result.returncode == 2 and "--time must be positive" in result.stderr
    result = subprocess.run([sys.executable, "-m", "bots.mcts", "--time", "1", "--iterations", "5"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "not allowed with" in result.stderr
