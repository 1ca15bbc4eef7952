"""`driver connect URL BOT`: a local stdio bot as a bot connected to a server.

Like lichess-bot for lichess: the bot program is unchanged. The bridge
opens a WebSocket to the server (`/ws/bot`), says hello with the bot's
name and secret token, and from then on copies every state the server
sends to the bot's standard input as one line, and every line the bot
writes to the server. Between games nothing happens; one bot process
plays game after game, as under `driver check` or a tournament's
`--reuse`, and is started again if it exits, or if it still owed an
answer when a game ended (a late answer must not land in the next game).

The connection is opened again after any loss: every second for the
first QUICK_RETRIES seconds of an outage (a server restarting is back
within seconds, and the games waiting for the bot wait ten: see
`server.relay`), then with a growing pause (doubling to 60 s, with
jitter), so a server restart or a network hiccup costs at most the game
in progress. A refusal (a name owned by
another token, a bad name) is final and ends the bridge with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import secrets
import socket
import time
from pathlib import Path
from typing import Any

import orjson

from driver.botspec import BotSpec
from common.text import printable

__all__ = ["BridgeError", "run_bridge", "next_pause", "ws_endpoint", "default_name", "known_token", "stored_token"]

LINE_LIMIT = 1 << 20
BACKOFF_START = 1.0
BACKOFF_MAX = 60.0
QUICK_RETRIES = 30.0
"""Seconds of an outage during which the bridge tries again every
BACKOFF_START: doubling from the first loss, a server back after 3 s was
found only 7 to 8.4 s after it went (attempts at 1, 3 and 7 s), past
the 10 s a game waits for a bot that is not connected."""
REFUSED = 4003  # the server's close code for a refused hello
TOKEN_VARIABLE = "ECONOMANCY_TOKEN"


class BridgeError(Exception):
    """The server refused the bot for good (the message says why)."""


def ws_endpoint(url: str, path: str = "/ws/bot") -> str:
    """ws(s)://host:port/ws/bot from the server's http(s) address."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    scheme, rest = url.split("://", 1)
    scheme = {"http": "ws", "https": "wss"}.get(scheme, scheme)
    if scheme not in ("ws", "wss"):
        raise BridgeError(f"not a server address: {url!r} (http://HOST:PORT)")
    host = rest.split("/", 1)[0]
    return f"{scheme}://{host}{path}"


def default_name(spec: BotSpec) -> str:
    """A name from the BOT: its script's or program's name (`./my_bot`:
    my_bot; `python3 bots/alice.py`: alice), or ours plus this host's."""
    from bots import registry

    if registry.owns(spec.argv):
        base = spec.name.split()[0]
    else:
        scripts = [w for w in spec.argv[1:] if "/" in w or re.search(r"\.[A-Za-z]{1,4}$", w)]
        base = Path(scripts[0] if scripts else spec.argv[0] if spec.argv else spec.name).stem
    base = re.sub(r"[^A-Za-z0-9_.+-]", "-", base).strip("-.") or "bot"
    if registry.module(base) is not None:
        host = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname().split(".")[0]) or "here"
        base = f"{base}-{host}"
    return base[:40]


def _token_file() -> Path:
    from platformdirs import user_data_path

    return user_data_path("economancy-arena", appauthor=False) / "bot-tokens.json"


def token_file() -> Path:
    """Where `driver connect` keeps the tokens it made (one per server and name)."""
    return _token_file()


def kept_tokens() -> list[tuple[str, str]]:
    """The (server, name) pairs a token is kept for; the secrets stay in the file."""
    with contextlib.suppress(OSError, ValueError):
        return sorted(tuple(k.split(" ", 1)) for k in dict(orjson.loads(_token_file().read_bytes())) if " " in k)
    return []


def forget_token(server: str, name: str) -> bool:
    """Forget the token kept for (server, name): the name can then only be
    claimed again with the old token (the server keeps its digest), so
    forget it when the server has let the name go, or to start anew under
    another name. False when no token was kept."""
    path = _token_file()
    try:
        tokens = dict(orjson.loads(path.read_bytes()))
    except (OSError, ValueError):
        return False
    if tokens.pop(f"{server} {name}", None) is None:
        return False
    _write_tokens(path, tokens)
    return True


