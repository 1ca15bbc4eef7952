"""Bots that stay connected to the server (WebSocket), by name.

A bot connects, says hello with its name and secret token, and waits.
The server hands it games: a server game takes an idle connection as a
seat; a tournament or ladder running elsewhere reserves one (a ticket)
and its relay process then plays through it. After each game the
connection is idle again. A name belongs to the first token that used
it (kept in the store, hashed), so nobody else can connect under it;
several connections may share a name (a bot playing several games at
once).

Who may use a connected bot: the server's own games (the lobby's), and
whoever holds its owner's token, who reserves it for a relay (a bot
would otherwise be a free oracle for anyone: made-up states in, its
answers out). A client (an address) holds at most
`RESERVATIONS_PER_CLIENT` reservations and waiting requests at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["NAME_PATTERN", "check_name", "RemoteBot", "RemotePool", "token_digest"]

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$")
TICKET_LIFETIME = 60.0
"""Seconds a reservation waits for its relay before the bot is free again."""
RESERVATIONS_PER_CLIENT = 16
"""Reservations (tickets not yet used) and waiting reserve requests one
client address may hold at once: a tournament's `-j` relays fit."""


def check_name(name: object) -> str:
    """A bot name we accept (letters, digits, _ . + -, at most 40), or ValueError."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ValueError("a bot name is 1 to 40 letters, digits or _ . + - (starting with a letter or digit)")
    from bots import registry

    if registry.module(name) is not None:
        raise ValueError(f"{name!r} is the name of one of our bots; choose another")
    return name


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(eq=False)
class RemoteBot:
    """One connection of a remote bot. `send(text)` queues a message to it;
    `deliver_to` receives what it sends while it plays (None when idle)."""

    name: str
    send: Callable[[str], None]
    close: Callable[[int, str], object]  # what it returns (a task) is not waited for
    peer: str = ""
    connected: float = field(default_factory=time.time)
    state: str = "idle"  # idle, reserved, playing
    ticket: str | None = None
    reserved_until: float = 0.0
    reserved_by: str = ""  # the client address holding its ticket
    deliver_to: Callable[[bytes], None] | None = None
    on_lost: Callable[[str], None] | None = None  # told when the connection goes
    game: Any = None  # what it plays now: a game id, or "relay"
    games: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "state": self.state, "games": self.games, "since": self.connected}


class RemotePool:
    """Every connected remote bot, and the requests waiting for one."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        self.bots: dict[str, list[RemoteBot]] = {}
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}
        self._waiting: dict[str, int] = {}  # reserve requests waiting, per client address
        self._on_change = on_change

    def add(self, bot: RemoteBot) -> None:
        self.bots.setdefault(bot.name, []).append(bot)
        self._wake(bot.name)
        self._on_change()

    def remove(self, bot: RemoteBot) -> None:
        same = self.bots.get(bot.name, [])
        if bot in same:
            same.remove(bot)
        if not same:
            self.bots.pop(bot.name, None)
        self._wake(bot.name)  # a request waiting for it learns that it left
        self._on_change()

    def names(self) -> list[dict[str, Any]]:
        """Connected names, with how many connections are idle and busy."""
        out = []
        for name in sorted(self.bots):
            conns = self.bots[name]
            idle = sum(1 for b in conns if self._idle(b))
            out.append({"name": name, "connections": len(conns), "idle": idle})
        return out

    def _idle(self, bot: RemoteBot) -> bool:
        if bot.state == "reserved" and bot.reserved_until < time.monotonic():
            bot.state, bot.ticket, bot.reserved_by = "idle", None, ""  # its relay never came
        return bot.state == "idle"

    def held_by(self, client: str) -> int:
        """Reservations `client` holds (tickets not yet used) plus its reserve requests still waiting."""
        tickets = sum(1 for conns in self.bots.values() for b in conns
                      if not self._idle(b) and b.state == "reserved" and b.reserved_by == client)
        return tickets + self._waiting.get(client, 0)

    def take(self, name: str, game: Any) -> RemoteBot | None:
        """An idle connection of `name`, now playing `game`; None if none is idle."""
        for bot in self.bots.get(name, []):
            if self._idle(bot):
                bot.state, bot.game = "playing", game
                self._on_change()
                return bot
        return None

    async def reserve(self, name: str, wait: float, client: str = "") -> str | None:
        """A ticket for an idle connection of `name`, held by `client`,
        waiting up to `wait` seconds for one while `name` is connected;
        None if none came free (or every connection of it left).
        The caller has checked the owner's token and `held_by(client)`."""
        self._waiting[client] = self._waiting.get(client, 0) + 1
        try:
            return await self._reserve(name, wait, client)
        finally:
            self._waiting[client] -= 1
            if not self._waiting[client]:
                del self._waiting[client]

    async def _reserve(self, name: str, wait: float, client: str) -> str | None:
        deadline = time.monotonic() + wait
        while True:
            for bot in self.bots.get(name, []):
                if self._idle(bot):
                    bot.state = "reserved"
                    bot.ticket = secrets.token_urlsafe(18)
                    bot.reserved_until = time.monotonic() + TICKET_LIFETIME
                    bot.reserved_by = client
                    self._on_change()
                    return bot.ticket
            remaining = deadline - time.monotonic()
            if remaining <= 0 or name not in self.bots:
                return None
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.setdefault(name, []).append(fut)
            try:
                await asyncio.wait_for(fut, min(remaining, TICKET_LIFETIME))
            except asyncio.TimeoutError:
                pass
            finally:
                waiting = self._waiters.get(name, [])
                if fut in waiting:
                    waiting.remove(fut)

    def redeem(self, ticket: str) -> RemoteBot | None:
        """The reserved connection for `ticket`, now playing for a relay."""
        for conns in self.bots.values():
            for bot in conns:
                if bot.state == "reserved" and bot.ticket is not None and secrets.compare_digest(bot.ticket, ticket):
                    bot.state, bot.ticket, bot.game, bot.reserved_by = "playing", None, "relay", ""
                    self._on_change()
                    return bot
        return None

    def release(self, bot: RemoteBot) -> None:
        """A game is over for this connection: idle again (if still here)."""
        bot.state, bot.game, bot.deliver_to, bot.ticket, bot.on_lost = "idle", None, None, None, None
        bot.reserved_by = ""
        bot.games += 1
        self._wake(bot.name)
        self._on_change()

    def _wake(self, name: str) -> None:
        for fut in self._waiters.get(name, []):
            if not fut.done():
                fut.set_result(None)
