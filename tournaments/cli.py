"""`tournament` and `ladder` command lines (click).

Results go to stdout (a table, or one JSON object with --json);
progress (a bar on a terminal, one line per game elsewhere), the
database path and the bracket as it progresses go to stderr, so `--json`
output pipes cleanly. Bad input exits with status 2 and one line saying
what is wrong, having played nothing and left no file behind; a failure
while playing exits with 1; Ctrl-C exits with 130 after saying how to
resume.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

import click
import orjson

from common.options import (
    backend_for,
    base_option,
    concurrency_option,
    fair_option,
    max_days_option,
    ray_address_option,
    ray_working_dir_option,
    timeout_option,
    VersionedGroup,
    version_option,
)
from driver.options import isolation_option, time_control_options
from common.safefile import UnsafePath, write_file
from tournaments import api
from tournaments.errors import PlayError, TournamentError
from tournaments.ladder import Ladder, default_db, pool_json
from tournaments.result import TournamentResult
from tournaments.standings import render_text
from tournaments.store import Store
from tournaments.workers import PlayOptions
from viewer.cli import VIEW_EPILOG, export_options

F = TypeVar("F", bound=Callable[..., Any])


_results: IO[str] | None = None
"""With --json while games are played: the real standard output, kept for
the one JSON object (_keep_stdout_for_json)."""


def _emit_json(obj: Any) -> None:
    out = _results or sys.stdout
    out.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode() + "\n")
    out.flush()


def _keep_stdout_for_json(as_json: bool) -> None:
    """With --json, standard output carries the one JSON object and nothing
    else, whatever the libraries that play the games print. Ray, for one,
    writes to standard output from its own threads (a node lost mid-run:
    "raylet crashes unexpectedly ..."), even after the object, as the
    process ends; so file descriptor 1 now points at standard error, and
    the object goes to a copy of the real standard output. Only where
    sys.stdout is descriptor 1 (not under click's test runner, which
    captures it in memory)."""
    global _results
    if not as_json or _results is not None:
        return
    try:
        if sys.stdout.fileno() != 1:
            return
    except (AttributeError, OSError, ValueError):
        return
    sys.stdout.flush()
    _results = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP end a run like Ctrl-C: workers stopped, finished games kept."""
    raise KeyboardInterrupt


@contextmanager
def _user_errors(db: str | Path | None = None) -> Iterator[None]:
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGHUP, _terminate)  # the terminal went away: stop the same way
    try:
        yield
    except PlayError as err:
        raise click.ClickException(str(err)) from None
    except (TournamentError, ValueError) as err:
        raise click.UsageError(str(err)) from None
    except UnsafePath as err:  # a file we refuse to write (common.safefile): the message names it
        raise click.ClickException(str(err)) from None
    except KeyboardInterrupt:
        where = f" in {db}" if db else ""
        click.echo(
            f"\ninterrupted: every finished game is stored{where}; run the same command again to resume",
            err=True,
        )
        sys.exit(130)


def _play_options(f: F) -> F:
    """Options shared by every command that plays games."""
    decorators = [
        base_option,
        max_days_option,
        timeout_option,
        time_control_options,
        fair_option,
        isolation_option,
        concurrency_option,
        click.option("--backend", type=click.Choice(["local", "ray"]), default=None,
                     help="Worker processes here, or Ray tasks. [default: local; ray with --ray-address]"),
        ray_address_option,
        ray_working_dir_option,
        click.option("--reuse/--no-reuse", default=None,
                     help="Keep every bot's process alive across its games, or start a new one for each game"
                     " (repeatable runs of seeded bots). [default: keep those the start-up probe finds reusable;"
                     " one that exits after a game is restarted; a kept process is seeded by its first game only]"),
        click.option("--json", "as_json", is_flag=True,
                     help="Print one JSON object on stdout instead of tables (progress stays on stderr)."),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


def _db_option(f: F) -> F:
    return click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=api.DEFAULT_DB,
                        show_default=True, help="SQLite results file (its folder must exist); rerunning resumes.")(f)


