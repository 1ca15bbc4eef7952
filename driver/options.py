"""The game options of every command that plays games (`driver run`,
`driver check`, `tournament ...`, `ladder ...`), so that each is spelled,
checked and explained once, with the original driver's spellings accepted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

base_option = click.option(
    "--base", is_flag=True, help="Play with all 13 base-set cards (default: the 8 simple ones)."
)
max_days_option = click.option(
    "--max-days",
    "--max_days",
    "max_days",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    metavar="N",
    help="Days played before a game is decided as it stands (usually a draw).",
)
timeout_option = click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="Time a bot has for each move.",
)
fair_option = click.option(
    "--fair",
    is_flag=True,
    help="Hide earlier defenders' choices from later defenders (the original shows them; "
    "traces then differ from the original's).",
)

def _isolation_available(ctx: click.Context, param: click.Parameter, mode: str) -> str:
    """--isolation namespaces where they cannot be had is a usage error, said before any game."""
    if mode == "namespaces":
        from driver.isolation import namespaces_unavailable

        why = namespaces_unavailable()
        if why is not None:
            raise click.BadParameter(f"namespaces are not available here: {why}", ctx=ctx, param=param)
    return mode


isolation_option = click.option(
    "--isolation",
    callback=_isolation_available,
    type=click.Choice(["auto", "namespaces", "none"]),
    default="auto",
    show_default=True,
    help="How bots are fenced off from the referee and each other: namespaces (own user, PID, mount "
    "and network namespaces, a private /tmp; as root, bots run as nobody), none (no fences at all: "
    "the referee's environment, no limits), or auto: namespaces where the system allows them, else "
    "none with limits and a clean environment (and it says so). See docs/protocol.md.",
)


def game_options(f: F) -> F:
    """--base, --max-days, --timeout and --fair, in that order."""
    for option in (fair_option, timeout_option, max_days_option, base_option):
        f = option(f)
    return f


# Time controls ---------------------------------------------------------------

startup_option = click.option(
    "--startup",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SECONDS",
    help="Extra time for each bot's first answer after its process starts (loading a model, a JVM,"
    " a loaded machine). [default: 30]",
)
margin_option = click.option(
    "--margin",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    metavar="SECONDS",
    help="Grace past the timeout before an answer counts as missing (pipes, scheduling).",
)
bot_option_option = click.option(
    "--bot-option",
    "bot_options",
    type=(str, str),
    multiple=True,
    metavar="NAME KEY=VALUE[,...]",
    help="One bot's own time control, seed, limits or variables (NAME: its display name, or '*' for every"
    " bot; keys timeout, startup, margin in seconds, seed=on|off, cpu=SECONDS of CPU per move, memory=SIZE"
    " [2G], processes=N [256], files=N [1024], filesize=SIZE [1G], scratch=SIZE [512M], env=NAME[=VALUE]),"
    " e.g. --bot-option mcts timeout=2,startup=60,memory=4G. Repeatable.",
)


def _env_entries(ctx: click.Context, param: click.Parameter, entries: tuple[str, ...]) -> tuple[str, ...]:
    """A bad variable name is a usage error, said before any bot starts."""
    from driver.isolation import check_env_entry

    try:
        return tuple(check_env_entry(e) for e in entries)
    except ValueError as e:
        raise click.BadParameter(str(e), ctx=ctx, param=param) from None


bot_env_option = click.option(
    "--bot-env",
    "bot_env",
    multiple=True,
    callback=_env_entries,
    metavar="NAME[=VALUE]",
    help="A variable every bot gets: NAME copies yours, NAME=VALUE sets it (one bot's own: --bot-option NAME"
    " env=...). Bots otherwise get only PATH, LANG, LC_*, TZ, TERM and HOME (their scratch folder), and"
    " the variables named in $ECONOMANCY_BOT_ENV. Repeatable.",
)


def time_control_options(f: F) -> F:
    """--startup, --margin, --bot-option (per bot, in cutechess's spirit) and --bot-env."""
    for option in (bot_env_option, bot_option_option, margin_option, startup_option):
        f = option(f)
    return f


def startup_or_default(value: float | None) -> float:
    from driver.game import STARTUP

    return STARTUP if value is None else value


# The same flag, the same meaning, on every command ------------------------------

concurrency_option = click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1),
    default=None,
    metavar="N",
    help="Games (or workers) at once. [default: the number of cores]",
)
ray_address_option = click.option(
    "--ray-address",
    envvar="RAY_ADDRESS",
    default=None,
    metavar="ADDR",
    help="Ray cluster to run on (also the RAY_ADDRESS variable; 'auto': the local cluster)."
    " [default: a Ray instance started here]",
)
ray_working_dir_option = click.option(
    "--ray-working-dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="A folder sent with the job to every Ray node and made each worker's current directory"
    " (Ray's runtime_env working_dir): bots given by paths relative to it run on nodes that share"
    " no folder with this one. Run the command from DIR itself (its bots are checked here first).",
)
version_option = click.version_option(
    None, "--version", package_name="economancy-arena", message="%(prog)s (economancy-arena) %(version)s"
)


class VersionedGroup(click.Group):
    """A command group whose every subcommand also takes `--version`, as the
    docs promise of every command (`driver run --version`); commands added
    later (by other packages) get it too."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        if not any(isinstance(p, click.Option) and "--version" in p.opts for p in cmd.params):
            version_option(cmd)
        super().add_command(cmd, name)