def _write_tokens(path: Path, tokens: dict[str, str]) -> None:
    from common.safefile import make_dirs, write_file

    make_dirs(path.parent)
    write_file(path, orjson.dumps(tokens, option=orjson.OPT_INDENT_2), mode=0o600)


def known_token(server: str, name: str) -> str | None:
    """The owner's token of remote bot `name` on `server` (its http(s)
    address), for reserving it (`server.relay`): $ECONOMANCY_TOKEN, else
    the one `driver connect` made and kept for that server and name, else
    None. Read in the referee's process, never handed to a bot."""
    explicit = os.environ.get(TOKEN_VARIABLE)
    if explicit:
        return explicit
    with contextlib.suppress(OSError, ValueError, TypeError):
        token = dict(orjson.loads(_token_file().read_bytes())).get(f"{ws_endpoint(server)} {name}")
        return token if isinstance(token, str) else None
    return None


def stored_token(server: str, name: str) -> str:
    """The token kept for (server, name), made and kept (mode 600) if new."""
    path = _token_file()
    key = f"{server} {name}"
    tokens: dict[str, str] = {}
    with contextlib.suppress(OSError, ValueError):
        tokens = dict(orjson.loads(path.read_bytes()))
    if key not in tokens:
        tokens[key] = secrets.token_urlsafe(24)
        _write_tokens(path, tokens)
    return tokens[key]


def run_bridge(
    url: str,
    spec: BotSpec,
    *,
    name: str | None = None,
    token: str | None = None,
    concurrency: int = 1,
    max_games: int | None = None,
    say: Any = None,
) -> int:
    """Play until stopped (or `max_games` games); returns the games played."""
    from server.remotes import check_name

    endpoint = ws_endpoint(url)
    name = name or default_name(spec)
    try:
        check_name(name)
    except ValueError as e:
        raise BridgeError(f"--name {name!r}: {e}") from None
    token = token or stored_token(endpoint, name)
    bridge = _Bridge(endpoint, spec, name, token, max_games, say or _say)
    return asyncio.run(bridge.run(concurrency))


def next_pause(pause: float, outage: float) -> float:
    """The pause (before jitter) after the one of `pause` seconds, the
    connection down for `outage` seconds: BACKOFF_START while the outage is
    young (a restart), then doubling up to BACKOFF_MAX (a server gone for
    longer is not hammered)."""
    if outage < QUICK_RETRIES:
        return BACKOFF_START
    return min(max(pause, BACKOFF_START) * 2, BACKOFF_MAX)


def _say(text: str) -> None:
    import click

    click.echo(printable(text), err=True)


