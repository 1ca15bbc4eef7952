"""`tournament` and `ladder` command lines (click).

Results go to stdout (a table, or one JSON object with --json);
progress, the database path and the bracket as it progresses go to
stderr, so `--json` output pipes cleanly. Bad input exits with status 1
and one line saying what is wrong; Ctrl-C exits with 130 after saying
how to resume.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
import orjson

from driver.options import base_option, fair_option, max_days_option, timeout_option
from tournaments import api
from tournaments.backends import default_concurrency
from tournaments.errors import TournamentError
from tournaments.ladder import Ladder, default_db, pool_json
from tournaments.result import TournamentResult
from tournaments.standings import render_text
from tournaments.store import Store
from tournaments.workers import PlayOptions
from viewer.cli import VIEW_EPILOG, export_options

F = TypeVar("F", bound=Callable[..., Any])


def _emit_json(obj: Any) -> None:
    sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode() + "\n")


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM ends a run like Ctrl-C: workers stopped, finished games kept."""
    raise KeyboardInterrupt


@contextmanager
def _user_errors(db: str | Path | None = None) -> Iterator[None]:
    signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    except (TournamentError, ValueError) as err:
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
        fair_option,
        click.option("--concurrency", "-j", type=click.IntRange(1), default=None,
                     help=f"Games played at once [default: the number of cores, {default_concurrency()}]."),
        click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                     help="Worker processes here, or Ray tasks (RAY_ADDRESS or a local Ray)."),
        click.option("--reuse", is_flag=True,
                     help="Keep each bot's process alive across its games (bots must loop until end of input)."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables."),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


def _table_options(f: F) -> F:
    decorators = [
        click.option("--games", "-n", type=click.IntRange(1), default=1, show_default=True,
                     help="Games per group and seating."),
        click.option("--players", "-p", type=click.IntRange(2, 4), default=2, show_default=True,
                     help="Players per game."),
        click.option("--seatings", type=click.Choice(["all", "latin"]), default="all", show_default=True,
                     help="Every seat permutation, or a Latin square (each bot once in each seat)."),
        click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=api.DEFAULT_DB,
                     show_default=True, help="SQLite results file; rerunning resumes."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Seeds the elimination's seeding draw and the rating intervals' bootstrap."),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


def _session_args(kw: dict[str, Any]) -> dict[str, Any]:
    return {"db": kw["db"], **_playing_args(kw)}


def _playing_args(kw: dict[str, Any]) -> dict[str, Any]:
    return {
        "backend": kw["backend"],
        "concurrency": kw["concurrency"],
        "progress": not kw["as_json"],
        "reuse": kw["reuse"],
        "options": PlayOptions(
            base=kw["base"], max_days=kw["max_days"], timeout=kw["timeout"], fair=kw["fair"]
        ),
    }


def _show(res: TournamentResult, as_json: bool, extra_text: str = "") -> None:
    if as_json:
        _emit_json(res.to_json())
        return
    click.echo(render_text(res.standings))
    if extra_text:
        click.echo("\n" + extra_text)
    click.echo(f"\n{res.played_now} games played now; results in {res.db} (tournament {res.tournament_id})")


def _announce(db: Path, as_json: bool) -> None:
    if not as_json:
        click.echo(f"results: {db.resolve()}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
            bots, players=kw["players"], games=kw["games"], seatings=kw["seatings"], seed=kw["seed"],
            **_session_args(kw),
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
            seed=kw["seed"], **_session_args(kw),
        )
        _show(res, kw["as_json"])


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
        echo = (lambda s: None) if kw["as_json"] else (lambda s: click.echo(s, err=True))
        res = api.elimination(
            bots, players=kw["players"], games=kw["games"], seatings=kw["seatings"], seed=kw["seed"],
            echo=echo, **_session_args(kw),
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
              help="Stop undecided after this many games.")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=api.DEFAULT_DB,
              show_default=True, help="SQLite results file; rerunning resumes.")
@_play_options
def sprt_cmd(a: str, b: str, **kw: Any) -> None:
    """Is A stronger than B by elo1 rather than elo0? Plays seat-swapped
    pairs (pentanomial) until the sequential test decides."""
    from tournaments.formats.sprt import render

    with _user_errors(kw["db"]):
        _announce(kw["db"], kw["as_json"])
        res = api.sprt(
            a, b, elo0=kw["elo0"], elo1=kw["elo1"], alpha=kw["alpha"], beta=kw["beta"],
            max_games=kw["max_games"], **_session_args(kw),
        )
        _show(res, kw["as_json"], render(res.details))


@tournament_main.command("report")
@click.argument("db", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=Path("report.html"),
              show_default=True)
@click.option("--tournament", "tournament_id", type=int, default=None,
              help="Only this tournament of the database (default: every game).")
@click.option("--replays/--no-replays", default=True, show_default=True,
              help="Write every game's replay page into OUTPUT_replays/ beside the report, linked from its game list.")
def report_cmd(db: Path, output: Path, tournament_id: int | None, replays: bool) -> None:
    """Write one self-contained HTML page of the results in DB, and a replay
    page per game beside it."""
    from tournaments.html_report import report

    folder = f"{output.stem}_replays"
    with _user_errors(db):
        with Store.open(db) as store:
            page = report(store, tournament_id, replay_dir=output.parent / folder if replays else None,
                          link_prefix=folder + "/")
        output.write_text(page, encoding="utf-8")
        click.echo(f"wrote {output}" + (f" and its games' replays in {output.parent / folder}" if replays else ""))


@tournament_main.command("replay", epilog=VIEW_EPILOG)
@click.argument("db", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("game_id", type=click.IntRange(min=1), metavar="GAME_ID")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The page to write [default: game-GAME_ID.html].")
@click.option("--open", "open_", is_flag=True, help="Open the page in your browser.")
@export_options
def replay_cmd(db: Path, game_id: int, output: Path | None, open_: bool, **export: Any) -> None:
    """Write the replay page of one stored game (GAME_ID as in the report's
    game list) and print its path. A forfeit shows the referee's reason
    and the faulting bot's kept standard error."""
    from tournaments.report_games import game_replay
    from viewer.cli import emit_replay
    from viewer.model import TraceError

    with _user_errors(db):
        with Store.open(db) as store:
            rec = store.game(game_id)
        if not rec.trace:
            raise TournamentError(f"game {game_id} has no stored trace")
        try:
            replay = game_replay(rec)
        except TraceError as e:
            raise TournamentError(f"game {game_id}'s trace cannot be read: {e}") from None
        emit_replay(replay, output or Path(f"game-{game_id}.html"), open_, **export)


# ---------------------------------------------------------------- ladder


def _ladder_db(f: F) -> F:
    return click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help=f"Ladder database [default: {default_db()}].")(f)


def _ladder_options(f: F) -> F:
    f = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")(f)
    return _ladder_db(f)


@contextmanager
def _ladder(db: Path | None) -> Iterator[Ladder]:
    with _user_errors(db or default_db()):
        with Ladder.open(db) as lad:
            yield lad


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
    """Take NAME out of the pool (its games stay in the history)."""
    with _ladder(db) as lad:
        lad.remove(name)
        if as_json:
            _emit_json({"removed": name, "db": str(lad.store.path)})
        else:
            click.echo(f"removed {name}")


@ladder_main.command("show")
@_ladder_options
def ladder_show(db: Path | None, as_json: bool) -> None:
    """The pool with ratings (batch fit of every ladder game, 95% intervals)."""
    with _ladder(db) as lad:
        st = lad.show()
        if as_json:
            _emit_json({"db": str(lad.store.path), "pool": pool_json(lad.pool()), **st.to_json()})
        else:
            click.echo(render_text(st) if st.names else "the ladder is empty: ladder add NAME COMMAND")


@ladder_main.command("run")
@click.option("--games", "-n", type=click.IntRange(1), required=True, help="Games to play.")
@click.option("--players", "-p", type=click.IntRange(2, 4), default=2, show_default=True)
@_ladder_db
@_play_options
def ladder_run(games: int, players: int, db: Path | None, **kw: Any) -> None:
    """Play the games that most reduce rating uncertainty."""
    with _ladder(db) as lad:
        res = lad.run(games=games, players=players, **_playing_args(kw))
        _show(res, kw["as_json"])


@ladder_main.command("eval")
@click.argument("command")
@click.option("--games", "-n", type=click.IntRange(1), default=2, show_default=True,
              help="Games per group and seating.")
@click.option("--players", "-p", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--seatings", type=click.Choice(["all", "latin"]), default="all", show_default=True)
@_ladder_db
@_play_options
def ladder_eval(command: str, games: int, players: int, seatings: str, db: Path | None, **kw: Any) -> None:
    """Rate COMMAND against the pool without adding it."""
    with _ladder(db) as lad:
        res = lad.eval(command, games=games, players=players, seatings=seatings,  # type: ignore[arg-type]
                       **_playing_args(kw))
        d = res.details
        _show(res, kw["as_json"], f"{d['challenger']}: Elo {d['elo']:.0f} [{d['elo_low']:.0f}, {d['elo_high']:.0f}]"
              " on the pool's scale (pool mean 0)")
