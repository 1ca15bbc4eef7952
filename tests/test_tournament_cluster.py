"""A real Ray cluster: a head and a second node started by `ray start`, each
with its own temporary folder, on loopback only (a network namespace of
their own holds nothing but a loopback: nothing of theirs listens or
connects outside). A tournament and an `evolve` generation run across both
nodes; the tournament's bot is not found in a shared folder but shipped
with the job (`--ray-working-dir`, Ray's runtime environment), and the
second node is killed (SIGKILL, every process of it) while it plays. The
results must be complete and exactly those of the same runs played here
without Ray, and a rerun (resume) must find nothing left to play.

End to end on purpose (it is the one test of a real multi-node run): it
needs root for the namespace, and costs about a minute, most of it Ray
starting its two nodes.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

VENV_BIN = Path(sys.executable).parent
HEAD_PORT = 6379  # in a network namespace of its own: no other Ray can hold it

# A passive bot that says where it runs from: the stored standard error of
# each game names the copy of the shipped folder that played it.
SHIPPED_BOT = '''#!/usr/bin/env python3
import json, os, sys, time
here = os.path.realpath(__file__)
sys.stderr.write("shipped bot at " + here + "\\n")
sys.stderr.flush()
pause = float(os.environ.get("SHIPPED_PAUSE", "0"))
slow_under, gate = os.environ.get("SHIPPED_SLOW_UNDER"), os.environ.get("SHIPPED_GATE")
for line in sys.stdin:
    state = json.loads(line)
    phase = state["phase"]["name"]
    if phase in ("end", "fault") or "player" not in state:
        continue
    slow = slow_under and here.startswith(slow_under) and not os.path.exists(gate)
    time.sleep(pause * 5 if slow else pause)
    if phase == "investing":
        print("[0]", flush=True)
    elif phase == "buy":
        print('["Pass"]', flush=True)
    else:
        me = state["players"][state["player"]]
        if phase == "attacking" and state["phase"]["attacker"] == state["player"]:
            print("[0]", flush=True)
        else:
            print(f"[{max(1, len(me['cards']) - 1)}]", flush=True)
'''

LOOPBACK_UP = """
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sh22x", fcntl.ioctl(s, 0x8913, struct.pack("16sh22x", b"lo", 0)))[1]
fcntl.ioctl(s, 0x8914, struct.pack("16sh22x", b"lo", flags | 1))
"""


def _unavailable() -> str | None:
    """Why this machine cannot host the loopback cluster, or None."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return "Ray is not installed (pip install -e '.[test,ray]')"
    if os.geteuid() != 0:
        return "a network namespace of its own needs root"
    for program in ("unshare", "nsenter", "umount"):
        if shutil.which(program) is None:
            return f"{program} is not installed (util-linux)"
    return None

# `ray start --address` returns before the head schedules on the new node:
# an evolve generation started then (its tasks take a second in all) ran
# on the head alone, SPREAD or not. Ready once tasks spread over both.
BOTH_NODES_UP = """
import sys, time, ray
ray.init(address=sys.argv[1], logging_level="ERROR", log_to_driver=False)

@ray.remote(num_cpus=1, scheduling_strategy="SPREAD")
def node():
    time.sleep(0.2)
    return ray.get_runtime_context().get_node_id()

deadline = time.monotonic() + 120
while len(set(ray.get([node.remote() for _ in range(4)]))) < 2:
    if time.monotonic() > deadline:
        sys.exit(f"tasks never reached the second node: {ray.nodes()}")
"""


