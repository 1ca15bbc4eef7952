"""Every game of the server: assembling seats, running the referee, storing
the result, and telling pages what changed.

The hub lives on the event loop. A game waits until each of its seats
has someone (a TCP connection for the original's protocol, a person who
opened the page, a remote bot taken from the pool; our bots need
nothing), then runs in a thread of its own through the referee
(`server.referee`), and ends as one row of the store. Pages that watch a
game or the lobby get pushed updates.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from driver.botspec import BotSpec
from driver.game import GameOptions
from driver.process import kill_started_bots
from common.safefile import make_dirs
from common.settings import MAX_DAYS, GameSettings
from protocol.exactjson import JSONError, dumps, loads
from server.guard import AddressLimiter
from viewer.live import build_view, view_update
from server.outbox import Outbox
from server.records import Database, aborted_record, game_record, journal_dir, recover_journals
from server.referee import SeatRun, TraceTap, referee_game
from server.remotes import RemotePool
from driver.seat import NetworkSeat, SeatLink
from tournaments.store import STATUSES

__all__ = ["Settings", "Seat", "LiveGame", "Hub", "SeatRefused"]

log = logging.getLogger("economancy.server")

_ID_ALPHABET = "23456789abcdefghijkmnpqrstuvwxyz"
_WATCH_INTERVAL = 0.15  # seconds between two view updates of one game
_FINISHED_SHOWN = 30
ABORTED_AT_STOP = "the server was stopped during the game; nobody's loss"


@dataclass
class Settings:
    """The server's rules for its games (see `driver serve --help`)."""

    game: GameSettings = field(default_factory=GameSettings)  # every game's: its timeout per move for bots (ours and remote)
    tcp_timeout: float = 600.0  # per move, in games on the original's TCP protocol
    line_limit: int = 64 << 10  # longest answer accepted, in bytes
    join_timeout: float = 1800.0  # a game still missing players after this is cancelled
    max_games: int = 200  # games waiting or playing at once
    max_local_games: int = 32  # games running bot processes of ours at once


class SeatRefused(Exception):
    """A connection cannot have the seat it asked for; the message says why."""


@dataclass(eq=False)
class Seat:
    """One seat of a game. `kind`: "bot" (ours, a process here), "remote"
    (a connected bot), "person" (a browser, holding `token`), "tcp" (a
    connection speaking the original's protocol)."""

    index: int
    kind: str
    name: str
    timeout: float
    spec: BotSpec | None = None
    token: str | None = None
    claimed: bool = False  # a person seat has a holder; a tcp seat a connection
    connected: bool = False
    endpoint: NetworkSeat | None = None
    link: SeatLink | None = None
    remote: Any = None

    def public(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "open": self.kind == "person" and not self.claimed}


class LiveGame:
    """A game from its creation until shortly after it is stored."""

    def __init__(self, game_id: str, origin: str, seats: list[Seat], options: GameOptions) -> None:
        self.id = game_id
        self.origin = origin
        self.seats = seats
        self.options = options
        self.created = time.time()
        self.started: float | None = None
        self.status = "waiting"  # waiting, playing, finished, aborted, cancelled
        self.result: dict[str, Any] = {}
        self.released: list[bytes] = []
        self.asked: list[int] = []
        self.question = b""
        self.watchers: set[Outbox] = set()
        self.view: dict[str, Any] | None = None
        self.aborting = False
        self.expiry: asyncio.TimerHandle | None = None
        self._update: asyncio.Task[None] | None = None
        self.day = 1  # the day of the game (as the replay counts it), not of the 3-day cycle
        self.cycle: int | None = None  # the cycle's day of the last question

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def over(self) -> bool:
        return self.status in ("finished", "aborted", "cancelled")

    def record_options(self) -> dict[str, Any]:
        o = self.options
        return {"base": o.base, "max_days": o.max_days, "timeout": max(s.timeout for s in self.seats),
                "timeouts": [s.timeout for s in self.seats], "fair": o.fair, "server": self.origin,
                "game": self.id}

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "origin": self.origin,
            "status": self.status,
            "seats": [s.public() for s in self.seats],
            "asked": self.asked,
            "day": self.day,
            "base": self.options.base,
            "max_days": self.options.max_days,
            "timeouts": [s.timeout for s in self.seats],
            "created": self.created,
            "started": self.started,
            "result": self.result,
        }


