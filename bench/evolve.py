"""Benchmarks of the expert, decent-repro and evolved bots and of `evolve`.

    python bench/evolve.py [--games 200] [--generations 3] [--population 128] [--tournaments 16]
                           [--opponents expert,decent-repro --opponent-games 20]

Prints:
1. time per move of each bot's decide() (mean, 99th percentile, max)
   over in-process games against the random bot and each other, 2 and
   4 players, both card sets: the target is under 50 ms a move;
2. `evolve` throughput (in-process fitness games per second) with 1 and
   2 worker processes, and the time a 100-generation run of the given
   population would take at that rate (target: under 10 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import decent_repro, expert  # noqa: E402
from bots.evolved import ga  # noqa: E402
from bots.evolved.bot import policy, shipped_genome  # noqa: E402
from bots.evolved.genome import Genome  # noqa: E402
from bots.evolved.opponents import parse_names  # noqa: E402
from bots.inprocess import play_game  # noqa: E402
from bots.random_bot import random_policy  # noqa: E402
from protocol.engine import Game  # noqa: E402

Decide = Callable[[Game, int], int]


def timed(decide: Decide, sink: list[float]) -> Decide:
    def wrapper(game: Game, me: int) -> int:
        began = time.perf_counter()
        move = decide(game, me)
        sink.append(time.perf_counter() - began)
        return move

    return wrapper


def move_times(games: int) -> None:
    rng = random.Random(1)
    makers: dict[str, Callable[[], Decide]] = {
        "expert": lambda: expert.decide,
        "decent-repro": lambda: decent_repro.decide_with(rng),
        "evolved": lambda: policy(shipped_genome(), rng),
    }
    print(f"time per move over {games} in-process games per bot (opponents: random, the other bots; 2 and 4 players; both sets)")
    print(f"{'bot':<14} {'moves':>7} {'mean ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, make in makers.items():
        times: list[float] = []
        others = [lambda: random_policy(rng)] + [m for n, m in makers.items() if n != name]
        for n in range(games):
            players = 2 if n % 2 == 0 else 4
            seats = [others[(n + k) % len(others)]() for k in range(players)]
            seats[n % players] = timed(make(), times)
            play_game(seats, base=n % 4 >= 2)
        times.sort()
        p99 = times[int(0.99 * (len(times) - 1))]
        print(f"{name:<14} {len(times):>7} {1000 * statistics.fmean(times):>8.2f} {1000 * p99:>8.2f} {1000 * times[-1]:>8.2f}")


def evolve_speed(
    generations: int, population: int, tournaments: int, opponents: tuple[str, ...] = (), opponent_games: int = 20
) -> None:
    settings = ga.Settings(
        population=population, generations=generations, players=4, tournaments=tournaments, seed=1,
        opponents=opponents, opponent_games=opponent_games,
    )
    against = f", {opponent_games} games per genome against each of {','.join(opponents)}" if opponents else ""
    print(
        f"\nevolve: population {population}, tables of 4, {tournaments} tournaments a generation{against}, "
        f"{generations} generations"
    )
    for workers in (1, 2):
        games = 0
        began = time.perf_counter()
        with ga.local_backend(workers) as (mapper, parallelism):

            def count(generation: ga.Generation, _: list[Genome]) -> None:
                nonlocal games
                games += generation.games

            ga.run_generations(settings, ga.initial_population(settings), 0, mapper, parallelism, count)
        seconds = time.perf_counter() - began
        per_generation = seconds / generations
        print(
            f"{workers} worker(s): {games / seconds:7.0f} games/s, {per_generation:5.2f} s a generation, "
            f"100 generations ~ {100 * per_generation / 60:4.1f} min"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per bot for the move timings")
    parser.add_argument("--generations", type=int, default=3)
    parser.add_argument("--population", type=int, default=128)
    parser.add_argument("--tournaments", type=int, default=16)
    parser.add_argument("--opponents", default="", help="outside opponents in the fitness, e.g. expert,decent-repro")
    parser.add_argument("--opponent-games", type=int, default=20)
    parser.add_argument("--skip-moves", action="store_true")
    parser.add_argument("--skip-evolve", action="store_true")
    options = parser.parse_args()
    if not options.skip_moves:
        move_times(options.games)
    if not options.skip_evolve:
        evolve_speed(
            options.generations, options.population, options.tournaments,
            parse_names(options.opponents), options.opponent_games,
        )


if __name__ == "__main__":
    main()
