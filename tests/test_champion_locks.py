"""The champion in 11-11 locks (issue 22): both players hold the 11 points
the shop had, the points are sold out, and a game is won only by a fight
that destroys a point card or leaves the other side without a defender.

Every answer here is proven, by enumerating the opponent's replies
(`wins_within`) or by the serialised alpha-beta (we bid first, the
opponent answers knowing our bid: a win it proves holds against every
reply). The champion's MCTS searches a fixed number of iterations from
fixed seeds, so that nothing depends on the machine's load."""

from __future__ import annotations

import random

import pytest

from bots.champion import CONTEMPT, CONTEMPT_MULTI, HORIZON_DAYS, ChampionPolicy, parser, policy_from
from bots.search.core import PROVEN, AlphaBeta, Budget, Mcts, MctsConfig, candidate_moves
from bots.search.weights import CHAMPION_WEIGHTS_FILE, DEFAULT_WEIGHTS_FILE, load_weights
from protocol import _engine
from protocol.engine import ATTACKING, BUY, Game, move_from_wire
from test_alphabeta import wins_within

POINTS = ("Incantation",) * 3 + ("Board of Monopoly",) * 2
ITERATIONS = 20_000
SEEDS = (1, 2, 3)


def _cards(*names: str) -> list[dict]:
    return [{"name": name, "uses": 0} for name in ("Sorcerer's Stipend", *POINTS, *names)]


def _lock(phase: dict, players: list[tuple[int, list[dict]]], n_players: int = 2) -> Game:
    """A day-2 position with 11 points each and nothing left in the shop,
    98 days before the day limit."""
    shop = {name: 0 for name in Game(n_players).to_wire()["shop"]}
    return Game.from_wire({"day": 2, "phase": phase, "shop": shop,
                           "players": [{"coins": c, "buys": 1, "cards": cards} for c, cards in players]})


def _mcts(seed: int, horizon: int = HORIZON_DAYS) -> Mcts:
    """The champion's MCTS (its weights and configuration), seeded."""
    searcher = ChampionPolicy(seed=seed, horizon=horizon).searcher
    assert isinstance(searcher, Mcts)
    return searcher


def _decide(seed: int):
    searcher = _mcts(seed)
    return lambda game, me: searcher.search(game, me, Budget(iterations=ITERATIONS)).move


def win_within_the_day() -> Game:
    """The richer player 0 bids 3 (more than player 1's whole purse) and
    attacks: the Ghost destroys whatever defends (every card here has a
    defence of 2 or less) and the Senior Worker (attack 2) whatever is left
    but a point card after the Worker is gone; player 1 has one card that
    is not a point (the Worker), so one of the two attacks destroys a point
    card and player 0 wins, in either order."""
    return _lock({"name": "investing"}, [(6, _cards("Ghost", "Senior Worker")), (2, _cards("Worker"))])


def grind() -> Game:
    """Player 0, the richer, holds a Ghost against three defenders of
    defence 2 and no card that can kill a Ghost: each day its Ghost
    destroys one of them, and then a point card. Alpha-beta proves that
    the bid of 4 (player 1's purse and one) wins, over more than one day:
    today's attacks are no more than player 1's defenders."""
    return _lock({"name": "investing"}, [(10, _cards("Ghost", "Worker", "Senior Worker")),
                                         (3, _cards("Worker", "Senior Worker", "Gold Fish"))])


def test_the_champion_takes_a_win_within_the_day_with_98_days_left() -> None:
    """Every bid wins here, bid nothing today and player 0 can attack
    tomorrow; valued alike, the champion put the win off from two of these
    seeds. A win fades with the days it takes, so it attacks today."""
    for seed in SEEDS:
        assert wins_within(win_within_the_day(), _decide(seed), 0, 3), seed


def _proven_bid(game: Game) -> int:
    """The bid of player 0 that the serialised alpha-beta proves to win at
    a fixed depth."""
    prover = AlphaBeta(load_weights(packaged=CHAMPION_WEIGHTS_FILE), random.Random(1))
    proof = prover.search(game, 0, Budget(depth=6))
    assert proof.value > PROVEN
    return proof.move


def test_the_champion_bids_to_start_a_proven_grind_rather_than_wait() -> None:
    """Played out to day 100, every playout of this position is decided by
    the heuristic's random moves over the days left and every bid scores
    about the same: the champion bid nothing from half of these seeds.
    Cut at its horizon, the defender destroyed today counts, and it bids to
    attack: the proven 4, or less, which attacks unless player 1 spends
    coins to stop it."""
    game = grind()
    assert _proven_bid(game) == 4
    moves = [_mcts(seed).search(game, 0, Budget(iterations=ITERATIONS)).move for seed in (1, 2, 3, 4)]
    assert 0 not in moves, moves


