"""The C search core (bots.search.core, protocol/search/) against its
Python references (bots/search/*.py): the same candidate moves, the same
evaluation to the bit, the same alpha-beta value, move, depth and node
count at fixed depths, the same root matrix; proven answers (a move that
loses the game that day is a bug); purses beyond int64 kept exact in the
moves searched and played."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bots.search import core
from bots.search.actions import candidate_moves
from bots.search.alphabeta import WIN, AlphaBeta as ReferenceAlphaBeta
from bots.search.evaluation import CHAMPION_WEIGHTS_FILE, all_features, evaluate, evaluate_all, load_weights
from bots.search.mcts import MctsConfig, Searcher
from bots.search.mixed import MixedAlphaBeta as ReferenceMixed
from protocol import _engine
from protocol.engine import BUY, INVESTING, Game
from test_alphabeta import _cards, _state, win_in_one, win_in_three, win_in_two
from test_engine_properties import _buying
from test_search_moves import random_state

WEIGHTS = load_weights()
CHAMPION = load_weights(packaged=CHAMPION_WEIGHTS_FILE)  # counts the race


def _states(count: int, players: tuple[int, ...] = (2, 3, 4)) -> list[Game]:
    return [random_state(seed, players[seed % len(players)], seed % 2 == 1) for seed in range(count)]


def test_candidate_moves_are_the_reference_ones() -> None:
    compared = 0
    for game in _states(300):
        for player in range(game.n_players):
            assert core.candidate_moves(game, player) == candidate_moves(game, player)
            compared += bool(candidate_moves(game, player))
    assert compared > 300


def test_the_evaluation_is_the_reference_to_the_bit() -> None:
    for game in _states(300):
        assert _engine.features(game) == all_features(game)
        assert _engine.features(game, False) == all_features(game, race=False)
        for weights in (WEIGHTS, CHAMPION):
            assert _engine.evaluate_all(game, weights.values, weights.scale) == evaluate_all(game, weights)
            for player in range(game.n_players):
                assert _engine.evaluate(game, player, weights.values, weights.scale) == evaluate(game, player, weights)
                assert core.value(game, player, weights) == (1.0 + evaluate(game, player, weights)) / 2.0


def _choices(count: int, players: tuple[int, ...]) -> list[Game]:
    """Random states at a simultaneous step (investing or buying: the
    random attacks of random_state often leave a forced win, decided at
    depth 1) in which the first pending player has a choice."""
    found, seed = [], 0
    while len(found) < count:
        game = random_state(1000 + seed, players[seed % len(players)], seed % 2 == 1)
        if game.phase in (INVESTING, BUY) and len(candidate_moves(game, game.pending()[0])) > 1:
            found.append(game)
        seed += 1
    return found


def _reference_order(game: Game, me: int, seed: int) -> list[int]:
    moves = candidate_moves(game, me)
    random.Random(seed).shuffle(moves)
    return moves


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alphabeta_finds_the_reference_value_and_move_at_a_fixed_depth(depth: int) -> None:
    compared = 0
    for seed, game in enumerate(_choices(16 if depth < 3 else 8, players=(2,))):
        me = game.pending()[0]
        reference = ReferenceAlphaBeta(WEIGHTS, random.Random(seed)).search(game, me, max_depth=depth)
        searcher = core.AlphaBeta(WEIGHTS, random.Random(seed), table_bits=20)
        outcome = searcher.search(game, me, core.Budget(depth=depth))
        assert (outcome.move, outcome.value, outcome.depth, outcome.nodes) == (
            reference.move, reference.value, reference.depth, reference.nodes)
        compared += reference.depth == depth
    assert compared >= 4  # else every position was decided before `depth`


def test_paranoid_alphabeta_with_three_and_four_players_is_the_reference() -> None:
    compared = 0
    for seed, game in enumerate(_choices(4, players=(3, 4))):
        me = game.pending()[0]
        reference = ReferenceAlphaBeta(WEIGHTS, random.Random(seed)).search(game, me, max_depth=2)
        outcome = core.AlphaBeta(WEIGHTS, random.Random(seed), table_bits=20).search(game, me, core.Budget(depth=2))
        assert (outcome.move, outcome.value, outcome.nodes) == (reference.move, reference.value, reference.nodes)
        compared += reference.nodes > 10
    assert compared >= 3


def _mixed_bid() -> Game:
    return _state({"name": "investing"}, [
        (13, 1, _cards("Worker", "Ghost", "Magic Bean Stock", "Worker")),
        (5, 1, _cards("Worker", "Ghost", "Worker", "Board of Monopoly")),
    ])


def test_the_champions_root_matrix_is_the_reference_matrix() -> None:
    game = _mixed_bid()
    reference = ReferenceMixed(WEIGHTS, random.Random(1)).search(game, 0, max_depth=2)
    outcome = core.MixedAlphaBeta(WEIGHTS, random.Random(1)).search(game, 0, core.Budget(depth=2))
    assert reference.matrix is not None and outcome.matrix is not None
    assert np.array_equal(outcome.matrix, reference.matrix)
    assert outcome.strategy == pytest.approx(reference.strategy)
    assert len(outcome.strategy) >= 2  # mixed: the bid cannot be predicted


def _must_match(purse: int) -> Game:
    """Investing on the last day of the game; we hold nothing that
    defends, the opponent a Thug and as many coins as we do. If they
    outbid us they attack and, with no defender, we are eliminated: every
    bid below their purse loses the game today, and matching it (a tie:
    nobody attacks) draws. The only safe move is to match."""
    wire = Game(2, base=True).to_wire()
    wire["day"] = 2
    wire["phase"] = {"name": "investing"}
    wire["players"] = [
        {"coins": purse, "buys": 1, "cards": _cards()},
        {"coins": purse, "buys": 1, "cards": _cards("Thug")},
    ]
    return Game.from_wire(wire, days_played=99, max_days=100)


SEARCHERS = {
    "alphabeta": lambda: core.make("alphabeta", WEIGHTS, seed=1),
    "champion": lambda: core.make("champion", WEIGHTS, seed=1),
    "champion-serial": lambda: core.make("champion-serial", WEIGHTS, seed=1),
    "mcts": lambda: core.make("mcts", WEIGHTS, seed=1),
    "mcts-rm": lambda: core.make("mcts-rm", WEIGHTS, seed=1),
    "mcts-eval": lambda: core.make("mcts", WEIGHTS, seed=1, config=MctsConfig(leaf="eval")),
}


@pytest.mark.parametrize("name", sorted(SEARCHERS))
@pytest.mark.parametrize("purse", [3, 10**30])
def test_no_search_plays_a_bid_that_loses_the_game_today(name: str, purse: int) -> None:
    game = _must_match(purse)
    assert core.candidate_moves(game, 0) == [0, 1, purse] if purse > 3 else [0, 1, 3]
    budget = core.Budget(depth=3) if name.startswith(("alphabeta", "champion")) else core.Budget(iterations=4000)
    outcome = SEARCHERS[name]().search(game, 0, budget)
    assert outcome.move == purse and type(outcome.move) is int
    for bid in core.candidate_moves(game, 0):  # the proof: every other bid loses that day
        if bid != purse:
            child = game.copy()
            child.play(0, bid)
            child.play(1, purse)
            while not child.is_over and child.alive(0):
                child.play(child.pending()[0], child.legal_moves(child.pending()[0])[-1])
            assert not child.alive(0)


def test_the_searched_matrix_proves_the_loss_of_every_other_bid() -> None:
    game = _must_match(3)
    searcher = core.AlphaBeta(WEIGHTS, random.Random(0))
    rows, depth, _ = searcher.core.matrix(game, 0, 1, [0, 1, 3], [0, 1, 3], 3)
    assert depth == 3
    for bid, row in zip((0, 1, 3), rows):
        outbid = [value for theirs, value in zip((0, 1, 3), row) if theirs > bid]
        if bid < 3:
            assert min(outbid) < -WIN / 2  # proven: outbid, we are eliminated today
        else:
            assert min(row) > -WIN / 2  # the match never loses


@pytest.mark.parametrize("position,moves", [(win_in_one, 1), (win_in_two, 2), (win_in_three, 3)])
def test_alphabeta_and_the_champion_take_forced_wins(position, moves) -> None:
    reference = ReferenceAlphaBeta(WEIGHTS, random.Random(0)).search(position(), 0, max_depth=2 * moves + 1)
    assert reference.value > WIN / 2
    for name in ("alphabeta", "champion", "champion-serial"):
        outcome = SEARCHERS[name]().search(position(), 0, core.Budget(depth=2 * moves + 1))
        assert outcome.move == reference.move and outcome.value > WIN / 2, name


def test_mcts_takes_the_forced_elimination() -> None:
    """The Ghost first eliminates the opponent; the Worker first lets it
    live (test_alphabeta.win_in_two). The sure win in one attack is found
    by every selection rule and leaf (the 3-buy win of win_in_three is
    beyond a few thousand playouts, and in win_in_one passing also wins
    later, so there only the most visited move is sure). Regret matching
    draws its move from its average strategy, which moves to the win more
    slowly: there the win must hold the largest share."""
    for name in ("mcts", "mcts-eval"):
        assert SEARCHERS[name]().search(win_in_two(), 0, core.Budget(iterations=3000)).move == 2, name
    strategy = SEARCHERS["mcts-rm"]().search(win_in_two(), 0, core.Budget(iterations=10_000)).strategy
    assert max(strategy, key=strategy.__getitem__) == 2
    for name in ("mcts", "mcts-eval"):
        assert SEARCHERS[name]().search(win_in_one(), 0, core.Budget(iterations=3000)).move == 1, name


def _six_points_tomorrow() -> Game:
    """Day 2's buy: seat 0 holds two Incantations (6 points), a Worker and
    no coin; seat 1 two Workers and 3 coins. Tomorrow seat 0 has the coins
    for a Board of Monopoly, and with it 7 points: the game."""
    return _buying(["Incantation", "Incantation", "Worker"], 0, ["Worker", "Worker"], 3)


def test_finisher_playouts_see_the_race_the_heuristic_ones_miss() -> None:
    """With the heuristic's playouts seat 1 values this position at about
    0.3 (a heuristic player with 6 points and 2 coins buys a Senior Worker
    before the Board that wins); with the finisher's (policy 2, the
    champion's) at about 0.13: the opponent finishes tomorrow in most of
    them. Fixed iterations and seeds: the same values every run."""
    game = _six_points_tomorrow()
    values = {finish: [core.Mcts(WEIGHTS, MctsConfig(exploration=0.5, horizon=6, finish=finish), seed)
                       .search(game, 1, core.Budget(iterations=4000)).value for seed in range(3)]
              for finish in (False, True)}
    assert max(values[True]) + 0.1 < min(values[False]), values


def test_exact_big_purses_in_candidates_evaluation_and_play() -> None:
    big = 10**30 + 7
    game = _state({"name": "investing"}, [
        (big, 1, _cards("Ghost", "Magic Bean Stock")),
        (big + 1, 1, _cards("Worker", "Ghost")),
    ], base=True)
    assert core.candidate_moves(game, 0) == candidate_moves(game, 0) == [0, 1, big]
    assert core.candidate_moves(game, 1) == candidate_moves(game, 1) == [0, 1, big, big + 1]
    assert _engine.features(game) == all_features(game)
    assert _engine.evaluate_all(game, CHAMPION.values, CHAMPION.scale) == evaluate_all(game, CHAMPION)
    reference = ReferenceAlphaBeta(WEIGHTS, random.Random(3)).search(game, 1, max_depth=2)
    outcome = core.AlphaBeta(WEIGHTS, random.Random(3)).search(game, 1, core.Budget(depth=2))
    assert (outcome.move, outcome.value, outcome.nodes) == (reference.move, reference.value, reference.nodes)
    for name, make in SEARCHERS.items():
        budget = core.Budget(depth=2) if name.startswith(("alphabeta", "champion")) else core.Budget(iterations=300)
        move = make().search(game, 1, budget).move
        assert move in candidate_moves(game, 1), name
        child = game.copy()
        child.play(1, move)  # exact: the engine takes it


def test_the_mcts_tree_is_found_again_from_the_next_root() -> None:
    searcher = core.Mcts(WEIGHTS, seed=3)
    game = Game(2)
    game.play(0, 0)
    game.play(1, 0)  # the first buys (at the first bids only 0 is searched: nobody holds an attacker)
    first = searcher.search(game, 0, core.Budget(iterations=2000))
    _, _, theirs = searcher.core.search(game, 1, 1)  # player 1's statistics at the same root
    game.play(0, first.move)
    game.play(1, max(theirs, key=lambda row: row[1])[0])  # their most visited answer: a well-visited child
    _, done, stats = searcher.core.search(game, game.pending()[0], 10)
    assert done == 10
    assert sum(visits for _, visits, _ in stats) > 100  # visits from the first search, found again
    searcher.reset()
    _, _, fresh = searcher.core.search(game, game.pending()[0], 10)
    assert sum(visits for _, visits, _ in fresh) == 10


def test_a_seed_reproduces_an_mcts_search_and_seeds_differ() -> None:
    game = random_state(5, 2, True)
    me = game.pending()[0]
    for selection in ("duct", "rm"):
        config = MctsConfig(selection=selection)
        runs = [core.Mcts(WEIGHTS, config, seed=9).search(game, me, core.Budget(iterations=500)) for _ in range(2)]
        assert runs[0].move == runs[1].move and runs[0].strategy == runs[1].strategy
    # A first buy: at the first bids nobody holds an attacker, and every bid but 0 is dropped as dominated.
    start = Game(2)
    start.play(0, 0)
    start.play(1, 0)
    moves = {core.Mcts(WEIGHTS, MctsConfig(selection="rm"), seed=s).search(start, 0, core.Budget(iterations=20)).move
             for s in range(12)}
    assert len(moves) > 1


def _searched_bids(game: Game, me: int) -> tuple[int, set[int]]:
    """The bid the C MCTS chose, and the bids it kept at the root (with
    one bid left it plays it without searching)."""
    move, _, stats = core.Mcts(WEIGHTS, seed=1).core.search(game, me, 400)
    return move, {bid for bid, _, _ in stats}


def test_mcts_drops_the_bids_another_bid_dominates() -> None:
    """A bid that wins or loses the bid as a cheaper one does only costs
    coins. With no attacker anywhere nothing can come of winning the bid:
    only 0 is searched. With no attacker of our own only denial is left:
    matching the richest opponent's purse already stops their attacks. With
    an attacker, one more than the richest opponent's purse wins the bid."""
    investing = {"name": "investing"}
    nobody = _state(investing, [(5, 1, _cards("Bubble")), (3, 1, _cards("Bubble"))])  # a Bubble never attacks
    for me in (0, 1):
        assert core.candidate_moves(nobody, me) == [[0, 1, 3, 4, 5], [0, 1, 3]][me]
        move, kept = _searched_bids(nobody, me)
        assert move == 0 and kept <= {0}
    denial = _state(investing, [(5, 1, _cards("Bubble")), (3, 1, _cards("Ghost"))])
    assert _searched_bids(denial, 0)[1] == {0, 1, 3}  # 3 ties the Ghost's owner: no attack
    assert _searched_bids(denial, 1)[1] == {0, 1, 3}
    richer = _state(investing, [(5, 1, _cards("Ghost")), (3, 1, _cards("Worker"))])
    assert core.candidate_moves(richer, 0) == [0, 1, 3, 4, 5]
    assert _searched_bids(richer, 0)[1] == {0, 1, 3, 4}  # 4 outbids them, as 5 does


