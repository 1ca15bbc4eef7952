"""The relay behind a `remote:NAME` bot: a stdio bot to the referee that
runs it (a tournament's, a ladder's, `driver run`'s), played by a bot
connected to a game server.

    python -P -m server.relay [--server URL] [--wait SECONDS] NAME

The referee starts it like any bot and refrees it like any bot: the same
timeouts, faults and trace; the tournament machinery does not know the
difference. Before the referee starts the game (`BotSpec.command`, see
`reserve_argv`) the remote bot is reserved on the server with its
owner's token, waiting up to `--wait` seconds (default 300) for it to
finish another game, ABSENT_GRACE (10 s) for a server that does not
answer, and as long again from the server's return for a bot that is not
connected (one reconnecting after a server restart is back by then);
past these the game is forfeited with the reason. The relay then passes each state to the bot and each move back,
and an empty message every few seconds (the server frees a bot whose
relay goes silent). If the bot leaves mid-game the relay exits with
status 3 and says so on standard error: the referee faults the seat, as
for a crashed bot.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence

import orjson

__all__ = ["DEFAULT_SERVER", "DEFAULT_WAIT", "RELAY_MODULE", "relay_argv", "reserve_argv", "check_remote", "server_url",
           "main"]

RELAY_MODULE = "server.relay"
DEFAULT_SERVER = "http://127.0.0.1:8000"
DEFAULT_WAIT = 300.0
"""Seconds a game waits for a busy remote bot (`remote:NAME --wait S`)."""
ABSENT_GRACE = 10.0
"""Seconds a game waits for a server that does not answer, or a remote bot
that is not connected, before it is forfeited with the reason."""
PROGRESS_EVERY = 10.0
"""Seconds between the "still busy, waiting" lines."""
SERVER_VARIABLE = "ECONOMANCY_SERVER"
EXIT_GONE = 3


def server_url(explicit: str | None = None) -> str:
    """The server to use: explicit, else $ECONOMANCY_SERVER, else the default."""
    url = explicit or os.environ.get(SERVER_VARIABLE) or DEFAULT_SERVER
    if "://" not in url:
        url = "http://" + url
    return url.rstrip("/")


def relay_argv(name: str, server: str | None = None, wait: float | None = None) -> tuple[str, ...]:
    """The command that plays remote bot `name` (server and wait: baked in only if given)."""
    extra: tuple[str, ...] = ("--server", server) if server else ()
    if wait is not None:
        extra += (f"--wait={wait:g}",)
    return (sys.executable, "-P", "-m", RELAY_MODULE, *extra, name)


def is_relay(argv: Sequence[str]) -> bool:
    return len(argv) >= 5 and tuple(argv[1:4]) == ("-P", "-m", RELAY_MODULE)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m server.relay", description=__doc__.split("\n\n")[0])
    p.add_argument("--server", default=None, help=f"the game server [default: ${SERVER_VARIABLE} or {DEFAULT_SERVER}]")
    p.add_argument("--wait", type=float, default=DEFAULT_WAIT, help="seconds to wait for the bot before a game")
    p.add_argument("--ticket", default=None, help=argparse.SUPPRESS)
    p.add_argument("--absent", default=None, help=argparse.SUPPRESS)
    p.add_argument("name")
    return p


def reserve_argv(argv: Sequence[str]) -> tuple[str, ...]:
    """Reserve the remote bot for one game with its owner's token
    (`server.bridge.known_token`) and return the argv that plays it (with
    the ticket, or with the reason it is absent, which the relay then
    reports as its fault).

    A server that does not answer is given up after ABSENT_GRACE seconds;
    a bot that is not connected too, counted from the server's last
    return (a restarted server comes back empty, and its bots reconnect
    within seconds of it, not of the reservation), within the relay's
    `--wait` in all; a busy bot is waited for up to `--wait` seconds,
    saying so on standard error every PROGRESS_EVERY seconds. A refusal
    (no token, a wrong token) is final."""
    args = _parser().parse_args(list(argv[4:]))
    url = server_url(args.server)
    from server.bridge import known_token

    token = known_token(url, args.name)
    if token is None:
        return _absent(argv, f"no token for remote bot {args.name!r} of {url}: set ECONOMANCY_TOKEN to the token "
                             "its `driver connect` uses (or run where that made and kept one)")
    started = time.monotonic()
    seen = started  # when the bot was last known to be connected, or the server came back
    silent = False  # the last request found no server
    last = "no answer"
    patience = 0.0  # the first request answers at once: a busy bot is said busy at once
    while True:
        busy_left = started + args.wait - time.monotonic()
        body = orjson.dumps({"name": args.name, "token": token, "wait": max(0.0, min(busy_left, patience))})
        patience = PROGRESS_EVERY
        request = urllib.request.Request(f"{url}/api/remote/reserve", data=body,
                                         headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=PROGRESS_EVERY + 15) as response:
                # "--ticket=T": a ticket may start with "-", which argparse would take for an option
                return (*argv, f"--ticket={orjson.loads(response.read())['ticket']}")
        except urllib.error.HTTPError as e:
            last = _error_text(e)
            if silent:  # back (a restart): its bots reconnect from now on
                seen, silent = time.monotonic(), False
            if e.code in (409, 429):  # busy (or our own relays hold all we may): wait, within --wait
                seen = time.monotonic()
                if seen - started >= args.wait:
                    return _absent(argv, f"remote bot {args.name!r} still busy after {args.wait:g} s (--wait): {last}")
                sys.stderr.write(f"remote:{args.name}: {last}; waiting ({seen - started:.0f} s of --wait "
                                 f"{args.wait:g} s)\n")
                sys.stderr.flush()
                continue
            if e.code != 404:  # refused: no use asking again
                return _absent(argv, f"remote bot {args.name!r}: {last}")
        except (OSError, ValueError, KeyError) as e:  # the server is down or restarting
            last = f"cannot reach {url}: {getattr(e, 'reason', e)}"
            silent = isinstance(e, OSError)  # not a strange answer: no answer at all
        now = time.monotonic()
        if now - seen >= ABSENT_GRACE or now - started >= max(args.wait, ABSENT_GRACE):
            return _absent(argv, f"remote bot {args.name!r} not available (after {now - started:.0f} s): {last}")
        time.sleep(1.0)


def check_remote(argv: Sequence[str]) -> str | None:
    """Why the remote bot of this relay argv cannot play now (no owner's
    token here, no server answering within ABSENT_GRACE seconds, the bot
    not connected), or None: what a tournament or ladder checks before its
    first game, so that it stops at once rather than forfeit game after game."""
    args = _parser().parse_args(list(argv[4:]))
    url = server_url(args.server)
    from server.bridge import known_token

    if known_token(url, args.name) is None:
        return (f"no token for remote bot {args.name!r} of {url}: set ECONOMANCY_TOKEN to the token its "
                "`driver connect` uses (or run where that made and kept one)")
    deadline = time.monotonic() + ABSENT_GRACE
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/remote/{args.name}", timeout=ABSENT_GRACE):
                return None
        except urllib.error.HTTPError as e:
            return f"{_error_text(e)} (server {url})"
        except (OSError, ValueError) as e:
            last = f"cannot reach {url}: {getattr(e, 'reason', e)}"
        if time.monotonic() >= deadline:
            return f"{last} (for {ABSENT_GRACE:g} s)"
        time.sleep(1.0)


def _absent(argv: Sequence[str], reason: str) -> tuple[str, ...]:
    return (*argv, f"--absent={reason}")


def _error_text(e: urllib.error.HTTPError) -> str:
    try:
        return str(orjson.loads(e.read()).get("error", e.reason))
    except (ValueError, AttributeError, OSError):
        return str(e.reason)


def main(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    if args.absent or not args.ticket:
        sys.stderr.write(f"{args.absent or 'no reservation (start me through a BotSpec)'}\n")
        sys.exit(EXIT_GONE)
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    url = server_url(args.server)
    ws_url = "ws" + url[len("http"):] + "/ws/relay" if url.startswith("http") else url + "/ws/relay"
    try:
        ws = connect(ws_url, open_timeout=10, max_size=1 << 20)
    except (OSError, TimeoutError) as e:
        sys.stderr.write(f"cannot reach {ws_url}: {e}\n")
        sys.exit(EXIT_GONE)
    out = sys.stdout.buffer
    with ws:
        try:
            ws.send(orjson.dumps({"ticket": args.ticket}).decode())
            welcome = orjson.loads(ws.recv(timeout=10))
            if "error" in welcome:
                sys.stderr.write(f"the server refused: {welcome['error']}\n")
                sys.exit(EXIT_GONE)
            sys.stderr.write(f"playing remote bot {args.name} through {url}\n")
            lock = threading.Lock()  # two threads send: the states and the keepalives
            threading.Thread(target=_states_to_bot, args=(ws, lock), daemon=True).start()
            every = welcome.get("keepalive")
            if isinstance(every, (int, float)) and every > 0:
                threading.Thread(target=_keepalive, args=(ws, lock, max(float(every), 0.5)), daemon=True).start()
            while True:
                message = ws.recv()
                data = message.encode() if isinstance(message, str) else message
                out.write(data.replace(b"\n", b" ") + b"\n")
                out.flush()
        except ConnectionClosed as e:
            reason = e.rcvd.reason if e.rcvd is not None else ""
            if e.rcvd is not None and e.rcvd.code == 1000:
                return  # we closed it: the referee is done with us
            sys.stderr.write(f"{reason or 'lost the connection to the server'}\n")
            sys.exit(EXIT_GONE)
        except (BrokenPipeError, KeyboardInterrupt):
            return


def _states_to_bot(ws: object, lock: threading.Lock) -> None:
    """The referee's lines to the server, until the referee closes our
    standard input: then the connection closes (normally) and so do we."""
    from websockets.exceptions import ConnectionClosed

    stdin = sys.stdin.buffer
    try:
        for line in stdin:
            if line.strip():
                with lock:
                    ws.send(line.rstrip(b"\n").decode("utf-8", "replace"))  # type: ignore[attr-defined]
    except ConnectionClosed:
        return
    ws.close()  # type: ignore[attr-defined]


def _keepalive(ws: object, lock: threading.Lock, every: float) -> None:
    """An empty message every `every` seconds: we are still here, even while
    the referee waits for other seats (the server frees a silent relay's bot)."""
    from websockets.exceptions import ConnectionClosed

    while True:
        time.sleep(every)
        try:
            with lock:
                ws.send("")  # type: ignore[attr-defined]
        except (ConnectionClosed, OSError, RuntimeError):
            return


if __name__ == "__main__":
    main()
