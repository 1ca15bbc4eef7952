"""Tournaments and the ladder for Economancy bots.

The documented Python API (see docs/tournaments.md):

- `round_robin`, `gauntlet`, `elimination`, `sprt`: play a tournament
  (resuming from the database) and return a `TournamentResult`;
- `session`: an open database and backend, for the lower-level formats
  in `tournaments.formats` (round robin and gauntlet, elimination, SPRT);
- `Ladder`: the persistent pool (`add`, `remove`, `run`, `show`, `eval`);
- `Store`: the SQLite results database; `report` renders it as HTML;
- `PlayOptions`: the referee options; `TournamentError`: bad input.

Names are imported on first use, so worker processes, which only need
`tournaments.workers`, do not pay for numpy and openskill at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "elimination": "tournaments.api",
    "gauntlet": "tournaments.api",
    "round_robin": "tournaments.api",
    "session": "tournaments.api",
    "sprt": "tournaments.api",
    "TournamentError": "tournaments.errors",
    "Ladder": "tournaments.ladder",
    "report": "tournaments.html_report",
    "TournamentResult": "tournaments.result",
    "Standings": "tournaments.standings",
    "Store": "tournaments.store",
    "PlayOptions": "tournaments.workers",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # `X as X`: exported, for checkers (`__all__` is computed)
    from tournaments.api import elimination as elimination, gauntlet as gauntlet, round_robin as round_robin
    from tournaments.api import session as session, sprt as sprt
    from tournaments.errors import TournamentError as TournamentError
    from tournaments.ladder import Ladder as Ladder
    from tournaments.html_report import report as report
    from tournaments.result import TournamentResult as TournamentResult
    from tournaments.standings import Standings as Standings
    from tournaments.store import Store as Store
    from tournaments.workers import PlayOptions as PlayOptions


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'tournaments' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
