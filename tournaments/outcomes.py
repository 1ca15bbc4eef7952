"""What one finished game means for each seat, defined once.

Every statistic (standings, crosstable, ratings, SPRT, brackets) reads
results through these functions so they all agree on draws and faults:

- a win is the seat the referee named winner;
- a draw (no winner after `max_days`) splits the game evenly;
- a fault ranks the forfeiting seat last and the others level: in a
  two-player game the opponent of a forfeiting bot wins, in a 3-4 player
  game the others draw among themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Outcome = Literal["win", "draw", "loss", "forfeit"]


@dataclass(frozen=True)
class Result:
    """A finished game as the statistics see it: who sat where and how it ended."""

    seats: tuple[str, ...]
    winner: int | None
    fault_seat: int | None = None

    @property
    def n_players(self) -> int:
        return len(self.seats)


def seat_outcome(result: Result, seat: int) -> Outcome:
    """The standings column this game counts in for `seat`."""
    if result.fault_seat is not None:
        if result.fault_seat == seat:
            return "forfeit"
        return "win" if result.n_players == 2 else "draw"
    if result.winner is None:
        return "draw"
    return "win" if result.winner == seat else "loss"


def win_shares(result: Result) -> list[float]:
    """Each seat's share of the game's one unit of victory (sums to 1).

    The Plackett-Luce (Luce choice) rating model reads a game as "this
    seat was chosen as the winner"; a draw or a fault spreads that choice
    over the seats that were level.
    """
    n = result.n_players
    if result.fault_seat is not None:
        return [0.0 if s == result.fault_seat else 1.0 / (n - 1) for s in range(n)]
    if result.winner is None:
        return [1.0 / n] * n
    return [1.0 if s == result.winner else 0.0 for s in range(n)]


def pair_score(result: Result, a: int, b: int) -> float:
    """Seat `a`'s score against seat `b` in this game: 1, 0.5 or 0."""
    shares = win_shares(result)
    if shares[a] > shares[b]:
        return 1.0
    if shares[a] < shares[b]:
        return 0.0
    return 0.5
