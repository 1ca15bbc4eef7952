"""The original server's TCP protocol on our server, with real sockets:
clients that behave exactly as play_gui and server.rkt expect, and
hostile ones that must not stall anything."""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from serverlib import Server, TcpClient
from tournaments.store import Store


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("tcp") / "games.sqlite", "--tcp-timeout", "20").start()
    yield srv
    srv.stop()


def play_pair(server: Server, number: int, newline: bool = False) -> list[tuple[dict, list[bytes]]]:
    clients = [TcpClient(server.tcp_port, number, 2, seat) for seat in (0, 1)]
    results: list = [None, None]

    def run(i: int) -> None:
        results[i] = clients[i].play(random.Random(number * 10 + i), newline=newline)

    threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert all(clients[i].closed() for i in (0, 1)), "the server closes every connection after the final state"
    return results


def test_two_play_gui_clients_play_a_base_set_game_to_the_end(server: Server) -> None:
    [(final0, lines0), (final1, lines1)] = play_pair(server, 7)
    # The final state goes to every seat, with its own "player", as server.rkt writes it.
    assert final0["player"] == 0 and final1["player"] == 1
    assert {k: v for k, v in final0.items() if k != "player"} == {k: v for k, v in final1.items() if k != "player"}
    # The base set, as the original server plays it (#:simple #f).
    assert "Golem" in final0["shop"]
    for line in lines0 + lines1:  # compact JSON, sorted keys, one per line: the original's bytes
        value = orjson.loads(line)
        assert line == orjson.dumps(value, option=orjson.OPT_SORT_KEYS) + b"\n"
    seats_asked = {orjson.loads(line)["player"] for line in lines0[:-1]}
    assert seats_asked == {0}
    stored = _stored(server, ("tcp:7/0", "tcp:7/1"))
    assert len(stored) == 1 and stored[0].options["server"] == "tcp"
    trace = stored[0].trace_lines()
    assert orjson.loads(trace[-1])["phase"] == final0["phase"]


def test_moves_with_newlines_and_a_header_on_one_line_work_too(server: Server) -> None:
    results = []
    header = [b"8 2 0 ", b"  8\t2\n1\n"]
    clients = [TcpClient(server.tcp_port, 0, 0, 0, header=h) for h in header]
    clients[0].seat, clients[1].seat = 0, 1
    threads = [threading.Thread(target=lambda c=c: results.append(c.play(newline=True))) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(results) == 2 and all(r[0]["phase"]["name"] in ("end", "fault") for r in results)
    assert all(r[0]["phase"]["name"] == "end" for r in results)


def test_a_value_split_across_writes_and_two_values_in_one_write(server: Server) -> None:
    """read-json semantics: a move may arrive in pieces, or glued to the next."""
    a, b = TcpClient(server.tcp_port, 9, 2, 0), TcpClient(server.tcp_port, 9, 2, 1)
    first_a = orjson.loads(next(a.lines()))
    first_b = orjson.loads(next(b.lines()))
    assert first_a["phase"] == first_b["phase"] == {"name": "investing"}
    a.sock.sendall(b"[")
    time.sleep(0.3)
    a.sock.sendall(b" 1 ]")
    b.sock.sendall(b"\n\n [0]")
    after = orjson.loads(next(a.lines()))  # the investments resolved (a Stipend cannot attack: buying)
    assert after["phase"]["name"] == "buy"
    assert after["players"][0]["coins"] == 2 and after["players"][1]["coins"] == 3
    a.close()
    b.close()


def test_a_connection_lost_mid_game_forfeits_and_the_other_seat_is_told(server: Server) -> None:
    a, b = TcpClient(server.tcp_port, 10, 2, 0), TcpClient(server.tcp_port, 10, 2, 1)
    next(a.lines())
    next(b.lines())
    a.close()  # seat 0 leaves while asked to invest
    b.sock.sendall(b"[0]")
    final = orjson.loads(next(b.lines()))
    assert final["phase"]["name"] == "fault" and final["phase"]["forfiet"] == 0
    assert "disconnected" in final["phase"]["reason"]
    assert final["player"] == 1
    assert b.closed()


def test_hostile_clients_do_not_stall_other_games(server: Server) -> None:
    silent = socket.create_connection(("127.0.0.1", server.tcp_port))  # says nothing at all
    half = socket.create_connection(("127.0.0.1", server.tcp_port))
    half.sendall(b"11\n2")  # stops in the middle of its header
    garbage = socket.create_connection(("127.0.0.1", server.tcp_port))
    garbage.sendall(b"(hello world)\n")
    huge = socket.create_connection(("127.0.0.1", server.tcp_port))
    bad_seat = TcpClient(server.tcp_port, 12, 2, 5)
    try:
        huge.sendall(b"1" * 4000)
    except OSError:
        pass
    started = time.monotonic()
    [(final, _), _] = play_pair(server, 13)
    assert final["phase"]["name"] in ("end", "fault") and time.monotonic() - started < 60
    for s in (garbage, huge):  # refused at once
        s.settimeout(10)
        assert s.recv(100) == b""
    assert bad_seat.closed(10)
    for s in (silent, half, garbage, huge):
        s.close()


def test_a_taken_seat_is_refused_and_a_flood_of_moves_is_a_fault(server: Server) -> None:
    a = TcpClient(server.tcp_port, 14, 2, 0)
    time.sleep(0.3)
    thief = TcpClient(server.tcp_port, 14, 2, 0)  # wants seat 0 too: the original let it take over
    assert thief.closed(10)
    b = TcpClient(server.tcp_port, 14, 2, 1)
    next(a.lines())
    next(b.lines())
    b.sock.sendall(b"[0]")
    try:
        a.sock.sendall(b"[" + b" " * (200 << 10))  # an answer longer than the server's limit, never finished
    except OSError:
        pass
    final = orjson.loads(next(b.lines()))
    assert final["phase"]["name"] == "fault" and final["phase"]["forfiet"] == 0
    assert "bytes" in final["phase"]["reason"]


def _stored(server: Server, seats: tuple[str, ...], patience: float = 60.0) -> list:
    """The stored games with these seats, once there is one: the server
    stores a game after its clients have their final state, so a test that
    asks at once may be early (on a busy machine, it was)."""
    deadline = time.monotonic() + patience
    while True:
        with Store.open(server.db) as store:
            found = [g for g in store.games(with_blobs=True) if g.seats == seats]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_garbage_as_a_move_is_a_fault_in_the_trace(server: Server, tmp_path: Path) -> None:
    a, b = TcpClient(server.tcp_port, 15, 2, 0), TcpClient(server.tcp_port, 15, 2, 1)
    next(a.lines())
    next(b.lines())
    a.sock.sendall(b"hello\n")
    b.sock.sendall(b"[1]")
    final = orjson.loads(next(a.lines()))
    assert final["phase"]["forfiet"] == 0 and "not JSON" in final["phase"]["reason"]
    [game] = _stored(server, ("tcp:15/0", "tcp:15/1"))
    assert game.fault_seat == 0 and b'"hello"' in game.trace_lines()