def test_an_exhausted_budget_still_answers_with_a_searched_or_expert_move() -> None:
    game = random_state(40, 4, True)
    me = game.pending()[0]
    outcome = core.AlphaBeta(WEIGHTS, random.Random(0)).search(game, me, core.Budget(seconds=1e-9))
    assert outcome.depth == 0 and outcome.move in game.legal_moves(me)


def test_bad_inputs_are_refused_with_a_reason() -> None:
    game = Game(2)
    with pytest.raises(ValueError, match="no move to make"):
        core.AlphaBeta(WEIGHTS).search(win_in_two(), 1, core.Budget(depth=1))
    with pytest.raises(ValueError, match="not a candidate move"):
        _engine.AlphaBeta(WEIGHTS.values).search(game, 0, [5], 1)
    with pytest.raises(ValueError, match="weights"):
        _engine.Mcts((1.0, 2.0))
    with pytest.raises(ValueError, match="time or an iteration"):
        core.Mcts(WEIGHTS).search(game, 0, core.Budget(depth=3))
    with pytest.raises(ValueError, match="the finisher is the C core's"):
        Searcher(WEIGHTS, MctsConfig(finish=True))
    with pytest.raises(ValueError, match="another noise is the C core's"):
        Searcher(WEIGHTS, MctsConfig(noise=64))
    with pytest.raises(ValueError, match="noise must be 0"):
        MctsConfig(noise=-1)
    with pytest.raises(ValueError, match="up to 1000000"):
        MctsConfig(noise=2**31)
    with pytest.raises(ValueError, match="explore must be 0"):
        _engine.Mcts(WEIGHTS.values, explore=-1)
    with pytest.raises(ValueError, match="contempt is the C core's"):
        Searcher(WEIGHTS, MctsConfig(contempt=0.1))
    for contempt in (-0.1, 0.6, float("nan")):
        with pytest.raises(ValueError, match="contempt must be from 0 to 0.5"):
            MctsConfig(contempt=contempt)
        with pytest.raises(ValueError, match="contempt must be from 0 to 0.5"):
            _engine.Mcts(WEIGHTS.values, contempt=contempt)
    with pytest.raises(ValueError, match="unknown search"):
        core.make("minimax", WEIGHTS)
    with pytest.raises(ValueError, match="seconds"):
        core.Budget(seconds=0)
    assert game.phase == INVESTING and game.key() == Game(2).key()  # untouched


