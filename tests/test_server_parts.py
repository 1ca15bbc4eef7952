"""The server's parts alone: the JSON value stream, the TCP header, the
spectators' withholding, per-seat timeouts and the live view."""

from __future__ import annotations

import os
import time

import orjson
import pytest

from driver.botspec import BotOptions, parse_bot
from driver.game import GameOptions
from driver.process import BotGroup, ReplyKind
from server.jsonstream import JsonValueStream, ValueTooLong
from viewer.live import build_view, view_update
from server.referee import SeatRun, TraceTap, Withholder, referee_game, seat_options
from driver.seat import NetworkSeat
from server.tcp import HeaderError, parse_header


def test_values_are_cut_where_read_json_would_cut_them() -> None:
    s = JsonValueStream(100)
    assert s.feed(b"[1") == []
    assert s.feed(b"2]") == [b"[12]"]
    assert s.feed(b' ["a]\\"b"] [3]\n{"x": [1, {}]}') == [b'["a]\\"b"]', b"[3]", b'{"x": [1, {}]}']
    assert s.feed(b"17 ") == [b"17"]  # a bare number ends at a delimiter
    assert s.feed(b"hello world\n[0]") == [b"hello world", b"[0]"]  # garbage: up to its line's end
    assert s.feed(b"[}") == [b"[}"]  # a mismatched bracket ends the (bad) value
    assert s.feed(b'"no end\n') == [b'"no end\n']
    with pytest.raises(ValueTooLong):
        s.feed(b"[" + b" " * 200)


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"7\n2\n0\n", ((7, 2, 0), 5)),
        (b"  7 3\t2 [1]", ((7, 3, 2), 7)),
        (b"+12\n4\n3\n", ((12, 4, 3), 7)),
        (b"7\n2\n", None),
        (b"7\n2\n1", None),  # the seat may still be followed by more digits
    ],
)
def test_the_header_is_three_racket_integers(data: bytes, expected: object) -> None:
    assert parse_header(data) == expected


@pytest.mark.parametrize("data", [b"7\n5\n0\n", b"7\n2\n2\n", b"-1 2 0 ", b"seven 2 0 ", b"7.0 2 0 ", b"1" * 50])
def test_bad_headers_are_refused(data: bytes) -> None:
    with pytest.raises(HeaderError):
        parse_header(data)


def test_a_round_is_withheld_until_the_next_round_starts() -> None:
    w = Withholder()
    for line in (b'{"s":0}', b"[3]", b'{"s":1}'):
        w.push(line)
    assert w.round_started() == [b'{"s":0}', b"[3]", b'{"s":1}']
    w.push(b"[1]")
    assert w.round_started() == [b"[1]"]
    assert w.end() == []


def test_a_network_seat_gets_its_own_timeout_and_no_start_up_allowance(tmp_path) -> None:
    """A connected seat has nothing to start: its first answer is due within
    its own per-move timeout, not the referee's 30 s start-up allowance on
    top, while the bot of ours beside it keeps its allowance."""
    seat = NetworkSeat("silent")
    tap = TraceTap(None, lambda lines, asked, q: None)
    options = GameOptions(max_days=4, timeout=60.0)
    try:
        started = time.monotonic()
        result = referee_game([SeatRun("r", 60.0, spec=parse_bot("random")), SeatRun("silent", 1.5, endpoint=seat)],
                              options, tap)
        took = time.monotonic() - started
    finally:
        seat.release()
        for fd in (seat.net_states_fd, seat.net_answers_fd):
            os.close(fd)
    assert result.fault == (1, "timeout: no answer within 1.5 s")
    assert took < 20
    assert seat_options([SeatRun("r", 60.0, spec=parse_bot("random")), SeatRun("p", 7.0, endpoint=seat)],
                        options).seats == [BotOptions(60.0, None, None, None), BotOptions(7.0, 0.0, None, None)]


def test_spectators_never_see_an_investment_before_the_round_resolves(tmp_path) -> None:
    """A real game through the referee: every batch published must end at a
    round's boundary, so no hidden answer is ever published with a seat of
    its round still to answer."""
    published: list[tuple[list[bytes], list[int], bytes]] = []
    tap = TraceTap(tmp_path / "g.trace", lambda lines, asked, q: published.append((lines, asked, q)))
    seats = [SeatRun(f"r{i}", 10.0, spec=parse_bot("random")) for i in range(3)]
    result = referee_game(seats, GameOptions(max_days=6), tap)
    shown = [line for lines, _, _ in published for line in lines]
    assert shown == result.trace  # everything, in order, in the end
    assert (tmp_path / "g.trace").read_bytes().splitlines() == result.trace  # and the journal too
    for lines, asked, question in published[:-1]:
        if not lines:
            continue
        # The batch ends with an answer (the round's last), and the question now
        # being asked is a state no seat of the published round still waits on.
        assert not lines[-1].startswith(b'{"day"')
        assert question.startswith(b'{"day"') and asked
    states = [orjson.loads(q) for _, _, q in published if q]
    investing = [s for s in states if s["phase"]["name"] == "investing"]
    assert investing, "the game had investing rounds"


