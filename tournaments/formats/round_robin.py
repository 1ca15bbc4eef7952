"""Round robin and gauntlet: a fixed schedule, then standings of all its games."""

from __future__ import annotations

from collections.abc import Sequence

from tournaments import schedule
from tournaments.entrants import Entrant
from tournaments.result import TournamentResult
from tournaments.runner import Context, run
from tournaments.schedule import Seatings
from tournaments.standings import compute


def round_robin(
    ctx: Context,
    entrants: Sequence[Entrant],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    bootstrap: int = 200,
    seed: int = 0,
) -> TournamentResult:
    """Every group of `players` distinct entrants, each seating, `games` times.
    `seed` seeds the bootstrap of the rating intervals."""
    specs = schedule.round_robin(len(entrants), players, games, seatings)
    return _play_fixed(ctx, "round-robin", entrants, specs, players, seatings, bootstrap, seed)


def gauntlet(
    ctx: Context,
    challenger: Entrant,
    field_: Sequence[Entrant],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    bootstrap: int = 200,
    seed: int = 0,
) -> TournamentResult:
    """The challenger at every table with each group of `players - 1` field bots."""
    entrants = [challenger, *field_]
    specs = schedule.gauntlet(len(entrants), players, games, seatings)
    return _play_fixed(ctx, "gauntlet", entrants, specs, players, seatings, bootstrap, seed)


def _play_fixed(
    ctx: Context,
    kind: str,
    entrants: Sequence[Entrant],
    specs: list[schedule.GameSpec],
    players: int,
    seatings: Seatings,
    bootstrap: int,
    seed: int,
) -> TournamentResult:
    config = {"players": players, "seatings": seatings, "options": ctx.options.to_json()}
    tid = ctx.store.tournament(kind, config, [e.identity for e in entrants])
    new = run(ctx, tid, entrants, specs, total=len(specs), label=kind)
    wanted = {s.key for s in specs}
    stored = [g for g in ctx.store.games(tid) if g.key in wanted]
    st = compute(
        [(g.result, g.fault_reason) for g in stored],
        [e.name for e in entrants],
        bootstrap=bootstrap,
        seed=seed,
    )
    return TournamentResult(kind, str(ctx.store.path), tid, list(entrants), st, len(new))
