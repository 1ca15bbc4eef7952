"""Standings of a set of games: records, crosstable and ratings, in one object.

The text table, the `--json` output, the HTML report and the ladder all
render this one structure with the same numbers and the same marks (a
`*` on every significant result), so they cannot disagree.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from common.text import printable
from tournaments.outcomes import seat_outcome
from tournaments.stats.crosstable import Cell, crosstable
from tournaments.stats.elo import finite_or_none, interval_text

if TYPE_CHECKING:
    from tournaments.stats.plackett_luce import Rating

SIGNIFICANT = "*"
"""The mark of a result whose 95% interval excludes an even score, in every format."""


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

    def pairings(self) -> list[tuple[str, str, Cell]]:
        """Each pair of bots that met once, the better-ranked first."""
        out = []
        for i, a in enumerate(self.names):
            for b in self.names[i + 1:]:
                c = self.cells.get((a, b))
                if c is not None and c.games:
                    out.append((a, b, c))
        return out

    def rating_text(self, name: str) -> str:
        r = self.ratings[name]
        return interval_text(r.elo, r.low, r.high) if r.games else "no games"

    def to_json(self) -> dict[str, Any]:
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
                    "elo_low": _rounded(self.ratings[n].low),
                    "elo_high": _rounded(self.ratings[n].high),
                    "elo_text": self.rating_text(n),
                    "forfeit_reasons": dict(self.forfeit_reasons.get(n, {})),
                }
                for n in self.names
            ],
            "crosstable": [
                {"bot": a, "opponent": b, **c.to_json()}
                for (a, b), c in self.cells.items()
                if c.games
            ],
        }


def _rounded(x: float) -> float | None:
    v = finite_or_none(x)
    return None if v is None else round(v, 1)


def compute(games: Iterable[Any], names: Sequence[str] | None = None) -> Standings:
    """Standings from stored games (GameRecords) or (Result, fault reason)
    pairs. `names` fixes the field (bots without games are listed with
    empty records)."""
    games = list(games)
    played = [g if hasattr(g, "result") else g[0] for g in games]
    results = [g.result if hasattr(g, "result") else g for g in played]
    why = [g.fault_reason if hasattr(g, "fault_reason") else g[1] for g in games]
    if names is None:
        names = sorted({s for r in results for s in r.seats})
    names = list(names)
    counts = {n: Counter[str]() for n in names}
    reasons: dict[str, Counter[str]] = {}
    for res, reason in zip(results, why):
        for seat, name in enumerate(res.seats):
            outcome = seat_outcome(res, seat)
            counts[name][outcome] += 1
            if outcome == "forfeit":
                reasons.setdefault(name, Counter())[_reason_kind(reason or "")] += 1
    records = {
        n: Record(n, sum(c.values()), c["win"], c["draw"], c["loss"], c["forfeit"])
        for n, c in counts.items()
    }
    # numpy only here, where standings are computed: every command that
    # imports this module (the CLIs, for their types) would pay 0.3-0.5 s of
    # CPU at start-up for it, games played or not.
    from tournaments.stats.plackett_luce import ratings

    rated = {r.name: r for r in ratings(results, names)}
    order = sorted(names, key=lambda n: -rated[n].elo)
    return Standings(
        order,
        records,
        rated,
        crosstable(played, order),
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


def score_text(c: Cell) -> str:
    """A mean score with its significance mark, the same in every format."""
    return f"{c.mean:.2f}{SIGNIFICANT if c.significant else ''}"


def percent(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def render_text(st: Standings) -> str:
    """A plain-text standings table, pairings and crosstable for the terminal."""
    w = max([len(n) for n in st.names] + [4])
    lines = [
        f"{'#':>2}  {'bot':<{w}}  {'games':>5}  {'wins':>5}  {'draws':>5}  {'losses':>6}  "
        f"{'forf':>4}  Elo [95% interval]"
    ]
    for i, n in enumerate(st.names, 1):
        r = st.records[n]
        lines.append(
            f"{i:>2}  {n:<{w}}  {r.games:>5}  {r.wins:>5}  {r.draws:>5}  {r.losses:>6}  "
            f"{r.forfeits:>4}  {st.rating_text(n)}"
        )
    pairings = st.pairings()
    if pairings:
        lines += ["", f"Pairings: first bot's view ({SIGNIFICANT} = significant at 95%; pentanomial of the"
                      " seat-swapped pairs: [LL, LD, DD/WL, WD, WW])"]
        rows = [("bot", "opponent", "games", "W-D-L", "score [95%]", "Elo diff [95%]", "LOS", "draws",
                 "pentanomial", "distinct")]
        for a, b, c in pairings:
            rows.append((a, b, str(c.games), f"{c.wins}-{c.draws}-{c.losses}",
                         f"{score_text(c)} [{c.low:.2f}, {c.high:.2f}]", c.elo_text(), percent(c.los),
                         percent(c.draw_ratio), " ".join(map(str, c.penta)), str(c.distinct)))
        widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
        for texts in rows:
            lines.append("  ".join(x.ljust(widths[k]) if k < 2 else x.rjust(widths[k]) for k, x in enumerate(texts)))
    if len(st.names) > 2:
        lines += ["", f"Crosstable: row's mean score against column ({SIGNIFICANT} = significant at 95%)"]
        cw = max(w, 6)
        lines.append(" " * (w + 2) + "".join(f"{n[:cw]:>{cw + 2}}" for n in st.names))
        for a in st.names:
            row = []
            for b in st.names:
                cell = st.cells.get((a, b))
                text = "-" if a == b or cell is None or not cell.games else score_text(cell)
                row.append(f"{text:>{cw + 2}}")
            lines.append(f"{a:<{w}}  " + "".join(row))
    for n, reasons in st.forfeit_reasons.items():
        for reason, k in reasons.most_common():  # a reason quotes the bot's own bytes: escape them
            lines.append(f"forfeits: {n}: {k} x {printable(reason)}")
    return "\n".join(lines)