class _Bridge:
    def __init__(self, endpoint: str, spec: BotSpec, name: str, token: str, max_games: int | None, say: Any) -> None:
        self.endpoint = endpoint
        self.spec = spec
        self.name = name
        self.token = token
        self.max_games = max_games
        self.say = say
        self.played = 0
        self.done = asyncio.Event()

    async def run(self, concurrency: int) -> int:
        slots = [asyncio.create_task(self._slot(i)) for i in range(concurrency)]
        try:
            finished, _ = await asyncio.wait(slots, return_when=asyncio.FIRST_EXCEPTION)
            for task in finished:
                if task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
        finally:
            for task in slots:
                task.cancel()
            await asyncio.gather(*slots, return_exceptions=True)
        return self.played

    async def _slot(self, index: int) -> None:
        """One connection and its bot process, for ever (or max_games)."""
        import websockets

        pause = BACKOFF_START
        lost: float | None = None  # when the outage began (None: connected, or never tried)
        bot = _BotProcess(self.spec)
        try:
            while not self._enough():
                try:
                    async with websockets.connect(self.endpoint, open_timeout=10, max_size=LINE_LIMIT,
                                                  ping_interval=20, ping_timeout=20) as ws:
                        await ws.send(orjson.dumps({"name": self.name, "token": self.token}).decode())
                        welcome = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
                        if "error" in welcome:
                            raise BridgeError(f"the server refused {self.name!r}: {printable(str(welcome['error']))}")
                        self.say(f"connected to {self.endpoint} as {self.name}" + (f" (slot {index + 1})" if index else ""))
                        pause, lost = BACKOFF_START, None
                        try:
                            await self._play(ws, bot)
                        finally:
                            if bot.mid_game:  # cut off in a game: its answer to it must not reach the next
                                await bot.stop()
                        if self._enough():
                            return
                except BridgeError:
                    raise
                except websockets.exceptions.ConnectionClosed as e:
                    if e.rcvd is not None and e.rcvd.code == REFUSED:
                        raise BridgeError(f"the server refused {self.name!r}: {printable(e.rcvd.reason)}") from None
                    self.say(f"connection lost ({e.rcvd.reason if e.rcvd and e.rcvd.reason else 'closed'});"
                             f" again in {pause:.0f} s")
                except (OSError, asyncio.TimeoutError, websockets.exceptions.InvalidHandshake, ValueError) as e:
                    self.say(f"cannot reach {self.endpoint} ({e or type(e).__name__}); again in {pause:.0f} s")
                now = time.monotonic()
                lost = now if lost is None else lost
                await asyncio.sleep(pause * random.uniform(0.8, 1.2))
                pause = next_pause(pause, now - lost)
        finally:
            await bot.stop()

    def _enough(self) -> bool:
        return self.max_games is not None and self.played >= self.max_games

    async def _play(self, ws: Any, bot: _BotProcess) -> None:
        """Copy states to the bot and its lines back, until the connection ends."""
        answers = asyncio.create_task(self._answers(ws, bot))
        try:
            async for message in ws:
                if answers.done():  # the bot died mid-game: give up the seat at once
                    await ws.close(4010, f"the bot {bot.ended() or 'closed its output'}")
                    break
                data = message.encode() if isinstance(message, str) else message
                final = _is_final(data)
                await bot.send(data)
                if final:
                    self.played += 1
                    if bot.owes() or bot.ended():  # a late answer must not reach the next game
                        await bot.stop()
                        answers.cancel()
                        answers = asyncio.create_task(self._answers(ws, bot))
                    if self._enough():
                        await ws.close()
                        return
        finally:
            answers.cancel()

    async def _answers(self, ws: Any, bot: _BotProcess) -> None:
        await bot.ensure()
        while True:
            line = await bot.line()
            if line is None:
                with contextlib.suppress(Exception):
                    await ws.close(4010, f"the bot {bot.ended() or 'closed its output'}")
                return
            await ws.send(line.decode("utf-8", "replace"))


class _BotProcess:
    """The local bot, started on first need and again after it ends."""

    def __init__(self, spec: BotSpec) -> None:
        self.spec = spec
        self.proc: asyncio.subprocess.Process | None = None
        self.sent = 0
        self.answered = 0
        self.mid_game = False  # it has had a state of a game whose end it has not seen

    async def ensure(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            self.proc = await asyncio.create_subprocess_exec(
                *self.spec.launch(self.spec.command()), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                limit=LINE_LIMIT, start_new_session=True)
            self.sent = self.answered = 0

    async def send(self, line: bytes) -> None:
        await self.ensure()
        assert self.proc is not None and self.proc.stdin is not None
        final = _is_final(line)
        self.mid_game = not final
        if not final:
            self.sent += 1
        try:
            self.proc.stdin.write(line + b"\n")
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass

    async def line(self) -> bytes | None:
        assert self.proc is not None and self.proc.stdout is not None
        while True:
            try:
                raw = await self.proc.stdout.readline()
            except ValueError:  # longer than LINE_LIMIT: the server would refuse it anyway
                return None
            if not raw:
                return None
            if raw.strip():
                self.answered += 1
                return raw.rstrip(b"\r\n")

    def owes(self) -> bool:
        return self.answered < self.sent

    def ended(self) -> str:
        """How the bot ended ("" while it runs)."""
        if self.proc is None or self.proc.returncode is None:
            return ""
        return f"exited with status {self.proc.returncode}"

    async def stop(self) -> None:
        proc, self.proc = self.proc, None
        self.mid_game = False
        if proc is None or proc.returncode is not None:
            return
        with contextlib.suppress(Exception):
            proc.stdin.close()  # type: ignore[union-attr]
        try:
            await asyncio.wait_for(proc.wait(), 1.0)
        except asyncio.TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            await proc.wait()


def _is_final(line: bytes) -> bool:
    """A final state (end or fault): our server's lines have sorted keys."""
    return b'"phase":{"name":"end"' in line or b'"phase":{"forfiet":' in line