def test_the_simplex_solves_matrix_games_exactly() -> None:
    assert _engine.matrix_game_value([[1, -1], [-1, 1]]) == pytest.approx(0, abs=1e-12)  # matching pennies
    assert _engine.matrix_game_value([[0, -1, 1], [1, 0, -1], [-1, 1, 0]]) == pytest.approx(0, abs=1e-12)
    assert _engine.matrix_game_value([[3, 5], [2, 1]]) == pytest.approx(3)  # a saddle point
    assert _engine.matrix_game_value([[2, 0], [0, 1]]) == pytest.approx(2 / 3)
    rng = np.random.default_rng(1)
    from bots.search.matrix import solve

    for _ in range(30):
        payoff = rng.normal(size=(rng.integers(1, 10), rng.integers(1, 10))) * 50
        value = _engine.matrix_game_value(payoff.tolist())
        approx = solve(payoff, iterations=3000, tolerance=1e-5)
        assert approx.gap < 0.5  # close to an equilibrium, so the bounds below are tight
        # No mixed strategy guarantees more than the value, none concedes less.
        assert (approx.row @ payoff).min() - 1e-6 <= value <= (payoff @ approx.column).max() + 1e-6
    with pytest.raises(ValueError, match="finite"):
        _engine.matrix_game_value([[float("nan")]])


