"""Knockout brackets for tables of 2, 3 or 4 players.

The bracket is fixed once seeded, like a tennis draw, generalised from
pairs to tables of P: with R rounds (P**R >= field), round r has
P**(R-r) tables; the table where seed s is expected to win draws its
other seats from the next tiers of seeds, snaking (s, 2T+1-s, 2T+s, ...)
so the strongest seeds meet as late as possible and the byes (empty
seats where the field does not fill the bracket) go to the top seeds.
Each table's winner moves to the slot of the expected seed in the next
round. A table left with one entrant is a bye.

Tie-break at a table, in order: most wins, fewest forfeits, better seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tournaments.outcomes import Result, seat_outcome


@dataclass
class Table:
    round: int  # 1-based
    index: int  # within the round
    slot_seeds: tuple[int, ...]  # the seed expected in each slot (1 = best)
    entrants: list[int | None] = field(default_factory=list)  # seeds actually in the slots
    winner: int | None = None  # seed
    record: dict[int, tuple[int, int]] = field(default_factory=dict)  # seed -> (wins, forfeits)

    @property
    def seeds(self) -> list[int]:
        return [s for s in self.entrants if s is not None]

    @property
    def stage(self) -> str:
        """The schedule stage name of this table's games."""
        return f"r{self.round}t{self.index}"


def snake(expected: int, tables: int, players: int) -> tuple[int, ...]:
    """Seeds drawn to the table where seed `expected` should win, among `tables` tables."""
    return tuple(
        j * tables + (expected if j % 2 == 0 else tables + 1 - expected) for j in range(players)
    )


class Bracket:
    """A knockout over `n` seeds (1..n, best first) in tables of `players`."""

    def __init__(self, n: int, players: int) -> None:
        if players not in (2, 3, 4):
            raise ValueError(f"tables have 2, 3 or 4 players, not {players}")
        if n < 2:
            raise ValueError(f"a knockout needs at least 2 bots, got {n}")
        self.n = n
        self.players = players
        n_rounds = 1
        while players**n_rounds < n:
            n_rounds += 1
        self.rounds: list[list[Table]] = []
        for r in range(1, n_rounds + 1):
            tables = players ** (n_rounds - r)
            self.rounds.append(
                [Table(r, s - 1, snake(s, tables, players)) for s in range(1, tables + 1)]
            )
        for table in self.rounds[0]:
            table.entrants = [s if s <= n else None for s in table.slot_seeds]
        for later in self.rounds[1:]:
            for table in later:
                table.entrants = [None] * players
        for table in self.rounds[0]:
            if len(table.seeds) == 1:
                self.decide(table, table.seeds[0])

    @property
    def champion(self) -> int | None:
        return self.rounds[-1][0].winner

    def ready(self) -> list[Table]:
        """Tables whose entrants are all known and that still need games."""
        return [
            t
            for rnd in self.rounds
            for t in rnd
            if t.winner is None and self._complete(t) and len(t.seeds) >= 2
        ]

    def decide(self, table: Table, seed: int) -> None:
        """Record `seed` as the winner of `table` and move it up the bracket."""
        if seed not in table.seeds:
            raise ValueError(f"seed {seed} is not at table {table.stage}")
        table.winner = seed
        if table.round == len(self.rounds):
            return
        expected = table.slot_seeds[0]
        for parent in self.rounds[table.round]:
            if expected in parent.slot_seeds:
                parent.entrants[parent.slot_seeds.index(expected)] = seed
                if self._complete(parent) and len(parent.seeds) == 1:
                    self.decide(parent, seed)
                return
        raise AssertionError("bracket tree is inconsistent")

    def _complete(self, table: Table) -> bool:
        """All slots that can be filled are filled (feeding tables decided)."""
        if table.round == 1:
            return True
        feeders = {t.slot_seeds[0]: t for t in self.rounds[table.round - 2]}
        return all(feeders[s].winner is not None for s in table.slot_seeds)

    def render(self, names: Sequence[str]) -> str:
        """The bracket as text, round by round; `names[seed-1]` is seed's name."""

        def who(seed: int | None) -> str:
            return "(bye)" if seed is None else f"[{seed}] {names[seed - 1]}"

        lines = []
        for rnd in self.rounds:
            title = "Final" if len(rnd) == 1 else f"Round {rnd[0].round}"
            lines.append(f"{title}:")
            for t in rnd:
                if not self._complete(t) and t.winner is None:
                    known = [who(s) for s in t.entrants if s is not None]
                    lines.append(f"  {' vs '.join(known + ['...'])}")
                    continue
                seats = " vs ".join(who(s) for s in t.seeds)
                if t.winner is None:
                    lines.append(f"  {seats}")
                elif len(t.seeds) == 1:
                    lines.append(f"  {who(t.winner)} advances (bye)")
                else:
                    rec = ", ".join(
                        f"{names[s - 1]} {w}w/{f}f" for s, (w, f) in t.record.items()
                    )
                    lines.append(f"  {seats} -> {who(t.winner)} ({rec})")
        return "\n".join(lines)


def table_winner(seeds: Sequence[int], names: Sequence[str], results: Iterable[Result]) -> tuple[int, dict[int, tuple[int, int]]]:
    """The seed that advances from a table, and each seed's (wins, forfeits).

    `names[seed-1]` is how the seed appears in the results' seats.
    Tie-break: most wins, then fewest forfeits, then the better seed.
    """
    record = {s: [0, 0] for s in seeds}
    by_name = {names[s - 1]: s for s in seeds}
    for res in results:
        for seat, name in enumerate(res.seats):
            if name not in by_name:
                continue
            outcome = seat_outcome(res, seat)
            if outcome == "win":
                record[by_name[name]][0] += 1
            elif outcome == "forfeit":
                record[by_name[name]][1] += 1
    best = min(seeds, key=lambda s: (-record[s][0], record[s][1], s))
    return best, {s: (w, f) for s, (w, f) in record.items()}
