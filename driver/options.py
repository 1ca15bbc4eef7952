"""The referee's options on every command that plays games (`driver run`,
`driver check`, `driver play`, `tournament ...`, `ladder ...`, `evolve`):
how bots are fenced off, their time controls, limits and variables.
Options every command shares are in `common.options`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from common.settings import MARGIN, MODES, STARTUP, Isolation

F = TypeVar("F", bound=Callable[..., Any])


def _isolation_available(ctx: click.Context, param: click.Parameter, mode: str) -> str:
    """--isolation namespaces where they cannot be had is a usage error, said before any game."""
    if mode == Isolation.NAMESPACES:
        from driver.isolation import namespaces_unavailable  # lazily: the command's start-up stays light

        why = namespaces_unavailable()
        if why is not None:
            raise click.BadParameter(f"namespaces are not available here: {why}", ctx=ctx, param=param)
    return mode


isolation_option = click.option(
    "--isolation",
    callback=_isolation_available,
    type=click.Choice(MODES),
    default=Isolation.AUTO.value,
    show_default=True,
    help="How bots are fenced off from the referee and each other: namespaces (own user, PID, mount "
    "and network namespaces, a private /tmp; as root, bots run as nobody), none (no fences at all: "
    "the referee's environment, no limits), or auto: namespaces where the system allows them, else "
    "none with limits and a clean environment (and it says so). See docs/protocol.md.",
)


# Time controls ---------------------------------------------------------------

startup_option = click.option(
    "--startup",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SECONDS",
    help="Extra time for each bot's first answer after its process starts (loading a model, a JVM,"
    f" a loaded machine). [default: {STARTUP:g}]",
)
margin_option = click.option(
    "--margin",
    type=click.FloatRange(min=0),
    default=MARGIN,
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
