"""Issue 29, hole 4: slow and idle clients cannot shut the server out.

The crowd is real sockets on loopback, from many source addresses of
127/8 (each under the per-address bound, as a crowd of clients would
be), held open for the whole test and closed at its end: thousands of
HTTP requests whose headers never end and idle connections to the TCP
game port, against a server started under the usual soft limit of 1,024
open files. A newcomer must still create and play games, over HTTP and
over TCP, and the slow requests must be answered 408 and closed.
"""

from __future__ import annotations

import contextlib
import random
import resource
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from serverlib import HOST, Server, TcpClient
from server.guard import PER_ADDRESS

HALF_OPEN = 2000  # uvicorn's old limit_concurrency: every other visitor got 503
IDLE_TCP = 1100  # past the 1,024 soft limit the server used to start under
PER_SOURCE = 100  # connections per source address: under PER_ADDRESS, as many clients would be


@pytest.fixture
def many_files() -> Iterator[None]:
    """This process holds the whole crowd: room for it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = HALF_OPEN + IDLE_TCP + PER_ADDRESS + 500
    if hard != resource.RLIM_INFINITY and hard < need:
        pytest.skip(f"the hard limit on open files ({hard}) cannot hold {need} sockets")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _open(port: int, source: str, first: bytes = b"") -> socket.socket:
    sock = socket.create_connection((HOST, port), timeout=30, source_address=(source, 0))
    if first:
        sock.sendall(first)
    return sock


def _http(port: int, request: bytes, source: str = HOST) -> bytes:
    """One whole request on its own connection; the whole answer."""
    with _open(port, source, request) as sock:
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out


def _play_tcp(port: int, number: int) -> list[str]:
    clients = [TcpClient(port, number, 2, seat) for seat in (0, 1)]
    try:
        finals: list[str] = []

        def play(client: TcpClient) -> None:
            final, _ = client.play(random.Random(client.seat))
            finals.append(final["phase"]["name"])

        threads = [threading.Thread(target=play, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(240)
        return finals
    finally:
        for c in clients:
            c.close()


def test_thousands_of_slow_and_idle_clients_leave_room_for_a_new_one(tmp_path: Path, many_files: None) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    server = Server(tmp_path / "games.sqlite", "--timeout", "20", files=(1024, hard)).start()
    crowd: list[socket.socket] = []
    try:
        port = server.http_port
        for i in range(HALF_OPEN):  # headers that never end
            crowd.append(_open(port, f"127.0.{2 + i // PER_SOURCE}.1", b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "))
        for i in range(IDLE_TCP):  # connections that never say which game
            crowd.append(_open(server.tcp_port, f"127.1.{i // PER_SOURCE}.1"))
        # the newcomer: the lobby answers, a game is created and played over HTTP, another over TCP
        assert _http(port, b"GET /api/lobby HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").startswith(
            b"HTTP/1.1 200")
        status, game = server.post("/api/games", {"play": False, "opponents": ["random", "random"], "max_days": 5})
        assert status == 200, game
        assert server.wait_finished(game["id"], timeout=120)["fault_seat"] is None
        assert _play_tcp(server.tcp_port, 7) == ["end", "end"]
        # a slow request is answered and closed once its time is up
        slow = crowd[0]
        slow.settimeout(120)
        answer = slow.recv(65536)
        assert answer.startswith(b"HTTP/1.1 408") and b"request headers not received within" in answer
        assert "open files allowed" not in server.log()  # raised to the hard limit at start
    finally:
        for sock in crowd:
            sock.close()
        server.stop()


def test_one_address_gets_a_clear_refusal_past_its_bound(tmp_path: Path, many_files: None) -> None:
    server = Server(tmp_path / "games.sqlite").start()
    source = "127.0.200.1"
    held: list[socket.socket] = []
    try:
        for _ in range(PER_ADDRESS):  # over both ports
            held.append(_open(server.http_port if len(held) % 2 else server.tcp_port, source))
        # a round trip on each port from elsewhere: the server has taken in every connection above
        assert _http(server.http_port, b"GET /api/lobby HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     "127.0.201.1").startswith(b"HTTP/1.1 200")
        assert _http(server.tcp_port, b"not a header\n", "127.0.201.1") == b""  # refused: closed
        with _open(server.http_port, source) as refused:
            refused.settimeout(60)
            answer = refused.recv(65536)
        assert answer.startswith(b"HTTP/1.1 503") and b"too many connections from your address" in answer
        with _open(server.tcp_port, source) as refused:
            refused.settimeout(60)
            assert refused.recv(65536).startswith(b"too many connections from your address")
        for sock in held:
            sock.close()
        held.clear()
        answer = b""
        for _ in range(300):  # the server notices the closes: the address may connect again
            answer = _http(server.http_port, b"GET /api/lobby HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                           source)
            if answer.startswith(b"HTTP/1.1 200"):
                break
            time.sleep(0.1)
        assert answer.startswith(b"HTTP/1.1 200")
    finally:
        for sock in held:
            sock.close()
        server.stop()


def test_a_slow_body_is_408_and_a_low_file_limit_is_said(tmp_path: Path) -> None:
    server = Server(tmp_path / "games.sqlite", files=(512, 512)).start()
    try:
        with _open(server.http_port, HOST, b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                             b"Content-Length: 100\r\n\r\n{\"play\"") as sock:
            sock.settimeout(120)
            answer = b""
            with contextlib.suppress(ConnectionError):
                while chunk := sock.recv(65536):
                    answer += chunk
        assert answer.startswith(b"HTTP/1.1 408") and b"request body not received within" in answer
        assert "only 512 open files allowed" in server.log()
    finally:
        server.stop()


def test_the_listeners_outlive_running_out_of_descriptors(tmp_path: Path, many_files: None) -> None:
    """Past the descriptors the server has, accept fails; once clients
    leave, both ports accept again (the listeners never stopped)."""
    server = Server(tmp_path / "games.sqlite", files=(400, 400)).start()
    crowd: list[socket.socket] = []
    try:
        for i in range(600):
            crowd.append(_open(server.tcp_port if i % 2 else server.http_port, f"127.2.{i // PER_SOURCE}.1"))
        for sock in crowd:
            sock.close()
        crowd.clear()
        finals: list[str] = []
        for attempt in range(60):  # accept resumes within a second or so of descriptors coming free
            with contextlib.suppress(OSError, AssertionError):
                finals = _play_tcp(server.tcp_port, 100 + attempt)
                if finals == ["end", "end"]:
                    break
        assert finals == ["end", "end"]
        status, game = server.post("/api/games", {"play": False, "opponents": ["random", "random"], "max_days": 3})
        assert status == 200 and server.wait_finished(game["id"], timeout=120)
    finally:
        for sock in crowd:
            sock.close()
        server.stop()


def test_websockets_give_their_place_back_when_they_close(tmp_path: Path) -> None:
    """A WebSocket is counted from its HTTP request to its close: twice
    the bound of them, one after another, and the address still gets in."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    server = Server(tmp_path / "games.sqlite").start()
    try:
        for _ in range(2 * PER_ADDRESS):
            with connect(server.ws + "/ws/watch/none", open_timeout=30) as ws:
                with contextlib.suppress(ConnectionClosed, TimeoutError):
                    while True:
                        ws.recv(timeout=30)  # no such game: the server closes it
        assert _http(server.http_port, b"GET /api/lobby HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").startswith(
            b"HTTP/1.1 200")
    finally:
        server.stop()


def test_one_client_is_its_address_or_its_ipv6_64() -> None:
    from server.guard import AddressLimiter, address_key

    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:10.0.0.1") == "10.0.0.1"
    limiter = AddressLimiter(2)
    keys = [limiter.acquire("10.0.0.1"), limiter.acquire("10.0.0.1")]
    assert limiter.acquire("10.0.0.1") is None and limiter.acquire("10.0.0.2") is not None
    limiter.release(keys[0])  # type: ignore[arg-type]
    assert limiter.acquire("10.0.0.1") == "10.0.0.1"
