"""The genetic algorithm: fitness from elimination tournaments, and
optionally from games against fixed outside opponents.

Each generation the whole population plays `Settings.tournaments`
elimination tournaments: shuffled into tables of `players`, one game per
table, the winners meet at new tables, until one is left. A genome's
tournament share is the games it won per tournament over what a champion
wins (0 for a first-round exit, 1 for winning every tournament).

A population judged only against itself can settle on a strategy that
beats its own kind and nothing else, so with `Settings.opponents` each
genome also plays `opponent_games` two-player games against each named
outside bot (bots.evolved.opponents), seats alternating; its fitness is
then `(1 - opponent_weight) * tournament share + opponent_weight * outside
score` (a win counts 1, a draw 1/2). Without opponents the fitness is the
tournament share alone.

Strength here is not transitive (a shipped genome scored 16.75% against
the genome it replaced), so a population can also forget how to beat
strategies it once beat. With `Settings.hall_of_fame` K, the leaders of
earlier generations form a hall of fame: K of them, evenly spaced over
the run's history (the first and the latest included), are outside
opponents too, `hall_games` games each, and their games count in the
outside score like the named bots' (Rosin and Belew's hall of fame for
coevolution). `Settings.ancestors` are genomes kept in the hall whatever
the run's history: earlier shipped genomes, which a new one should not
lose to.

Games run in-process (bots.inprocess) with each genome's policy, in
parallel: a local process pool by default, Ray tasks with
`backend="ray"`, batched so that one task plays many games.

The next generation keeps the best few unchanged (elitism) and fills up
with children of parents drawn by tournament selection, crossed over whole
distribution by whole distribution and mutated multiplicatively.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import orjson

from bots.evolved import opponents as outside
from bots.evolved.bot import policy
from bots.evolved.genome import Genome, crossover, distance, mutate, random_genome
from bots.inprocess import play_game
from common.pool import WorkerPool
from common.defaults import MAX_DAYS

MIN_POPULATION, MAX_POPULATION = 8, 512


@dataclass(frozen=True)
class Settings:
    """Everything that decides a run (stored with it, so it can be resumed)."""

    population: int = 64
    generations: int = 50
    players: int = 4
    base: bool = False
    seed: int = 0
    tournaments: int = 8
    elite: int = 2
    mutation_rate: float = 0.15
    mutation_scale: float = 0.5
    crossover_rate: float = 0.7
    max_days: int = MAX_DAYS
    opponents: tuple[str, ...] = ()
    opponent_games: int = 16
    opponent_weight: float = 0.5
    hall_of_fame: int = 0
    hall_games: int = 8
    ancestors: tuple[str, ...] = ()  # genomes (compact JSON) always in the hall of fame

    def check(self) -> None:
        """ValueError, in the user's terms, for settings the GA cannot run."""
        if not 2 <= self.players <= 4:
            raise ValueError(f"--players must be 2, 3 or 4 (a game has 2 to 4 players), got {self.players}")
        if not MIN_POPULATION <= self.population <= MAX_POPULATION:
            raise ValueError(
                f"--population must be between {MIN_POPULATION} and {MAX_POPULATION}, got {self.population}"
            )
        if self.population % self.players:
            raise ValueError(
                f"--population {self.population} is not divisible by --players {self.players}: "
                "the first round of each tournament needs full tables"
            )
        if self.generations < 1:
            raise ValueError(f"--generations must be at least 1, got {self.generations}")
        if self.tournaments < 1:
            raise ValueError(f"--tournaments must be at least 1, got {self.tournaments}")
        if not 0 <= self.elite < self.population:
            raise ValueError(f"elite must be in 0..population-1, got {self.elite}")
        outside.check_names(self.opponents)
        if self.opponents and (self.opponent_games < 2 or self.opponent_games % 2):
            raise ValueError(
                f"--opponent-games must be even and at least 2 (seats alternate), got {self.opponent_games}"
            )
        if (self.opponents or self.hall_of_fame or self.ancestors) and not 0 < self.opponent_weight <= 1:
            raise ValueError(f"--opponent-weight must be in (0, 1], got {self.opponent_weight}")
        if self.hall_of_fame < 0:
            raise ValueError(f"--hall-of-fame must be at least 0, got {self.hall_of_fame}")
        if (self.hall_of_fame or self.ancestors) and (self.hall_games < 2 or self.hall_games % 2):
            raise ValueError(f"--hall-games must be even and at least 2 (seats alternate), got {self.hall_games}")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["opponents"] = list(self.opponents)
        data["ancestors"] = list(self.ancestors)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Settings":
        """Settings stored by `to_json` (runs stored before opponents or the
        hall of fame existed get neither)."""
        return cls(**{**data, "opponents": tuple(data.get("opponents", ())), "ancestors": tuple(data.get("ancestors", ()))})