def _format_options(f: F) -> F:
    """What every tournament format takes besides its table shape."""
    decorators = [
        _db_option,
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Fixes the openings' order, each game's seed (our bots get --seed) and the"
                     " elimination's draw: the same command gives the same games for seed-deterministic bots."),
        click.option("--openings", default="default", show_default=True, metavar="default|none|random:K|FILE",
                     help="Start positions, each played once per seating: the shipped suite for the card set and"
                     " table size, the real start, K random plies drawn from --seed, or a file of JSON move lists."),
        click.option("--new", is_flag=True,
                     help="Start a new tournament even if the database holds one of the same kind and bots"
                     " with other settings (otherwise refused, saying how they differ)."),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


def _table_options(f: F) -> F:
    decorators = [
        click.option("--games", "-n", type=click.IntRange(1), default=1, show_default=True,
                     help="Games per group of bots and seating (each from its own opening)."),
        click.option("--players", "-p", type=click.IntRange(2, 4), default=2, show_default=True,
                     help="Players per game."),
        click.option("--seatings", type=click.Choice(["all", "latin"]), default="all", show_default=True,
                     help="Every seat permutation, or a Latin square (each bot once in each seat)."),
        _format_options,
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


def _format_args(kw: dict[str, Any]) -> dict[str, Any]:
    return {"db": kw["db"], "seed": kw["seed"], "openings": kw["openings"], "new": kw["new"], **_playing_args(kw)}


def _playing_args(kw: dict[str, Any]) -> dict[str, Any]:
    backend = backend_for(kw["backend"], kw["ray_address"])
    return {
        "backend": backend,
        "concurrency": kw["concurrency"],
        "ray_address": kw["ray_address"] if backend == "ray" else None,
        "ray_working_dir": kw["ray_working_dir"],
        "progress": True,
        "reuse": kw["reuse"],
        "options": PlayOptions.from_options(kw),  # the game settings and --bot-option
    }


def _show(res: TournamentResult, as_json: bool, extra_text: str = "") -> None:
    if as_json:
        _emit_json(res.to_json())
        return
    click.echo(render_text(res.standings))
    if extra_text:
        click.echo("\n" + extra_text)
    if "openings" in res.details:
        click.echo(f"\nopenings: {res.details['openings']}; seed {res.details.get('seed')}")
    click.echo(f"\n{res.played_now} games played now; results in {res.db} (tournament {res.tournament_id})")


def _announce(db: Path, as_json: bool) -> None:
    _keep_stdout_for_json(as_json)
    click.echo(f"results: {db.resolve()}", err=True)


@click.group(cls=VersionedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@version_option
def tournament_main() -> None:
    """Run Economancy tournaments between bot programs.

    BOT is anything `driver run` accepts (a path, a quoted command line,
    one of our bot names with options) and may carry a display name:
    `name=command`. The same bot may be entered more than once.
    """


@tournament_main.command("round-robin")
@click.argument("bots", nargs=-1, required=True)
@_table_options
@_play_options
def round_robin_cmd(bots: tuple[str, ...], **kw: Any) -> None:
    """Every group of P distinct bots, seats rotated, N games per group and seating."""
    with _user_errors(kw["db"]):
        _announce(kw["db"], kw["as_json"])
        res = api.round_robin(
            bots, players=kw["players"], games=kw["games"], seatings=kw["seatings"], **_format_args(kw),
        )
        _show(res, kw["as_json"])


@tournament_main.command("gauntlet")
@click.argument("challenger")
@click.argument("bots", nargs=-1, required=True)
@_table_options
@_play_options
def gauntlet_cmd(challenger: str, bots: tuple[str, ...], **kw: Any) -> None:
    """CHALLENGER against a field of BOTs (at every table, with P-1 of them)."""
    with _user_errors(kw["db"]):
        _announce(kw["db"], kw["as_json"])
        res = api.gauntlet(
            challenger, bots, players=kw["players"], games=kw["games"], seatings=kw["seatings"],
            **_format_args(kw),
        )
        _show(res, kw["as_json"], _gauntlet_text(res.details["gauntlet"], challenger=res.entrants[0].name))


@tournament_main.command("elimination")
@click.argument("bots", nargs=-1, required=True)
@_table_options
@_play_options
def elimination_cmd(bots: tuple[str, ...], **kw: Any) -> None:
    """A knockout bracket in tables of P; the best of each table advances.

    Seeds come from stored ratings when every bot has games in the
    database, otherwise from one seeding round. Byes go to the top seeds.
    Tie-break at a table: most wins, then fewest forfeits, then the
    better seed.
    """
    with _user_errors(kw["db"]):
        _announce(kw["db"], kw["as_json"])
        res = api.elimination(
            bots, players=kw["players"], games=kw["games"], seatings=kw["seatings"],
            echo=lambda s: click.echo(s, err=True), **_format_args(kw),
        )
        _show(res, kw["as_json"], f"Champion: {res.details['champion']}")


@tournament_main.command("sprt")
@click.argument("a")
@click.argument("b")
@click.option("--elo0", type=float, required=True, help="Elo difference of H0.")
@click.option("--elo1", type=float, required=True, help="Elo difference of H1.")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--beta", type=float, default=0.05, show_default=True)
@click.option("--max-games", type=click.IntRange(2), default=20000, show_default=True,
              help="Stop undecided after this many games in all (pairs of games).")
@_format_options
@_play_options
def sprt_cmd(a: str, b: str, **kw: Any) -> None:
    """Is A stronger than B by elo1 rather than elo0? Plays seat-swapped
    pairs (pentanomial) until the sequential test decides."""
    from tournaments.formats.sprt import render

    with _user_errors(kw["db"]):
        _announce(kw["db"], kw["as_json"])
        res = api.sprt(
            a, b, elo0=kw["elo0"], elo1=kw["elo1"], alpha=kw["alpha"], beta=kw["beta"],
            max_games=kw["max_games"], **_format_args(kw),
        )
        _show(res, kw["as_json"], render(res.details))


def _gauntlet_text(rows: list[dict[str, Any]], challenger: str) -> str:
    lines = [f"Gauntlet: {challenger} against each bot (* = significant at 95%)"]
    for r in rows:
        mark = "*" if r["significant"] else ""
        lines.append(f"  {r['opponent']}: {r['wins']}-{r['draws']}-{r['losses']} in {r['games']} games,"
                     f" score {r['mean']:.2f}{mark} [{r['low']:.2f}, {r['high']:.2f}], Elo {r['elo_text']}")
    return "\n".join(lines)


def _stored_db(positional: Path | None, option: Path | None) -> Path:
    """The results file a reading command opens: named as its argument (as
    these commands always took it) or with --db, as every command that plays
    games takes it, so that `tournament round-robin ... --db F` is followed by
    `tournament report --db F`; with neither, the playing commands' default."""
    if positional is not None and option is not None and positional != option:
        raise click.UsageError(f"two results files named: {positional} and --db {option}; name one")
    db = positional or option or api.DEFAULT_DB
    if not db.exists():
        raise click.UsageError(f"no results file at {db} (name one as DB or with --db)")
    if db.is_dir():
        raise click.UsageError(f"{db} is a folder, not a results file")
    return db


_stored_db_option = click.option("--db", "db_option", type=click.Path(dir_okay=False, path_type=Path), default=None,
                                 help=f"SQLite results file, as DB [default: {api.DEFAULT_DB}].")
"""--db of the commands that read a results file (_stored_db)."""


def _existing_db(f: F) -> F:
    """DB as an argument or --db (_stored_db)."""
    f = _stored_db_option(f)
    return click.argument("db", type=click.Path(dir_okay=False, path_type=Path), required=False)(f)


@tournament_main.command("report")
@_existing_db
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=Path("report.html"),
              show_default=True)
@click.option("--tournament", "tournament_id", type=int, default=None,
              help="Only this tournament of the database (default: every game).")
@click.option("--replays/--no-replays", default=True, show_default=True,
              help="Write every game's replay page into OUTPUT_replays/ beside the report, linked from its game list.")
def report_cmd(db: Path | None, db_option: Path | None, output: Path, tournament_id: int | None,
               replays: bool) -> None:
    """Write one self-contained HTML page of the results in DB, and a replay
    page per game beside it."""
    from tournaments.html_report import report

    db = _stored_db(db, db_option)
    folder = f"{output.stem}_replays"
    with _user_errors():
        if not output.parent.is_dir():
            raise TournamentError(f"{output.parent} does not exist (create it first)")
        with Store.open(db, readonly=True) as store:
            page = report(store, tournament_id, replay_dir=output.parent / folder if replays else None,
                          link_prefix=folder + "/")
        write_file(output, page)
        click.echo(f"wrote {output}" + (f" and its games' replays in {output.parent / folder}" if replays else ""))


@tournament_main.command("replay", epilog=VIEW_EPILOG)
@click.argument("db_and_game", nargs=-1, required=True, metavar="[DB] GAME_ID")
@_stored_db_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The page to write [default: game-GAME_ID.html].")
@click.option("--open", "open_", is_flag=True, help="Open the page in your browser.")
@export_options
def replay_cmd(db_and_game: tuple[str, ...], db_option: Path | None, output: Path | None, open_: bool,
               **export: Any) -> None:
    """Write the replay page of one stored game (GAME_ID as in the report's
    game list) and print its path. A forfeit shows the referee's reason
    and the faulting bot's kept standard error."""
    from tournaments.report_games import game_replay
    from viewer.cli import emit_replay
    from viewer.model import TraceError

    if len(db_and_game) > 2:
        raise click.UsageError(f"expected [DB] GAME_ID, got {len(db_and_game)} arguments")
    text = db_and_game[-1]
    if not (text.isascii() and text.isdigit() and int(text) >= 1):
        raise click.UsageError(f"GAME_ID must be a game's number (1 or more, as in the report's game list), got {text!r}")
    game_id = int(text)
    db = _stored_db(Path(db_and_game[0]) if len(db_and_game) == 2 else None, db_option)
    with _user_errors():
        with Store.open(db, readonly=True) as store:
            rec = store.game(game_id)
        if not rec.trace:
            raise TournamentError(f"game {game_id} has no stored trace")
        try:
            replay = game_replay(rec)
        except TraceError as e:
            raise TournamentError(f"game {game_id}'s trace cannot be read: {e}") from None
        emit_replay(replay, output or Path(f"game-{game_id}.html"), open_, **export)


@tournament_main.command("list")
@_existing_db
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def list_cmd(db: Path | None, db_option: Path | None, as_json: bool) -> None:
    """What DB holds: each tournament's kind, bots, settings and games."""
    from tournaments.inventory import inventory, render_inventory

    db = _stored_db(db, db_option)
    with _user_errors():
        with Store.open(db, readonly=True) as store:
            inv = inventory(store)
        _emit_json(inv) if as_json else click.echo(render_inventory(inv))


@tournament_main.command("export")
@_existing_db
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write into (made if missing).")
@click.option("--tournament", "tournament_id", type=int, default=None,
              help="Only this tournament of the database (default: every game).")
def export_cmd(db: Path | None, db_option: Path | None, output: Path, tournament_id: int | None) -> None:
    """Each game of DB as a .jsonl trace (the original's format) and games.csv."""
    from tournaments.export import export

    db = _stored_db(db, db_option)
    with _user_errors():
        with Store.open(db, readonly=True) as store:
            n = export(store, output, tournament_id)
        click.echo(f"wrote {n} traces and {output / 'games.csv'}")


# ---------------------------------------------------------------- ladder


def _ladder_db(f: F) -> F:
    return click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help=f"Ladder database [default: {default_db(create=False)}].")(f)