def test_the_root_solver_is_the_reference_solver_to_rounding() -> None:
    """The champion's root in C (regret matching+, no numpy) against
    bots.search.matrix.solve and bots.search.mixed.purified: the same
    strategies but for rounding (numpy's BLAS sums in another order), and
    the same purified support, on matrices like the searched ones."""
    from bots.search.matrix import solve
    from bots.search.mixed import purified as reference_purified

    rng = np.random.default_rng(11)
    for _ in range(200):
        payoff = rng.normal(size=(rng.integers(1, 13), rng.integers(1, 13))) * 50
        reference = solve(payoff)
        row, column, value, gap = _engine.matrix_game_solve(payoff.tolist())
        assert row == pytest.approx(reference.row, abs=1e-9) and column == pytest.approx(reference.column, abs=1e-9)
        assert value == pytest.approx(reference.value, abs=1e-9) and gap == pytest.approx(reference.gap, abs=1e-9)
        ours = core.purified(row, column, payoff.tolist(), core.PURIFY, core.SLACK)
        theirs = reference_purified(reference, payoff, core.PURIFY, core.SLACK)
        assert [p > 0 for p in ours] == [p > 0 for p in theirs] and ours == pytest.approx(theirs, abs=1e-9)
    assert _engine.matrix_game_solve([[2.0, 2.0], [2.0, 2.0]]) == ([0.5, 0.5], [0.5, 0.5], 2.0, 0.0)
    for bad, reason in [([[float("inf")]], "finite"), ([[1.0], [1.0, 2.0]], "equal rows"), ([], "rows")]:
        with pytest.raises(ValueError, match=reason):
            _engine.matrix_game_solve(bad)
    with pytest.raises(ValueError, match="iterations"):
        _engine.matrix_game_solve([[1.0]], iterations=0)


