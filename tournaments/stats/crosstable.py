"""Pairwise scores with 95% intervals, for the crosstable.

For each pair of bots, every game where both sat gives the first a score
of 1, 0.5 or 0 against the second (`tournaments.outcomes.pair_score`).
The interval is Wilson's score interval on the mean score with draws
counted as half a win: unlike the plain normal interval it stays inside
[0, 1] and is not degenerate at 10/10, and treating draws as halves only
widens it (conservative). A result is significant when its interval
excludes 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import permutations

from tournaments.outcomes import Result, pair_score
from tournaments.stats.elo import score_to_elo

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Cell:
    """Row bot's results against the column bot."""

    games: int
    score: float  # points scored (wins + draws / 2)
    low: float  # 95% interval on the mean score
    high: float

    @property
    def mean(self) -> float:
        return self.score / self.games if self.games else math.nan

    @property
    def significant(self) -> bool:
        return self.games > 0 and (self.low > 0.5 or self.high < 0.5)

    @property
    def elo(self) -> float:
        return score_to_elo(self.mean) if self.games else math.nan


def wilson(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for `score` successes out of `n` trials."""
    if n == 0:
        return (0.0, 1.0)
    p = score / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def crosstable(results: Iterable[Result], names: Sequence[str]) -> dict[tuple[str, str], Cell]:
    """Cells for every ordered pair of `names` (empty cells have games=0)."""
    totals: dict[tuple[str, str], list[float]] = {(a, b): [0, 0.0] for a, b in permutations(names, 2)}
    for res in results:
        for a, b in permutations(range(res.n_players), 2):
            pair = (res.seats[a], res.seats[b])
            if pair in totals:
                totals[pair][0] += 1
                totals[pair][1] += pair_score(res, a, b)
    return {
        pair: Cell(int(n), s, *wilson(s, int(n)))
        for pair, (n, s) in totals.items()
    }