@dataclass(frozen=True)
class Generation:
    """What one generation produced."""

    number: int  # 1-based
    fitness: list[float]
    leader: Genome
    best: float
    mean: float
    diversity: float
    games: int
    seconds: float
    outside: float | None = None  # the leader's score against the outside opponents
    opponents: tuple[str, ...] = ()

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def record(self) -> dict[str, Any]:
        return {
            "generation": self.number,
            "best": self.best,
            "mean": self.mean,
            "diversity": self.diversity,
            "games": self.games,
            "seconds": self.seconds,
            "games_per_second": self.games_per_second,
            "outside": self.outside,
            "leader": self.leader.to_json(),
        }

    def summary(self) -> str:
        against = (
            f", leader scores {100 * self.outside:.0f}% against {','.join(self.opponents)}"
            if self.outside is not None
            else ""
        )
        return (
            f"generation {self.number}: best fitness {self.best:.3f}, mean {self.mean:.3f}{against}, "
            f"diversity {self.diversity:.3f}, {self.games} games, {self.games_per_second:.0f} games/s"
        )


# ------------------------------------------------------------------ fitness


def table_winner(genomes: Sequence[Genome], seats: Sequence[int], base: bool, max_days: int, rng: random.Random) -> int:
    """Play one game between `seats` (indexes into `genomes`); the entrant who advances.

    A draw (no winner after max_days) advances the player with the most
    points, ties broken at random; a seat that faults cannot advance.
    """
    game = play_game([policy(genomes[s], rng) for s in seats], base=base, max_days=max_days)
    if game.winner is not None:
        return seats[game.winner]
    faulty = game.fault[0] if game.fault is not None else None
    candidates = [i for i in range(len(seats)) if i != faulty] or list(range(len(seats)))
    top = max(game.points(i) for i in candidates)
    return seats[rng.choice([i for i in candidates if game.points(i) == top])]


def elimination(
    genomes: Sequence[Genome], players: int, base: bool, max_days: int, rng: random.Random
) -> tuple[list[int], int]:
    """One elimination tournament: (games won by each genome, games played)."""
    wins = [0] * len(genomes)
    field = list(range(len(genomes)))
    rng.shuffle(field)
    games = 0
    while len(field) > 1:
        advancing = []
        for start in range(0, len(field), players):
            table = field[start : start + players]
            if len(table) == 1:
                advancing.append(table[0])  # a bye
                continue
            winner = table_winner(genomes, table, base, max_days, rng)
            wins[winner] += 1
            games += 1
            advancing.append(winner)
        field = advancing
    return wins, games


def play_tournaments(
    genomes_json: list[dict[str, Any]], players: int, base: bool, max_days: int, seeds: list[int]
) -> tuple[list[int], int]:
    """A batch of tournaments, one per seed: (total wins per genome, games).

    Module-level and JSON-in so that process pools and Ray can ship it.
    """
    genomes = [Genome.from_json(g) for g in genomes_json]
    total = [0] * len(genomes)
    games = 0
    for seed in seeds:
        wins, played = elimination(genomes, players, base, max_days, random.Random(seed))
        total = [t + w for t, w in zip(total, wins)]
        games += played
    return total, games