class Hub:
    def __init__(self, db_path: Path, settings: Settings) -> None:
        self.db_path = db_path
        self.settings = settings
        self.games: dict[str, LiveGame] = {}
        self.tcp_waiting: dict[tuple[int, int], LiveGame] = {}
        self.remotes = RemotePool(self.lobby_changed)
        self.lobby_watchers: set[Outbox] = set()
        self.db: Database
        self.loop: asyncio.AbstractEventLoop
        self._threads: ThreadPoolExecutor
        self._local_games = 0
        self._lobby_task: asyncio.Task[None] | None = None
        self._lobby_cache: dict[str, Any] | None = None
        self._finished: list[dict[str, Any]] = []
        self._standings: dict[str, Any] = {"names": [], "rows": []}
        self._ladder_mark: Any = None
        self._poll_task: asyncio.Task[None] | None = None
        self.journals = journal_dir(db_path)
        self.addresses = AddressLimiter()  # open connections per client address, HTTP and TCP (server.guard)
        self.stopping = False
        self.tcp_port: int | None = None

    # -- life -------------------------------------------------------------

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.db = await asyncio.to_thread(Database, self.db_path)
        await asyncio.to_thread(make_dirs, self.journals)
        recovered = await asyncio.to_thread(recover_journals, self.db, self.journals)
        for key in recovered:
            log.warning("game %s was cut off by a crash or restart: stored as aborted", key)
        self._threads = ThreadPoolExecutor(self.settings.max_games, thread_name_prefix="game")
        await self._refresh_finished()
        self._poll_task = self.loop.create_task(self._watch_store())

    async def stop(self) -> None:
        """Stop every game: those playing are stored as aborted (nobody's
        loss), those waiting are cancelled."""
        self.stopping = True
        if self._poll_task is not None:
            self._poll_task.cancel()
        for game in list(self.games.values()):
            if game.status == "waiting":
                self._cancel(game, "the server is stopping")
            elif game.status == "playing":
                game.aborting = True
                for seat in game.seats:
                    if seat.link is not None:
                        seat.link.close_answers("the server is stopping")
        kill_started_bots()
        await asyncio.to_thread(self._threads.shutdown, True)
        for box in list(self.lobby_watchers):
            box.close()
        await asyncio.to_thread(self.db.close)

    # -- creating games ----------------------------------------------------

    def new_id(self) -> str:
        while True:
            gid = "".join(secrets.choice(_ID_ALPHABET) for _ in range(8))
            if gid not in self.games:
                return gid

    def can_create(self) -> None:
        if self.stopping:
            raise SeatRefused("the server is stopping")
        if sum(1 for g in self.games.values() if not g.over) >= self.settings.max_games:
            raise SeatRefused(f"the server already has {self.settings.max_games} games; try again later")

    def add_game(self, game: LiveGame) -> None:
        """Register a new game; it starts as soon as every seat is filled."""
        if any(s.kind == "bot" for s in game.seats):
            if self._local_games >= self.settings.max_local_games:
                raise SeatRefused("too many games with our bots are running; try again later")
            self._local_games += 1
        self.games[game.id] = game
        game.expiry = self.loop.call_later(self.settings.join_timeout, self._expire, game)
        self.lobby_changed()
        self.maybe_start(game)

    def _expire(self, game: LiveGame) -> None:
        if game.status == "waiting":
            self._cancel(game, f"not every seat was taken within {self.settings.join_timeout:g} s")

    def _cancel(self, game: LiveGame, reason: str) -> None:
        game.status = "cancelled"
        game.result = {"cancelled": reason}
        for seat in game.seats:
            if seat.link is not None:
                seat.link.close_answers(reason)
                seat.endpoint.release() if seat.endpoint is not None else None
            if seat.remote is not None:
                self.remotes.release(seat.remote)
        self._forget(game)

    def _forget(self, game: LiveGame) -> None:
        if game.expiry is not None:
            game.expiry.cancel()
        for key, waiting in list(self.tcp_waiting.items()):
            if waiting is game:
                del self.tcp_waiting[key]
        if any(s.kind == "bot" for s in game.seats):
            self._local_games -= 1
        self._broadcast(game, {"type": "status", "game": game.summary()})
        self.loop.call_later(30.0, self.games.pop, game.id, None)  # pages may still ask for a while
        self.lobby_changed()

    # -- network seats -----------------------------------------------------

    def connect_seat(
        self, game: LiveGame, seat: Seat, deliver: Callable[[bytes], None] | None, finished: Callable[[], None]
    ) -> SeatLink:
        """Give a network seat its endpoint and route its states to `deliver`."""
        seat.endpoint = NetworkSeat(seat.name, line_limit=game.options.line_limit)
        seat.link = SeatLink(seat.endpoint, self.loop, deliver, finished)
        seat.connected = True
        return seat.link

    def tcp_seat(self, game_number: int, players: int, index: int) -> tuple[LiveGame, Seat]:
        """The seat `index` of the waiting TCP game (number, players), created
        if new, as the original server keys its games."""
        key = (game_number, players)
        game = self.tcp_waiting.get(key)
        if game is None:
            self.can_create()
            timeout = self.settings.tcp_timeout
            seats = [Seat(i, "tcp", f"tcp:{game_number}/{i}", timeout) for i in range(players)]
            options = self._options(base=True, max_days=MAX_DAYS)
            game = LiveGame(f"tcp-{game_number}-{players}p-{self.new_id()[:4]}", "tcp", seats, options)
            self.tcp_waiting[key] = game
            self.add_game(game)
        seat = game.seats[index]
        if seat.claimed:
            raise SeatRefused(f"seat {index} of game {game_number} ({players} players) is already taken")
        seat.claimed = True
        return game, seat

    def seat_lost(self, game: LiveGame, seat: Seat, reason: str) -> None:
        """A seat's client went away. Before the game starts the seat is free
        again; once it plays, the referee faults it when it next asks."""
        if game.status == "waiting":
            seat.connected = False
            if seat.kind == "tcp":
                seat.claimed = False
            if seat.endpoint is not None:
                seat.endpoint.release()
            if seat.link is not None:
                seat.link.close_answers(reason)
            seat.endpoint = seat.link = None
            if seat.kind == "tcp" and not any(s.claimed for s in game.seats):
                self._cancel(game, "every connection left before the game started")
            return
        if seat.link is not None:
            seat.link.close_answers(reason)

    def maybe_start(self, game: LiveGame) -> None:
        if game.status != "waiting":
            return
        for seat in game.seats:
            if seat.kind in ("tcp", "person", "remote") and not (seat.claimed and seat.connected):
                return
        game.status = "playing"
        game.started = time.time()
        if game.expiry is not None:
            game.expiry.cancel()
        for key, waiting in list(self.tcp_waiting.items()):
            if waiting is game:
                del self.tcp_waiting[key]
        self._threads.submit(self._run, game)
        self._broadcast(game, {"type": "status", "game": game.summary()})
        self.lobby_changed()

    def _options(self, *, base: bool, max_days: int) -> GameOptions:
        return GameOptions.of(replace(self.settings.game, base=base, max_days=max_days),
                              line_limit=self.settings.line_limit)

    # -- the game thread ---------------------------------------------------

    def _run(self, game: LiveGame) -> None:
        journal = self.journals / f"{game.id}.trace"
        loop = self.loop

        batches = Batches(loop, lambda batch: self._published(game, batch))
        tap = TraceTap(journal, lambda lines, asked, question: batches.put((lines, asked, question)))
        tap.header({"meta": "server-game", "key": game.id, "seats": game.names,
                    "options": game.record_options(), "started": game.started})
        runs = [SeatRun(s.name, s.timeout, spec=s.spec, endpoint=s.endpoint) for s in game.seats]
        result = None
        try:
            result = referee_game(runs, game.options, tap)
        except Exception:
            log.exception("game %s: the referee failed", game.id)
        finally:
            for seat in game.seats:
                if seat.endpoint is not None:
                    seat.endpoint.release()
        if result is None or game.aborting:
            trace = journal.read_bytes().splitlines()[1:] if journal.exists() else []
            reason = ABORTED_AT_STOP if game.aborting else "the referee failed (a bug of ours); nobody's loss"
            rec = aborted_record(game.id, game.names, trace, game.record_options(), reason, game.started or time.time())
        else:
            stderr = [s.endpoint.kept_stderr() if s.endpoint is not None else b"" for s in game.seats]
            stderr = [e or b for e, b in zip(stderr, result.stderr)]
            rec = game_record(game.id, game.names, result, game.record_options(), stderr)
        try:
            self.db.add(rec)
            journal.unlink(missing_ok=True)  # stored: the journal has done its job
        except Exception:
            log.exception("game %s could not be stored; its journal %s is kept", game.id, journal)
        loop.call_soon_threadsafe(self._ended, game, rec)

    # -- back on the loop: spectators and the end --------------------------

    def _published(self, game: LiveGame, batch: list[tuple[list[bytes], list[int], bytes]]) -> None:
        """Rounds the game thread published since the last call, in order."""
        for lines, asked, question in batch:
            game.released.extend(lines)
            game.asked = asked
            game.question = question
            if question:
                cycle = _cycle_day(question)
                if cycle is not None:  # a state says its day of the 3-day cycle: count the game's days on
                    if game.cycle is not None:
                        game.day += (cycle - game.cycle) % 3
                    game.cycle = cycle
        self._schedule_view(game)

    def _ended(self, game: LiveGame, rec: Any) -> None:
        game.status = rec.status
        game.result = {"winner": rec.winner, "fault_seat": rec.fault_seat, "fault_reason": rec.fault_reason,
                       "days": rec.days, "aborted": rec.status == "aborted"}
        game.asked = []
        game.question = b""
        for seat in game.seats:
            if seat.remote is not None:
                self.remotes.release(seat.remote)
                seat.remote = None
        self._finished.append(_finished_row(rec, game.created))
        del self._finished[:-_FINISHED_SHOWN]
        if game.watchers:
            self._schedule_view(game, now=True)
        else:  # nobody to tell: the store has it all (a page that comes now is sent to the replay)
            game.released, game.view = [], None
        self._forget(game)

    # -- watching ----------------------------------------------------------

    def watch(self, game: LiveGame, box: Outbox) -> None:
        from viewer.model import card_table

        game.watchers.add(box)
        box.put(_dumps({"type": "hello", "cards": card_table()}))
        box.put(_dumps({"type": "status", "game": game.summary()}))
        if game.view is not None:
            box.put(_dumps({"type": "view", "full": game.view}))
        self._schedule_view(game)

    def unwatch(self, game: LiveGame, box: Outbox) -> None:
        game.watchers.discard(box)

    def _broadcast(self, game: LiveGame, message: dict[str, Any]) -> None:
        text = _dumps(message)
        for box in list(game.watchers):
            box.put(text)

    def _schedule_view(self, game: LiveGame, now: bool = False) -> None:
        if not game.watchers or (game._update is not None and not game._update.done()):
            return
        game._update = self.loop.create_task(self._send_view(game, 0.0 if now else _WATCH_INTERVAL))

    async def _send_view(self, game: LiveGame, delay: float) -> None:
        await asyncio.sleep(delay)
        lines = list(game.released)
        question = game.question if not game.over else None
        view = await asyncio.to_thread(build_view, lines, game.names, question)
        if view is not None and view != game.view:
            update = view_update(game.view, view)
            game.view = view
            self._broadcast(game, {"type": "view", **update})
        self._broadcast(game, {"type": "status", "game": game.summary()})
        if len(game.released) != len(lines) or (game.over and question):
            self.loop.call_soon(self._schedule_view, game, True)
        elif game.over:
            game.released = []  # the final view is built: late watchers get it, the lines are in the store

    # -- the lobby ---------------------------------------------------------

    def lobby_changed(self) -> None:
        """Something on the home page changed; pages get it soon, at most a
        few times a second however busy the server is."""
        if self._lobby_task is None or self._lobby_task.done():
            self._lobby_task = self.loop.create_task(self._push_lobby())

    async def _push_lobby(self) -> None:
        await asyncio.sleep(0.3)
        text = _dumps({"type": "lobby", **self.lobby()})
        for box in list(self.lobby_watchers):
            box.put(text)

    def lobby(self) -> dict[str, Any]:
        from bots import registry

        return {
            "ours": [{"name": n, "description": d} for n, d in registry.names() if registry.is_installed(n)],
            "remote": self.remotes.names(),
            "games": [g.summary() for g in self.games.values() if not g.over],
            "finished": list(reversed(self._finished)),
            "ladder": self._standings,
            "tcp_port": self.tcp_port,
        }

    async def _refresh_finished(self) -> None:
        tid = self.db.tid
        rows = await self.db.acall(lambda s: s.games(tid, last=_FINISHED_SHOWN, statuses=STATUSES))
        self._finished = [_finished_row(r, r.finished) for r in rows]
        await self._refresh_ladder()

    async def _refresh_ladder(self) -> None:
        self._standings = await self.db.acall(_ladder_standings)

    async def _watch_store(self) -> None:
        """Other programs (a `ladder run`) write to the same database: look
        for new games every few seconds and refresh the standings."""
        while True:
            try:
                mark = await self.db.acall(_ladder_mark)
                if mark != self._ladder_mark:
                    self._ladder_mark = mark
                    await self._refresh_ladder()
                    self.lobby_changed()
            except Exception:
                log.exception("reading the ladder's standings failed")
            await asyncio.sleep(3.0)


