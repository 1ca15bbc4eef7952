"""The game options of every command that plays games (`driver run`,
`driver check`, `tournament ...`, `ladder ...`), so that each is spelled,
checked and explained once, with the original driver's spellings accepted."""

from __future__ import annotations

from collections.abc import Callable
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

isolation_option = click.option(
    "--isolation",
    type=click.Choice(["auto", "namespaces", "none"]),
    default="auto",
    show_default=True,
    help="How bots are fenced off from the referee and each other: namespaces (own user, PID, mount "
    "and network namespaces; as root, bots run as nobody), none, or auto: namespaces where the "
    "system allows them, else none (and it says so). See docs/protocol.md.",
)


def game_options(f: F) -> F:
    """--base, --max-days, --timeout and --fair, in that order."""
    for option in (fair_option, timeout_option, max_days_option, base_option):
        f = option(f)
    return f