def test_attacking_into_a_ghost_with_only_point_cards_is_refused() -> None:
    """Player 0 won the bid but holds no attacker but its point cards:
    whichever attacks, player 1 defends with its Ghost (attack 3 beats
    their defence of 1), the point card faints, and player 1 wins at once.
    Stopping (0) keeps the game."""
    game = _lock({"name": "attacking", "attacker": 0, "attacker_card": False},
                 [(0, _cards()), (0, _cards("Ghost"))])
    assert game.phase == ATTACKING
    ghost = len(game.cards(1)) - 1
    for move in candidate_moves(game, 0):
        if move == 0:
            continue
        child = game.copy()
        child.play(0, move)
        child.play(1, ghost)
        assert child.is_over and child.winner == 1
    for seed in SEEDS:
        assert _mcts(seed).search(game, 0, Budget(iterations=ITERATIONS)).move == 0


@pytest.mark.parametrize("players", [2, 3])
def test_the_mcts_never_searches_a_bid_above_what_wins_the_bid_outright(players: int) -> None:
    """A bid above every opponent's purse plus one wins the bid as that one
    does and leaves fewer coins: searched, it split the visits of equivalent
    moves, and the champion spent its whole purse on attacks it did not
    make. The poorer players keep all their bids."""
    purses = [10, 3, 6][:players]
    game = _lock({"name": "investing"}, [(c, _cards("Ghost")) for c in purses], n_players=players)
    for me in range(players):
        top = max(c for p, c in enumerate(purses) if p != me)
        outcome = _mcts(1).search(game, me, Budget(iterations=500))
        searched = set(outcome.strategy) | {outcome.move}
        kept = {bid for bid in candidate_moves(game, me) if bid <= top + 1}
        assert searched <= kept
        assert top + 1 in searched if purses[me] > top else True


def test_a_negative_horizon_is_refused() -> None:
    with pytest.raises(ValueError, match="horizon"):
        ChampionPolicy(horizon=-1)
    with pytest.raises(ValueError, match="horizon"):
        MctsConfig(horizon=-1)
    weights = load_weights(packaged=DEFAULT_WEIGHTS_FILE)
    with pytest.raises(ValueError, match="horizon"):
        _engine.Mcts(weights.values, weights.scale, horizon=-1)


def test_a_playout_is_not_cut_while_points_are_for_sale() -> None:
    """Player 0, buying with 3 coins, holds 4 points and the income to buy
    the 3 more on day 2 or 3 (not today); player 1 cannot stop it. A playout cut after
    one day would be valued by the evaluation (at most 0.75); it goes on
    while the shop sells points and sees the race won, so that every move
    searched is valued as a win (the win that fades least, a day or two
    away, is worth over 0.96)."""
    shop = Game(2).to_wire()["shop"]
    game = Game.from_wire({"day": 1, "phase": {"name": "buy"}, "shop": shop, "players": [
        {"coins": 3, "buys": 1, "cards": _cards()[:1] + [{"name": n, "uses": 0} for n in
                                                         ("Incantation", "Board of Monopoly", "Senior Worker")]},
        {"coins": 0, "buys": 1, "cards": _cards()[:1] + [{"name": "Worker", "uses": 0}]},
    ]})
    weights = load_weights(packaged=DEFAULT_WEIGHTS_FILE)
    for horizon in (1, 0):
        # 30 iterations: a tree too shallow to reach the win, the playouts must
        _, _, stats = Mcts(weights, MctsConfig(horizon=horizon), seed=1).core.search(game, 0, 30, -1.0, -1.0, True)
        assert min(mean for _, visits, mean in stats if visits) > 0.9, (horizon, stats)


def _root_stats(game: Game, contempt: float, me: int = 0, iterations: int = 3_000) -> list[tuple[int, int, float]]:
    """The root's (move, visits, mean value) of the champion's MCTS
    configuration with `contempt`, seeded, after a fixed number of
    iterations."""
    weights = load_weights(packaged=DEFAULT_WEIGHTS_FILE)
    config = MctsConfig(horizon=HORIZON_DAYS, contempt=contempt)
    return Mcts(weights, config, seed=5).core.search(game, me, iterations, -1.0, -1.0, True)[2]


