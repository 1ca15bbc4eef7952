"""Engine speed on one core: run as `.venv/bin/python bench/engine.py`.

Prints complete games/s and decisions/s for two uniformly random players
(a) inside C (`playout`, policy 0) and (b) driven from Python through
pending/legal_moves/play (what a Python bot sees), for the simple and base
sets, then copy()/key()/to_wire()/from_wire() per second, and compares the
C figure with the targets (>= 10,000 games/s first bar, >= 20,000 aim).

On a shared, loaded machine wall-clock rates swing by 2x from run to run;
`--fixed N` plays exactly N random 2-player simple-set playouts and
prints their decisions, a fixed workload to count instructions with
(`valgrind --tool=callgrind .venv/bin/python bench/engine.py --fixed 20000`)
or to time with `/usr/bin/time`, the same for two builds whatever the load.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol.engine import Game  # noqa: E402

FIRST_BAR = 10_000
AIM = 20_000


def timed(seconds: float, step: Callable[[], int]) -> tuple[float, float]:
    """Repeat step() for about `seconds`; (calls/s, step results summed/s)."""
    calls = total = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        total += step()
        calls += 1
        if calls % 64 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return calls / elapsed, total / elapsed


def c_playouts(n_players: int, base: bool, policy: int, seconds: float) -> tuple[float, float]:
    start = Game(n_players, base=base)
    seeds = iter(range(1 << 62))

    def one() -> int:
        g = start.copy()
        g.playout(next(seeds), policy)
        return g.decisions

    return timed(seconds, one)


def python_random_games(n_players: int, base: bool, seconds: float) -> tuple[float, float]:
    start = Game(n_players, base=base)
    rng = random.Random(1)

    def one() -> int:
        g = start.copy()
        while not g.is_over:
            for p in g.pending():
                g.play(p, rng.choice(g.legal_moves(p)))
        return g.decisions

    return timed(seconds, one)


def state_ops(seconds: float) -> dict[str, float]:
    """Per-call rates on mid-game states of a 2-player base game."""
    rng = random.Random(2)
    states: list[Game] = []
    while len(states) < 200:
        g = Game(2, base=True)
        for _ in range(rng.randrange(5, 60)):
            if g.is_over:
                break
            p = g.pending()[0]
            g.play(p, rng.choice(g.legal_moves(p)))
        if not g.is_over:
            states.append(g)
    wires = [g.to_wire(g.pending()[0]) for g in states]
    idx = iter(range(1 << 62))

    def op(f: Callable[[int], object]) -> Callable[[], int]:
        def step() -> int:
            f(next(idx) % len(states))
            return 1

        return step

    return {
        "copy()": timed(seconds, op(lambda i: states[i].copy()))[0],
        "key()": timed(seconds, op(lambda i: states[i].key()))[0],
        "to_wire()": timed(seconds, op(lambda i: states[i].to_wire(0)))[0],
        "from_wire()": timed(seconds, op(lambda i: Game.from_wire(wires[i])))[0],
        "legal_moves()": timed(seconds, op(lambda i: states[i].legal_moves(states[i].pending()[0])))[0],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement (default 2)")
    ap.add_argument("--fixed", type=int, metavar="N", help="only play N random 2p simple playouts (a fixed workload)")
    args = ap.parse_args()
    if args.fixed is not None:
        start, decisions = Game(2), 0
        for seed in range(args.fixed):
            game = start.copy()
            game.playout(seed, 0)
            decisions += game.decisions
        print(f"{args.fixed} playouts, {decisions} decisions")
        return
    s = args.seconds
    print(f"Economancy engine benchmark, one core, {s:g} s per figure")
    print(f"{'what':44} {'games/s':>10} {'decisions/s':>13}")
    first: dict[str, float] = {}
    for base in (False, True):
        name = "base" if base else "simple"
        for n in (2, 4):
            g, d = c_playouts(n, base, 0, s)
            if n == 2:
                first[name] = g
            print(f"{f'(a) C playout, random, {name}, {n}p':44} {g:10,.0f} {d:13,.0f}")
        g, d = c_playouts(2, base, 1, s)
        print(f"{f'    C playout, heuristic, {name}, 2p':44} {g:10,.0f} {d:13,.0f}")
        g, d = python_random_games(2, base, s)
        print(f"{f'(b) Python loop, random, {name}, 2p':44} {g:10,.0f} {d:13,.0f}")
    print()
    for op, rate in state_ops(s / 2).items():
        print(f"{op:16} {rate:12,.0f} /s")
    print()
    for name, g in first.items():
        verdict = "meets the aim" if g >= AIM else "meets the first bar" if g >= FIRST_BAR else "BELOW the first bar"
        print(f"C random playouts, {name} 2p: {g:,.0f} games/s: {verdict} ({FIRST_BAR:,} / {AIM:,})")


if __name__ == "__main__":
    main()
