"""What every tournament format returns: where it is stored and how it stands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tournaments.entrants import Entrant
from tournaments.standings import Standings


@dataclass
class TournamentResult:
    """`details` holds what is particular to a format (the bracket, the SPRT
    verdict, an evaluated bot's rating); `to_json()` is what --json prints."""

    kind: str
    db: str
    tournament_id: int
    entrants: list[Entrant]
    standings: Standings
    played_now: int
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (`json.dumps` of it is what `--json` prints)."""
        return {
            "kind": self.kind,
            "db": self.db,
            "tournament_id": self.tournament_id,
            "played_now": self.played_now,
            **self.details,
            **self.standings.to_json(),
        }
