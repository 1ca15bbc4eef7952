"""A newcomer's wait while a crowd of slow and idle clients holds the
game server, on loopback (issue 29, hole 4).

    nice -n 10 .venv/bin/python bench/slow_clients.py [--half-open 2000] [--idle-tcp 1100] [--games 5]

`driver serve` starts under a soft limit of 1,024 open files (the usual
default; the server raises it to the hard limit). The crowd: --half-open
HTTP requests whose headers never end and --idle-tcp connections to the
TCP game port that never say which game, 100 per loopback source address
(127.0.x.1, 127.1.x.1: under the server's per-address bound, as a crowd
of clients would be). Then, as a newcomer from 127.0.0.1, the bench
reads the lobby and creates --games bot games (random vs random, 5 days)
and waits for each to finish, once without the crowd and once with it.
Printed: the seconds each step took, and what the crowd's first request
was answered. Stops by itself; every socket is closed at the end.
"""

from __future__ import annotations

import argparse
import json
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HOST = "127.0.0.1"
PER_SOURCE = 100


def start_server(db: Path) -> tuple[subprocess.Popen[bytes], dict[str, object]]:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    proc = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "serve", "--host", HOST, "--port", "0",
         "--tcp-port", "0", "--db", str(db), "--json"],
        stdout=subprocess.PIPE, stderr=open(db.with_suffix(".log"), "wb"),
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard)))
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())


def newcomer(url: str, games: int) -> tuple[float, float]:
    """(seconds to read the lobby, seconds to create and finish `games` games)."""
    started = time.monotonic()
    with urllib.request.urlopen(url + "api/lobby", timeout=120) as r:
        r.read()
    lobby = time.monotonic() - started
    started = time.monotonic()
    for _ in range(games):
        body = json.dumps({"play": False, "opponents": ["random", "random"], "max_days": 5}).encode()
        request = urllib.request.Request(url + "api/games", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as r:
            key = json.loads(r.read())["id"]
        while True:
            with urllib.request.urlopen(url + "api/lobby", timeout=120) as r:
                if any(f["id"] == key for f in json.loads(r.read())["finished"]):
                    break
            time.sleep(0.05)
    return lobby, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half-open", type=int, default=2000)
    parser.add_argument("--idle-tcp", type=int, default=1100)
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.half_open + args.idle_tcp + 256
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(need, hard)), hard))
    crowd: list[socket.socket] = []
    with tempfile.TemporaryDirectory(prefix="bench-slow-") as tmp:
        proc, info = start_server(Path(tmp) / "games.sqlite")
        url = str(info["url"])
        http_port = int(url.rstrip("/").rsplit(":", 1)[1])
        try:
            lobby, played = newcomer(url, args.games)
            print(f"no crowd:   lobby {lobby * 1000:.0f} ms; {args.games} games created and finished in {played:.2f} s")
            started = time.monotonic()
            refused = ""
            try:
                for i in range(args.half_open):
                    sock = socket.create_connection((HOST, http_port), timeout=30,
                                                    source_address=(f"127.0.{2 + i // PER_SOURCE}.1", 0))
                    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                    crowd.append(sock)
                for i in range(args.idle_tcp):
                    crowd.append(socket.create_connection((HOST, int(str(info["tcp_port"]))), timeout=30,
                                                          source_address=(f"127.1.{i // PER_SOURCE}.1", 0)))
            except OSError as e:
                refused = f" (then the server took no more: {e})"
            half_open = min(len(crowd), args.half_open)
            print(f"crowd:      {half_open} of {args.half_open} half-open HTTP requests and {len(crowd) - half_open} of"
                  f" {args.idle_tcp} idle TCP connections opened in {time.monotonic() - started:.2f} s{refused}")
            started = time.monotonic()
            try:
                lobby, played = newcomer(url, args.games)
                print(f"with crowd: lobby {lobby * 1000:.0f} ms; {args.games} games created and finished in {played:.2f} s")
            except OSError as e:
                print(f"with crowd: the newcomer failed after {time.monotonic() - started:.1f} s: {e}")
            first = crowd[0]
            first.settimeout(120)
            try:
                answer = first.recv(200).split(b"\r\n", 1)[0].decode(errors="replace")
            except OSError as e:
                answer = f"nothing ({e})"
            print(f"the crowd's first request was answered: {answer!r}")
        finally:
            for sock in crowd:
                sock.close()
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