def test_the_purified_strategy_keeps_a_best_move_when_every_weight_is_rare() -> None:
    # Five equally good moves at 0.2 each, a threshold above: only the first best is kept.
    assert core.purified([0.2] * 5, [1.0], [[0.0]] * 5, 0.25, 1.0) == [1.0, 0.0, 0.0, 0.0, 0.0]
    # A move more than `slack` worse against the column strategy is dropped, whatever its weight.
    assert core.purified([0.5, 0.5], [1.0], [[0.0], [-1.5]], 0.05, 1.0) == [1.0, 0.0]


def test_the_search_records_are_immutable_values_that_pickle() -> None:
    import pickle

    for record in (WEIGHTS, core.Budget(seconds=0.5, wall_limit=5.0), MctsConfig("rm", 2.0, "eval")):
        assert pickle.loads(pickle.dumps(record)) == record
        assert hash(pickle.loads(pickle.dumps(record))) == hash(record)
        assert repr(record).startswith(type(record).__name__ + "(")
        with pytest.raises(AttributeError, match="immutable"):
            record.scale = 1.0  # type: ignore[misc,union-attr]
    assert core.Budget(depth=3) != core.Budget(depth=4) and MctsConfig() == MctsConfig("duct", 1.0, "playout", 6)
    with pytest.raises(ValueError, match="selection"):
        MctsConfig("uct")


