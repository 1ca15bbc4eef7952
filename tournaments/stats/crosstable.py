"""Pairwise scores with 95% intervals: the crosstable and the pairings table.

For each pair of bots, every game where both sat gives the first a score
of 1, 0.5 or 0 against the second (`tournaments.outcomes.pair_score`).
The interval is Wilson's score interval on the mean score with draws
counted as half a win: unlike the plain normal interval (or a bootstrap)
it stays inside [0, 1] and is not degenerate at 10/10 or 0/10, and
treating draws as halves only widens it (conservative). A result is
significant when its interval excludes 0.5; the Elo difference and its
interval are the score's and its bounds' on the logistic scale, so a
perfect score reads "> X", never infinity.

Beside them, as cutechess and fastchess print them: the draw ratio, the
likelihood of superiority (LOS, from wins and losses), the pentanomial
counts of the paired games (`tournaments.stats.pairs`) and how many of
the games were distinct (different traces: between deterministic bots
the same game played again says nothing new).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any, Protocol

from tournaments.outcomes import Result, pair_score
from tournaments.stats.elo import finite_or_none, interval_text, score_to_elo
from tournaments.stats.pairs import PairCounter

Z95 = 1.959963984540054


class Played(Protocol):
    key: str
    digest: str

    @property
    def result(self) -> Result: ...


@dataclass
class Cell:
    """Row bot's results against the column bot."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    distinct: int = 0  # games with different traces
    penta: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])  # seat-swapped pairs, row's view
    unpaired: int = 0  # 2-player games whose partner is missing (or not scheduled: the ladder)

    @property
    def score(self) -> float:
        """Points scored (wins + draws / 2)."""
        return self.wins + self.draws / 2

    @property
    def mean(self) -> float:
        return self.score / self.games if self.games else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.score, self.games)

    @property
    def low(self) -> float:
        return self.interval[0]

    @property
    def high(self) -> float:
        return self.interval[1]

    @property
    def significant(self) -> bool:
        return self.games > 0 and (self.low > 0.5 or self.high < 0.5)

    @property
    def elo(self) -> float:
        return score_to_elo(self.mean) if self.games else math.nan

    @property
    def elo_interval(self) -> tuple[float, float]:
        return (score_to_elo(self.low), score_to_elo(self.high)) if self.games else (-math.inf, math.inf)

    @property
    def draw_ratio(self) -> float:
        return self.draws / self.games if self.games else math.nan

    @property
    def los(self) -> float:
        """Likelihood of superiority: P(row is stronger), normal approximation
        on wins and losses (draws carry no information on it)."""
        decisive = self.wins + self.losses
        if decisive == 0:
            return 0.5
        return 0.5 * (1 + math.erf((self.wins - self.losses) / math.sqrt(2 * decisive)))

    def elo_text(self) -> str:
        return interval_text(self.elo, *self.elo_interval)

    def to_json(self) -> dict[str, Any]:
        elo_low, elo_high = self.elo_interval
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "mean": None if not self.games else self.mean,
            "low": self.low,
            "high": self.high,
            "significant": self.significant,
            "elo": finite_or_none(self.elo),
            "elo_low": finite_or_none(elo_low),
            "elo_high": finite_or_none(elo_high),
            "elo_text": self.elo_text(),
            "los": self.los,
            "draw_ratio": None if not self.games else self.draw_ratio,
            "pentanomial": list(self.penta),
            "unpaired": self.unpaired,
            "distinct": self.distinct,
        }


def wilson(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for `score` successes out of `n` trials."""
    if n == 0:
        return (0.0, 1.0)
    p = score / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if score <= 0 else max(0.0, centre - half)
    high = 1.0 if score >= n else min(1.0, centre + half)  # exactly 1 at a perfect score
    return (low, high)


def crosstable(games: Iterable[Played | Result], names: Sequence[str]) -> dict[tuple[str, str], Cell]:
    """Cells for every ordered pair of `names` (empty cells have games=0).
    Plain Results (no key, no trace) count in everything but the pairs and
    the distinct games."""
    cells = {(a, b): Cell() for a, b in permutations(names, 2)}
    digests: dict[tuple[str, str], set[str]] = {pair: set() for pair in cells}
    counters = {pair: PairCounter(*pair) for pair in cells}
    for game in games:
        res = game if isinstance(game, Result) else game.result
        for a, b in permutations(range(res.n_players), 2):
            pair = (res.seats[a], res.seats[b])
            cell = cells.get(pair)
            if cell is None:
                continue
            cell.games += 1
            score = pair_score(res, a, b)
            if score == 1.0:
                cell.wins += 1
            elif score == 0.0:
                cell.losses += 1
            else:
                cell.draws += 1
            if not isinstance(game, Result):
                digests[pair].add(game.digest or f"?{id(game)}")  # an unknown trace counts as distinct
                if res.n_players == 2:
                    counters[pair].add(game)
    for pair, cell in cells.items():
        cell.distinct = len(digests[pair])
        cell.penta = list(counters[pair].penta)
        cell.unpaired = counters[pair].unpaired
    return cells
