"""The real game server for tests: `driver serve` in a subprocess on free
loopback ports, and small clients that speak its protocols."""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from protocol.engine import Game, move_to_wire

HOST = "127.0.0.1"
TOKEN = "a-secret-token-for-tests"
"""The owner's token of the test bots that connect over WebSocket."""


class Server:
    """One `driver serve` process; `url`, `tcp_port`, `db`."""

    def __init__(self, db: Path, *args: str, files: tuple[int, int] | None = None) -> None:
        """`files`: the (soft, hard) limit on open files the server starts under."""
        self.db = db
        self.args = args
        self.files = files
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.tcp_port = 0
        self.http_port = 0

    def start(self, http_port: int = 0, tcp_port: int = 0) -> Server:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "serve", "--host", HOST,
             "--port", str(http_port), "--tcp-port", str(tcp_port), "--db", str(self.db), "--json", *self.args],
            stdout=subprocess.PIPE, stderr=open(self.db.with_suffix(".log"), "ab"),
            preexec_fn=None if self.files is None else lambda: resource.setrlimit(resource.RLIMIT_NOFILE, self.files),
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # the server says where it listens once it does
        if not line:
            raise RuntimeError("the server did not start: " + self.db.with_suffix(".log").read_text())
        info = json.loads(line)
        self.url = info["url"].rstrip("/")
        self.tcp_port = info["tcp_port"]
        self.http_port = int(self.url.rsplit(":", 1)[1])
        return self

    @property
    def ws(self) -> str:
        return "ws" + self.url[len("http"):]

    def stop(self, sig: int = signal.SIGTERM) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(30)
        finally:
            if self.proc.stdout:
                self.proc.stdout.close()

    def log(self) -> str:
        return self.db.with_suffix(".log").read_text(errors="replace")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            return json.loads(r.read())

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def wait_finished(self, game_id: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for f in self.get("/api/lobby")["finished"]:
                if f["id"] == game_id:
                    return f
            time.sleep(0.2)
        raise AssertionError(f"game {game_id} did not finish in {timeout} s")


def random_move(state: dict[str, Any], seat: int, rng: random.Random) -> Any:
    game = Game.from_wire(state)
    return move_to_wire(game, rng.choice(list(game.legal_moves(seat))))


class TcpClient:
    """A client of the original protocol, as play_gui: three datums with
    println, then a JSON move per state (here without a newline)."""

    def __init__(self, port: int, game: int | str, players: int | str, seat: int | str, header: bytes | None = None):
        self.sock = socket.create_connection((HOST, port), timeout=60)
        self.sock.sendall(header if header is not None else f"{game}\n{players}\n{seat}\n".encode())
        self.file = self.sock.makefile("rb")
        self.seat = int(seat) if str(seat).isdigit() else -1

    def lines(self) -> Iterator[bytes]:
        for line in self.file:
            yield line

    def play(self, rng: random.Random | None = None, newline: bool = False) -> tuple[dict[str, Any], list[bytes]]:
        """Answer every state with a random legal move; return the final state and every line read."""
        rng = rng or random.Random(self.seat)
        seen = []
        for line in self.lines():
            seen.append(line)
            state = orjson.loads(line)
            if state["phase"]["name"] in ("end", "fault"):
                return state, seen
            move = orjson.dumps([random_move(state, self.seat, rng)]) + (b"\n" if newline else b"")
            self.sock.sendall(move)
        raise AssertionError("the connection closed before the final state")

    def closed(self, timeout: float = 30) -> bool:
        """Whether the server closed the connection (reads to the end)."""
        self.sock.settimeout(timeout)
        try:
            while self.sock.recv(65536):
                pass
        except (ConnectionError, socket.timeout):
            return False
        return True

    def close(self) -> None:
        self.file.close()  # the socket stays open while its file object does
        self.sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def env_with_server(url: str, token: str | None = None) -> dict[str, str]:
    """The environment of a referee using `url`'s remote bots; `token`: the
    owner's token it reserves them with (ECONOMANCY_TOKEN)."""
    env = {**os.environ, "ECONOMANCY_SERVER": url}
    env.pop("ECONOMANCY_TOKEN", None)
    return env if token is None else {**env, "ECONOMANCY_TOKEN": token}


class WsBot:
    """A bot connected over WebSocket that answers at random (or as told)."""

    def __init__(self, server: Server, name: str, token: str = TOKEN, answer: Any = None) -> None:
        """`answer(state)`: the move to send (a list, or a string sent as it is), else a random legal one."""
        self.ws = connect(server.ws + "/ws/bot", open_timeout=30)
        self.ws.send(json.dumps({"name": name, "token": token}))
        self.welcome = json.loads(self.ws.recv(timeout=30))
        self.answer = answer
        self.finals: list[dict[str, Any]] = []
        self.thread: threading.Thread | None = None

    def run(self, games: int = 1) -> WsBot:
        def loop() -> None:
            rng = random.Random(1)
            try:
                while len(self.finals) < games:
                    state = json.loads(self.ws.recv(timeout=60))
                    if state["phase"]["name"] in ("end", "fault"):
                        self.finals.append(state)
                        continue
                    move = self.answer(state) if self.answer else [random_move(state, state["player"], rng)]
                    self.ws.send(move if isinstance(move, str) else json.dumps(move))
            except (ConnectionClosed, TimeoutError):
                pass

        self.thread = threading.Thread(target=loop, daemon=True)
        self.thread.start()
        return self

    def close(self) -> None:
        self.ws.close()
