"""The Python API behind the `tournament` command, one call per format.

Each call opens the database and the backend, plays what is missing and
returns a TournamentResult (standings, details, `to_json()`):

    from tournaments import round_robin, PlayOptions
    res = round_robin(["random", "alice=./alice.py"], games=10, db="runs.sqlite",
                      options=PlayOptions(max_days=30))
    print(res.standings.names[0])

BOT strings are anything `driver run` accepts. Raises TournamentError
for bad input (nothing played), ValueError for impossible parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tournaments.formats import elimination as _elimination
from tournaments.formats import round_robin as _round_robin
from tournaments.formats import sprt as _sprt
from tournaments.backends import make_backend
from tournaments.entrants import parse_entrants
from tournaments.result import TournamentResult
from tournaments.runner import Context
from tournaments.schedule import Seatings, check_field
from tournaments.store import Store
from tournaments.workers import PlayOptions

DEFAULT_DB = Path("tournament.sqlite")


@contextmanager
def playing(
    store: Store,
    *,
    options: PlayOptions | None = None,
    backend: str = "local",
    concurrency: int | None = None,
    progress: bool = False,
    reuse: bool = False,
) -> Iterator[Context]:
    """A backend to play games into an open store (closed on exit).
    `reuse` keeps each bot's process alive across its games in a worker."""
    be = make_backend(backend, concurrency)
    try:
        yield Context(store, be, options or PlayOptions(), progress, reuse)
    finally:
        be.close()


@contextmanager
def session(db: str | Path | None = None, **playing_args: object) -> Iterator[Context]:
    """An open database (default tournament.sqlite) and backend for several calls."""
    store = Store.open(DEFAULT_DB if db is None else db)
    try:
        with playing(store, **playing_args) as ctx:  # type: ignore[arg-type]
            yield ctx
    finally:
        store.close()


def round_robin(
    bots: Sequence[str],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    bootstrap: int = 200,
    seed: int = 0,
    **session_args: object,
) -> TournamentResult:
    entrants = parse_entrants(bots)
    check_field(len(entrants), players)
    with session(**session_args) as ctx:  # type: ignore[arg-type]
        return _round_robin.round_robin(
            ctx, entrants, players=players, games=games, seatings=seatings, bootstrap=bootstrap, seed=seed
        )


def gauntlet(
    challenger: str,
    field: Sequence[str],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    bootstrap: int = 200,
    seed: int = 0,
    **session_args: object,
) -> TournamentResult:
    entrants = parse_entrants([challenger, *field])
    check_field(len(entrants), players)
    with session(**session_args) as ctx:  # type: ignore[arg-type]
        return _round_robin.gauntlet(
            ctx, entrants[0], entrants[1:], players=players, games=games, seatings=seatings,
            bootstrap=bootstrap, seed=seed,
        )


def elimination(
    bots: Sequence[str],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    seed: int = 0,
    echo: Callable[[str], None] = lambda _: None,
    bootstrap: int = 200,
    **session_args: object,
) -> TournamentResult:
    entrants = parse_entrants(bots)
    check_field(len(entrants), 2)
    check_field(max(len(entrants), players), players)
    with session(**session_args) as ctx:  # type: ignore[arg-type]
        return _elimination.elimination(
            ctx, entrants, players=players, games=games, seatings=seatings, seed=seed, echo=echo,
            bootstrap=bootstrap,
        )


def sprt(
    a: str,
    b: str,
    *,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 20000,
    **session_args: object,
) -> TournamentResult:
    ea, eb = parse_entrants([a, b])
    with session(**session_args) as ctx:  # type: ignore[arg-type]
        return _sprt.sprt(
            ctx, ea, eb, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, max_games=max_games
        )