def test_network_seat_disconnect_reads_as_a_closed_bot() -> None:
    seat = NetworkSeat("net")
    group = BotGroup([seat])
    try:
        group.send(0, b'{"question":1}')
        assert os.read(seat.net_states_fd, 100) == b'{"question":1}\n'
        seat.disconnected("connection closed")
        os.close(seat.net_answers_fd)
        seat.net_answers_fd = None
        started = time.monotonic()
        [(_, reply)] = list(group.replies([0], 5.0))
        took = time.monotonic() - started
    finally:
        group.detach(0)
        seat.release()
        os.close(seat.net_states_fd)
    assert reply.kind is ReplyKind.CLOSED and reply.detail == "disconnected (connection closed)"
    assert took < 1.5  # no wait for an exit status that a network seat never has (EXIT_WAIT, 2 s)
    assert seat.kept_stderr() == b"disconnected: connection closed\n" and seat.returncode() is None


def test_the_live_view_ends_with_the_question_asked_and_updates_are_diffs() -> None:
    from protocol.engine import Game
    from driver.game import state_lines

    g = Game(2)
    first = state_lines(g.to_wire(), [0, 1])
    lines = [first[0], b"[1]", first[1], b"[0]"]
    g.play(0, 1)
    g.play(1, 0)
    question = state_lines(g.to_wire(), [0])[0]
    before = build_view(lines[:0], ["a", "b"], first[0])
    after = build_view(lines, ["a", "b"], question)
    assert before is not None and after is not None
    assert before["steps"][-1]["k"] == "ask" and "a" not in before["steps"][-1]
    kinds = [s["k"] for s in after["steps"]]
    assert kinds[:3] == ["ask", "ask", "reveal"] and kinds[-1] == "ask" and "a" not in after["steps"][-1]
    update = view_update(before, after)
    assert update["steps_from"] == 0 and update["steps"] == after["steps"]
    assert view_update(None, after) == {"full": after}


def test_a_ticket_starting_with_a_dash_reaches_the_relay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tickets are random URL-safe text: one may start with "-", which must
    not read as an option when the relay parses its command line."""
    import http.server
    import threading

    from server.relay import _parser, relay_argv, reserve_argv

    class Reserve(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            body = b'{"ticket": "-dash-first"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Reserve)
    threading.Thread(target=httpd.handle_request, daemon=True).start()
    monkeypatch.setenv("ECONOMANCY_TOKEN", "the-owners-token-of-alice")
    argv = reserve_argv(relay_argv("alice", f"http://127.0.0.1:{httpd.server_address[1]}"))
    httpd.server_close()
    args = _parser().parse_args(list(argv[4:]))
    assert args.ticket == "-dash-first" and args.name == "alice"


def test_serving_on_every_interface_says_where_other_machines_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    # `driver serve --host 0.0.0.0` announced only http://127.0.0.1:PORT/.
    import socket

    from server import cli

    monkeypatch.setattr(socket, "getfqdn", lambda *a: "arena.example.org")
    assert cli._other_urls("0.0.0.0", 8123) == ["http://arena.example.org:8123/"]
    assert cli._other_urls("127.0.0.1", 8123) == []


def test_the_journal_is_written_once_per_round_not_once_per_line(tmp_path, monkeypatch) -> None:
    journal = tmp_path / "g.trace"
    tap = TraceTap(journal, lambda lines, asked, q: None)
    writes = []
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: (writes.append(fd) if fd == tap._fd else None) or real(fd, data))
    # Seeded: these two random bots play all 6 days (64 lines); unseeded, a
    # game could end on day 2 with too few rounds to tell lines from rounds.
    seats = [SeatRun(f"r{i}", 10.0, spec=parse_bot(f"random --seed {30 + i}")) for i in range(2)]
    result = referee_game(seats, GameOptions(max_days=6), tap)
    assert journal.read_bytes().splitlines() == result.trace  # every line, in order
    assert len(result.trace) > 30 and len(writes) < len(result.trace) / 2, (len(writes), len(result.trace))


def test_a_game_threads_rounds_reach_the_loop_in_batches_in_order() -> None:
    from server.hub import Batches, _cycle_day

    class Loop:
        def __init__(self) -> None:
            self.scheduled: list = []

        def call_soon_threadsafe(self, callback) -> None:
            self.scheduled.append(callback)

    loop, applied = Loop(), []
    batches = Batches(loop, applied.append)  # type: ignore[arg-type]
    for item in range(3):
        batches.put(item)
    assert len(loop.scheduled) == 1  # one wake-up for the three
    loop.scheduled.pop()()
    batches.put(3)
    loop.scheduled.pop()()
    assert applied == [[0, 1, 2], [3]]
    assert _cycle_day(b'{"day":2,"phase":{"name":"buy"}}') == 2
    assert _cycle_day(b'{"phase":{"name":"buy"},"day":3}') == 3  # not ours: parsed
    assert _cycle_day(b'{"day":7,"x":1}') is None


class _Clock:
    """A fake `time` for server.relay: sleeping advances it, nothing waits."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def _scripted_server(monkeypatch: pytest.MonkeyPatch, clock: _Clock, answer) -> None:
    """server.relay's requests answered by `answer(now)`: None for a server
    that does not answer, an HTTP status, or a ticket (str)."""
    import io
    import urllib.error

    import server.relay as relay

    class Response(io.BytesIO):
        def __enter__(self) -> Response:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    def urlopen(request: object, timeout: float = 0) -> Response:
        got = answer(clock.now)
        if got is None:
            raise urllib.error.URLError(ConnectionRefusedError(111, "Connection refused"))
        if isinstance(got, int):
            error = b'{"error": "remote bot \'alice\' is not connected"}'
            raise urllib.error.HTTPError("http://x", got, "no", {}, io.BytesIO(error))  # type: ignore[arg-type]
        return Response(orjson.dumps({"ticket": got}))

    monkeypatch.setattr(relay, "time", clock)
    monkeypatch.setattr(relay.urllib.request, "urlopen", urlopen)
    monkeypatch.setenv("ECONOMANCY_TOKEN", "the-owners-token-of-alice")


