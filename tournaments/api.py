"""The Python API behind the `tournament` command, one call per format.

Each call opens the database and the backend, plays what is missing and
returns a TournamentResult (standings, details, `to_json()`):

    from tournaments import round_robin, PlayOptions

    if __name__ == "__main__":  # worker processes import this script again
        res = round_robin(["random", "alice=./alice.py"], games=10, db="runs.sqlite",
                          options=PlayOptions(max_days=30))
        print(res.standings.names[0])

BOT strings are anything `driver run` accepts. Raises TournamentError
for bad input (nothing played, no file left behind), ValueError for
impossible parameters.

Common keyword arguments: `db`, `backend` ("local" or "ray"),
`concurrency`, `ray_address`, `ray_working_dir`, `options` (PlayOptions), `progress`
(progress on stderr), `reuse`, `new` (start a tournament beside a
stored one that differs from this one instead of refusing); and for the
formats `seed` (fixes the openings, each game's seed and elimination's
draw) and `openings` ("default", "none", "random:K", a file, or a list
of move lists).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tournaments.backends import make_backend
from tournaments.entrants import parse_entrants
from tournaments.formats import elimination as _elimination
from tournaments.formats import round_robin as _round_robin
from tournaments.formats import sprt as _sprt
from tournaments.result import TournamentResult
from tournaments.runner import Context, store_tails
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
    ray_address: str | None = None,
    ray_working_dir: str | Path | None = None,
    progress: bool = False,
    reuse: bool | None = None,
    new: bool = False,
) -> Iterator[Context]:
    """A backend to play games into an open store (closed on exit).
    `reuse` keeps each bot's process alive across its games in a worker:
    True for every bot, False for none, None (the default) for those the
    tournament's start-up probe finds reusable (`driver.probe`);
    `ray_working_dir` is sent to every Ray worker as its current directory
    (the bots' files, for nodes that share no folder with this one)."""
    be = make_backend(backend, concurrency, ray_address, ray_working_dir)
    ctx = Context(store, be, options or PlayOptions(), progress, reuse, new)
    try:
        yield ctx
    finally:
        be.close()
    store_tails(store, [*ctx.waiting_tails, *be.tails()])  # the last games' kept bots end with the workers


@contextmanager
def session(db: str | Path | None = None, **playing_args: object) -> Iterator[Context]:
    """An open database (default tournament.sqlite) and backend for several
    calls. A database this session created is removed again if the session
    fails before storing anything (a rejected command leaves no file)."""
    store = Store.open(DEFAULT_DB if db is None else db)
    try:
        with playing(store, **playing_args) as ctx:  # type: ignore[arg-type]
            yield ctx
    except BaseException:
        store.discard_if_unused()
        raise
    store.close()


def round_robin(
    bots: Sequence[str],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    seed: int = 0,
    openings: object = "default",
    **session_args: object,
) -> TournamentResult:
    entrants = parse_entrants(bots)
    check_field(len(entrants), players)
    with session(**session_args) as ctx:  # type: ignore[arg-type]
        return _round_robin.round_robin(
            ctx, entrants, players=players, games=games, seatings=seatings, seed=seed, openings=openings
        )


def gauntlet(
    challenger: str,
    field: Sequence[str],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    seed: int = 0,
    openings: object = "default",
    **session_args: object,
) -> TournamentResult:
    entrants = parse_entrants([challenger, *field])
    check_field(len(entrants), players)
    with session(**session_args) as ctx:  # type: ignore[arg-type]
        return _round_robin.gauntlet(
            ctx, entrants[0], entrants[1:], players=players, games=games, seatings=seatings, seed=seed,
            openings=openings,
        )


def elimination(
    bots: Sequence[str],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    seed: int = 0,
    openings: object = "default",
    echo: Callable[[str], None] = lambda _: None,
    **session_args: object,
) -> TournamentResult:
    entrants = parse_entrants(bots)
    check_field(len(entrants), 2)
    check_field(max(len(entrants), players), players)
    with session(**session_args) as ctx:  # type: ignore[arg-type]
        return _elimination.elimination(
            ctx, entrants, players=players, games=games, seatings=seatings, seed=seed, echo=echo,
            openings=openings,
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
    seed: int = 0,
    openings: object = "default",
    **session_args: object,
) -> TournamentResult:
    _sprt.check_bounds(elo0, elo1, alpha, beta)
    ea, eb = parse_entrants([a, b])
    with session(**session_args) as ctx:  # type: ignore[arg-type]
        return _sprt.sprt(
            ctx, ea, eb, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, max_games=max_games, seed=seed,
            openings=openings,
        )