def play_outside(
    genomes_json: list[dict[str, Any]], names: Sequence[str], games: int, base: bool, max_days: int, seeds: list[int],
    hall_json: Sequence[dict[str, Any]] = (), hall_games: int = 0,
) -> tuple[list[float], int]:
    """Each genome's score against the outside opponents: the bots `names`,
    `games` two-player games each, and the hall of fame's genomes
    `hall_json`, `hall_games` each, seats alternating: (mean score per
    genome over all those games, games).

    One seed per genome, so a genome's games do not depend on how the
    population was split into batches. Module-level and JSON-in for the
    process pools and Ray.
    """
    hall = [Genome.from_json(g) for g in hall_json]
    per_genome = games * len(names) + hall_games * len(hall)
    scores = []
    for genome_json, seed in zip(genomes_json, seeds):
        genome = Genome.from_json(genome_json)
        rng = random.Random(seed)
        total = 0.0
        rivals = [(outside.MAKERS[name](rng), games) for name in names]
        rivals += [(policy(member, rng), hall_games) for member in hall]
        for rival, count in rivals:
            for n in range(count):
                me = n % 2
                seats = [rival, rival]
                seats[me] = policy(genome, rng)
                game = play_game(seats, base=base, max_days=max_days)
                if game.winner == me:
                    total += 1.0
                elif game.winner is None and game.fault is None:
                    total += 0.5
        scores.append(total / per_genome if per_genome else 0.0)
    return scores, per_genome * len(genomes_json)


Mapper = Callable[[Callable[..., Any], list[tuple[Any, ...]]], list[Any]]
"""Runs fn(*task) for every task, in any order, returning results in task order."""


@contextmanager
def local_backend(workers: int) -> Iterator[tuple[Mapper, int]]:
    """A process pool of `workers` (in-process when 1): (mapper, parallelism)."""
    if workers <= 1:
        yield (lambda fn, tasks: [fn(*t) for t in tasks]), 1
        return
    with WorkerPool(workers) as pool:
        yield (lambda fn, tasks: list(pool.map(_star, [(fn, t) for t in tasks]))), workers


@contextmanager
def ray_backend(address: str | None = None) -> Iterator[tuple[Mapper, int]]:
    """Ray tasks on a cluster (`address`, e.g. "auto") or a local Ray: (mapper, parallelism)."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "the ray backend needs Ray: pip install 'economancy-arena[ray]' (or pip install ray)"
        ) from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    # Spread over the nodes: a generation is a few batches submitted at once,
    # and Ray's default packs them onto the submitting node first (in CI, on
    # a loaded machine, every batch ran on the head of a two-node cluster).
    remotes = {fn: ray.remote(scheduling_strategy="SPREAD")(fn) for fn in (play_tournaments, play_outside)}

    def mapper(fn: Callable[..., Any], tasks: list[tuple[Any, ...]]) -> list[Any]:
        return ray.get([remotes[fn].remote(*t) for t in tasks])

    try:
        yield mapper, max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]
    finally:
        if started:
            ray.shutdown()


def _star(job: tuple[Callable[..., Any], tuple[Any, ...]]) -> Any:
    fn, args = job
    return fn(*args)


class Evaluation(NamedTuple):
    """A generation's fitness and its parts, one entry per genome."""

    fitness: list[float]
    games: int
    tournament: list[float]  # share of a champion's wins
    outside: list[float] | None  # score against the outside opponents, if any


def evaluate(
    population: Sequence[Genome], settings: Settings, rng: random.Random, mapper: Mapper, parallelism: int,
    hall: Sequence[Genome] = (),
) -> Evaluation:
    """Fitness of every genome (see the module docstring) and games played;
    `hall` is the hall of fame this generation plays.

    The work is split into at most 2 x `parallelism` batches: enough to
    keep every worker busy, few enough that each task plays many games.
    """
    seeds = [rng.getrandbits(63) for _ in range(settings.tournaments)]
    batches = max(1, min(len(seeds), 2 * parallelism))
    genomes_json = [g.to_json() for g in population]
    tasks = [
        (genomes_json, settings.players, settings.base, settings.max_days, seeds[i::batches]) for i in range(batches)
    ]
    total = [0] * len(population)
    games = 0
    for wins, played in mapper(play_tournaments, tasks):
        total = [t + w for t, w in zip(total, wins)]
        games += played
    best_possible = settings.tournaments * champion_fitness(settings)
    tournament = [t / best_possible for t in total]
    if not settings.opponents and not hall:
        return Evaluation(tournament, games, tournament, None)
    genome_seeds = [rng.getrandbits(63) for _ in population]
    batches = max(1, min(len(population), 2 * parallelism))
    hall_json = [g.to_json() for g in hall]
    outside_tasks = [
        (genomes_json[i::batches], settings.opponents, settings.opponent_games, settings.base, settings.max_days,
         genome_seeds[i::batches], hall_json, settings.hall_games)
        for i in range(batches)
    ]
    scores = [0.0] * len(population)
    for i, (batch, played) in enumerate(mapper(play_outside, outside_tasks)):
        scores[i::batches] = batch
        games += played
    w = settings.opponent_weight
    fitness = [(1 - w) * t + w * o for t, o in zip(tournament, scores)]
    return Evaluation(fitness, games, tournament, scores)


