"""Referee speed: the overhead per move between the driver and a bot, and games per second.

    .venv/bin/python bench/referee.py [--round-trips N] [--games N] [--cli-games N]
                                      [--starts N] [--isolation auto|namespaces|none]

Prints:
- round trip: the driver sends a real state line to a trivial bot process
  and waits for its answer; the bot measures its own time per answer
  (from having the line to having written the answer) and reports it in
  the answer. Overhead = round trip - bot's time: pipes, wake-ups, the
  driver's selector loop. Median and 90th percentile.
- driver CPU per move in real games (`play_game`, random vs random): the
  driver process's own CPU time (encoding, engine, trace, I/O calls)
  divided by the moves played, bot processes not included; the per-game
  cost of starting and ending two bots (measured alone) is shown apart.
- games per second: in-process `play_game` (random vs random) and the
  `driver run random random` command (process start-up included).
- start-up cost per bot of each isolation (driver.isolation): wall time to
  start a bot (`/bin/cat`, so that its own start-up is negligible) until
  it runs, until it echoes a state line, and to end it; median of
  --starts, for none and namespaces, and the difference.
Every section but the last uses --isolation (default auto: namespaces
where available). Target: under 100 microseconds of overhead per move.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from common.settings import Isolation  # noqa: E402
from driver import isolation  # noqa: E402
from driver.botspec import parse_bot  # noqa: E402
from driver.game import GameOptions, play_game, state_lines  # noqa: E402
from driver.process import BotGroup  # noqa: E402
from protocol.engine import Game  # noqa: E402

TIMING_BOT = r"""
import sys, time
read, write, clock = sys.stdin.buffer.readline, sys.stdout.buffer.write, time.perf_counter_ns
flush = sys.stdout.buffer.flush
while True:
    line = read()
    start = clock()
    if not line:
        break
    # The bot's whole job: answer, and say how long that took (the write included).
    write(b"[%d]\n" % 0)
    flush()
    write(b"[%d]\n" % (clock() - start))
    flush()
"""


def round_trips(n: int, isolation: str) -> tuple[list[float], list[float]]:
    """(round trip, bot's own time) per exchange, in microseconds."""
    group = BotGroup.spawn([((sys.executable, "-S", "-c", TIMING_BOT), "timing")], isolation=isolation)
    line = state_lines(Game(2).to_wire(), [0])[0]
    trips, inside = [], []
    try:
        for i in range(n + 100):
            start = time.perf_counter_ns()
            group.send(0, line)
            ((_, answer),) = group.replies([0], 5.0)
            trip = time.perf_counter_ns() - start
            ((_, report),) = group.replies([0], 5.0)
            assert answer.line == b"[0]", answer
            if i >= 100:  # warm-up
                trips.append(trip / 1000)
                inside.append(int(report.line[1:-1]) / 1000)
    finally:
        group.close()
    return trips, inside


def driver_cpu(games: int, isolation: str) -> tuple[float, float, float, float]:
    """(driver CPU µs per move without and with the per-game costs, driver CPU
    ms per game for starting and ending the bots, in-process games per second)."""
    bots = [parse_bot("random"), parse_bot("random")]
    commands = [(b.argv, b.name) for b in bots]
    cpu = time.process_time()
    for _ in range(games):
        BotGroup.spawn(commands, isolation=isolation).close()
    per_game = (time.process_time() - cpu) / games
    moves = 0
    cpu = time.process_time()
    wall = time.perf_counter()
    for _ in range(games):
        moves += play_game(bots, GameOptions(isolation=Isolation(isolation))).moves
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    return (cpu - per_game * games) / moves * 1e6, cpu / moves * 1e6, per_game * 1000, games / wall


def start_costs(n: int, isolation: str) -> tuple[float, float, float]:
    """Median (until running, until the first echo, ending) in ms for one bot."""
    line = state_lines(Game(2).to_wire(), [0])[0]
    running, echoed, ended = [], [], []
    for _ in range(n):
        start = time.perf_counter()
        group = BotGroup.spawn([(("/bin/cat",), "cat")], isolation=isolation)
        running.append(time.perf_counter() - start)
        group.send(0, line)
        ((_, reply),) = group.replies([0], 30.0)
        assert reply.line == line, reply
        echoed.append(time.perf_counter() - start)
        start = time.perf_counter()
        group.close()
        ended.append(time.perf_counter() - start)
    return tuple(statistics.median(t) * 1000 for t in (running, echoed, ended))  # type: ignore[return-value]


def cli_games_per_second(games: int, isolation: str) -> float:
    driver = [sys.executable, "-m", "arena.cli", "run", "--isolation", isolation, "random", "random"]
    start = time.perf_counter()
    for _ in range(games):
        done = subprocess.run(driver, capture_output=True, cwd=ROOT)
        if done.returncode not in (0, 3):
            raise SystemExit(f"driver run failed ({done.returncode}): {done.stderr.decode()}")
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=20000)
    parser.add_argument("--games", type=int, default=40, help="in-process games for driver CPU per move")
    parser.add_argument("--cli-games", type=int, default=20)
    parser.add_argument("--starts", type=int, default=50, help="bot starts per isolation for the start-up cost")
    parser.add_argument("--isolation", choices=isolation.MODES, default="auto")
    options = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    chosen = isolation.choose(options.isolation)
    print(f"isolation {options.isolation}: {chosen.description}")

    trips, inside = round_trips(options.round_trips, options.isolation)
    overhead = sorted(t - b for t, b in zip(trips, inside))
    print(f"round trip ({options.round_trips} answers to a real state line, trivial bot process):")
    print(f"  round trip   median {statistics.median(trips):7.1f} us")
    print(f"  inside bot   median {statistics.median(inside):7.1f} us")
    print(
        f"  overhead     median {statistics.median(overhead):7.1f} us,"
        f" p90 {overhead[int(len(overhead) * 0.9)]:.1f} us   (target < 100 us)"
    )

    per_move, all_in, per_game, rate = driver_cpu(options.games, options.isolation)
    print(f"play_game random vs random ({options.games} games):")
    print(f"  driver CPU per move            {per_move:7.1f} us   (target < 100 us)")
    print(f"  driver CPU per game, bots' start and end {per_game:5.1f} ms")
    print(f"  driver CPU per move, all in    {all_in:7.1f} us")
    print(f"  games per second               {rate:7.2f}   (in-process play_game, bot start-up included)")

    print(f"driver run random random ({options.cli_games} games, a new driver process each):")
    print(f"  games per second    {cli_games_per_second(options.cli_games, options.isolation):7.2f}")

    print(f"start-up cost per bot (/bin/cat, median of {options.starts}; wall ms):")
    costs = {}
    for mode in ("none", "namespaces"):
        if mode == "namespaces" and isolation.namespaces_unavailable():
            print(f"  namespaces   not available here: {isolation.namespaces_unavailable()}")
            continue
        costs[mode] = start_costs(options.starts, mode)
        print("  {:<11}  running {:6.2f}   first echo {:6.2f}   ended {:6.2f}".format(mode, *costs[mode]))
    if len(costs) == 2:
        extra = [b - a for a, b in zip(costs["none"], costs["namespaces"])]
        print("  namespaces cost {:+.2f} ms to start, {:+.2f} to the first echo, {:+.2f} to end".format(*extra))


if __name__ == "__main__":
    main()
