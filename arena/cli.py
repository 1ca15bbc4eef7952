"""The console scripts (pyproject's [project.scripts]): each package's
commands, composed here so that no package imports one above it.

`python -m arena.cli ARGS` is the `driver` command. Importing this module
registers `remote:NAME` (`server.remote_kind`) as a kind of BOT, so every
command that takes BOTs accepts it.

Each command's package is imported when that command is first asked for
(`__getattr__` below), not with this module: every `driver` started paid
for the tournaments' statistics (NumPy), the exploiter and the evolver,
1.3 s of CPU before its first line; the test suite starts it hundreds
of times.
"""

from __future__ import annotations

import copy
import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

import server.remote_kind  # noqa: F401  (registers remote:NAME with driver.botspec)
from driver.signals import Stopped, stop_on_signals

if TYPE_CHECKING:  # what __getattr__ hands out, for type checkers
    from exploit.cli import main as exploit_main
    from tournaments.cli import ladder_main, tournament_main

    driver: click.Group
    evolve: click.Group

__all__ = ["driver", "driver_main", "evolve", "evolve_main", "exploit_main", "ladder_main", "tournament_main"]


def _composed(group: click.Group, *commands: click.Command) -> click.Group:
    """`group` with `commands` added, the package's own group left as it is."""
    whole = copy.copy(group)
    whole.commands = dict(group.commands)
    for command in commands:
        whole.add_command(command)
    return whole


def _driver() -> click.Group:
    """`driver`: run, check, schema, play (the referee's), view (the viewer's), serve and connect (the server's)."""
    from driver.cli import driver as own
    from server.cli import connect, serve
    from viewer.cli import view

    return _composed(own, view, serve, connect)


def _evolve() -> click.Group:
    """`evolve`: run, show, plot (the evolver's) and play (a person against its genomes, through `driver play`)."""
    from bots.evolved.cli import key_param
    from bots.evolved.cli import main as own
    from driver.play import PLAY_EPILOG, play_options

    @click.command("play", epilog=PLAY_EPILOG)
    @click.argument("key", callback=key_param)
    @click.option("--players", "-p", type=click.IntRange(2, 4), default=None,
                  help="Players at the table, you included: you against the run's P-1 strongest."
                  " [default: the run's --players]")
    @play_options
    def evolve_play(key: str, players: int | None, **play: object) -> None:
        """Play the strongest genomes evolved under KEY yourself, in this terminal.

        The run's set of cards (simple or base) is played; the opponents are
        the last generation's leader and elites, then earlier leaders.
        """
        import os
        import tempfile

        import orjson

        from bots.evolved.store import Store
        from common.settings import GameSettings
        from driver.botspec import parse_bot
        from driver.play import game_options_for, run_play

        store = Store(key)
        try:
            settings = store.settings()
            wanted = (players or int(settings.get("players", 2))) - 1
            genomes = store.strongest(wanted)
        except LookupError as problem:
            raise click.UsageError(str(problem)) from None
        if len(genomes) < wanted:
            click.echo(f"key {key!r} holds {len(genomes)} distinct strong genome(s) so far: some play twice", err=True)
            genomes = [genomes[i % len(genomes)] for i in range(wanted)]
        with tempfile.TemporaryDirectory(prefix="evolve-play-") as folder:
            os.chmod(folder, 0o755)  # bots may run as another user (docs/protocol.md, isolation)
            specs = []
            for rank, genome in enumerate(genomes, 1):
                path = os.path.join(folder, f"{rank}.json")
                with open(path, "wb") as out:
                    out.write(orjson.dumps(genome.to_json()))
                os.chmod(path, 0o644)
                specs.append(parse_bot(f"{key}-{rank}=evolved --genome {path}"))
            seat, name, trace, clock, seed, bot_options = (
                play.pop(k) for k in ("seat", "name", "trace", "clock", "seed", "bot_options"))
            game = GameSettings.from_options({**play, "base": bool(settings.get("base", False))})  # the run's card set
            options = game_options_for(specs, seat, game, seed=seed, bot_options=bot_options)  # type: ignore[arg-type]
            run_play(specs, seat, name, options, trace, clock)  # type: ignore[arg-type]

    return _composed(own, evolve_play)


def _tournament() -> click.Group:
    from tournaments.cli import tournament_main as own

    return own


def _ladder() -> click.Group:
    from tournaments.cli import ladder_main as own

    return own


def _exploit() -> click.Command:
    from exploit.cli import main as own

    return own


_COMMANDS: dict[str, Callable[[], click.Command]] = {
    "driver": _driver, "evolve": _evolve, "tournament_main": _tournament, "ladder_main": _ladder,
    "exploit_main": _exploit,
}


@functools.cache
def __getattr__(name: str) -> Any:
    """A command, built (its package imported) the first time it is asked for."""
    if name not in _COMMANDS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _COMMANDS[name]()


def driver_main() -> None:
    """Console entry point (`driver`)."""
    # SIGTERM and SIGHUP unwind like Ctrl-C, so the game's cleanup still ends every bot.
    stop_on_signals()
    try:
        __getattr__("driver")(prog_name="driver")
    except Stopped as e:  # outside a game: nothing to clean up
        sys.exit(128 + e.signum)


def evolve_main() -> None:
    """Console entry point (`evolve`)."""
    __getattr__("evolve")(prog_name="evolve")


if __name__ == "__main__":
    driver_main()