def _full_matrix_value(game: Game, me: int, depth: int, ply: int) -> float:
    """The reference of SMAB's value: every 2-player simultaneous step a
    matrix game of its children, solved exactly, with no pruning; the
    rest as bots.search.alphabeta (its leaves, extensions and terminal
    values)."""
    from bots.search.alphabeta import EVAL_SCALE, MAX_COMBAT_EXTENSION, winning_buy_now
    from protocol.engine import ATTACKING, DEFENDING

    if game.is_over:
        return 0.0 if game.winner is None else (WIN - ply if game.winner == me else -WIN + ply)
    if not game.alive(me):
        return -WIN + ply
    if depth <= 0 and (depth <= -MAX_COMBAT_EXTENSION
                       or not (game.phase in (ATTACKING, DEFENDING) or winning_buy_now(game))):
        return EVAL_SCALE * evaluate(game, me, WEIGHTS)

    def child(moves: dict[int, int]) -> float:
        after = game.copy()
        for player in sorted(moves):
            after.play(player, moves[player])
        return _full_matrix_value(after, me, depth - 1, ply + 1)

    pending = game.pending()
    others = [p for p in pending if p != me]
    if me in pending and others:
        them = others[0]
        rows = [[child({me: a, them: b}) for b in candidate_moves(game, them)] for a in candidate_moves(game, me)]
        return _engine.matrix_game_value(rows)
    if me in pending:
        return max(child({me: a}) for a in candidate_moves(game, me))
    return min(child({others[0]: b}) for b in candidate_moves(game, others[0]))