def _ladder_mark(store: Any) -> Any:
    from tournaments.ladder import LADDER_KIND

    tids = [t.id for t in store.tournaments() if t.kind == LADDER_KIND]
    if not tids:
        return None
    games = store.games(tids[0], last=1)
    return (tids[0], len(store.ladder_bots()), games[0].key if games else None)


def _ladder_standings(store: Any) -> dict[str, Any]:
    """The ladder's pool and ratings, as the home page shows them."""
    from tournaments.ladder import LADDER_KIND, Ladder

    if not any(t.kind == LADDER_KIND for t in store.tournaments()):
        return {"names": [], "rows": []}
    st = Ladder(store).show().to_json()
    return {"names": [r["name"] for r in st["standings"]], "rows": st["standings"], "games": st["games"]}


class Batches:
    """Items from a game thread to the event loop, a batch per wake-up.

    Each round the referee publishes (`TraceTap`) would otherwise wake the
    loop once (a write to its self-pipe, a turn of the loop): while a
    batch is scheduled and not yet taken, later items join it.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, apply: Callable[[list[Any]], None]) -> None:
        self._loop = loop
        self._apply = apply
        self._items: list[Any] = []
        self._lock = threading.Lock()

    def put(self, item: Any) -> None:
        """From any thread: `apply` gets `item` soon, on the loop, after the ones before it."""
        with self._lock:
            self._items.append(item)
            if len(self._items) > 1:
                return  # a batch is already scheduled: it takes this one too
        self._loop.call_soon_threadsafe(self._take)

    def _take(self) -> None:
        with self._lock:
            items, self._items = self._items, []
        if items:
            self._apply(items)


def _cycle_day(question: bytes) -> int | None:
    """The day of the 3-day cycle a state of our referee says: its first key
    (sorted keys), read without parsing the whole state."""
    if question.startswith(b'{"day":') and question[8:9] == b",":
        day = question[7] - 48
        return day if 1 <= day <= 3 else None
    try:
        return int(loads(question)["day"])
    except (JSONError, AttributeError, KeyError, TypeError, ValueError):
        return None


def _finished_row(rec: Any, created: float) -> dict[str, Any]:
    return {
        "id": rec.key,
        "seats": list(rec.seats),
        "winner": rec.winner,
        "fault_seat": rec.fault_seat,
        "fault_reason": rec.fault_reason,
        "days": rec.days,
        "aborted": rec.status == "aborted",
        "finished": rec.finished,
        "origin": rec.options.get("server") if isinstance(rec.options, dict) else None,
    }


def _dumps(value: Any) -> str:
    """A message for pages; views carry game state, so exact integers."""
    return dumps(value).decode()


def seat_token() -> str:
    return secrets.token_urlsafe(24)
