"""WebSocket clients, the bridge and remote bots on the real server:
bots that stay connected, people's seats and their tokens, spectators,
and hostile clients."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from driver.game import game_lines
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from serverlib import TOKEN, Server, WsBot, env_with_server, random_move
from tournaments.store import Store

# Plain sockets, closed by hand: these clients outlive the statement that opens them.
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("ws") / "games.sqlite", "--timeout", "20").start()
    yield srv
    srv.stop()


def test_a_connected_bot_plays_our_bot_and_the_game_is_stored(server: Server) -> None:
    bot = WsBot(server, "wsbot").run(games=1)
    assert bot.welcome == {"welcome": "wsbot"}
    assert {"name": "wsbot", "connections": 1, "idle": 1} in server.get("/api/lobby")["remote"]
    status, game = server.post("/api/games", {"play": False, "opponents": ["remote:wsbot", "random"], "max_days": 20})
    assert status == 200, game
    done = server.wait_finished(game["id"])
    bot.thread.join(30)
    assert bot.finals and bot.finals[0]["player"] == 0
    assert done["seats"] == ["remote:wsbot", "random"]
    with Store.open(server.db) as store:
        [rec] = store.games(key=game["id"], with_blobs=True)
    assert game_lines(rec.trace_lines())[0].startswith(b'{"day":1')
    html = _get_text(server, f"/replay/{game['id']}")
    assert "wsbot (connected bot)" in html and "remote:wsbot" not in html and "<script" in html  # as the live page names it
    bot.close()


def test_a_name_belongs_to_its_first_token(server: Server) -> None:
    WsBot(server, "owned").close()
    thief = WsBot(server, "owned", token="another-token-entirely")
    assert "belongs to another token" in thief.welcome.get("error", "")
    for hello in ({"name": "random", "token": TOKEN}, {"name": "x" * 80, "token": TOKEN}, {"name": "ok", "token": "short"},
                  {"name": "<script>", "token": TOKEN}):
        ws = connect(server.ws + "/ws/bot")
        ws.send(json.dumps(hello))
        assert "error" in json.loads(ws.recv(timeout=30))
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=30)


def test_silent_and_garbage_websocket_clients_are_dropped(server: Server) -> None:
    garbage = connect(server.ws + "/ws/bot")
    garbage.send("not json at all")
    assert "error" in json.loads(garbage.recv(timeout=30))
    silent = connect(server.ws + "/ws/bot")  # says nothing: dropped after the hello timeout
    started = time.monotonic()
    with pytest.raises(ConnectionClosed):
        while True:
            silent.recv(timeout=60)
    assert time.monotonic() - started < 40
    huge = connect(server.ws + "/ws/bot", max_size=None)
    with pytest.raises(ConnectionClosed):
        huge.send("x" * (1 << 20))  # larger than the server's message limit
        huge.recv(timeout=30)


def _person_game(server: Server, opponents: list[str], timeout: int = 60) -> dict[str, Any]:
    status, game = server.post("/api/games", {"name": "Ann", "opponents": opponents, "people_timeout": timeout,
                                              "max_days": 30})
    assert status == 200, game
    return game


def _play_socket(server: Server, game: dict[str, Any], token: str | None = None) -> Any:
    ws = connect(server.ws + f"/ws/play/{game['id']}", open_timeout=30)
    ws.send(json.dumps({"token": token or game["token"]}))
    return ws


def _next(ws: Any, kind: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        m = json.loads(ws.recv(timeout=max(deadline - time.monotonic(), 0.1)))
        if m.get("type") == kind or "error" in m:
            return m


def test_a_wrong_token_or_another_seat_is_refused(server: Server) -> None:
    game = _person_game(server, ["person"])
    joined = server.post(f"/api/games/{game['id']}/join", {"name": "Bob"})[1]
    assert joined["seat"] == 1 and joined["token"] != game["token"]
    assert server.post(f"/api/games/{game['id']}/join", {"name": "Eve"})[0] == 409  # no seat left
    token = game["token"]
    near = token[:-1] + ("y" if token.endswith("x") else "x")  # one character off, never the token itself
    assert near != token
    for token in ("wrong", near, "", 12):
        ws = connect(server.ws + f"/ws/play/{game['id']}")
        ws.send(json.dumps({"token": token}))
        assert "not your seat" in json.loads(ws.recv(timeout=30)).get("error", "")
    ann, bob = _play_socket(server, game), _play_socket(server, game, joined["token"])
    ask = _next(ann, "ask")
    assert ask["legal"] == {"invest": [0, 3]}
    _next(bob, "ask")
    bob.send("[3]")
    ann.send("[1]")
    # Each seat's answers go to its own seat only: Ann's socket cannot answer Bob's question.
    ask = _next(ann, "ask")
    assert ask["state"]["players"][1]["coins"] == 0 and ask["state"]["players"][0]["coins"] == 2
    ann.close()
    bob.close()


def test_a_person_who_reloads_gets_the_question_again(server: Server) -> None:
    game = _person_game(server, ["random"])
    ann = _play_socket(server, game)
    first = _next(ann, "ask")
    ann.close()  # a reload: the seat waits (its clock runs on)
    again = _play_socket(server, game)
    assert _next(again, "ask")["state"] == first["state"]
    again.send("[0]")
    assert _next(again, "ask")["state"]["phase"]["name"] == "buy"
    again.close()


def test_spectators_see_a_round_only_once_it_resolved(server: Server) -> None:
    """A connected bot (seat 0) and a person (seat 1) invest; the referee
    writes the bot's answer to the trace at once (seat order), but a
    spectator must not learn it while the person is still choosing."""
    bot = WsBot(server, "investor", answer=lambda s: [2] if s["phase"]["name"] == "investing" else
                [random_move(s, s["player"], random.Random(0))]).run(games=1)
    status, game = server.post("/api/games", {"play": False, "opponents": ["remote:investor", "person"],
                                              "people_timeout": 60, "max_days": 30})
    assert status == 200, game
    joined = server.post(f"/api/games/{game['id']}/join", {"name": "Ann"})[1]
    ann = _play_socket(server, game, joined["token"])
    _next(ann, "ask")
    watcher = connect(server.ws + f"/ws/watch/{game['id']}")
    time.sleep(2.0)  # the bot has answered by now; Ann has not
    seen = []
    try:
        while True:
            seen.append(json.loads(watcher.recv(timeout=1.0)))
    except TimeoutError:
        pass
    assert any(m.get("type") == "view" for m in seen)  # the spectator does see the game
    text = json.dumps(seen)
    assert '"invest":2' not in text and "[2]" not in text
    ann.send("[0]")
    deadline = time.monotonic() + 30
    revealed = False
    while time.monotonic() < deadline and not revealed:
        m = json.loads(watcher.recv(timeout=30))
        revealed = m.get("type") == "view" and any(
            s.get("k") == "reveal" for s in (m.get("full") or m).get("steps", []))
    assert revealed
    ann.close()
    bot.close()
    watcher.close()


def test_the_bridge_plays_our_random_bot_unchanged(server: Server, tmp_path: Path) -> None:
    bridge = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "connect", server.url, "random",
         "--name", "bridged", "--token", TOKEN + "-bridge", "--max-games", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_remote(server, "bridged")
        ids = []
        for _ in range(2):
            _wait_remote(server, "bridged")
            status, game = server.post("/api/games", {"play": False, "opponents": ["random", "remote:bridged"],
                                                      "max_days": 15})
            assert status == 200, game
            ids.append(game["id"])
            server.wait_finished(game["id"])
        out, err = bridge.communicate(timeout=60)
    finally:
        bridge.kill()
    assert bridge.returncode == 0, err
    assert "played 2 games" in err
    results = [f for f in server.get("/api/lobby")["finished"] if f["id"] in ids]
    assert len(results) == 2 and all(r["fault_seat"] is None for r in results)


def test_remote_name_in_driver_run_through_the_relay(server: Server) -> None:
    bot = WsBot(server, "relayed").run(games=1)
    run = subprocess.run([sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "run", "remote:relayed", "random",
                          "--max-days", "10"], capture_output=True, env=env_with_server(server.url, TOKEN), timeout=120)
    assert run.returncode in (0, 3), run.stderr
    # Nobody asked for --isolation none: the summary says where the bot really runs.
    summary = run.stderr.decode()
    assert "seat 0: remote: the bot plays on the machine that connected it" in summary, summary
    assert "--isolation none" not in summary
    lines = run.stdout.splitlines()
    final = orjson.loads(lines[-1])
    assert final["phase"]["name"] == "end"
    bot.thread.join(30)
    assert bot.finals and bot.finals[0]["phase"] == final["phase"]
    bot.close()


def test_a_remote_bot_that_leaves_mid_game_forfeits_that_game(server: Server) -> None:
    leaver = WsBot(server, "leaver")
    run = subprocess.Popen([sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "run", "remote:leaver", "random"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env_with_server(server.url, TOKEN))
    state = json.loads(leaver.ws.recv(timeout=60))
    assert state["phase"]["name"] == "investing"
    leaver.close()  # gone while asked
    out, err = run.communicate(timeout=60)
    assert run.returncode == 4, err
    final = orjson.loads(out.splitlines()[-1])
    assert final["phase"]["name"] == "fault" and final["phase"]["forfiet"] == 0
    assert b"leaver disconnected" in err


def _wait_remote(server: Server, name: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(r["name"] == name and r["idle"] for r in server.get("/api/lobby")["remote"]):
            return
        time.sleep(0.2)
    raise AssertionError(f"{name} never connected")


def _get_text(server: Server, path: str) -> str:
    import urllib.request

    with urllib.request.urlopen(server.url + path, timeout=30) as r:
        return r.read().decode()


def test_a_remote_bot_plays_game_after_game_through_a_kept_relay(server: Server, tmp_path: Path) -> None:
    """--reuse keeps the relay's process, and with it the reservation,
    across games: the remote bot receives one game after another on its
    connection, as a kept local bot does on its standard input."""
    bot = WsBot(server, "reused").run(games=4)
    db = tmp_path / "reuse.sqlite"
    run = subprocess.run(
        [sys.executable, "-c", "from arena.cli import tournament_main; tournament_main()", "round-robin", "remote:reused", "random",
         "--games", "2", "--max-days", "10", "--reuse", "-j", "1", "--db", str(db)],
        capture_output=True, env=env_with_server(server.url, TOKEN), timeout=300)
    assert run.returncode == 0, run.stderr
    with Store.open(db) as store:
        games = store.games()
    assert len(games) == 4
    assert all(g.fault_seat is None for g in games), [g.fault_reason for g in games]
    bot.thread.join(60)
    assert len(bot.finals) == 4 and all(f["phase"]["name"] == "end" for f in bot.finals)
    bot.close()


# -- who may use a connected bot (issue 29, hole 3) ---------------------------


def _reserve(server: Server, name: str, token: str | None = TOKEN, wait: float = 0) -> tuple[int, Any]:
    body: dict[str, Any] = {"name": name, "wait": wait}
    if token is not None:
        body["token"] = token
    return server.post("/api/remote/reserve", body)


def test_only_the_owners_token_reserves_a_connected_bot(server: Server) -> None:
    bot = WsBot(server, "guarded")
    assert _reserve(server, "guarded", None)[0] == 403
    status, answer = _reserve(server, "guarded", "another-token-of-a-stranger")
    assert status == 403 and "only its owner" in answer["error"]
    assert {"name": "guarded", "connections": 1, "idle": 1} in server.get("/api/lobby")["remote"]  # nobody holds it
    assert server.get("/api/remote/guarded") == {"name": "guarded", "connections": 1, "idle": 1}
    assert _reserve(server, "nobody-ever", TOKEN)[0] == 404
    status, answer = _reserve(server, "guarded")
    assert status == 200 and answer["ticket"]
    status, answer = _reserve(server, "guarded")  # held by that ticket now
    assert status == 409 and "busy" in answer["error"]
    bot.close()


def test_a_silent_relay_is_closed_after_the_move_timeout_and_the_bot_freed(tmp_path: Path) -> None:
    server = Server(tmp_path / "games.sqlite", "--timeout", "2").start()
    try:
        bot = WsBot(server, "held")
        _, answer = _reserve(server, "held")
        relay = connect(server.ws + "/ws/relay", open_timeout=30)
        relay.send(json.dumps({"ticket": answer["ticket"]}))
        welcome = json.loads(relay.recv(timeout=30))
        assert welcome["welcome"] == "held" and 0 < welcome["keepalive"] <= 2
        assert _reserve(server, "held")[0] == 409  # the relay holds it...
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                relay.recv(timeout=60)  # ...and says nothing
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4002
        assert "said nothing" in closed.value.rcvd.reason
        status, answer = _reserve(server, "held", wait=30)
        assert status == 200, answer  # free again
        bot.close()
    finally:
        server.stop()


def test_a_relay_cut_off_mid_game_costs_the_bot_its_connection_not_its_next_game(tmp_path: Path) -> None:
    """The bot got a state and no final one: its answer must not land in
    its next game, so its connection is closed (driver connect restarts it)."""
    server = Server(tmp_path / "games.sqlite", "--timeout", "2").start()
    try:
        bot = WsBot(server, "cut")
        _, answer = _reserve(server, "cut")
        relay = connect(server.ws + "/ws/relay", open_timeout=30)
        relay.send(json.dumps({"ticket": answer["ticket"]}))
        json.loads(relay.recv(timeout=30))
        relay.send(json.dumps({"day": 1, "phase": {"name": "investing"}, "player": 0}))
        assert json.loads(bot.ws.recv(timeout=30))["phase"] == {"name": "investing"}
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                bot.ws.recv(timeout=60)  # the relay says nothing more
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4011
        relay.close()
    finally:
        server.stop()


def test_a_relay_that_keeps_saying_it_is_there_keeps_the_bot(tmp_path: Path) -> None:
    """The empty keepalive messages of server.relay hold the reservation
    while the referee waits for other seats; states still reach the bot."""
    server = Server(tmp_path / "games.sqlite", "--timeout", "2").start()
    try:
        bot = WsBot(server, "kept")
        _, answer = _reserve(server, "kept")
        relay = connect(server.ws + "/ws/relay", open_timeout=30)
        relay.send(json.dumps({"ticket": answer["ticket"]}))
        json.loads(relay.recv(timeout=30))
        for _ in range(8):  # 4 s, twice the move timeout
            relay.send("")
            time.sleep(0.5)
        relay.send('{"probe": 1}')
        assert json.loads(bot.ws.recv(timeout=30)) == {"probe": 1}  # only the state reached the bot
        relay.close()
        bot.close()
    finally:
        server.stop()


def test_reservations_per_client_are_bounded(server: Server) -> None:
    from server.remotes import RESERVATIONS_PER_CLIENT

    bots = [WsBot(server, "crowd") for _ in range(RESERVATIONS_PER_CLIENT + 1)]
    for _ in range(RESERVATIONS_PER_CLIENT):
        assert _reserve(server, "crowd")[0] == 200
    status, answer = _reserve(server, "crowd")
    assert status == 429 and f"holds {RESERVATIONS_PER_CLIENT}" in answer["error"]
    assert any(r["name"] == "crowd" and r["idle"] == 1 for r in server.get("/api/lobby")["remote"])
    for bot in bots:
        bot.close()


def _remote_command(bot: str, url: str, token: str | None = TOKEN) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "run", bot,
                             "random", "--max-days", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env_with_server(url, token))


def _run_remote(bot: str, url: str, token: str | None = TOKEN) -> subprocess.CompletedProcess[bytes]:
    return _finished(_remote_command(bot, url, token))


def _finished(proc: subprocess.Popen[bytes]) -> subprocess.CompletedProcess[bytes]:
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_driver_run_with_no_server_or_no_such_bot_fails_soon_and_says_why(server: Server) -> None:
    """Three of the four wait out the relay's grace (10 s) for a server or
    a bot that may yet come: they run at once."""
    from serverlib import free_port

    WsBot(server, "gone").close()
    runs = [_remote_command("remote:ghost", f"http://127.0.0.1:{free_port()}"),
            _remote_command("remote:ghost", server.url), _remote_command("remote:gone", server.url),
            _remote_command("remote:gone", server.url, token=None)]
    unreachable, never, gone, no_token = map(_finished, runs)
    assert unreachable.returncode == 4 and b"cannot reach http://127.0.0.1:" in unreachable.stderr, unreachable.stderr
    assert never.returncode == 4 and b"no bot 'ghost' has ever connected" in never.stderr, never.stderr
    assert gone.returncode == 4 and b"remote bot 'gone' is not connected" in gone.stderr, gone.stderr
    assert no_token.returncode == 4 and b"set ECONOMANCY_TOKEN" in no_token.stderr, no_token.stderr


def test_a_game_waits_for_a_busy_remote_bot_within_its_wait_and_says_so(server: Server) -> None:
    bot = WsBot(server, "busybee")
    assert _reserve(server, "busybee")[0] == 200  # another referee holds it
    run = _run_remote("remote:busybee --wait 2", server.url)
    assert run.returncode == 4, run.stderr
    assert b"remote:busybee: remote bot 'busybee' is busy" in run.stderr and b"waiting (0 s of --wait 2 s)" in run.stderr
    assert b"still busy after 2 s (--wait)" in run.stderr
    bot.close()


def test_a_tournament_with_an_absent_remote_bot_stops_before_its_first_game(server: Server, tmp_path: Path) -> None:
    from serverlib import free_port

    tournament = [sys.executable, "-c", "from arena.cli import tournament_main; tournament_main()", "round-robin",
                  "remote:nowhere", "random", "--games", "4", "--db", str(tmp_path / "t.sqlite")]
    WsBot(server, "nowhere").close()  # known, but gone
    run = subprocess.run(tournament, capture_output=True, env=env_with_server(server.url, TOKEN), timeout=120)
    assert run.returncode == 2 and b"bot 'remote:nowhere': remote bot 'nowhere' is not connected" in run.stderr, \
        run.stderr
    run = subprocess.run(tournament, capture_output=True, timeout=120,
                         env=env_with_server(f"http://127.0.0.1:{free_port()}", TOKEN))
    assert run.returncode == 2 and b"cannot reach http://127.0.0.1:" in run.stderr, run.stderr
    with Store.open(tmp_path / "t.sqlite") as store:
        assert store.games() == []