@pytest.mark.parametrize("depth", [1, 2])
def test_smab_values_every_simultaneous_step_as_its_matrix_game(depth: int) -> None:
    """Pruned by the serialised bounds, SMAB finds the value of the
    unpruned matrix-at-every-step search (no table: a table mixes depths)."""
    compared = 0
    for game in _choices(8, players=(2,)):
        me = game.pending()[0]
        them = 1 - me
        if them not in game.pending():
            continue
        ours, theirs = candidate_moves(game, me), candidate_moves(game, them)
        searcher = _engine.AlphaBeta(WEIGHTS.values, WEIGHTS.scale, 0, True)
        rows, done, nodes = searcher.matrix(game, me, them, ours, theirs, depth)
        if nodes > 20_000:
            continue  # the unpruned Python reference would take minutes
        assert done == depth or all(abs(v) > WIN / 2 for row in rows for v in row)
        for a, row in zip(ours, rows):
            for b, value in zip(theirs, row):
                after = game.copy()
                for player, move in sorted({me: a, them: b}.items()):
                    after.play(player, move)
                assert value == pytest.approx(_full_matrix_value(after, me, done - 1, 1), abs=1e-7)
                compared += 1
    assert compared >= 20


def test_smab_lies_between_the_serialised_bounds_and_differs_from_them() -> None:
    """SMAB's value of a simultaneous step is at least the paranoid value
    (we choose first) and at most the optimistic one; at a bid with a
    mixed equilibrium it is strictly above the paranoid one."""
    game = _mixed_bid()
    ours, theirs = candidate_moves(game, 0), candidate_moves(game, 1)
    paranoid = _engine.AlphaBeta(WEIGHTS.values, WEIGHTS.scale, 0).search(game, 0, ours, 2)[1]
    rows, _, _ = _engine.AlphaBeta(WEIGHTS.values, WEIGHTS.scale, 0, True).matrix(game, 0, 1, ours, theirs, 2)
    matrix = np.array(rows)
    smab = _engine.matrix_game_value(rows)
    assert matrix.min(axis=1).max() <= smab + 1e-9 and smab <= matrix.max(axis=0).min() + 1e-9
    assert smab > paranoid + 1e-6


def test_the_smab_champion_answers_and_keeps_the_proven_bid() -> None:
    game = _must_match(3)
    assert core.make("champion", WEIGHTS, seed=1).smab
    assert core.make("champion", WEIGHTS, seed=1).search(game, 0, core.Budget(depth=3)).move == 3


def test_a_wall_limit_alone_ends_an_mcts_search() -> None:
    """A wall-clock cap holds even when the budget is iterations (it was
    read only with a time budget)."""
    outcome = core.Mcts(WEIGHTS, seed=1).search(Game(2), 0, core.Budget(iterations=2_000_000, wall_limit=1e-6))
    assert outcome.iterations < 2_000_000 and outcome.move in Game(2).legal_moves(0)


def test_race_days_value_a_leaf_in_the_race_by_the_evaluation_instead_of_its_playout() -> None:
    """race_days=0: a leaf where points are still for sale is valued as it
    stands, so from the first day (no leaf of a short search gets past the
    race) the playouts' policy changes nothing; through the race
    (race_days=-1, the default) it changes the values."""
    game = Game(2, base=True)
    game.play(0, 0)
    game.play(1, 0)  # the first buys

    def search(race_days: int, finish: bool) -> tuple[int, float, dict[int, float]]:
        config = MctsConfig(exploration=0.5, horizon=6, finish=finish, race_days=race_days)
        outcome = core.Mcts(WEIGHTS, config, seed=4).search(game, 0, core.Budget(iterations=400))
        return outcome.move, outcome.value, outcome.strategy

    assert search(0, False) == search(0, True)
    assert search(-1, False)[1:] != search(-1, True)[1:]
    with pytest.raises(ValueError, match="race_days"):
        MctsConfig(race_days=-2)
    with pytest.raises(ValueError, match="race_days"):
        _engine.Mcts(WEIGHTS.values, WEIGHTS.scale, race_days=-5)