@dataclass
class Cluster:
    base: Path
    netns: Path
    env: dict[str, str]
    head_dir: Path
    node2_dir: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{HEAD_PORT}"

    def inside(self, argv: list[str]) -> list[str]:
        """`argv` run in the cluster's network namespace (its only network)."""
        return ["nsenter", f"--net={self.netns}", *argv]

    def run(self, argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(self.inside(argv), cwd=cwd, env=self.env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"{argv} exited with {done.returncode}:\n{done.stdout}\n{done.stderr[-4000:]}"
        return done

    def pids(self) -> list[int]:
        """Every process in the cluster's namespace: all of them started here."""
        ino = os.stat(self.netns).st_ino
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if os.stat(entry / "ns" / "net").st_ino == ino:
                        found.append(int(entry.name))
                except OSError:
                    pass
        return found

    def kill_node2(self) -> list[str]:
        """SIGKILL every process of the second node (its raylet, agents,
        workers and their bots); their command lines."""
        roots = {pid for pid in self.pids() if str(self.node2_dir) in _cmdline(pid)}
        doomed = roots | _descendants(roots)
        lines = [_cmdline(pid) for pid in doomed]
        for pid in doomed:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return lines


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _descendants(roots: set[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    why = _unavailable()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the Ray cluster test: {why}")
        pytest.skip(why)
    base = Path(tempfile.mkdtemp(prefix="ray-cluster-", dir="/tmp"))
    base.chmod(0o755)  # the bots run as nobody, from the shipped copies under the nodes' folders
    netns = base / "netns"
    netns.touch()
    subprocess.run(["unshare", f"--net={netns}", "true"], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(
        RAY_USAGE_STATS_ENABLED="0",
        RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(16),  # the nodes' and drivers' shared secret
        XDG_DATA_HOME=str(base / "data"),  # evolve's store
        PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}",
    )
    c = Cluster(base, netns, env, base / "head", base / "node2")
    try:
        c.run([sys.executable, "-c", LOOPBACK_UP], base)
        common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--object-store-memory", str(100 << 20),
                  "--disable-usage-stats"]
        c.run([str(VENV_BIN / "ray"), "start", "--head", "--port", str(HEAD_PORT), "--temp-dir", str(c.head_dir),
               "--include-dashboard", "false", "--dashboard-agent-listen-port", "52365", *common], base)
        c.run([str(VENV_BIN / "ray"), "start", "--address", c.address, "--temp-dir", str(c.node2_dir),
               "--dashboard-agent-listen-port", "52366", *common], base)
        c.run([sys.executable, "-c", BOTH_NODES_UP, c.address], base)
        yield c
    finally:
        for pid in c.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        subprocess.run(["umount", str(netns)], check=False)
        shutil.rmtree(base, ignore_errors=True)


def _digests(db: Path) -> dict[str, tuple[str, str]]:
    with closing(sqlite3.connect(db)) as con:
        return {key: (status, digest) for key, status, digest in con.execute("SELECT key, status, digest FROM games")}


def _stderrs(db: Path) -> list[str]:
    """The stored games' standard error; none while the database does not exist yet."""
    if not db.exists():
        return []
    with closing(sqlite3.connect(db)) as con:
        try:
            rows = con.execute("SELECT stderr FROM games").fetchall()
        except sqlite3.OperationalError:  # created, its tables not yet
            return []
    return [zlib.decompress(blob).decode() for (blob,) in rows]


def test_evolve_and_a_tournament_across_two_nodes_one_killed(cluster: Cluster) -> None:
    """One test, in this order: the evolve generation needs both nodes alive."""
    _evolve_across_both(cluster)
    _tournament_losing_a_node(cluster)


def _evolve_across_both(cluster: Cluster) -> None:
    """An evolve generation's games (in-process bots: genomes sent as task
    arguments) spread over both nodes, with the same result as here."""
    settings = ["--generations", "1", "--population", "16", "--players", "2", "--tournaments", "8",
                "--opponents", "expert", "--opponent-games", "8", "--max-days", "30", "--seed", "5", "-q"]
    evolve = str(VENV_BIN / "evolve")
    subprocess.run([evolve, "here", *settings, "-j", "1"], cwd=cluster.base, env=cluster.env, check=True,
                   capture_output=True, stdin=subprocess.DEVNULL, timeout=300)
    run = subprocess.Popen(cluster.inside([evolve, "there", *settings, "--ray-address", cluster.address]),
                           cwd=cluster.base, env=cluster.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    # A Ray worker is titled ray::TASK while it runs one: seen under the second node, it played.
    seen: set[str] = set()
    while run.poll() is None:
        seen.update(line.split()[0] for line in _node2_descendants(cluster) if line.startswith("ray::play_"))
        time.sleep(0.02)
    out, err = run.communicate()
    assert run.returncode == 0, f"{out}\n{err[-4000:]}"
    assert seen & {"ray::play_tournaments", "ray::play_outside"}, "no evolve task ran on the second node"
    runs = cluster.base / "data" / "economancy-arena" / "evolved"
    here, there = (json.loads((runs / key / "generations.jsonl").read_text()) for key in ("here", "there"))
    for timing in ("seconds", "games_per_second"):
        here.pop(timing, None)
        there.pop(timing, None)
    assert here == there
    assert (runs / "here" / "population.json").read_bytes() == (runs / "there" / "population.json").read_bytes()


def _tournament_losing_a_node(cluster: Cluster) -> None:
    ship = cluster.base / "ship"
    ship.mkdir()
    bot = ship / "bot.py"
    bot.write_text(SHIPPED_BOT)
    bot.chmod(0o755)
    ship.chmod(0o755)
    # --no-reuse: a seeded run repeats exactly only with a new process per game
    # (the local run would otherwise keep its reusable bots; Ray's never do).
    games = ["tournament", "round-robin", "random", "shipped=./bot.py", "-n", "6", "--max-days", "8",
             "--seed", "3", "-j", "2", "--no-reuse"]
    # The same tournament on this machine, without Ray: the games every run must reproduce.
    subprocess.run([str(VENV_BIN / games[0]), *games[1:], "--db", str(cluster.base / "here.sqlite")], cwd=ship,
                   env=cluster.env, check=True, capture_output=True, stdin=subprocess.DEVNULL, timeout=300)
    expected = _digests(cluster.base / "here.sqlite")
    assert len(expected) == 12

    db = cluster.base / "cluster.sqlite"
    gate = cluster.base / "second-node-stored"  # a name without the node2 folder's, whose processes die
    argv = [str(VENV_BIN / games[0]), *games[1:], "--db", str(db), "--ray-address", cluster.address,
            "--ray-working-dir", ".", "--bot-env", "SHIPPED_PAUSE=0.1",
            # The head's games five times slower until the second node has
            # stored one: on a loaded machine the second node's worker (its
            # runtime environment unpacked) started so late that the head had
            # played the rest, and no game was left to kill there.
            "--bot-env", f"SHIPPED_SLOW_UNDER={cluster.head_dir}", "--bot-env", f"SHIPPED_GATE={gate}"]
    run = subprocess.Popen(cluster.inside(argv), cwd=ship, env=cluster.env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Wait for a first game stored,
        assert run.stderr is not None
        log = []
        for line in run.stderr:
            log.append(line)
            if line.startswith("game "):
                break
        # Then for a game of the second node stored and another in flight there.
        killed: list[str] = []
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and run.poll() is None:
            if any(str(cluster.node2_dir) in text for text in _stderrs(db)):
                gate.touch()
                if any("bot.py" in line for line in _node2_descendants(cluster)):
                    killed = cluster.kill_node2()
                    break
            time.sleep(0.05)
        stored = [m.group(1) for text in _stderrs(db) for m in re.finditer(r"shipped bot at (\S+)", text)]
        assert any("bot.py" in line for line in killed), (
            f"no game was in flight on the second node ({'finished' if run.poll() is not None else 'still running'};"
            f" {len(stored)} games stored, played at {sorted(stored)})")
        out, err = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    log.append(err)
    assert run.returncode == 0, "".join(log)[-4000:]

    # Complete and exact: every scheduled game once, each the game played here.
    assert _digests(db) == expected
    # The bot ran from the copies Ray unpacked on each node, never from the folder it was shipped from.
    places = [m.group(1) for text in _stderrs(db) for m in re.finditer(r"shipped bot at (\S+)", text)]
    assert len(places) == 12
    assert not [p for p in places if p.startswith(str(ship))]
    assert any(p.startswith(str(cluster.node2_dir)) for p in places)
    assert any(p.startswith(str(cluster.head_dir)) for p in places)
    # Resuming finds every game stored.
    again = cluster.run(argv + ["--json"], ship)
    assert json.loads(again.stdout)["played_now"] == 0


def _node2_descendants(cluster: Cluster) -> list[str]:
    """The command lines of the processes the second node started (its workers, their bots)."""
    roots = {pid for pid in cluster.pids() if str(cluster.node2_dir) in _cmdline(pid)}
    return [_cmdline(pid) for pid in _descendants(roots)]
