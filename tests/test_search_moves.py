"""Both search bots answer with legal moves in every phase, for 2-4
players and both sets, over random reachable states; the reduced move
sets are legal and keep the moves that matter."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bots.alphabeta import AlphaBetaPolicy
from bots.mcts import MctsPolicy
from bots.search.actions import candidate_moves, investments
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, PASS, Game


def random_state(seed: int, n_players: int, base: bool) -> Game:
    """A state reached by random play for a random number of steps (a
    finished game is restarted so the result is always a decision point)."""
    rng = random.Random(seed)
    steps = rng.randrange(0, 120)
    game = Game(n_players, base=base)
    for _ in range(steps):
        player = rng.choice(game.pending())
        moves = game.legal_moves(player)
        trial = game.copy()
        trial.play(player, rng.choice(moves[:12]))  # small investments keep games going
        if trial.is_over:
            break
        game = trial
    return game


states = st.builds(random_state, st.integers(0, 2**32), st.integers(2, 4), st.booleans())


@settings(max_examples=60, deadline=None)
@given(states)
def test_candidates_are_legal_and_non_empty(game: Game) -> None:
    for player in range(game.n_players):
        legal = game.legal_moves(player)
        candidates = candidate_moves(game, player)
        assert set(candidates) <= set(legal)
        assert bool(candidates) == bool(legal)
        if game.phase == BUY and legal:
            assert PASS in candidates
            assert all(m == PASS or game.shop()[m] > 0 for m in candidates)
        if game.phase == ATTACKING and legal:
            assert 0 in candidates  # stopping is always kept


@settings(max_examples=25, deadline=None)
@given(states, st.integers(0, 1000))
def test_search_bots_answer_legally(game: Game, seed: int) -> None:
    # alpha-beta runs on a clock as shipped: its fight and buy extensions
    # can make a fixed depth 2 take minutes in a 4-player mid-game.
    key = game.key()
    for player in game.pending():
        legal = game.legal_moves(player)
        assert MctsPolicy(iterations=40, seed=seed)(game, player) in legal
        assert AlphaBetaPolicy(seconds=2.0, depth=2)(game, player) in legal
    assert game.key() == key  # policies never modify the game they are given


def test_phases_covered() -> None:
    """The random states above reach every decision phase, for every size."""
    seen = set()
    for seed in range(300):
        for n in (2, 3, 4):
            seen.add((n, random_state(seed, n, seed % 2 == 0).phase))
    assert {(n, ph) for n in (2, 3, 4) for ph in (INVESTING, ATTACKING, DEFENDING, BUY)} <= seen


def test_investments_keep_the_amounts_that_decide_the_bid() -> None:
    game = Game.from_wire({
        "day": 1, "phase": {"name": "investing"},
        "shop": Game(3).to_wire()["shop"],
        "players": [
            {"coins": 9, "buys": 1, "cards": [{"name": "Sorcerer's Stipend", "uses": 0}]},
            {"coins": 4, "buys": 1, "cards": [{"name": "Sorcerer's Stipend", "uses": 0}]},
            {"coins": 12, "buys": 1, "cards": [{"name": "Sorcerer's Stipend", "uses": 0}]},
        ],
    })
    # nothing, one, a tie with and one more than player 1, everything
    assert investments(game, 0) == [0, 1, 4, 5, 9]
    assert investments(game, 1) == [0, 1, 4]
    assert investments(game, 2) == [0, 1, 4, 5, 9, 10, 12]
