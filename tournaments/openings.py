"""Which opening each game of a tournament starts from.

Between deterministic bots a game from the real start is one game
however often it is played, so a tournament plays from a suite of
openings instead, each once per seating: game index i of every seating
of a group gets the same opening, so every bot plays both (all) sides
of it, as fastchess and Fishtest pair their games. The spellings:

- `default`: the suite shipped for the card set and number of players
  (`tournaments/suites/`, made by `python -m tournaments.make_suites`,
  whose docstring says how they were chosen);
- `none`: every game from the real start;
- `random:K`: K plies of uniformly random play, drawn for each game
  index from the tournament's seed (`protocol.openings.random_opening`);
- a FILE of openings, one JSON move list per line
  (`protocol.openings.read_openings`).

Suites are played in an order shuffled by the tournament's seed; with
more games per seating than openings, the suite starts over.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from common.settings import MAX_DAYS
from protocol.engine import Game
from protocol.openings import Opening, OpeningError, play_opening, random_opening, read_openings

__all__ = ["OpeningPlan", "plan_openings", "suite_name", "load_suite"]


def suite_name(players: int, base: bool) -> str:
    return f"{'base' if base else 'simple'}-{players}p.txt"


def load_suite(players: int, base: bool) -> list[Opening]:
    """The shipped suite for this table size and card set."""
    with resources.as_file(resources.files("tournaments") / "suites" / suite_name(players, base)) as path:
        return read_openings(path)


@dataclass(frozen=True)
class OpeningPlan:
    """The openings of one tournament: `opening(index)` for game index i."""

    spec: str  # how it was asked for: default, none, random:K or the file's name
    suite: tuple[Opening, ...] = ()
    plies: int | None = None  # random:K
    players: int = 2
    base: bool = False
    max_days: int = MAX_DAYS
    seed: int = 0
    note: str = ""  # why the plan is not what was asked for (the default suite does not fit)

    def opening(self, index: int) -> Opening | None:
        if self.plies is not None:
            rng = random.Random(f"openings/{self.seed}/{index}")
            return random_opening(self.players, self.plies, rng, base=self.base, max_days=self.max_days)
        if not self.suite:
            return None
        order = list(range(len(self.suite)))
        random.Random(f"openings/{self.seed}").shuffle(order)
        return self.suite[order[index % len(order)]]

    def to_json(self) -> dict[str, Any]:
        """The plan's identity: what changes the games changes the tournament."""
        if self.plies is not None:
            return {"random": self.plies}
        if not self.suite:
            return {"none": True}
        return {"suite": [list(o) for o in self.suite]}

    def describe(self) -> str:
        if self.plies is not None:
            return f"random:{self.plies} (drawn from seed {self.seed})"
        if not self.suite:
            return "none (every game from the start)" + (f": {self.note}" if self.note else "")
        return f"{self.spec} ({len(self.suite)} openings, order from seed {self.seed})"


def plan_openings(
    spec: str | Sequence[Sequence[int | str]] | None,
    *,
    players: int,
    base: bool,
    max_days: int,
    seed: int,
) -> OpeningPlan:
    """Resolve `--openings` for one tournament; every opening is checked now
    (OpeningError naming the bad one), so no game starts from a bad one."""
    common = {"players": players, "base": base, "max_days": max_days, "seed": seed}
    if spec is None or spec == "default":
        suite = load_suite(players, base)
        try:
            _check(suite, players, base, max_days, "the default suite")
        except OpeningError as err:
            # Not asked for by name: fall back, and say so in the plan.
            return OpeningPlan("none", note=f"the default suite does not fit --max-days {max_days} ({err})",
                               **common)  # type: ignore[arg-type]
        return OpeningPlan("default", tuple(suite), **common)  # type: ignore[arg-type]
    if not isinstance(spec, str):
        suite = [tuple(o) for o in spec]
        _check(suite, players, base, max_days, "opening")
        return OpeningPlan("given", tuple(suite), **common)  # type: ignore[arg-type]
    if spec == "none":
        return OpeningPlan("none", **common)  # type: ignore[arg-type]
    if spec.startswith("random:"):
        try:
            plies = int(spec.split(":", 1)[1])
        except ValueError:
            plies = -1
        if plies < 0:
            raise OpeningError(f"--openings {spec!r}: random:K needs K, a number of plies (0 or more)")
        plan = OpeningPlan(spec, plies=plies, **common)  # type: ignore[arg-type]
        plan.opening(0)  # OpeningError if no such opening leaves the game open
        return plan
    path = Path(spec)
    if not path.exists():
        raise OpeningError(f"--openings {spec!r}: no such file (or default, none, random:K)")
    suite = read_openings(path)
    _check(suite, players, base, max_days, str(path))
    return OpeningPlan(path.name, tuple(suite), **common)  # type: ignore[arg-type]


def _check(suite: Sequence[Opening], players: int, base: bool, max_days: int, where: str) -> None:
    for number, opening in enumerate(suite, 1):
        try:
            play_opening(Game(players, base=base, max_days=max_days), opening)
        except OpeningError as err:
            raise OpeningError(
                f"{where}, opening {number}, in a {players}-player {'base' if base else 'simple'}-set game"
                f" of {max_days} days: {err}"
            ) from None
