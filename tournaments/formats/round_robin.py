"""Round robin and gauntlet: a fixed schedule, then standings of all its games."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tournaments import schedule
from tournaments.entrants import Entrant
from tournaments.result import TournamentResult
from tournaments.runner import Context, make_plan, open_tournament, run
from tournaments.schedule import Seatings
from tournaments.standings import compute


def round_robin(
    ctx: Context,
    entrants: Sequence[Entrant],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    seed: int = 0,
    openings: Any = "default",
) -> TournamentResult:
    """Every group of `players` distinct entrants, each seating, `games` times.
    `seed` fixes the openings' order and each game's seed."""
    specs = schedule.round_robin(len(entrants), players, games, seatings)
    return _play_fixed(ctx, "round-robin", entrants, specs, players, seatings, seed, openings)


def gauntlet(
    ctx: Context,
    challenger: Entrant,
    field_: Sequence[Entrant],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    seed: int = 0,
    openings: Any = "default",
) -> TournamentResult:
    """The challenger at every table with each group of `players - 1` field bots."""
    entrants = [challenger, *field_]
    specs = schedule.gauntlet(len(entrants), players, games, seatings)
    res = _play_fixed(ctx, "gauntlet", entrants, specs, players, seatings, seed, openings)
    res.details["gauntlet"] = gauntlet_table(res.standings, challenger.name, [e.name for e in field_])
    return res


def gauntlet_table(st: Any, challenger: str, field_: Sequence[str]) -> list[dict[str, Any]]:
    """The challenger's score against each field bot, from the standings' cells."""
    rows = []
    for name in field_:
        c = st.cells.get((challenger, name))
        if c is None or not c.games:
            continue
        rows.append({"opponent": name, **c.to_json()})
    return rows


def _play_fixed(
    ctx: Context,
    kind: str,
    entrants: Sequence[Entrant],
    specs: list[schedule.GameSpec],
    players: int,
    seatings: Seatings,
    seed: int,
    openings: Any,
) -> TournamentResult:
    plan = make_plan(ctx, entrants, players, seed=seed, openings=openings)
    config = {"players": players, "seatings": seatings, "options": ctx.options.to_json(), **plan.config()}
    tid = open_tournament(ctx, kind, config, entrants)
    ctx.store.games(tid)  # a damaged row is reported now, before any game is played
    new = run(ctx, tid, entrants, specs, plan, total=len(specs), label=kind)
    wanted = {s.key for s in specs}
    stored = [g for g in ctx.store.games(tid) if g.key in wanted]
    st = compute(stored, [e.name for e in entrants])
    return TournamentResult(kind, str(ctx.store.path), tid, list(entrants), st, len(new),
                            {"openings": plan.openings.describe(), "seed": seed})
