"""Turning BOT arguments into validated, uniquely named entrants.

Every BOT form `driver run` accepts is parsed by the referee's own
`driver.botspec.parse_bot`, so the tournament never disagrees with the
referee on what a BOT means; it also checks that each program exists
and is executable, so a typo fails before any game starts. The same bot may be entered several times: entrants are
distinct by position and the later copies get a `#2`, `#3`... suffix.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.errors import TournamentError


@dataclass(frozen=True)
class Entrant:
    """A bot in a tournament: its unique display name, its argv, and the
    referee's BotSpec (renamed to the unique name) that workers pass on."""

    name: str
    argv: tuple[str, ...]
    spec: Any

    @property
    def identity(self) -> tuple[str, tuple[str, ...]]:
        """What makes two runs the same tournament: the name and the
        command, except that our own bots are recorded with `python` for
        the interpreter, which is wherever this installation's Python
        lives: a recreated virtual environment or another machine must
        resume the same run, not start a new one beside it."""
        from bots.registry import owns

        if owns(self.argv):
            return (self.name, ("python", *self.argv[1:]))
        return (self.name, self.argv)


def parse_entrants(texts: Sequence[str]) -> list[Entrant]:
    """Parse and check every BOT; raise TournamentError naming the bad one."""
    from driver.botspec import BotSpecError, parse_bot

    specs = []
    for i, text in enumerate(texts, 1):
        try:
            specs.append(parse_bot(text))
        except BotSpecError as err:
            raise TournamentError(f"bot {i} ({text!r}): {err}") from None
    return unique([(s.name, tuple(s.argv), s) for s in specs])


def from_stored(name: str, argv: Sequence[str]) -> Entrant:
    """An entrant rebuilt from the database (ladder bots), checked again
    since the program may have moved since it was added."""
    from driver.botspec import spec_for

    _check_executable(name, list(argv))
    return Entrant(name, tuple(argv), spec_for(name, argv))


def unique(items: Sequence[tuple[str, tuple[str, ...], Any]]) -> list[Entrant]:
    """Entrants with unique names: repeats become `name#2`, `name#3`, ..."""
    seen: dict[str, int] = {}
    taken = {name for name, _, _ in items}
    out = []
    for name, argv, spec in items:
        k = seen.get(name, 0) + 1
        seen[name] = k
        new = name
        while k > 1 and (new == name or new in taken):
            new = f"{name}#{k}"
            k += 1
        taken.add(new)
        out.append(Entrant(new, argv, _rename(spec, new)))
    return out


def _rename(spec: Any, name: str) -> Any:
    return spec if spec.name == name else dataclasses.replace(spec, name=name)


def _check_executable(name: str, argv: list[str]) -> None:
    prog = argv[0] if argv else ""
    if not (os.path.isfile(prog) and os.access(prog, os.X_OK)) and shutil.which(prog) is None:
        raise TournamentError(f"bot {name!r}: program {prog!r} is gone or not executable")
