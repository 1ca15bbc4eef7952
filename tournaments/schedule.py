"""Which games a tournament plays: groups of entrants, their seatings, keys.

A game is named by a key that says where it sits in the schedule
(stage, the entrant positions in seat order, the game's index), so a
resumed run can tell exactly which games are still missing and raising
`--games` later plays only the extra ones.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Literal

Seatings = Literal["all", "latin"]


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: its stable key, entrant positions by seat, and
    its index within its seating (the games of one index in every seating
    of a group start from the same opening)."""

    key: str
    seats: tuple[int, ...]
    index: int = 0


def game_seed(seed: int, key: str) -> int:
    """The seed of the game `key` in a tournament of seed `seed`: from both
    alone, so a resumed or reordered run gives each game the same one."""
    digest = hashlib.blake2b(f"{seed}/{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1  # 63 bits: an SQLite integer


def seatings(group: Sequence[int], mode: Seatings = "all") -> list[tuple[int, ...]]:
    """Seat orders for one group so that no entrant gains from its seat.

    "all": every permutation (2, 6 or 24 for 2, 3 or 4 players).
    "latin": the P cyclic rotations, a Latin square: each entrant sits in
    each seat exactly once.
    """
    group = tuple(group)
    if mode == "all":
        return list(permutations(group))
    if mode == "latin":
        return [group[i:] + group[:i] for i in range(len(group))]
    raise ValueError(f"unknown seatings mode {mode!r} (all, latin)")


def game_key(stage: str, seats: Sequence[int], index: int) -> str:
    return f"{stage}/{'.'.join(map(str, seats))}/{index}"


def group_games(
    stage: str, group: Sequence[int], games: int, mode: Seatings = "all"
) -> list[GameSpec]:
    """`games` games for each seating of `group`, interleaved so that
    stopping early still leaves the seats balanced."""
    orders = seatings(group, mode)
    return [
        GameSpec(game_key(stage, seats, i), seats, i)
        for i in range(games)
        for seats in orders
    ]


def round_robin(
    n_entrants: int, players: int, games: int, mode: Seatings = "all"
) -> list[GameSpec]:
    """Every group of `players` distinct entrants, each seating, `games` times."""
    check_field(n_entrants, players)
    per_group = [group_games("rr", g, games, mode) for g in combinations(range(n_entrants), players)]
    return list(_interleave(per_group))


def gauntlet(
    n_entrants: int, players: int, games: int, mode: Seatings = "all"
) -> list[GameSpec]:
    """Entrant 0 (the challenger) with every group of `players - 1` others."""
    if n_entrants < players:
        raise ValueError(
            f"a gauntlet of {players}-player games needs the challenger and at least"
            f" {players - 1} other bots, got {n_entrants - 1}"
        )
    per_group = [
        group_games("gauntlet", (0, *g), games, mode)
        for g in combinations(range(1, n_entrants), players - 1)
    ]
    return list(_interleave(per_group))


def check_field(n_entrants: int, players: int) -> None:
    if players not in (2, 3, 4):
        raise ValueError(f"games have 2, 3 or 4 players, not {players}")
    if n_entrants < players:
        raise ValueError(
            f"{players}-player games need at least {players} bots, got {n_entrants}"
            " (the same bot may be entered more than once)"
        )


def _interleave(lists: Sequence[Sequence[GameSpec]]) -> Iterator[GameSpec]:
    """Round by round across groups, so partial runs cover every group."""
    longest = max((len(x) for x in lists), default=0)
    for i in range(longest):
        for lst in lists:
            if i < len(lst):
                yield lst[i]
