"""The `evolve` command: run, inspect and plot evolutions of the evolved bot.

    evolve KEY --generations N --population M [--players P] [--base] [--seed S] [--overwrite]
               [--opponents expert,decent-repro [--opponent-games G] [--opponent-weight W]]
               [--hall-of-fame K [--hall-games G]] [--ancestor GENOME.json ...]
    evolve KEY --resume --generations N      continue a stored run to N generations
    evolve show KEY                          the leader's preferences as a table
    evolve plot KEY -o progress.png          leaders against earlier leaders
    evolve play KEY [--players P]            play the run's strongest yourself, in the terminal
"""

from __future__ import annotations

import difflib
import io
import random
import sys

import click

from common.pool import default_workers
from common.defaults import MAX_DAYS
from common.options import VersionedGroup, backend_for, concurrency_option, ray_address_option, version_option

from bots.evolved.ga import (
    Generation,
    Settings,
    initial_population,
    local_backend,
    ray_backend,
    run_generations,
)
from bots.evolved.genome import Genome
from bots.evolved.opponents import MAKERS, parse_names
from bots.evolved.store import Store, check_key

_SUBCOMMANDS = ("run", "show", "plot", "play")


class _DefaultToRun(VersionedGroup):
    """`evolve KEY ...` means `evolve run KEY ...` (the issue's spelling),
    so a key cannot be named like a subcommand."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            # A mistyped `show` or `plot` must never start an evolution under that key.
            close = difflib.get_close_matches(args[0], [c for c in self.commands if c != "run"], n=1, cutoff=0.6)
            if close:
                raise click.UsageError(
                    f"No such command {args[0]!r}. Did you mean {close[0]!r}?"
                    f" (to evolve under the key {args[0]!r}, write: evolve run {args[0]})", ctx
                )
            args = ["run", *args]
        return super().parse_args(ctx, args)


def key_param(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A KEY argument that names a run, never a subcommand (a usage error otherwise)."""
    try:
        check_key(value)
    except ValueError as problem:
        raise click.BadParameter(str(problem)) from None
    if value in _SUBCOMMANDS:
        raise click.BadParameter(f"{value!r} is a subcommand of evolve, not usable as a key")
    return value


@click.group(cls=_DefaultToRun, context_settings={"help_option_names": ["-h", "--help"]})
@version_option
def main() -> None:
    """Evolve preference genomes for the `evolved` bot.

    `evolve KEY [OPTIONS]` is short for `evolve run KEY [OPTIONS]`. Runs
    are stored under KEY in your user data directory; play one with
    `driver run "evolved --key KEY" ...` (or `economancy-evolved --key KEY`).
    """


@main.command("run")
@click.argument("key", callback=key_param)
@click.option("--generations", "-g", type=int, default=50, show_default=True, help="Generations to run (in all, with --resume).")
@click.option("--population", "-m", type=int, default=64, show_default=True, help="Genomes per generation: 8 to 512, divisible by --players.")
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players per table in the fitness tournaments (2-4).")
@click.option("--base", is_flag=True, help="Play the base card set (13 cards) instead of the simple one.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed: the same seed and settings give the same run.")
@click.option("--tournaments", "-t", type=int, default=16, show_default=True, help="Elimination tournaments per generation (more: less noisy fitness).")
@click.option(
    "--opponents", default="", metavar="NAMES",
    help=f"Outside bots the genomes also play, comma-separated ({', '.join(MAKERS)}); none by default.",
)
@click.option("--opponent-games", type=int, default=16, show_default=True, help="Games per genome against each outside bot (even: seats alternate).")
@click.option("--opponent-weight", type=float, default=0.5, show_default=True, help="Share of the fitness from the outside games (the rest: the tournaments).")
@click.option("--hall-of-fame", type=int, default=8, show_default=True,
              help="Earlier generations' leaders (evenly spaced over the run) the genomes also play as outside opponents; 0: none.")
@click.option("--hall-games", type=int, default=8, show_default=True, help="Games per genome against each hall-of-fame leader (even: seats alternate).")
@click.option("--ancestor", "ancestors", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="A genome JSON file kept in the hall of fame for the whole run (e.g. an earlier shipped genome); repeatable.")
@click.option("--max-days", type=int, default=MAX_DAYS, show_default=True, help="Day limit of each fitness game.")
@concurrency_option
@click.option("--workers", "workers", type=click.IntRange(1), default=None, hidden=True)  # the old spelling of -j
@click.option("--backend", type=click.Choice(["local", "ray"]), default=None,
              help="Where the fitness games run. [default: local; ray with --ray-address]")