def test_contempt_lowers_our_value_of_a_dead_lock() -> None:
    """Both players hold the Stipend and their 11 points, nothing else, and
    the shop is empty (the race is over): a point card (attack 1) destroys no point card
    (defence 1), and five attacks meet five defenders, so no fight can ever
    decide the game and every leaf is a lock or the day limit's draw. Our
    value of every one of them is lowered by the contempt, so every move's
    mean value is (the trees themselves part after a hundred iterations or
    so: shifted sums round otherwise, and near-ties go the other way)."""
    for me in (0, 1):
        game = _lock({"name": "investing"}, [(4, _cards()), (3, _cards())])
        plain, scornful = _root_stats(game, 0.0, me), _root_stats(game, 0.2, me)
        assert [move for move, _, _ in scornful] == [move for move, _, _ in plain]
        for (_, _, value), (_, visits, lowered) in zip(plain, scornful):
            assert visits > 100 and lowered == pytest.approx(value - 0.2, abs=0.02), (me, plain, scornful)


def test_contempt_leaves_a_game_that_is_not_a_lock_alone() -> None:
    """Player 0 holds 5 points against player 1's 3, with the shop empty:
    the points can never be level, and 3 attackers against one defender
    eliminate player 1 the first day player 0 wins a bid. No leaf is a
    draw, so the contempt changes nothing, move for move."""
    shop = {name: 0 for name in Game(2).to_wire()["shop"]}
    stipend = {"name": "Sorcerer's Stipend", "uses": 0}
    game = Game.from_wire({"day": 2, "phase": {"name": "investing"}, "shop": shop, "players": [
        {"coins": 2, "buys": 1, "cards": [stipend] + [{"name": n, "uses": 0} for n in
                                                  ("Incantation", "Board of Monopoly", "Board of Monopoly")]},
        {"coins": 4, "buys": 1, "cards": [stipend, {"name": "Incantation", "uses": 0}]},
    ]})
    for me in (0, 1):
        assert _root_stats(game, 0.3, me) == _root_stats(game, 0.0, me)


def test_the_champion_passes_its_contempt_to_its_mcts() -> None:
    searcher = ChampionPolicy(seed=1, contempt=0.15).searcher
    assert isinstance(searcher, Mcts) and searcher.config.contempt == 0.15
    with pytest.raises(ValueError, match="--contempt"):
        ChampionPolicy(contempt=0.7)


def test_the_champions_contempt_by_default_is_for_two_players() -> None:
    """Measured against `mcts-v1` at 2 players only: there the champion
    holds CONTEMPT for a draw, at 3 and 4 players CONTEMPT_MULTI, and an
    explicit `--contempt` holds at every count."""
    assert 0 < CONTEMPT and CONTEMPT_MULTI == 0
    for argv, expected in (([], {2: CONTEMPT, 4: CONTEMPT_MULTI}), (["--contempt", "0"], {2: 0.0, 4: 0.0}),
                           (["--contempt", "0.1"], {2: 0.1, 4: 0.1})):
        policy = policy_from(parser().parse_args(argv))
        for players in (2, 4, 2):
            game = Game(players)
            policy.new_game(game, 0)
            searcher = policy.searcher
            assert isinstance(searcher, Mcts) and searcher.config.contempt == expected[players], (argv, players)


def test_contempt_waits_for_the_points_to_be_sold_out() -> None:
    """While the shop sells points the game is a race, and the gambles a
    lock is traded for there lost races: at the first day's buys, where
    the playouts run past the race and reach locks, the contempt changes
    nothing (applied there, it changes every move's value)."""
    game = Game(2, base=True)
    for player in (0, 1):
        game.play(player, move_from_wire(game, 0))
    assert game.phase == BUY
    for me in (0, 1):
        stats = _root_stats(game, 0.3, me, 1_500)
        assert len(stats) > 2 and stats == _root_stats(game, 0.0, me, 1_500)


def test_a_tree_with_contempt_searched_for_another_player_starts_again() -> None:
    """Its values are the searching player's, lowered at the draws: kept
    for the other player, they would be the wrong side's. Without contempt
    the tree is shared (each player keeps its own statistics). A search of
    no iterations only reads the root's statistics, and keeps the tree."""
    game = _lock({"name": "investing"}, [(4, _cards()), (3, _cards())])
    weights = load_weights(packaged=DEFAULT_WEIGHTS_FILE)
    for contempt, kept in ((0.2, False), (0.0, True)):
        core = Mcts(weights, MctsConfig(horizon=HORIZON_DAYS, contempt=contempt), seed=5).core
        core.search(game, 0, 2_000, -1.0, -1.0, True)
        grown = core.nodes
        core.search(game, 0, 100, -1.0, -1.0, True)
        assert core.nodes >= grown  # the same player: kept
        _move, _done, read = core.search(game, 1, 0, -1.0, -1.0, True)  # no iteration: only read
        assert core.nodes >= grown and sum(count for _m, count, _v in read) > 0, (contempt, read)
        core.search(game, 1, 100, -1.0, -1.0, True)
        assert (core.nodes >= grown) == kept and grown > 101, (contempt, grown, core.nodes)
