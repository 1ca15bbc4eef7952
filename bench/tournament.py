"""Tournament throughput: games per second, scaling with workers, overhead per game.

    .venv/bin/python bench/tournament.py [--games N]

Prints, on this machine:
1. the comparable pairing for the original driver's figure: 20 full-length
   (100-day) games between two copies of a small Python bot
   (tests/bots_tournament/passive.py) at the default concurrency; the
   original `tournament` plays these at 3.2 games/s here (issue figure,
   it cannot run on this machine: no Racket);
2. a round robin of `random` bots at 1 and 2 workers, and the ratio;
   both with and without --reuse;
3. the time per game of the referee alone (`driver.game.play_game` in a
   loop), of `driver run` as a command, and of the tournament at one
   worker, i.e. what the harness adds per game.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
PASSIVE = str(ROOT / "tests" / "bots_tournament" / "passive.py")
ORIGINAL_GAMES_PER_S = 3.2


def _tournament(
    bots: list[str], games: int, concurrency: int, reuse: bool = False, max_days: int = 100
) -> tuple[int, float]:
    from tournaments import PlayOptions, round_robin

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        res = round_robin(
            bots, games=games, db=Path(tmp) / "bench.sqlite", concurrency=concurrency,
            options=PlayOptions(max_days=max_days), reuse=reuse,
        )
        return res.played_now, time.perf_counter() - start


@click.command()
@click.option("--games", type=int, default=10, show_default=True,
              help="Games per pairing and seating in the random round robin.")
@click.option("--pairing-games", type=int, default=20, show_default=True,
              help="Games in the comparable pairing (the original's figure is for 20).")
def main(games: int, pairing_games: int) -> None:
    cores = len(os.sched_getaffinity(0))
    print(f"machine: {cores} cores, load average {os.getloadavg()[0]:.2f}")
    modes = [False, True]

    print(f"\n1. comparable pairing: {pairing_games} games passive vs passive, 100 days, {cores} workers;"
          f" original tournament {ORIGINAL_GAMES_PER_S} games/s (issue figure)")
    for reuse in modes:
        n, secs = _tournament([PASSIVE, PASSIVE], max(1, pairing_games // 2), cores, reuse)
        rate = n / secs
        print(f"   {'--reuse' if reuse else 'fresh  '}: {rate:6.2f} games/s ({secs:.2f} s),"
              f" {rate / ORIGINAL_GAMES_PER_S:.1f}x the original")

    bots = ["random", "random", "random"]
    print(f"\n2. round robin of 3 random bots, {games} games per pairing and seating")
    for reuse in modes:
        rates = {}
        for k in (1, 2):
            n, secs = _tournament(bots, games, k, reuse)
            rates[k] = n / secs
            print(f"   {'--reuse' if reuse else 'fresh  '} {k} worker{'s' if k > 1 else ' '}:"
                  f" {n} games in {secs:.2f} s = {rates[k]:.2f} games/s")
        print(f"   {'--reuse' if reuse else 'fresh  '} scaling 2 workers / 1 worker = {rates[2] / rates[1]:.2f}")

    from driver.botspec import parse_bot
    from driver.game import GameOptions, play_game

    reps = 20
    specs = [parse_bot(PASSIVE), parse_bot(PASSIVE)]
    start = time.perf_counter()
    for _ in range(reps):
        play_game(specs, GameOptions())
    referee = (time.perf_counter() - start) / reps
    start = time.perf_counter()
    for _ in range(reps):
        subprocess.run([sys.executable, "-m", "arena.cli", "run", PASSIVE, PASSIVE],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    driver_run = (time.perf_counter() - start) / reps
    # Fixed cost (pool start, database) and per-game cost from two run lengths.
    n1, t1 = _tournament([PASSIVE, PASSIVE], reps // 4, 1)
    n2, t2 = _tournament([PASSIVE, PASSIVE], reps // 2 + reps // 4, 1)
    per_game = (t2 - t1) / (n2 - n1)
    fixed = t1 - n1 * per_game
    print(f"\n3. per game, passive vs passive, 100 days, one at a time ({reps} games each)")
    print(f"   play_game in a loop : {referee * 1000:7.1f} ms")
    print(f"   driver run command  : {driver_run * 1000:7.1f} ms")
    print(f"   tournament, 1 worker: {per_game * 1000:7.1f} ms per game (runs of {n1} and {n2} games),"
          f" plus {fixed:.2f} s once (workers, database)")
    print(f"   harness overhead    : {(per_game - referee) * 1000:+7.1f} ms/game vs play_game,"
          f" {(per_game - driver_run) * 1000:+7.1f} ms/game vs driver run")


if __name__ == "__main__":
    main()
