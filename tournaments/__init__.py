"""Tournaments and the ladder for Economancy bots.

The documented Python API (see docs/tournaments.md):

- `round_robin`, `gauntlet`, `elimination`, `sprt`: play a tournament
  (resuming from the database) and return a `TournamentResult`;
- `session`: an open database and backend, for the lower-level formats
  in `tournaments.round_robin`, `tournaments.elimination`, ...;
- `Ladder`: the persistent pool (`add`, `remove`, `run`, `show`, `eval`);
- `Store`: the SQLite results database; `report` renders it as HTML;
- `PlayOptions`: the referee options; `TournamentError`: bad input.
"""

from tournaments.api import elimination, gauntlet, round_robin, session, sprt
from tournaments.errors import TournamentError
from tournaments.ladder import Ladder
from tournaments.report import report
from tournaments.result import TournamentResult
from tournaments.standings import Standings
from tournaments.store import Store
from tournaments.workers import PlayOptions

__all__ = [
    "Ladder",
    "PlayOptions",
    "Standings",
    "Store",
    "TournamentError",
    "TournamentResult",
    "elimination",
    "gauntlet",
    "report",
    "round_robin",
    "session",
    "sprt",
]
