"""The options every command spells the same way (`driver run`, `tournament
...`, `ladder ...`, `evolve`, `exploit`), so that each is spelled, checked and
explained once, with the original driver's spellings accepted. The referee's
own options (isolation, per-bot time controls and variables) are in
`driver.options`, beside the code that checks them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from common.settings import MAX_DAYS, TIMEOUT

F = TypeVar("F", bound=Callable[..., Any])

base_option = click.option(
    "--base", is_flag=True, help="Play with all 13 base-set cards (default: the 8 simple ones)."
)
max_days_option = click.option(
    "--max-days",
    "--max_days",
    "max_days",
    type=click.IntRange(min=1),
    default=MAX_DAYS,
    show_default=True,
    metavar="N",
    help="Days played before a game is decided as it stands (usually a draw).",
)
timeout_option = click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=TIMEOUT,
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

def game_options(f: F) -> F:
    """--base, --max-days, --timeout and --fair, in that order."""
    for option in (fair_option, timeout_option, max_days_option, base_option):
        f = option(f)
    return f


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


def backend_for(backend: str | None, ray_address: str | None) -> str:
    """--backend, or when it is not given: "ray" if --ray-address was given
    on the command line, else "local". RAY_ADDRESS alone (set for another
    program, or by Ray itself) never moves a run onto a cluster."""
    if backend is not None:
        return backend
    source = click.get_current_context().get_parameter_source("ray_address")
    return "ray" if ray_address and source == click.core.ParameterSource.COMMANDLINE else "local"


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