def test_a_reservation_waits_for_a_bot_reconnecting_after_the_server_came_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server restarted 8 s into a reservation comes back empty; its bots
    reconnect from then on. The 10 s a bot may be missing count from the
    server's return, not from the reservation (from the reservation, the
    game was forfeited at 10 s while the bot reconnected at 12)."""
    from server.relay import _parser, relay_argv, reserve_argv

    clock = _Clock()
    _scripted_server(monkeypatch, clock, lambda t: None if t < 8 else 404 if t < 12 else "t1")
    args = _parser().parse_args(list(reserve_argv(relay_argv("alice", "http://127.0.0.1:1"))[4:]))
    assert args.ticket == "t1" and args.absent is None and 12 <= clock.now < 14


def test_a_reservation_gives_up_on_a_bot_that_does_not_come_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """The waits stay bounded: 10 s of a silent server; 10 s after the
    server's return for a bot not connected; --wait in all for a server
    that keeps coming and going."""
    from server.relay import _parser, relay_argv, reserve_argv

    def reserve(answer, wait: float | None = None) -> tuple[str, float]:
        clock = _Clock()
        _scripted_server(monkeypatch, clock, answer)
        args = _parser().parse_args(list(reserve_argv(relay_argv("alice", "http://127.0.0.1:1", wait))[4:]))
        assert args.ticket is None
        return args.absent, clock.now

    why, after = reserve(lambda t: None)
    assert "cannot reach" in why and 10 <= after < 12
    why, after = reserve(lambda t: None if t < 5 else 404)
    assert "not connected" in why and 15 <= after < 17
    why, after = reserve(lambda t: None if int(t) % 10 < 8 else 404, wait=40)  # back every 10 s, never the bot
    assert 40 <= after < 42


def test_a_bridge_finds_a_restarted_server_within_a_second_or_so_then_backs_off() -> None:
    """`driver connect` after a loss: with its slowest jitter (x1.2), a
    server back 8 s later is found by 9.2 s (doubling from 1 s, the try
    after 8 s came at 15 to 18 s: the games waiting for the bot had given
    up at 10); a server gone for good is tried ever less often, up to once
    a minute."""
    from server.bridge import BACKOFF_MAX, next_pause

    def tries(until: float) -> list[float]:
        t, pause, out = 0.0, 1.0, []
        while t < until:
            outage = t  # the loss was at 0; each try fails until `until`
            t += pause * 1.2
            pause = next_pause(pause, outage)
            out.append(t)
        return out

    assert tries(8.0)[-1] <= 9.2
    late = tries(600.0)
    gaps = [b - a for a, b in zip(late, late[1:])]
    assert max(gaps) == pytest.approx(BACKOFF_MAX * 1.2) and gaps[-1] == gaps[-2]  # capped
    assert len(late) < 60  # not every second for ten minutes
