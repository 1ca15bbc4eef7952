"""CPU fairness between bots: does a rival's CPU use slow a bot's thinking?

    python bench/fairness.py [--games 4] [--time 0.2] [--max-days 100]

Plays `champion --time T` (a CPU-time budget per move, with a wall cap)
against a seeded random bot, in three set-ups with the same seeds:

- idle: the random bot alone;
- hog: the same random bot running two busy processes during the
  champion's turns (stopped while it picks its own move), under the
  default fences (`--isolation auto`: a CPU of its own per bot where no
  CPU controller caps its share, or cgroup v2's cpu.max);
- hog, no fences: the same under `--isolation none`.

For each it prints the champion's wall and CPU seconds per move (from the
trace's timing, `GameResult.answer_times` and `answer_cpu`), how many games
were move for move the same as the idle ones (same seeds: the same game as
long as the champion searched the same), and the champion's score. Fair
CPU means the hog row matches the idle row within noise; the no-fences row
shows what the fences prevent. Other load on the machine is noise here:
run it on a quiet machine and more than once.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's packages first

from common.settings import MAX_DAYS, Isolation  # noqa: E402
from driver.botspec import BotSpec, parse_bot  # noqa: E402
from driver.game import GameOptions, GameResult, game_lines, play_game  # noqa: E402

HOG_BOT = r"""
import os, random, signal, sys
from bots.random_bot import random_policy
from bots.sdk import run

busy = []
for _ in range(int(sys.argv[2])):
    pid = os.fork()
    if pid == 0:
        while True:
            pass
    busy.append(pid)
policy = random_policy(random.Random(int(sys.argv[1])))

def decide(game, me):
    for pid in busy:
        os.kill(pid, signal.SIGSTOP)
    try:
        return policy(game, me)
    finally:
        for pid in busy:
            os.kill(pid, signal.SIGCONT)

run(decide)
"""


@dataclass
class Row:
    """What one set-up measured."""

    label: str
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    score: float = 0.0
    games: list[list[bytes]] = field(default_factory=list)
    seconds: float = 0.0


def opponent(seed: int, busy: int) -> BotSpec:
    return BotSpec((sys.executable, "-c", HOG_BOT, str(seed), str(busy)), f"random-busy{busy}")


def champion_moves(result: GameResult, seat: int) -> tuple[list[float], list[float]]:
    """The champion's (wall, CPU) seconds per answer, read off the trace."""
    lines = game_lines(result.trace)
    seats = []
    for i, line in enumerate(lines[:-1]):
        value = orjson.loads(line)
        if isinstance(value, dict) and "player" in value:
            seats.append(value["player"])
    wall = [t for s, t in zip(seats, result.answer_times) if s == seat and t is not None]
    cpu = [c for s, c in zip(seats, result.answer_cpu) if s == seat and c is not None]
    return wall, cpu


def measure(label: str, busy: int, isolation: str, games: int, seconds: float, max_days: int) -> Row:
    row = Row(label)
    started = time.monotonic()
    champion = parse_bot(f"champion --time {seconds}")
    for seed in range(1, games + 1):
        seat = seed % 2
        bots = [opponent(seed, busy)]
        bots.insert(seat, champion)
        result = play_game(bots, GameOptions(max_days=max_days, timeout=60, seed=seed, isolation=Isolation(isolation)))
        wall, cpu = champion_moves(result, seat)
        row.wall += wall
        row.cpu += cpu
        row.score += 1.0 if result.winner == seat else 0.5 if result.winner is None and result.fault is None else 0.0
        row.games.append(game_lines(result.trace))
    row.seconds = time.monotonic() - started
    return row


def _p90(values: Sequence[float]) -> float:
    return sorted(values)[int(0.9 * (len(values) - 1))] if values else float("nan")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games per set-up (seats alternate)")
    parser.add_argument("--time", type=float, default=0.2, help="the champion's CPU seconds per move")
    parser.add_argument("--max-days", type=int, default=MAX_DAYS)
    options = parser.parse_args(argv)
    rows = [
        measure("idle", 0, "auto", options.games, options.time, options.max_days),
        measure("hog", 2, "auto", options.games, options.time, options.max_days),
        measure("hog, no fences", 2, "none", options.games, options.time, options.max_days),
    ]
    idle = rows[0]
    print(f"champion --time {options.time} against random, {options.games} games per set-up")
    print(f"{'set-up':<16} {'wall/move':>10} {'p90':>7} {'CPU/move':>9} {'same games':>11} {'score':>7} {'took':>7}")
    for row in rows:
        same = sum(a == b for a, b in zip(row.games, idle.games))
        print(
            f"{row.label:<16} {statistics.fmean(row.wall):9.3f}s {_p90(row.wall):6.3f}s {statistics.fmean(row.cpu):8.3f}s"
            f" {same:>5}/{len(row.games):<5} {row.score:>4.1f}/{len(row.games):<2} {row.seconds:6.0f}s"
        )


if __name__ == "__main__":
    main()
