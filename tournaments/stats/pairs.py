"""Paired games: the two games of one opening with the seats swapped.

A tournament schedules, for each group and game index, one game per
seating, all from the same opening (`tournaments.schedule`): for two
players the games `stage/a.b/i` and `stage/b.a/i` are a pair. Scoring
pairs rather than games (the pentanomial counts of fishtest and
fastchess: a pair's total score for A is 0, 0.5, 1, 1.5 or 2) cancels the
seat's and the opening's bias out of the variance.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from tournaments.outcomes import Result, pair_score


class Played(Protocol):
    key: str

    @property
    def result(self) -> Result: ...


def pair_id(key: str) -> tuple[str, tuple[str, ...], str] | None:
    """What the two games of a pair share: stage, seats as a set, index."""
    parts = key.split("/")
    if len(parts) != 3:
        return None
    stage, seats, index = parts
    return stage, tuple(sorted(seats.split("."))), index


class PairCounter:
    """Pentanomial counts of A against B from games as they arrive, in any order."""

    def __init__(self, a: str, b: str) -> None:
        self.a, self.b = a, b
        self.halves: dict[tuple[str, tuple[str, ...], str], float] = {}
        self.penta = [0, 0, 0, 0, 0]

    def add(self, game: Played) -> None:
        res = game.result
        if res.n_players != 2 or set(res.seats) != {self.a, self.b}:
            return
        pid = pair_id(game.key)
        if pid is None:
            return
        a_seat = res.seats.index(self.a)
        score = pair_score(res, a_seat, 1 - a_seat)
        if pid in self.halves:
            self.penta[int(round((self.halves.pop(pid) + score) * 2))] += 1
        else:
            self.halves[pid] = score

    @property
    def unpaired(self) -> int:
        """Games whose partner is not (yet) played."""
        return len(self.halves)


def pentanomial(games: Iterable[Played], a: str, b: str) -> tuple[list[int], int]:
    """A's pentanomial counts against B, and the games left without a partner."""
    counter = PairCounter(a, b)
    for game in games:
        counter.add(game)
    return counter.penta, counter.unpaired
