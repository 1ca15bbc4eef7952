"""The game server under load, on loopback: 100 connected bots playing 50
games at once, against the stdio referee playing the same games.

    nice -n 10 .venv/bin/python bench/game_server.py [--pairs 50] [--seconds 30] [--max-days 30]

Two runs, each for --seconds, each with --pairs games in flight at once
between bots that answer uniformly at random as soon as asked:

- server: `driver serve` in its own process; 2 x pairs WebSocket bots in
  this process (`/ws/bot`), each pair playing game after game that the
  bench starts through the API (`remote:A` against `remote:B`);
- stdio: `driver.game.play_game` in as many threads, each pair a couple of
  bot processes kept across games (as a tournament's --reuse).

Move latency, the same measure for both: as a bot sees it, from writing
its answer to reading its next state (the referee's round trip: the
other bot answers at once too). Printed: games per second, p50/p99 of
that latency, the referee's CPU time per move (the server process's, split
into its event loop's (connections, WebSocket frames, pages) and its game
threads' (the referee, the journal); the stdio run's referee threads',
bots not included; for the server run also the bots' side, which shares
this process's cores), and the server process's peak memory (VmHWM). Stops by itself after the two runs.

Then where the referee's CPU went, phase by phase: for the server, while
the bots connect (before the clock starts), while games are started
until --seconds are up, and while the games still in flight then finish
(fewer games at once each moment); for the stdio referee, starting its
bot processes, the games, and ending the bots. A short run's fixed costs
and its tail are these first and last phases.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from protocol.engine import Game, move_to_wire  # noqa: E402

RANDOM_STDIO_BOT = r"""
import json, random, sys, time
from protocol.engine import Game, move_to_wire
rng = random.Random(int(sys.argv[1]))
out = open(sys.argv[2], "a")
sent = None
for line in sys.stdin:
    now = time.perf_counter()
    if sent is not None:
        out.write("%.7f\n" % (now - sent))
        sent = None
    state = json.loads(line)
    if state["phase"]["name"] in ("end", "fault"):
        continue
    g = Game.from_wire(state)
    me = state["player"]
    sys.stdout.write(json.dumps([move_to_wire(g, rng.choice(list(g.legal_moves(me))))]) + "\n")
    sys.stdout.flush()
    sent = time.perf_counter()
out.close()
"""


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


# -- the server run ------------------------------------------------------------


def start_server(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "serve", "--port", "0", "--no-tcp",
         "--db", str(db), "--json", "--timeout", "60"],
        stdout=subprocess.PIPE, stderr=open(db.with_suffix(".log"), "wb"))
    assert proc.stdout is not None
    info = json.loads(proc.stdout.readline())
    return proc, info["url"].rstrip("/")


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """User + system CPU time of a process so far (children not included),
    or of one of its threads."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_memory_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


Phases = list[tuple[str, float, float, int]]
"""(phase, CPU seconds, of which the event loop's, moves) of a run, in order."""


