"""The champion: matrix games at simultaneous roots, a CPU-time budget, forced wins."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter

import numpy as np
import orjson
import pytest

from bots.champion import ChampionPolicy
from bots.search.core import PROVEN, AlphaBeta, Budget, Outcome, candidate_moves
from bots.search.weights import load_weights as load_core_weights
from bots.search.evaluation import CHAMPION_V1_WEIGHTS_FILE, CHAMPION_WEIGHTS_FILE, load_weights
from bots.search.matrix import solve
from protocol import _engine
from bots.search.mixed import MixedAlphaBeta, purified
from protocol.engine import INVESTING, Game
from protocol.openings import play_opening
from test_alphabeta import _cards, _state, win_in_one, win_in_three, win_in_two, wins_within


def test_matching_pennies_and_rock_paper_scissors_are_solved_to_their_mixed_equilibria() -> None:
    pennies = solve([[1, -1], [-1, 1]])
    assert np.allclose(pennies.row, [0.5, 0.5], atol=0.02) and abs(pennies.value) < 0.02
    rps = solve([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    assert np.allclose(rps.row, [1 / 3] * 3, atol=0.02) and np.allclose(rps.column, [1 / 3] * 3, atol=0.02)


def test_a_dominated_move_gets_no_weight_and_a_saddle_point_is_pure() -> None:
    game = solve([[3, 2], [1, 0], [2, 1]])  # row 0 dominates; column 1 is better for the minimiser
    assert game.row[0] > 0.99 and game.column[1] > 0.99 and abs(game.value - 2) < 0.01
    assert game.gap < 0.01


def test_random_games_are_solved_to_a_small_gap() -> None:
    rng = np.random.default_rng(3)
    for _ in range(5):
        payoff = rng.normal(size=(8, 6)) * 100
        assert solve(payoff).gap <= 1e-3 * (payoff.max() - payoff.min()) + 1e-9


def test_purification_drops_rare_and_slightly_worse_moves_but_keeps_a_best_one() -> None:
    matrix = np.array([[0.0, 0.0], [-3.0, -3.0], [0.0, 0.0]])
    equilibrium = solve(matrix)
    strategy = purified(equilibrium, matrix, threshold=0.05, slack=1.0)
    assert strategy[1] == 0 and abs(sum(strategy) - 1) < 1e-9


def _bid() -> Game:
    """Both hold a Ghost (it beats their Worker) and 4 coins: whoever bids
    more attacks; a tie stops both. A pure bid here is a bid to beat."""
    return _state({"name": "investing"}, [
        (4, 1, _cards("Ghost", "Worker")),
        (4, 1, _cards("Ghost", "Worker")),
    ])


def _mixed_bid() -> Game:
    """A day-2 bid (found in play) whose searched matrix at depth 2 has a
    mixed equilibrium: 13 coins and a Ghost against 5 coins and a Ghost."""
    return _state({"name": "investing"}, [
        (13, 1, _cards("Worker", "Ghost", "Magic Bean Stock", "Worker")),
        (5, 1, _cards("Worker", "Ghost", "Worker", "Board of Monopoly")),
    ])


def test_at_a_simultaneous_root_the_move_is_drawn_from_the_equilibrium_of_the_searched_matrix() -> None:
    game = _mixed_bid()
    assert game.phase == INVESTING
    result = MixedAlphaBeta(load_weights(), random.Random(1)).search(game, 0, max_depth=2)
    assert result.matrix is not None and result.matrix.shape[0] >= 3
    assert result.strategy is not None and abs(sum(result.strategy.values()) - 1) < 1e-9
    support = {m for m, p in result.strategy.items() if p > 0}
    assert len(support) >= 2  # a mixed strategy: the bid cannot be predicted
    moves = Counter(MixedAlphaBeta(load_weights(), random.Random(seed)).search(game, 0, max_depth=2).move
                    for seed in range(40))
    assert set(moves) == support


def test_sequential_steps_are_plain_alpha_beta() -> None:
    result = MixedAlphaBeta(load_weights(), random.Random(1)).search(win_in_two(), 0, max_depth=3)
    assert getattr(result, "strategy", None) is None and result.value > 900


@pytest.mark.parametrize("search", ["mcts", "alphabeta"])
@pytest.mark.parametrize("position, moves", [(win_in_one, 1), (win_in_two, 2), (win_in_three, 3)])
def test_the_champion_takes_forced_wins(position, moves, search: str) -> None:
    assert wins_within(position(), ChampionPolicy(seconds=5.0, search=search), 0, moves)


def test_the_mcts_champion_plays_a_win_its_alpha_beta_proves_without_sampling(monkeypatch) -> None:
    # The proof is a serialised alpha-beta (what we can guarantee): a win it
    # proves is played as found, and MCTS, which samples, is not asked.
    policy = ChampionPolicy(seconds=2.0, seed=1)
    asked: list[int] = []
    monkeypatch.setattr(policy.searcher, "search", lambda *args: asked.append(1))
    game = win_in_two()
    assert wins_within(game, policy, 0, 2)
    assert asked == []


def test_the_champion_searches_by_mcts_unless_told_alphabeta() -> None:
    from bots.champion import parser, policy_from
    from bots.search.core import Mcts, MixedAlphaBeta

    assert type(ChampionPolicy().searcher) is Mcts
    assert type(policy_from(parser().parse_args(["--search", "alphabeta"])).searcher) is MixedAlphaBeta
    assert ChampionPolicy(search="alphabeta").prover is None
    with pytest.raises(SystemExit):
        parser().parse_args(["--search", "minimax"])


def test_the_exploration_constant_is_by_the_number_of_players_unless_given() -> None:
    """0.5 at 2 players, where it was measured better than 1; 1 at 3 and 4
    (docs/bots.md, "UCB1's constant"); --exploration sets it for all."""
    from bots.champion import EXPLORATION, EXPLORATION_MULTI, parser, policy_from
    from bots.search.core import Mcts

    def constant(policy: ChampionPolicy, players: int) -> float:
        game = Game(players)
        policy.new_game(game, 0)
        assert isinstance(policy.searcher, Mcts)
        return policy.searcher.config.exploration

    policy = ChampionPolicy(seconds=0.01)
    assert (constant(policy, 2), constant(policy, 4), constant(policy, 2)) == (EXPLORATION, EXPLORATION_MULTI,
                                                                                EXPLORATION)
    assert EXPLORATION != EXPLORATION_MULTI
    policy(Game(3), 0)  # asked without new_game: the constant follows the game
    assert isinstance(policy.searcher, Mcts) and policy.searcher.config.exploration == EXPLORATION_MULTI
    given = policy_from(parser().parse_args(["--exploration", "0.25"]))
    assert constant(given, 2) == constant(given, 4) == 0.25
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="--exploration"):
            ChampionPolicy(exploration=bad)


def test_the_playouts_are_the_heuristics_unless_the_finisher_is_asked_for() -> None:
    """`--finisher` gives the champion's MCTS the engine's finisher for its
    playouts (a player buys the points that win at once) at every table
    size; by default they are the heuristic's, as measured in the rows."""
    from bots.champion import PLAYOUT_NOISE, parser, policy_from
    from bots.search.core import Mcts

    for options, finish in (([], False), (["--finisher"], True)):
        policy = policy_from(parser().parse_args(options))
        for players in (2, 4):
            policy.new_game(Game(players), 0)
            assert isinstance(policy.searcher, Mcts) and policy.searcher.config.finish is finish
    # Their random moves: PLAYOUT_NOISE unless --playout-noise says otherwise.
    for options, noise in (([], PLAYOUT_NOISE), (["--playout-noise", "0"], 0), (["--playout-noise", "7"], 7)):
        policy = policy_from(parser().parse_args(options))
        for players in (2, 4):
            policy.new_game(Game(players), 0)
            assert isinstance(policy.searcher, Mcts) and policy.searcher.config.noise == noise
    with pytest.raises(ValueError, match="--playout-noise must be 0"):
        policy_from(parser().parse_args(["--playout-noise", "-1"]))
    with pytest.raises(ValueError, match="up to 1000000"):
        policy_from(parser().parse_args(["--playout-noise", "99999999999"]))
    # Leaves in the race: played out through it unless --race-days says otherwise.
    for options, days in (([], -1), (["--race-days", "0"], 0), (["--race-days", "2"], 2)):
        policy = policy_from(parser().parse_args(options))
        for players in (2, 4):
            policy.new_game(Game(players), 0)
            assert isinstance(policy.searcher, Mcts) and policy.searcher.config.race_days == days
    with pytest.raises(ValueError, match="--race-days must be -1"):
        policy_from(parser().parse_args(["--race-days", "-2"]))


