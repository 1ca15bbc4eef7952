"""Two-player zero-sum matrix games, solved to a mixed equilibrium.

Investing and buying are simultaneous: each player chooses without
seeing the other's choice. A search that lets one side choose first
(serialisation) plays a pure move, and a pure bid is a bid the opponent
can predict: outbid by one, or matched to deny. The sound way to choose
a simultaneous move is to solve the matrix game of the values of every
pair of moves and draw our move from the equilibrium's mixed strategy,
which no opponent can exploit (on those values).

`solve` uses regret matching+ (Tammelin 2014) with alternating updates
and linearly weighted averages, whose average strategies converge to an
equilibrium of a zero-sum game; the matrices here are at most about a
dozen moves a side, so at most a thousand iterations (tens of
milliseconds, once per move) leave an exploitability far below the noise
of the values.

The champion solves its roots in C (protocol/search/regret.c,
`protocol._engine.matrix_game_solve`), step for step as here but without
numpy, whose import cost more than a bare bot's start-up; this module is
its reference (tests/test_search_core.py compares them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Equilibrium", "solve"]


@dataclass(frozen=True)
class Equilibrium:
    row: np.ndarray  # the row player's (the maximiser's) mixed strategy
    column: np.ndarray  # the column player's (the minimiser's)
    value: float  # the row player's expected payoff under (row, column)
    gap: float  # exploitability: how much a best response gains against either side, summed


def solve(payoff: np.ndarray | list[list[float]], iterations: int = 1000, tolerance: float = 1e-3) -> Equilibrium:
    """An approximate equilibrium of the zero-sum game in which the row
    player receives `payoff[i, j]` and the column player pays it.

    Stops early once the gap (the sum of what a best response would gain
    against each side's average strategy) is below `tolerance` times the
    payoff range. A dominated move gets probability (near) zero.
    """
    a = np.asarray(payoff, dtype=float)
    if a.ndim != 2 or a.size == 0:
        raise ValueError(f"a matrix game needs a non-empty 2-d payoff, got shape {a.shape}")
    m, n = a.shape
    scale = float(a.max() - a.min())
    if scale == 0.0:
        row, column = np.full(m, 1.0 / m), np.full(n, 1.0 / n)
        return Equilibrium(row, column, float(a[0, 0]), 0.0)
    regret_row, regret_col = np.zeros(m), np.zeros(n)
    sum_row, sum_col = np.zeros(m), np.zeros(n)
    x, y = np.full(m, 1.0 / m), np.full(n, 1.0 / n)
    gap = float("inf")
    for t in range(1, iterations + 1):
        # Row player updates against the column player's current strategy...
        values = a @ y
        regret_row = np.maximum(regret_row + values - x @ values, 0.0)
        total = regret_row.sum()
        x = regret_row / total if total > 0 else np.full(m, 1.0 / m)
        sum_row += t * x
        # ...then the column player against the row player's new one.
        losses = x @ a
        regret_col = np.maximum(regret_col + losses @ y - losses, 0.0)
        total = regret_col.sum()
        y = regret_col / total if total > 0 else np.full(n, 1.0 / n)
        sum_col += t * y
        if t % 50 == 0 or t == iterations:
            gap = _gap(a, sum_row / sum_row.sum(), sum_col / sum_col.sum())
            if gap <= tolerance * scale:
                break
    row, column = sum_row / sum_row.sum(), sum_col / sum_col.sum()
    return Equilibrium(row, column, float(row @ a @ column), _gap(a, row, column))


def _gap(a: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    """max_i (a y)_i - min_j (x a)_j: zero exactly at an equilibrium."""
    return float((a @ y).max() - (x @ a).min())
