"""Standings of a set of games: records, crosstable and ratings, in one object.

The text table, the `--json` output, the HTML report and the ladder all
render this one structure, so they cannot disagree.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from driver.text import printable
from tournaments.outcomes import Result, seat_outcome
from tournaments.stats.crosstable import Cell, crosstable
from tournaments.stats.plackett_luce import Rating, ratings


@dataclass(frozen=True)
class Record:
    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0


@dataclass
class Standings:
    names: list[str]  # best first (by rating)
    records: dict[str, Record]
    ratings: dict[str, Rating]
    cells: dict[tuple[str, str], Cell]
    forfeit_reasons: dict[str, Counter[str]] = field(default_factory=dict)
    games: int = 0
    players: tuple[int, ...] = ()  # table sizes present

    def to_json(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else (x if math.isfinite(x) else (1e9 if x > 0 else -1e9))

        return {
            "games": self.games,
            "table_sizes": list(self.players),
            "standings": [
                {
                    "name": n,
                    "games": self.records[n].games,
                    "wins": self.records[n].wins,
                    "draws": self.records[n].draws,
                    "losses": self.records[n].losses,
                    "forfeits": self.records[n].forfeits,
                    "elo": round(self.ratings[n].elo, 1),
                    "elo_low": round(self.ratings[n].low, 1),
                    "elo_high": round(self.ratings[n].high, 1),
                    "forfeit_reasons": dict(self.forfeit_reasons.get(n, {})),
                }
                for n in self.names
            ],
            "crosstable": [
                {
                    "bot": a,
                    "opponent": b,
                    "games": c.games,
                    "score": c.score,
                    "mean": num(c.mean),
                    "low": c.low,
                    "high": c.high,
                    "significant": c.significant,
                }
                for (a, b), c in self.cells.items()
                if c.games
            ],
        }


def compute(
    games: Iterable[tuple[Result, str | None]],
    names: Sequence[str] | None = None,
    *,
    bootstrap: int = 200,
    seed: int = 0,
) -> Standings:
    """Standings from (result, fault reason) pairs. `names` fixes the field
    (bots without games are listed with empty records)."""
    games = list(games)
    results = [r for r, _ in games]
    if names is None:
        names = sorted({s for r in results for s in r.seats})
    names = list(names)
    counts = {n: Counter[str]() for n in names}
    reasons: dict[str, Counter[str]] = {}
    for res, reason in games:
        for seat, name in enumerate(res.seats):
            outcome = seat_outcome(res, seat)
            counts[name][outcome] += 1
            if outcome == "forfeit":
                reasons.setdefault(name, Counter())[_reason_kind(reason or "")] += 1
    records = {
        n: Record(
            n,
            sum(c.values()),
            c["win"],
            c["draw"],
            c["loss"],
            c["forfeit"],
        )
        for n, c in counts.items()
    }
    rated = {r.name: r for r in ratings(results, names, bootstrap=bootstrap, seed=seed)}
    order = sorted(names, key=lambda n: -rated[n].elo)
    return Standings(
        order,
        records,
        rated,
        crosstable(results, order),
        reasons,
        len(results),
        tuple(sorted({r.n_players for r in results})),
    )


def _reason_kind(reason: str) -> str:
    """Group forfeit reasons that differ only in details after a colon."""
    return reason.split(":", 1)[0].strip() or "unknown"


def elo_text(elo: float) -> str:
    """A rating rounded to a whole number, never shown as "-0"."""
    return str(round(elo))


def render_text(st: Standings) -> str:
    """A plain-text standings table and crosstable for the terminal."""
    w = max([len(n) for n in st.names] + [4])
    lines = [
        f"{'#':>2}  {'bot':<{w}}  {'games':>5}  {'wins':>5}  {'draws':>5}  {'losses':>6}  "
        f"{'forf':>4}  {'Elo':>6}  95% interval"
    ]
    for i, n in enumerate(st.names, 1):
        r, g = st.records[n], st.ratings[n]
        lines.append(
            f"{i:>2}  {n:<{w}}  {r.games:>5}  {r.wins:>5}  {r.draws:>5}  {r.losses:>6}  "
            f"{r.forfeits:>4}  {elo_text(g.elo):>6}  [{elo_text(g.low)}, {elo_text(g.high)}]"
        )
    if len(st.names) > 1:
        lines += ["", "Crosstable: row's mean score against column (* = significant at 95%)"]
        cw = max(w, 17)
        lines.append(" " * (w + 2) + "".join(f"{n[:cw]:>{cw + 2}}" for n in st.names))
        for a in st.names:
            row = []
            for b in st.names:
                c = st.cells.get((a, b))
                if a == b or c is None or not c.games:
                    row.append(f"{'-':>{cw + 2}}")
                else:
                    mark = "*" if c.significant else " "
                    row.append(f"{f'{c.mean:.2f}{mark} [{c.low:.2f},{c.high:.2f}]':>{cw + 2}}")
            lines.append(f"{a:<{w}}  " + "".join(row))
    for n, reasons in st.forfeit_reasons.items():
        for reason, k in reasons.most_common():  # a reason quotes the bot's own bytes: escape them
            lines.append(f"forfeits: {n}: {k} x {printable(reason)}")
    return "\n".join(lines)