def test_the_tree_is_sized_from_the_budget_unless_given() -> None:
    """An iteration adds a node and a full tree stops growing, so a longer
    budget needs a bigger tree: the champion's MCTS gets room for about
    three searches of its budget, 2**17 nodes at 0.1 s (as before) up to
    2**20, unless `--tree-nodes` says otherwise."""
    from bots.champion import parser, policy_from
    from bots.search.core import Mcts

    for options, nodes in ((["--time", "0.1"], 1 << 17), ([], 1 << 19), (["--time", "2"], 1 << 20),
                           (["--time", "60"], 1 << 20), (["--time", "2", "--tree-nodes", "5000"], 5000)):
        policy = policy_from(parser().parse_args(options))
        for players in (2, 4):
            policy.new_game(Game(players), 0)
            assert isinstance(policy.searcher, Mcts) and policy.searcher.max_nodes == nodes, (options, players)


def test_a_tree_grows_to_its_bound_and_no_further() -> None:
    """The bound is the C tree's: the same search fills a small tree and
    grows past it in a bigger one."""
    from bots.search.core import Mcts, MctsConfig, tree_nodes

    game = Game(2)
    play_opening(game, (2, 2, "Worker", "Worker"))
    sizes = []
    for bound in (512, tree_nodes(iterations=4000)):
        searcher = Mcts(load_core_weights(), MctsConfig(horizon=6), seed=3, max_nodes=bound)
        searcher.search(game, game.pending()[0], Budget(iterations=4000))
        sizes.append(searcher.core.nodes)
    assert sizes[0] == 512 and sizes[1] > 2000


