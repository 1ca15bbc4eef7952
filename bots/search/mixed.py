"""Alpha-beta whose root's simultaneous step is solved as a matrix game.

`bots.search.alphabeta` serialises a simultaneous step (we choose first,
the opponent answers knowing our choice) and plays a pure move. That is
sound for finding forced wins, but at the root it makes the move a
function of the state: whoever knows the bot can predict its bid and
outbid it by one, or match it to deny, every time, and predict its buy.
Economancy's investing and buying steps have mixed equilibria (the bid is
a game of matching pennies with prices attached).

So at a root where we and the opponent choose together (2 players,
investing or buying), this search computes the value of every pair
(our move, their move) by alpha-beta search of the position after both
(each searched to the same depth, with the serialised rule below the
root, the transposition table shared), solves that matrix game
(`bots.search.matrix`) and draws our move from its equilibrium. Moves
whose equilibrium weight is below `PURIFY` are dropped first: the values
are heuristic estimates, and a move the equilibrium barely uses is noise
in them, not a strategy. Sequential steps (attacks, defences) and games
of 3-4 players are searched as plain alpha-beta.

Iterative deepening as in alpha-beta: each depth fills the whole matrix;
a depth cut short by the clock is thrown away and the last whole matrix
decides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bots.search.actions import candidate_moves
from bots.search.alphabeta import PROVEN, AlphaBeta, OutOfTime, SearchResult
from bots.search.core import PURIFY, SLACK  # one setting for the C search and this reference
from bots.search.matrix import Equilibrium, solve
from protocol.engine import BUY, INVESTING, Game

__all__ = ["MixedAlphaBeta", "MixedResult", "PURIFY", "SLACK", "purified"]


@dataclass
class MixedResult(SearchResult):
    strategy: dict[int, float] | None = None  # our mixed strategy at a simultaneous root, else None
    matrix: np.ndarray | None = None


class MixedAlphaBeta(AlphaBeta):
    """Alpha-beta with a matrix-game root (see the module docstring)."""

    def search(self, game: Game, me: int, *, seconds: float | None = None, max_depth: int = 64) -> SearchResult:
        opponents = [p for p in game.pending() if p != me]
        if game.n_players != 2 or len(opponents) != 1 or game.phase not in (INVESTING, BUY):
            return super().search(game, me, seconds=seconds, max_depth=max_depth)
        return self._mixed(game, me, opponents[0], seconds, max_depth)

    def _mixed(self, game: Game, me: int, them: int, seconds: float | None, max_depth: int) -> MixedResult:
        self._start(me, seconds)
        ours = candidate_moves(game, me)
        theirs = candidate_moves(game, them)
        if len(ours) == 1:
            return MixedResult(ours[0], 0.0, 0, 0, {ours[0]: 1.0})
        children = [[self._child(game, me, a, them, b) for b in theirs] for a in ours]
        matrix: np.ndarray | None = None
        depth_done = 0
        started = last = self.clock()
        for depth in range(1, max_depth + 1):
            values = np.empty((len(ours), len(theirs)))
            try:
                for i in range(len(ours)):
                    for j in range(len(theirs)):
                        values[i, j] = self._value(children[i][j], depth - 1, 1, -float("inf"), float("inf"))
            except OutOfTime:
                break
            matrix, depth_done = values, depth
            if np.all(np.abs(values) > PROVEN):
                break  # every pair proven: deeper search cannot change a value
            if not self._next_depth_fits(started, last):
                break
            last = self.clock()
        if matrix is None:
            # Not even depth 1: the serialised search's fallback.
            fallback = self._unfinished(game, me)
            return MixedResult(fallback.move, fallback.value, 0, self.nodes, None)
        equilibrium = solve(matrix)
        strategy = purified(equilibrium, matrix, PURIFY, SLACK)
        move = ours[self.rng.choices(range(len(ours)), weights=strategy)[0]]
        return MixedResult(move, equilibrium.value, depth_done, self.nodes,
                           {a: float(p) for a, p in zip(ours, strategy) if p > 0}, matrix)

    @staticmethod
    def _child(game: Game, me: int, mine: int, them: int, theirs: int) -> Game:
        child = game.copy()
        for player, move in sorted(((me, mine), (them, theirs))):
            child.play(player, move)
        return child


def purified(equilibrium: Equilibrium, matrix: np.ndarray, threshold: float, slack: float) -> list[float]:
    """The row strategy without the weights under `threshold` and without
    the moves more than `slack` worse than the best against the column
    strategy, renormalised (a best move is always kept)."""
    row = equilibrium.row
    against = matrix @ equilibrium.column
    best = int(np.argmax(against))
    kept = np.where((row >= threshold) & (against >= against[best] - slack), row, 0.0)
    if kept.sum() <= 0:
        kept = np.zeros_like(row)
        kept[best] = 1.0
    return list(kept / kept.sum())