def _ladder_options(f: F) -> F:
    f = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")(f)
    return _ladder_db(f)


@contextmanager
def _ladder(db: Path | None) -> Iterator[Ladder]:
    with _user_errors(db or default_db()):
        with Ladder.open(db) as lad:
            yield lad


@click.group(cls=VersionedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@version_option
def ladder_main() -> None:
    """A persistent pool of bots with ratings that improve as games are played."""


@ladder_main.command("add")
@click.argument("name")
@click.argument("command")
@_ladder_options
def ladder_add(name: str, command: str, db: Path | None, as_json: bool) -> None:
    """Add COMMAND (any BOT form) to the pool as NAME."""
    with _ladder(db) as lad:
        bot = lad.add(name, command)
        if as_json:
            _emit_json({"added": pool_json([bot])[0], "db": str(lad.store.path)})
        else:
            click.echo(f"added {bot.name}: {' '.join(bot.argv)}")


@ladder_main.command("remove")
@click.argument("name")
@_ladder_options
def ladder_remove(name: str, db: Path | None, as_json: bool) -> None:
    """Take NAME out of the pool (its games stay in the history, as NAME~1: the name is free again)."""
    with _ladder(db) as lad:
        retired = lad.remove(name)
        if as_json:
            _emit_json({"removed": name, "history_as": retired, "db": str(lad.store.path)})
        else:
            click.echo(f"removed {name}" + (f"; its games stay in the history as {retired}" if retired else ""))


@ladder_main.command("show")
@base_option
@max_days_option
@_ladder_options
def ladder_show(base: bool, max_days: int, db: Path | None, as_json: bool) -> None:
    """The pool with ratings in one (card set, day limit) pool: the batch fit
    of its games, 95% intervals."""
    with _ladder(db) as lad:
        st = lad.show(base=base, max_days=max_days)
        if as_json:
            _emit_json({"db": str(lad.store.path), "pool": pool_json(lad.pool()), "pools": lad.pools(),
                        **st.to_json()})
        elif not lad.pool():
            click.echo("the ladder is empty: ladder add NAME COMMAND")
        else:
            click.echo(render_text(st))
            others = {k: v for k, v in lad.pools().items()}
            click.echo("\ngames per pool: " + (", ".join(f"{k}: {v}" for k, v in others.items()) or "none yet"))


@ladder_main.command("run")
# Not -n/--games, which means games per group and seating everywhere else.
@click.option("--total", "--games", "games", type=click.IntRange(1), required=True, metavar="N",
              help="Games to play in all.")
@click.option("--players", "-p", type=click.IntRange(2, 4), default=2, show_default=True)
@_ladder_db
@_play_options
def ladder_run(games: int, players: int, db: Path | None, **kw: Any) -> None:
    """Play the games that most reduce rating uncertainty (in the pool of
    --base and --max-days)."""
    _keep_stdout_for_json(kw["as_json"])
    with _ladder(db) as lad:
        res = lad.run(games=games, players=players, **_playing_args(kw))
        _show(res, kw["as_json"])


@ladder_main.command("eval")
@click.argument("command")
@click.option("--games", "-n", type=click.IntRange(1), default=2, show_default=True,
              help="Games per group of bots and seating.")
@click.option("--players", "-p", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--seatings", type=click.Choice(["all", "latin"]), default="all", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Fixes the openings and each game's seed.")
@click.option("--openings", default="default", show_default=True, metavar="default|none|random:K|FILE",
              help="Start positions (see tournament round-robin --help).")
@_ladder_db
@_play_options
def ladder_eval(command: str, games: int, players: int, seatings: str, seed: int, openings: str,
                db: Path | None, **kw: Any) -> None:
    """Rate COMMAND against the pool without adding it."""
    _keep_stdout_for_json(kw["as_json"])
    with _ladder(db) as lad:
        res = lad.eval(command, games=games, players=players, seatings=seatings,  # type: ignore[arg-type]
                       seed=seed, openings=openings, **_playing_args(kw))
        d = res.details
        _show(res, kw["as_json"], f"{d['challenger']}: Elo {d['elo_text']} on the pool's scale (pool mean 0,"
              f" {d['pool']})")
