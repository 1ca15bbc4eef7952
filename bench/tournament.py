"""Tournament cost: throughput, the harness's CPU beside its bots', and the
original driver side by side.

    .venv/bin/python bench/tournament.py [--games N] [--pairing-games N]
        [--cpu-games N] [--pair A B]... [--max-days N] [--reuse|--no-reuse]
        [--skip-throughput] [--skip-cpu] [--reps N] [--against-original PATH]

Prints, on this machine:

1. the comparable pairing for the original driver's figure: 20 full-length
   (100-day) games between two copies of a small Python bot
   (tests/bots_tournament/passive.py) at the default concurrency; the
   original `tournament` plays these at 3.2 games/s here (issue figure);
2. a round robin of `random` bots at 1 and 2 workers, and the ratio;
   both with and without --reuse;
3. the time per game of the referee alone (`driver.game.play_game` in a
   loop), of `driver run` as a command, and of the tournament at one
   worker, i.e. what the harness adds per game;
4. CPU: for each --pair, `tournament round-robin A B --games N` run as a
   child process whose whole tree's CPU (user + system: the tournament
   command, its workers, the bots' inits and the bots, every process
   reaped) comes from wait4; the bots' own CPU is what the referee
   recorded for their answers (the `cpu` of each stored game). Split
   three ways: the bots' answers after their first of each game (their
   thinking), their first answers (a fresh process's start-up lands
   there, and its first move), and the rest: the harness (the tournament
   process's own start-up, the entrants' probe, workers, referee, store,
   the bots' inits, start-ups before the first state and ends). The
   harness's share counts the first answers as harness, so it is an
   upper bound. Each pair is run twice, N and 3N games per seating: the
   difference is what each further game costs, without the run's fixed
   cost (printed apart);
5. with --against-original PATH (a checkout of the original's sources,
   its `player/` folder with `tournament.rhm` and `play_decent.rhm`): the
   comparable pairing under both drivers and the ratio; skipped, saying
   why, where the original cannot run (no `racket` with Rhombus).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common.settings import MAX_DAYS  # noqa: E402

PASSIVE = str(ROOT / "tests" / "bots_tournament" / "passive.py")
ORIGINAL_GAMES_PER_S = 3.2
DEFAULT_PAIRS = (("random", "random"), ("expert", "champion --time 0.05"), ("expert", "mcts --time 0.05"))


def _tournament(
    bots: list[str], games: int, concurrency: int, reuse: bool = False, max_days: int = MAX_DAYS
) -> tuple[int, float]:
    from tournaments import PlayOptions, round_robin

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        res = round_robin(
            bots, games=games, db=Path(tmp) / "bench.sqlite", concurrency=concurrency,
            options=PlayOptions(max_days=max_days), reuse=reuse,
        )
        return res.played_now, time.perf_counter() - start


def throughput(games: int, pairing_games: int, reps: int = 20) -> None:
    """Sections 1 to 3: games per second and the harness's wall time per game."""
    cores = len(os.sched_getaffinity(0))
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


@dataclass
class TreeCpu:
    """What one tournament run cost, in CPU seconds, and what it played."""

    games: int
    moves: int
    total: float  # the whole process tree
    thinking: float  # the bots' answers after their first of each game
    first: float  # the bots' first answers of each game
    wall: float

    @property
    def harness(self) -> float:
        return self.total - self.thinking - self.first


def tree_cpu(bots: tuple[str, str], games: int, max_days: int, reuse: bool | None, concurrency: int) -> TreeCpu:
    """Run `tournament round-robin` on `bots` as a child and measure its tree."""
    from tournaments.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "cpu.sqlite"
        command = [sys.executable, "-c", "from tournaments.cli import tournament_main; tournament_main()",
                   "round-robin", *bots, "--games", str(games), "--max-days", str(max_days), "--openings", "none",
                   "-j", str(concurrency), "--db", str(db), "--json"]
        if reuse is not None:
            command.append("--reuse" if reuse else "--no-reuse")
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp)
        assert child.stderr is not None
        err = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        if child.returncode != 0:
            raise SystemExit(f"tournament failed ({child.returncode}): {err.decode(errors='replace')[-2000:]}")
        with Store.open(db, readonly=True) as store:
            (tid,) = [t.id for t in store.tournaments()]
            records = store.games(tid, with_blobs=True)
        thinking = first = 0.0
        moves = 0
        for rec in records:
            cpu = [c or 0.0 for c in rec.answer_cpu()]
            seats = len(rec.seats)  # no opening: the first round asks every seat once
            first += sum(cpu[:seats])
            thinking += sum(cpu[seats:])
            moves += rec.moves
        return TreeCpu(len(records), moves, usage.ru_utime + usage.ru_stime, thinking, first, wall)