@ray_address_option
@click.option("--resume", is_flag=True, help="Continue the run stored under KEY up to --generations.")
@click.option("--overwrite", is_flag=True, help="Replace a run already stored under KEY.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def run_command(
    key: str, generations: int, population: int, players: int, base: bool, seed: int, tournaments: int,
    opponents: str, opponent_games: int, opponent_weight: float, hall_of_fame: int, hall_games: int,
    ancestors: tuple[str, ...], max_days: int, concurrency: int | None,
    workers: int | None, backend: str | None, ray_address: str | None, resume: bool, overwrite: bool, quiet: bool,
) -> None:
    """Evolve a population under KEY; print one line per generation."""
    store = Store(key)
    if resume:
        if not store.exists:
            raise click.UsageError(f"nothing to resume: no run stored under key {key!r}")
        settings = Settings.from_json({**store.settings(), "generations": generations})
        done, current = store.population()
        leaders = store.leaders()[:done]
    else:
        try:
            names = parse_names(opponents)
        except ValueError as problem:
            raise click.BadParameter(str(problem), param_hint="--opponents") from None
        settings = Settings(
            population=population, generations=generations, players=players, base=base, seed=seed,
            tournaments=tournaments, max_days=max_days, opponents=names, opponent_games=opponent_games,
            opponent_weight=opponent_weight, hall_of_fame=hall_of_fame, hall_games=hall_games,
            ancestors=tuple(_genome_text(path) for path in ancestors),
        )
        done, current, leaders = 0, [], []
    try:
        settings.check()
    except ValueError as problem:
        raise click.UsageError(str(problem)) from None
    if not resume:
        try:
            store.create(settings.to_json(), overwrite)
        except FileExistsError as problem:
            raise click.UsageError(str(problem)) from None
        current = initial_population(settings)
    if done >= settings.generations:
        click.echo(f"key {key!r} already has {done} generations; nothing to do")
        return
    backend = backend_for(backend, ray_address)
    jobs = concurrency or workers or default_workers()
    backend_context = ray_backend(ray_address) if backend == "ray" else local_backend(jobs)
    try:
        with backend_context as (mapper, parallelism), click.progressbar(
            length=settings.generations - done, label=f"evolving {key}", file=sys.stderr if not quiet else _Null()
        ) as bar:

            def record(generation: Generation, population: list[Genome]) -> None:
                store.append_generation(generation.record(), population)
                click.echo(generation.summary())
                bar.update(1)

            run_generations(settings, current, done, mapper, parallelism, record, leaders)
    except RuntimeError as problem:
        raise click.ClickException(str(problem)) from None
    click.echo(f"stored under {store.path}; play it with: evolved --key {key}")


def _genome_text(path: str) -> str:
    """A genome file as compact JSON, checked; BadParameter if it is not one."""
    import orjson

    try:
        genome = Genome.from_json(orjson.loads(open(path, "rb").read()))
    except (OSError, ValueError) as problem:
        raise click.BadParameter(f"{path}: {problem}", param_hint="--ancestor") from None
    return orjson.dumps(genome.to_json()).decode()


class _Null(io.StringIO):
    """A sink for the progress bar in --quiet mode."""

    def write(self, _: str) -> int:
        return 0

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


@main.command("show")
@click.argument("key", callback=key_param)
@click.option("--generation", type=int, default=None, help="Show this generation's leader [default: the last].")
def show_command(key: str, generation: int | None) -> None:
    """Print the leader's preferences as a readable table."""
    from bots.evolved.report import preference_table

    store = Store(key)
    try:
        records = store.generations()
    except LookupError as problem:
        raise click.UsageError(str(problem)) from None
    if not records:
        raise click.UsageError(f"key {key!r} has no finished generation yet")
    if generation is None:
        record = records[-1]
    else:
        matching = [r for r in records if r["generation"] == generation]
        if not matching:
            raise click.UsageError(f"key {key!r} has generations 1..{records[-1]['generation']}, not {generation}")
        record = matching[0]
    click.echo(f"key {key}, generation {record['generation']} leader (fitness {record['best']:.2f})")
    base = bool(store.settings().get("base", False))
    click.echo(preference_table(Genome.from_json(record["leader"]), base=base))


@main.command("plot")
@click.argument("key", callback=key_param)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, writable=True), help="The PNG file to write.")
@click.option("--games", "-n", type=int, default=20, show_default=True, help="Games per pair of leaders (seats alternate).")
@click.option("--leaders", type=int, default=25, show_default=True, help="At most this many leaders, evenly spaced over the run.")
@click.option("--seed", type=int, default=0, show_default=True)
def plot_command(key: str, output: str, games: int, leaders: int, seed: int) -> None:
    """Draw how each generation's leader fares against earlier leaders."""
    from bots.evolved.report import plot_progress, progression, spaced

    store = Store(key)
    try:
        every = store.leaders()
        settings = Settings.from_json(store.settings())
    except LookupError as problem:
        raise click.UsageError(str(problem)) from None
    if len(every) < 2:
        raise click.UsageError(f"key {key!r} has {len(every)} generation(s); a progression needs at least 2")
    if games < 1 or leaders < 2:
        raise click.UsageError("--games must be at least 1 and --leaders at least 2")
    picked = spaced(len(every), leaders)
    scores = progression([every[i] for i in picked], settings.base, games, random.Random(seed))
    try:
        plot_progress(scores, [i + 1 for i in picked], output, title=f"evolve {key}: each leader against earlier leaders")
    except ImportError as problem:
        raise click.ClickException(str(problem)) from None
    click.echo(f"wrote {output}")