async def server_run(url: str, pairs: int, seconds: float, max_days: int,
                     pid: int) -> tuple[int, list[float], float, Phases]:
    import websockets

    ws_url = "ws" + url[len("http"):] + "/ws/bot"
    latencies: list[float] = []
    finished = 0
    stop_at = 0.0

    async def bot(name: str, finals: asyncio.Queue[None]) -> None:
        rng = random.Random(name)
        async with websockets.connect(ws_url, max_size=1 << 20, ping_interval=None, compression=None) as ws:
            await ws.send(json.dumps({"name": name, "token": "bench-token-for-" + name}))
            json.loads(await ws.recv())
            await finals.put(None)  # connected
            sent = None
            async for message in ws:
                now = time.perf_counter()
                if sent is not None:
                    latencies.append(now - sent)
                    sent = None
                state = json.loads(message)
                if state["phase"]["name"] in ("end", "fault"):
                    await finals.put(None)
                    continue
                g = Game.from_wire(state)
                await ws.send(json.dumps([move_to_wire(g, rng.choice(list(g.legal_moves(state["player"]))))]))
                sent = time.perf_counter()

    def create(a: str, b: str) -> None:
        body = json.dumps({"play": False, "opponents": [f"remote:{a}", f"remote:{b}"], "max_days": max_days}).encode()
        req = urllib.request.Request(url + "/api/games", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        for attempt in range(100):
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    r.read()
                    return
            except urllib.error.HTTPError as e:
                if e.code != 409 or attempt == 99:  # 409: a bot of the pair is not free yet
                    print(e.read(), file=sys.stderr)
                    raise
                time.sleep(0.05)
        raise RuntimeError(f"{a} and {b} never became free")

    async def pair(k: int) -> None:
        nonlocal finished
        a, b = f"b{2 * k}", f"b{2 * k + 1}"
        qa: asyncio.Queue[None] = asyncio.Queue()
        qb: asyncio.Queue[None] = asyncio.Queue()
        tasks = [asyncio.create_task(bot(a, qa)), asyncio.create_task(bot(b, qb))]
        await qa.get()
        await qb.get()
        await started.wait()
        try:
            while time.monotonic() < stop_at:
                await asyncio.to_thread(create, a, b)
                await qa.get()
                await qb.get()
                if time.monotonic() <= stop_at:
                    finished += 1
        finally:
            for t in tasks:
                t.cancel()

    samples: list[tuple[float, float, int]] = []

    def sample() -> None:
        samples.append((cpu_seconds(pid), cpu_seconds(pid, pid), len(latencies)))

    async def sample_at_stop() -> None:
        await asyncio.sleep(seconds)
        sample()

    started = asyncio.Event()
    sample()
    runs = [asyncio.create_task(pair(k)) for k in range(pairs)]
    await asyncio.sleep(2.0)  # every bot connected
    sample()
    begin = time.monotonic()
    stop_at = begin + seconds
    latencies.clear()
    started.set()
    at_stop = asyncio.create_task(sample_at_stop())
    for outcome in await asyncio.gather(*runs, return_exceptions=True):
        if isinstance(outcome, BaseException):
            raise outcome
    await at_stop
    sample()
    names = ("bots connecting", "games until the stop", "games in flight finishing")
    phases = [(name, c1 - c0, l1 - l0, max(m1 - m0, 0) if name != "games until the stop" else m1)
              for name, (c0, l0, m0), (c1, l1, m1) in zip(names, samples, samples[1:])]
    return finished, latencies, min(time.monotonic(), stop_at) - begin, phases


# -- the stdio run -------------------------------------------------------------


def stdio_run(pairs: int, seconds: float, max_days: int, tmp: Path) -> tuple[int, list[float], float, Phases]:
    from driver.game import GameOptions, play_game
    from driver.process import BotGroup, BotProcess, respawner

    finished = 0
    lock = threading.Lock()
    clock = [time.process_time()]
    options = GameOptions(max_days=max_days, timeout=60.0)
    groups = []
    for k in range(pairs):
        procs = [BotProcess((sys.executable, "-c", RANDOM_STDIO_BOT, str(2 * k + i), str(tmp / f"lat{k}-{i}")),
                            f"b{2 * k + i}", isolation="none") for i in range(2)]  # they write their latencies to tmp; the server run's bots are not isolated either
        groups.append(procs)
    clock.append(time.process_time())
    begin = time.monotonic()
    stop_at = begin + seconds

    def worker(procs: list[BotProcess]) -> None:
        nonlocal finished
        while time.monotonic() < stop_at:
            play_game(procs, options, restart=respawner(procs))
            if time.monotonic() <= stop_at:
                with lock:
                    finished += 1

    threads = [threading.Thread(target=worker, args=(g,)) for g in groups]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    clock.append(time.process_time())
    elapsed = min(time.monotonic(), stop_at) - begin
    BotGroup([p for g in groups for p in g]).close()
    clock.append(time.process_time())
    latencies = [float(x) for f in tmp.glob("lat*") for x in f.read_text().split()]
    phases = [(name, b - a, 0.0, len(latencies) if name == "games" else 0)
              for name, a, b in zip(("starting the bots", "games", "ending the bots"), clock, clock[1:])]
    return finished, latencies, elapsed, phases


def report(label: str, games: int, lat: list[float], elapsed: float, memory: str, phases: Phases) -> None:
    ms = [x * 1000 for x in lat]
    print(f"{label:<7} {games / elapsed:8.1f} games/s  {games:5d} games in {elapsed:4.1f} s  "
          f"move latency p50 {percentile(ms, .5):6.2f} ms  p99 {percentile(ms, .99):7.2f} ms  "
          f"({len(ms)} moves){memory}", flush=True)
    for name, cpu, loop, moves in phases:
        per_move = f", {cpu / moves * 1e6:.0f} us/move" if moves else ""
        of_loop = f" (event loop {loop:.2f} s)" if label == "server" else ""
        print(f"          {name}: CPU {cpu:.2f} s{of_loop}, {moves} moves{per_move}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=50, help="games at once (twice as many bots)")
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--max-days", type=int, default=30)
    args = p.parse_args()
    print(f"{args.pairs} games at once, {2 * args.pairs} bots, {args.seconds:g} s per run, max {args.max_days} days,"
          f" {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite"
        proc, url = start_server(db)
        try:
            cpu0, mine0 = cpu_seconds(proc.pid), time.process_time()
            loop0 = cpu_seconds(proc.pid, proc.pid)  # the main thread: the event loop
            games, lat, elapsed, phases = asyncio.run(server_run(url, args.pairs, args.seconds, args.max_days, proc.pid))
            cpu, mine = cpu_seconds(proc.pid) - cpu0, time.process_time() - mine0
            loop = cpu_seconds(proc.pid, proc.pid) - loop0
            moves = max(len(lat), 1)
            memory = (f"  server CPU {cpu / moves * 1e6:.0f} us/move: event loop {loop / moves * 1e6:.0f},"
                      f" game threads {(cpu - loop) / moves * 1e6:.0f} (bots' side {mine / moves * 1e6:.0f})"
                      f"  server peak memory {peak_memory_kib(proc.pid) / 1024:.0f} MiB")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
        report("server", games, lat, elapsed, memory, phases)
        mine0 = time.process_time()
        games, lat, elapsed, phases = stdio_run(args.pairs, args.seconds, args.max_days, Path(tmp))
        mine = time.process_time() - mine0
        report("stdio", games, lat, elapsed, f"  referee CPU {mine / max(len(lat), 1) * 1e6:.0f} us/move", phases)


if __name__ == "__main__":
    main()
