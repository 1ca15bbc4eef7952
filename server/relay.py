"""The relay behind a `remote:NAME` bot: a stdio bot to the referee that
runs it (a tournament's, a ladder's, `driver run`'s), played by a bot
connected to a game server.

    python -P -m server.relay [--server URL] [--wait SECONDS] NAME

The referee starts it like any bot and refrees it like any bot: the same
timeouts, faults and trace; the tournament machinery does not know the
difference. Before the referee starts the game (`BotSpec.command`, see
`reserve_argv`) the remote bot is reserved on the server, waiting up to
`--wait` seconds (default 300) for it to connect or finish another game:
so a bot that dropped out forfeits the game it was playing, and the
schedule waits for it before the next. The relay then passes each state
to the bot and each move back. If the bot leaves mid-game the relay
exits with status 3 and says so on standard error: the referee faults
the seat, as for a crashed bot.
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

__all__ = ["DEFAULT_SERVER", "DEFAULT_WAIT", "RELAY_MODULE", "relay_argv", "reserve_argv", "server_url", "main"]

RELAY_MODULE = "server.relay"
DEFAULT_SERVER = "http://127.0.0.1:8000"
DEFAULT_WAIT = 300.0
SERVER_VARIABLE = "ECONOMANCY_SERVER"
EXIT_GONE = 3


def server_url(explicit: str | None = None) -> str:
    """The server to use: explicit, else $ECONOMANCY_SERVER, else the default."""
    url = explicit or os.environ.get(SERVER_VARIABLE) or DEFAULT_SERVER
    if "://" not in url:
        url = "http://" + url
    return url.rstrip("/")


def relay_argv(name: str, server: str | None = None) -> tuple[str, ...]:
    """The command that plays remote bot `name` (server: baked in only if given)."""
    extra = ("--server", server) if server else ()
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
    """Reserve the remote bot for one game, waiting as long as the relay's
    `--wait` allows, and return the argv that plays it (with the ticket,
    or with the reason it is absent, which the relay then reports)."""
    args = _parser().parse_args(list(argv[4:]))
    url = server_url(args.server)
    deadline = time.monotonic() + args.wait
    last = "no answer"
    while True:
        left = deadline - time.monotonic()
        body = orjson.dumps({"name": args.name, "wait": max(0.0, min(left, 30.0))})
        request = urllib.request.Request(f"{url}/api/remote/reserve", data=body,
                                         headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=45) as response:
                # "--ticket=T": a ticket may start with "-", which argparse would take for an option
                return (*argv, f"--ticket={orjson.loads(response.read())['ticket']}")
        except urllib.error.HTTPError as e:
            last = _error_text(e)
            if e.code not in (404, 409, 503):
                break
        except (OSError, ValueError, KeyError) as e:  # the server is down or restarting: try again
            last = f"cannot reach {url}: {getattr(e, 'reason', e)}"
            time.sleep(min(2.0, max(left, 0)))
        if time.monotonic() >= deadline:
            break
    return (*argv, f"--absent=remote bot {args.name!r} not available after {args.wait:g} s: {last}")


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
            threading.Thread(target=_states_to_bot, args=(ws,), daemon=True).start()
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


def _states_to_bot(ws: object) -> None:
    """The referee's lines to the server, until the referee closes our
    standard input: then the connection closes (normally) and so do we."""
    from websockets.exceptions import ConnectionClosed

    stdin = sys.stdin.buffer
    try:
        for line in stdin:
            if line.strip():
                ws.send(line.rstrip(b"\n").decode("utf-8", "replace"))  # type: ignore[attr-defined]
    except ConnectionClosed:
        return
    ws.close()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