def cpu_split(pairs: list[tuple[str, str]], games: int, max_days: int, reuse: bool | None) -> None:
    """Section 4: the harness's CPU beside the bots', per game and per move,
    for a run and, from a run 3 times as long, for each further game."""
    cores = len(os.sched_getaffinity(0))
    mode = {None: "reuse as the tournament decides", True: "--reuse", False: "--no-reuse"}[reuse]
    print(f"\n4. CPU of the whole process tree: tournament round-robin A B --games N (x2 seatings), N = {games}"
          f" and {3 * games}, {max_days} days, no openings, {cores} workers, {mode}")
    print(f"   {'pair':<26} {'games':>5} {'moves':>6} {'total s':>8} {'bots s':>8} {'first s':>8}"
          f" {'harness s':>9} {'ms/game':>8} {'us/move':>8} {'share':>6}")
    for a, b in pairs:
        short = tree_cpu((a, b), games, max_days, reuse, cores)
        long = tree_cpu((a, b), 3 * games, max_days, reuse, cores)
        extra = TreeCpu(long.games - short.games, long.moves - short.moves, long.total - short.total,
                        long.thinking - short.thinking, long.first - short.first, long.wall - short.wall)
        for label, m in ((a + " vs " + b, short), ("", long), ("  each further game", extra)):
            upper = m.harness + m.first
            print(f"   {label:<26} {m.games:5d} {m.moves:6d} {m.total:8.2f} {m.thinking:8.2f} {m.first:8.2f}"
                  f" {m.harness:9.2f} {upper / max(m.games, 1) * 1000:8.1f} {upper / max(m.moves, 1) * 1e6:8.0f}"
                  f" {upper / m.total if m.total > 0 else 0.0:6.1%}")
        fixed = short.harness - extra.harness / max(extra.games, 1) * short.games
        print(f"   {'':<26} once per run (start-up, probe, workers): {fixed:.2f} s")
    print("   bots: their answers after the first of each game; first: their first answers (start-up included);"
          "\n   harness: the rest; ms/game, us/move and share: harness and first answers together")


def original_runner(path: Path) -> tuple[list[str] | None, str]:
    """How to run the original's tournament from a checkout at `path`, or
    None and why it cannot run here."""
    player = path / "player" if (path / "player").is_dir() else path
    if not (player / "tournament.rhm").is_file():
        return None, f"no original driver at {path} (expected player/tournament.rhm)"
    racket = shutil.which("racket")
    if racket is None:
        return None, ("racket is not installed (Debian's racket package has no Rhombus, which installs only"
                      " from the Racket package server: `raco pkg install rhombus`)")
    probe = subprocess.run([racket, "-l", "rhombus", "-e", "1"], capture_output=True, timeout=120)
    if probe.returncode != 0:
        return None, "racket cannot load Rhombus (`raco pkg install rhombus`)"
    return [racket, str(player / "tournament.rhm")], ""


def side_by_side(path: Path, pairing_games: int) -> None:
    """Section 5: the comparable pairing under both drivers, and the ratio."""
    print(f"\n5. side by side with the original driver ({path}): {pairing_games} games"
          " play_decent vs play_decent, 100 days")
    runner, why = original_runner(path)
    if runner is None:
        print(f"   skipped: {why}")
        return
    player = runner[1].rsplit("/", 1)[0]
    decent = []
    for name in ("play_decent",):
        exe = Path(player) / name
        if not exe.exists():
            built = subprocess.run(["raco", "exe", "-o", str(exe), str(exe) + ".rhm"], capture_output=True)
            if built.returncode != 0:
                print(f"   skipped: cannot build {name}: {built.stderr.decode(errors='replace')[-300:]}")
                return
        decent.append(str(exe))
    # The original plays `--games` per ordered pair of distinct entrants: 2 entrants give 2 x games.
    per_pair = max(1, pairing_games // 2)
    start = time.perf_counter()
    done = subprocess.run([*runner, "--games", str(per_pair), decent[0], decent[0]], capture_output=True,
                          cwd=player)
    original = time.perf_counter() - start
    if done.returncode != 0:
        print(f"   skipped: the original failed: {done.stderr.decode(errors='replace')[-300:]}")
        return
    cores = len(os.sched_getaffinity(0))
    results = {}
    for reuse in (False, True):
        n, secs = _tournament([decent[0], decent[0]], per_pair, cores, reuse)
        results[reuse] = n / secs
    rate = 2 * per_pair / original
    print(f"   original : {rate:6.2f} games/s ({original:.2f} s)")
    for reuse, ours in results.items():
        print(f"   ours {'--reuse' if reuse else 'fresh  '}: {ours:6.2f} games/s, {ours / rate:.1f}x the original")


@click.command()
@click.option("--games", type=int, default=10, show_default=True,
              help="Games per pairing and seating in the random round robin.")
@click.option("--pairing-games", type=int, default=20, show_default=True,
              help="Games in the comparable pairing (the original's figure is for 20).")
@click.option("--cpu-games", type=int, default=10, show_default=True,
              help="Games per seating of each --pair in the CPU split.")
@click.option("--pair", "pairs", type=(str, str), multiple=True, metavar="A B",
              help="Two BOTs whose games' CPU is split (repeatable). [default: random random; expert"
                   " 'champion --time 0.05'; expert 'mcts --time 0.05']")
@click.option("--max-days", type=int, default=MAX_DAYS, show_default=True, help="Day limit of the CPU split's games.")
@click.option("--reuse/--no-reuse", default=None,
              help="Force or forbid --reuse in the CPU split. [default: the tournament's own choice]")
@click.option("--skip-throughput", is_flag=True, help="Leave out sections 1 to 3.")
@click.option("--skip-cpu", is_flag=True, help="Leave out section 4.")
@click.option("--reps", type=click.IntRange(4), default=20, show_default=True,
              help="Games of each one-at-a-time measure in section 3.")
@click.option("--against-original", type=click.Path(path_type=Path), default=None, metavar="PATH",
              help="A checkout of the original driver: section 5, skipped with the reason where it cannot run.")
def main(games: int, pairing_games: int, cpu_games: int, pairs: tuple[tuple[str, str], ...], max_days: int,
         reuse: bool | None, skip_throughput: bool, skip_cpu: bool, reps: int, against_original: Path | None) -> None:
    cores = len(os.sched_getaffinity(0))
    print(f"machine: {cores} cores, load average {os.getloadavg()[0]:.2f}")
    if not skip_throughput:
        throughput(games, pairing_games, reps)
    if not skip_cpu:
        cpu_split(list(pairs or DEFAULT_PAIRS), cpu_games, max_days, reuse)
    if against_original is not None:
        side_by_side(against_original, pairing_games)


if __name__ == "__main__":
    main()