# ---------------------------------------------------------------- selection


def diversity(population: Sequence[Genome], rng: random.Random, pairs: int = 200) -> float:
    """Mean distance (bots.evolved.genome.distance) over random pairs."""
    n = len(population)
    if n < 2:
        return 0.0
    picks = [rng.sample(range(n), 2) for _ in range(pairs)]
    return sum(distance(population[a], population[b]) for a, b in picks) / len(picks)


def next_population(
    population: Sequence[Genome], fitness: Sequence[float], settings: Settings, rng: random.Random
) -> list[Genome]:
    """Elites unchanged, the rest children of tournament-selected parents."""
    ranked = sorted(range(len(population)), key=lambda i: -fitness[i])
    children = [population[i] for i in ranked[: settings.elite]]

    def parent() -> Genome:
        contenders = rng.sample(range(len(population)), 3)
        return population[max(contenders, key=lambda i: fitness[i])]

    while len(children) < settings.population:
        a = parent()
        child = crossover(a, parent(), rng) if rng.random() < settings.crossover_rate else a
        children.append(mutate(child, rng, settings.mutation_rate, settings.mutation_scale))
    return children


def initial_population(settings: Settings) -> list[Genome]:
    rng = random.Random(settings.seed)
    return [random_genome(rng) for _ in range(settings.population)]


def generation_rng(settings: Settings, number: int) -> random.Random:
    """The generator of generation `number`: runs are reproducible and a
    resumed run continues exactly as an uninterrupted one would."""
    return random.Random(settings.seed * 1_000_003 + number)


def hall_of_fame(leaders: Sequence[Genome], size: int) -> list[Genome]:
    """`size` of the earlier leaders, evenly spaced over the run (the first
    and the latest included): old strategies and recent ones alike."""
    from bots.evolved.report import spaced

    if size <= 0 or not leaders:
        return []
    if size == 1:
        return [leaders[-1]]
    return [leaders[i] for i in spaced(len(leaders), size)]


def run_generations(
    settings: Settings,
    population: list[Genome],
    start: int,
    mapper: Mapper,
    parallelism: int,
    on_generation: Callable[[Generation, list[Genome]], None] | None = None,
    leaders: Sequence[Genome] = (),
) -> list[Genome]:
    """Evolve from generation `start` (generations done) to `settings.generations`.

    `on_generation(generation, next_population)` sees each generation as it
    ends (storing, printing). `leaders` are the leaders of the generations
    already done (a resumed run's), from which the hall of fame is drawn.
    Returns the last population.
    """
    settings.check()
    history = list(leaders)
    for number in range(start + 1, settings.generations + 1):
        rng = generation_rng(settings, number)
        began = time.perf_counter()
        hall = [Genome.from_json(orjson.loads(a)) for a in settings.ancestors]
        hall += hall_of_fame(history, settings.hall_of_fame)
        fitness, games, _, scores = evaluate(population, settings, rng, mapper, parallelism, hall)
        seconds = time.perf_counter() - began
        best = max(range(len(population)), key=lambda i: fitness[i])
        generation = Generation(
            number=number,
            fitness=fitness,
            leader=population[best],
            best=fitness[best],
            mean=sum(fitness) / len(fitness),
            diversity=diversity(population, rng),
            games=games,
            seconds=seconds,
            outside=scores[best] if scores is not None else None,
            opponents=settings.opponents + (("hall of fame",) if hall else ()),
        )
        history.append(population[best])
        population = next_population(population, fitness, settings, rng)
        if on_generation is not None:
            on_generation(generation, population)
    return population


def champion_fitness(settings: Settings) -> float:
    """Games a genome wins in a tournament it wins: the tournament share's denominator."""
    rounds, field = 0, settings.population
    while field > 1:
        field = math.ceil(field / settings.players)
        rounds += 1
    return float(rounds)