class _Clock:
    """A CPU clock that advances `step` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_budget_is_read_from_the_given_clock_not_the_wall() -> None:
    # A clock racing ahead (as a CPU clock would on a quiet machine for a
    # slow search) stops the search long before a wall clock would.
    fast = MixedAlphaBeta(load_weights(), random.Random(1), clock=_Clock(0.01))
    assert fast.search(_bid(), 0, seconds=1.0).depth <= 2
    # A clock that hardly moves (a busy machine, little CPU for us) is cut
    # by the wall limit: the move still comes.
    stalled = MixedAlphaBeta(load_weights(), random.Random(1), clock=_Clock(0.0), wall_limit=0.3)
    result = stalled.search(Game(2), 0, seconds=1.0)
    assert result.move in Game(2).legal_moves(0)


def test_bad_options_are_refused() -> None:
    for kwargs, message in (({"seconds": 0}, "--time"), ({"wall_limit": 0}, "--wall-limit"), ({"depth": 0}, "--depth"),
                            ({"search": "minimax"}, "--search"), ({"max_nodes": 8}, "--tree-nodes"),
                            ({"max_nodes": 1 << 25}, "--tree-nodes")):
        with pytest.raises(ValueError, match=message):
            ChampionPolicy(**kwargs)


def test_the_champion_plays_its_own_weights_apart_from_the_other_bots() -> None:
    """Its weights (the learned evaluation, coins set by hand) are measured
    apart: the champion's change must not move alpha-beta's and MCTS's
    measured rows, nor champion-v1's (the hand-tuned weights, which count
    the race: the days to buy the winning points)."""
    own = load_weights(packaged=CHAMPION_WEIGHTS_FILE).as_dict()
    assert ChampionPolicy(search="alphabeta").searcher.weights.as_dict() == own
    prover = ChampionPolicy().prover  # the MCTS champion proves its wins with them
    assert prover is not None and prover.weights.as_dict() == own
    assert own != load_weights().as_dict() and own["race"] < 0
    v1 = load_weights(packaged=CHAMPION_V1_WEIGHTS_FILE).as_dict()
    assert v1["race"] < 0 and load_weights().as_dict()["race"] == 0
    assert {k: v for k, v in v1.items() if k != "race"} == {k: v for k, v in load_weights().as_dict().items() if k != "race"}


@pytest.mark.slow
def test_the_champion_runs_as_a_bot_program() -> None:
    line = orjson.dumps(Game(2).to_wire(0)) + b"\n"
    bot = subprocess.run([sys.executable, "-m", "bots.champion", "--time", "0.1", "--seed", "1"], input=line,
                         capture_output=True, timeout=60)
    assert bot.returncode == 0, bot.stderr
    assert orjson.loads(bot.stdout)[0] in Game(2).legal_moves(0)


def test_one_policy_across_many_states_answers_each_legally_even_out_of_time() -> None:
    # The exploiter asks one champion about state after state at a tiny
    # budget. A search cut before its first root move once answered with
    # the move it had found for the previous state: a bid of 4 holding 3.
    from test_search_moves import random_state

    policy = ChampionPolicy(seconds=0.001, seed=1)
    for seed in range(200):
        game = random_state(seed, 2, True)
        for player in game.pending():
            assert policy(game, player) in game.legal_moves(player), (seed, player)


# Recorded at d6c97cd: the champion (seat 0) against attack-repro, opening 5
# of the simple suite. Here it bid 0, was outbid, and both its defenders fell
# to the two Ghosts: out on day 5.
GHOST_RUSH = [2, 2, "Worker", "Worker", 0, 0, "Senior Worker", "Ghost", 1, 0, 0, "Senior Worker", "Ghost",
              1, 3, 3, 1, 2, 1, 1, 1, "Magic Bean Stock", "Pass"]


def _ghost_rush() -> Game:
    """5 coins and two defenders (Senior Worker, Magic Bean Stock) against
    two Ghosts and 2 coins: outbid, we are eliminated; a bid of 2 ties
    (nobody attacks) and 3 or more makes us the attacker."""
    game = Game(2)
    play_opening(game, GHOST_RUSH)
    return game


def _prover() -> AlphaBeta:
    return AlphaBeta(load_core_weights(packaged=CHAMPION_WEIGHTS_FILE), random.Random(1))


def test_a_bid_below_the_purse_of_an_army_that_would_eliminate_us_is_proven_to_lose() -> None:
    game = _ghost_rush()
    assert game.coins(0) == 5 and game.coins(1) == 2
    assert _prover().proofs(game, 0, Budget(depth=2)) == (None, frozenset({0, 1}))


def test_a_bid_that_leaves_a_richer_ghost_army_to_outbid_us_tomorrow_is_a_sure_loss() -> None:
    """Simple suite opening 22, day 2: a coin, a Ghost and the Stipend
    against 4 coins and a Worker. Bidding the last coin ties today, but
    leaves nothing to buy with, and tomorrow the richer opponent outbids
    any bid and its Ghost takes our only defender: a loss the day's search
    cannot see (it ends before tomorrow's bids), the sure-loss search
    proves at depth 3, and `expert` inflicted on the champion."""
    game = Game(2)
    play_opening(game, [0, 1, "Worker", "Ghost"])
    assert candidate_moves(game, 1) == [0, 1] and game.coins(1) == 1 and game.coins(0) == 4
    prover = _prover()
    assert prover.proofs(game, 1, Budget(depth=2)) == (None, frozenset())
    assert prover.proofs(game, 1, Budget(depth=3)) == (None, frozenset({1}))
    assert [ChampionPolicy(seed=seed, wall_limit=120, seconds=0.1)(game, 1) for seed in range(3)] == [0, 0, 0]
    # --no-sure-losses: the day's losses only, and there are none here.
    assert prover.proofs(game, 1, Budget(depth=3), sure_losses=False) == (None, frozenset())
    assert ChampionPolicy(seed=0, wall_limit=120, seconds=0.1, sure_losses=False).think(game, 1)[2] == frozenset()
    assert ChampionPolicy(seed=0, wall_limit=120, seconds=0.1).think(game, 1)[2] == frozenset({1})


def test_beyond_the_day_only_sure_losses_count_and_the_exact_search_agrees() -> None:
    # Searched 6 steps deep, bids of 3 and 5 lose too: the serialised
    # search (the opponent answering our bid) says so, but it says so of
    # positions that are not lost too; the sure-loss search (the opponent
    # choosing first) and the exact one (matrix games at every
    # simultaneous step, SMAB) both find these two lost and the tie (2)
    # not.
    game = _ghost_rush()
    assert candidate_moves(game, 0) == [0, 1, 2, 3, 5]
    weights = load_core_weights(packaged=CHAMPION_WEIGHTS_FILE)
    for smab, they_first in ((False, True), (True, False)):
        rows, depth, _ = _engine.AlphaBeta(weights.values, weights.scale, 16, smab, they_first).matrix(
            game, 0, 1, [2, 3, 5], candidate_moves(game, 1), 6)
        assert depth == 6 and [min(row) < -PROVEN for row in rows] == [False, True, True]
    # Within the day (depth 2) only the bids that are outbid today lose.
    assert _prover().proofs(game, 0, Budget(depth=2)) == (None, frozenset({0, 1}))


def _random_bid(rng: random.Random, base: bool) -> Game:
    """A 2-player bid some days into a game of random moves (small bids,
    so that both players keep a purse)."""
    while True:
        game, days = Game(2, base=base), rng.randint(2, 5)
        while not game.is_over and not (game.days_played >= days and game.phase == INVESTING):
            seat = game.pending()[0]
            game.play(seat, rng.randint(0, min(game.coins(seat), 2)) if game.phase == INVESTING
                      else rng.choice(list(game.legal_moves(seat))))
        if not game.is_over and len(game.pending()) == 2:
            return game


@pytest.mark.parametrize("seed", range(6))
def test_each_serialisation_bounds_the_exact_value_of_a_simultaneous_step(seed: int) -> None:
    """The opponent answering our move (paranoid) is a lower bound on the
    matrix game's value at every simultaneous step, the opponent choosing
    first an upper bound (smab.c): cell by cell at the root, from random
    mid-game positions, at depth 3."""
    rng = random.Random(seed)
    weights = load_core_weights(packaged=CHAMPION_WEIGHTS_FILE)
    game = _random_bid(rng, base=seed % 2 == 1)
    ours, theirs = candidate_moves(game, 0), candidate_moves(game, 1)
    values = {}
    for name, smab, they_first in (("paranoid", False, False), ("exact", True, False), ("sure", False, True)):
        rows, depth, _ = _engine.AlphaBeta(weights.values, weights.scale, 0, smab, they_first).matrix(
            game, 0, 1, ours, theirs, 3)
        assert depth == 3
        values[name] = rows
    for low, exact, high in zip(values["paranoid"], values["exact"], values["sure"]):
        for a, b, c in zip(low, exact, high):
            assert a <= b + 1e-9 and b <= c + 1e-9


def test_when_every_move_loses_none_is_singled_out() -> None:
    # 2 coins and a Worker against three Ghosts and 9 coins: every bid is
    # outbid, and the Worker falls to the first Ghost.
    game = _state({"name": "investing"}, [(2, 1, _cards("Worker")), (9, 1, _cards("Ghost", "Ghost", "Ghost"))])
    assert _prover().proofs(game, 0, Budget(depth=2)) == (None, frozenset())


def test_the_champion_never_plays_a_move_proven_to_lose_whatever_mcts_prefers(monkeypatch) -> None:
    policy = ChampionPolicy(seed=1, wall_limit=120)
    monkeypatch.setattr(policy.searcher, "search", lambda *args: Outcome(0, {0: 0.6, 1: 0.25, 2: 0.1, 3: 0.05}))
    assert policy(_ghost_rush(), 0) == 2


def test_the_champion_bids_to_survive_a_ghost_rush() -> None:
    game = _ghost_rush()
    assert [ChampionPolicy(seed=seed, wall_limit=120)(game, 0) >= 2 for seed in range(3)] == [True] * 3
