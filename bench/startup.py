"""Bot start-up: how long each of our bots takes to answer its first state,
beside a bare Python bot (json and sys only) run by the same interpreter.

    .venv/bin/python bench/startup.py [--runs N] [BOT ...]

Each run starts the bot as the referee does (`python -P -m bots.NAME`,
without isolation), writes the first state of a 2-player game to it,
and times the process from its start until it has answered and exited
at end of input: wall time, and its CPU time (user + system, from
wait4). Bots and the bare bot run in turn (A B A B ...), so that a
machine's drift hits both; printed are the medians and each bot's
ratio to the bare bot's median. Target: 1.5x or less.

Bytecode: with PYTHONDONTWRITEBYTECODE set (or a source tree the bot's
user cannot write, as under the referee's isolation, where nobody ran
our modules before), every start compiles our modules again, some 20 ms
of CPU. `--cache-bytecode` gives every run a bytecode cache of its own
(PYTHONPYCACHEPREFIX in a temporary folder, filled by the warm-up): the
figures of an installed package, or of a tree whose bytecode is written.

Thinking: a search bot's first answer includes its search, half a second
by default, which is not start-up. So the search bots are timed at a
fixed, tiny amount of work (`TINY_SEARCH`: one ply of alpha-beta, which
fills the champion's 3x3 matrix game at the first bid (`--search
alphabeta`: its default MCTS loads the same modules), or ten MCTS
iterations: well under a millisecond, and no clock involved, so no
fallback move on a busy machine); `--default-budget` times them as they
play, thinking included.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BARE = r"""
import json, sys
for line in sys.stdin:
    state = json.loads(line)
    if state["phase"]["name"] in ("end", "fault"):
        continue
    sys.stdout.write("[0]\n")
    sys.stdout.flush()
"""
BOTS = ("random", "expert", "decent-repro", "evolved", "alphabeta", "mcts", "champion")
TINY_SEARCH = {"alphabeta": ("--depth", "1"), "mcts": ("--iterations", "10"), "champion": ("--search", "alphabeta", "--depth", "1")}
"""Each search bot's options for a first answer that is all start-up (see the module's docstring)."""


def first_state() -> bytes:
    from driver.game import state_lines
    from protocol.engine import Game

    return state_lines(Game(2).to_wire(), [0])[0] + b"\n"


def timed(argv: list[str], state: Path, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one run answering `state`."""
    with open(state, "rb") as stdin:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        assert child.stdout is not None
        answer = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0 or not answer.startswith(b"["):
        raise SystemExit(f"{' '.join(argv)} did not answer: {answer[:200]!r}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    from bots import registry

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each command (after one warm-up)")
    parser.add_argument("--cache-bytecode", action="store_true",
                        help="give the runs a bytecode cache of their own (see the module's docstring)")
    parser.add_argument("--default-budget", action="store_true",
                        help="time the search bots at their default thinking time, not at a tiny fixed search")
    parser.add_argument("bots", nargs="*", default=list(BOTS), help="our bots to time [default: all]")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}, {args.runs} runs each")
    with tempfile.TemporaryDirectory() as tmp:
        env = None
        if args.cache_bytecode:
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "bytecode")
            print("bytecode: cached (a cache of this run's own, filled by the warm-up)")
        elif os.environ.get("PYTHONDONTWRITEBYTECODE"):
            print("bytecode: not cached (PYTHONDONTWRITEBYTECODE is set): every start compiles our modules")
        else:
            print("bytecode: as this tree has it (written by the warm-up where the tree is writable)")
        state = Path(tmp) / "state.json"
        state.write_bytes(first_state())
        bare_script = Path(tmp) / "bare.py"
        bare_script.write_text(BARE)
        bare = [sys.executable, "-P", str(bare_script)]
        resolved = {name: registry.resolve(name) for name in args.bots}
        unknown = [name for name, argv in resolved.items() if argv is None]
        if unknown:
            raise SystemExit(f"not our bots: {', '.join(unknown)}")
        thinking = {} if args.default_budget else TINY_SEARCH
        commands = {name: [*argv, *thinking.get(name, ())] for name, argv in resolved.items() if argv is not None}
        tiny = [f"{name} {' '.join(options)}" for name, options in thinking.items() if name in commands]
        if tiny:
            print(f"search: {', '.join(tiny)} (start-up, not thinking; --default-budget to include it)")
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in ["bare", *commands]}
        for name, argv in [("bare", bare), *commands.items()]:  # warm-up: the file cache, the bytecode
            timed(argv, state, env)
        for _ in range(args.runs):
            for name, argv in commands.items():
                times["bare"].append(timed(bare, state, env))
                times[name].append(timed(argv, state, env))
    wall0 = statistics.median(w for w, _ in times["bare"])
    cpu0 = statistics.median(c for _, c in times["bare"])
    print(f"{'bot':<14} {'wall ms':>8} {'x bare':>7} {'CPU ms':>8} {'x bare':>7}")
    for name, runs in times.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"{name:<14} {wall * 1000:8.1f} {wall / wall0:7.2f} {cpu * 1000:8.1f} {cpu / cpu0:7.2f}")


if __name__ == "__main__":
    main()
