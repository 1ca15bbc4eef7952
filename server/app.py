"""The ASGI application (Starlette): pages, the JSON API and WebSockets.

Routes:
- `/` the lobby (start or join a game, games in progress and finished,
  the ladder), `/game/{id}` a game to play or watch, `/replay/{id}` the
  replay of a stored server game, finished or aborted (the viewer's page);
- `/api/lobby`, `/api/games` (POST: create), `/api/games/{id}`,
  `/api/games/{id}/join` (POST), `/api/remote/{name}` (is it connected),
  `/api/remote/reserve` (POST, with the owner's token: a ticket for a relay);
- WebSockets: `/ws/bot` (bots that stay connected), `/ws/relay` (the
  relay of a `remote:NAME` seat refereed elsewhere), `/ws/play/{id}`
  (a person's seat), `/ws/watch/{id}` (spectators), `/ws/lobby`.

docs/server.md describes every message. Everything a client sends is
bounded (HTTP bodies, WebSocket messages, names) and nothing it sends is
written into a page as markup: pages build their text with textContent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import unicodedata
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from common.settings import MAX_DAYS
from protocol.exactjson import JSONError
from protocol.exactjson import dumps as exact_dumps
from protocol.exactjson import loads as exact_loads
from server.guard import BODY_TIMEOUT
from server.hub import Hub, LiveGame, Seat, SeatRefused, seat_token
from server.outbox import Outbox
from server.pages import game_page, home_page, replay_response, static_file
from server.remotes import RESERVATIONS_PER_CLIENT, RemoteBot, check_name, token_digest
from tournaments.store import STATUSES

__all__ = ["create_app", "HELLO_TIMEOUT", "BODY_LIMIT", "MESSAGE_LIMIT"]

log = logging.getLogger("economancy.server")

HELLO_TIMEOUT = 10.0
"""Seconds a WebSocket client has to say hello."""
BODY_LIMIT = 16 << 10
"""Largest HTTP request body accepted."""
MESSAGE_LIMIT = 64 << 10
"""Largest WebSocket message accepted (uvicorn closes the connection on a larger one)."""
IDLE_MESSAGES = 32
"""Messages a connected bot may send while it plays no game before it is dropped."""
PEOPLE_TIMEOUTS = (10.0, 3600.0)
NAME_LIMIT = 32


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create_app(hub: Hub, on_ready: Callable[[], Any] | None = None, tcp: tuple[str, int] | None = None) -> Starlette:
    """The server's application around `hub`. `tcp`: where to listen for the
    original's protocol (in the same process and event loop)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        listener = None
        if tcp is not None:
            from server.tcp import serve_tcp

            listener = await serve_tcp(hub, *tcp)
            app.state.tcp_port = hub.tcp_port = listener.sockets[0].getsockname()[1]
        app.state.hub = hub
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            if listener is not None:
                listener.close()
            await hub.stop()

    def http(handler: Callable[[Hub, Request], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            response: Response = await handler(hub, request)
            return response

        return endpoint

    def api(handler: Callable[[Hub, Request], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            return await _api(lambda: handler(hub, request))

        return endpoint

    def ws(handler: Callable[[Hub, WebSocket], Any]) -> Callable[[WebSocket], Any]:
        async def endpoint(websocket: WebSocket) -> None:
            await handler(hub, websocket)

        return endpoint

    routes = [
        Route("/", http(lambda h, r: _page(home_page()))),
        Route("/game/{id}", http(lambda h, r: _page(game_page()))),
        Route("/replay/{id}", http(_replay)),
        Route("/static/{name}", http(lambda h, r: static_file(r.path_params["name"]))),
        Route("/favicon.ico", http(lambda h, r: static_file("favicon.svg"))),
        Route("/api/lobby", api(_lobby)),
        Route("/api/games", api(_create), methods=["POST"]),
        Route("/api/games/{id}", api(_game_info)),
        Route("/api/games/{id}/join", api(_join), methods=["POST"]),
        Route("/api/remote/reserve", api(_reserve), methods=["POST"]),
        Route("/api/remote/{name}", api(_remote_info)),
        WebSocketRoute("/ws/bot", ws(_ws_bot)),
        WebSocketRoute("/ws/relay", ws(_ws_relay)),
        WebSocketRoute("/ws/play/{id}", ws(_ws_play)),
        WebSocketRoute("/ws/watch/{id}", ws(_ws_watch)),
        WebSocketRoute("/ws/lobby", ws(_ws_lobby)),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


# -- HTTP -------------------------------------------------------------------

_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
_HEADERS = {"Content-Security-Policy": _CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store"}


async def _page(html: str) -> Response:
    return HTMLResponse(html, headers=_HEADERS)


async def _api(handler: Callable[[], Any]) -> Response:
    """A JSON endpoint: its result, or {"error": ...} with the status."""
    try:
        body = await handler()
    except ApiError as e:
        return JSONResponse({"error": str(e)}, status_code=e.status, headers=_HEADERS)
    except SeatRefused as e:
        return JSONResponse({"error": str(e)}, status_code=409, headers=_HEADERS)
    return Response(orjson.dumps(body), media_type="application/json", headers=_HEADERS)


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read no further than BODY_LIMIT bytes,
    within BODY_TIMEOUT seconds."""
    data = bytearray()

    async def read() -> None:
        async for chunk in request.stream():
            data.extend(chunk)
            if len(data) > BODY_LIMIT:
                raise ApiError(413, f"request body larger than {BODY_LIMIT} bytes")

    try:
        await asyncio.wait_for(read(), BODY_TIMEOUT)  # a body that trickles in must not hold the request
    except asyncio.TimeoutError:
        raise ApiError(408, f"request body not received within {BODY_TIMEOUT:g} s") from None
    try:
        value = orjson.loads(data or b"{}")
    except orjson.JSONDecodeError:
        raise ApiError(400, "the request body is not JSON") from None
    if not isinstance(value, dict):
        raise ApiError(400, "the request body is not a JSON object")
    return value


def clean_name(value: object, default: str) -> str:
    """A person's name as shown to others: printable, one line, bounded.
    (The pages escape it again when they draw it.)"""
    if not isinstance(value, str):
        return default
    text = "".join(ch for ch in value if unicodedata.category(ch)[0] not in "CZ" or ch == " ")
    text = re.sub(r"\s+", " ", text).strip()[:NAME_LIMIT]
    return text or default


async def _lobby(hub: Hub, request: Request) -> dict[str, Any]:
    return hub.lobby()


def _game_of(hub: Hub, game_id: str) -> LiveGame:
    game = hub.games.get(game_id)
    if game is None:
        raise ApiError(404, f"no game {game_id!r} in progress (finished games are at /replay/{game_id})")
    return game


async def _game_info(hub: Hub, request: Request) -> dict[str, Any]:
    return _game_of(hub, request.path_params["id"]).summary()


async def _create(hub: Hub, request: Request) -> dict[str, Any]:
    """A new game from the lobby's form (see docs/server.md, "Creating a game")."""
    from bots import registry
    from driver.botspec import BotSpecError, parse_bot

    body = await _json_body(request)
    hub.can_create()
    opponents = body.get("opponents")
    play = body.get("play", True) is not False
    if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
        raise ApiError(400, "opponents: a list of bot names, remote:NAME or person")
    players = len(opponents) + (1 if play else 0)
    if not 2 <= players <= 4:
        raise ApiError(400, f"a game has 2 to 4 players, not {players}")
    people_timeout = body.get("people_timeout", 120)
    if type(people_timeout) not in (int, float) or not PEOPLE_TIMEOUTS[0] <= people_timeout <= PEOPLE_TIMEOUTS[1]:
        raise ApiError(400, f"people_timeout: seconds from {PEOPLE_TIMEOUTS[0]:g} to {PEOPLE_TIMEOUTS[1]:g}")
    max_days = body.get("max_days", MAX_DAYS)
    if type(max_days) is not int or not 1 <= max_days <= 1000:
        raise ApiError(400, "max_days: a whole number from 1 to 1000")
    name = clean_name(body.get("name"), "guest")
    options = hub._options(base=body.get("base") is True, max_days=max_days)
    game = LiveGame(hub.new_id(), "web", [], options)
    seats: list[Seat] = []
    token = None
    if play:
        token = seat_token()
        seats.append(Seat(0, "person", f"person:{name}", float(people_timeout), token=token, claimed=True))
    taken = []
    try:
        for text in opponents:
            i = len(seats)
            if text == "person":
                seats.append(Seat(i, "person", "person:?", float(people_timeout), token=seat_token()))
            elif text.startswith("remote:"):
                bot_name = text[len("remote:"):]
                bot = hub.remotes.take(bot_name, game.id)
                if bot is None:
                    raise ApiError(409, f"remote bot {bot_name!r} is not connected or is busy")
                taken.append(bot)
                seat = Seat(i, "remote", text, hub.settings.game.timeout, remote=bot, claimed=True)
                seats.append(seat)
            elif registry.module(text) is not None and registry.is_installed(text):
                try:
                    spec = parse_bot(text)
                except BotSpecError as e:
                    raise ApiError(400, str(e)) from None
                seats.append(Seat(i, "bot", text, hub.settings.game.timeout, spec=spec, claimed=True))
            else:
                raise ApiError(400, f"unknown opponent {text[:40]!r}: one of our bots by name, remote:NAME or person")
        game.seats = seats
        for seat in seats:
            if seat.kind == "remote":
                _seat_remote(hub, game, seat)
        hub.add_game(game)
    except BaseException:
        for bot in taken:
            hub.remotes.release(bot)
        raise
    out: dict[str, Any] = {"id": game.id, "url": f"/game/{game.id}"}
    if token is not None:
        out.update(seat=0, token=token, url=f"/game/{game.id}#seat=0&token={token}")
    return out


def _seat_remote(hub: Hub, game: LiveGame, seat: Seat) -> None:
    """Route a server game's seat to a connected bot."""
    bot: RemoteBot = seat.remote

    def done() -> None:  # the referee let go of the seat: the bot may play again
        if seat.remote is bot:
            seat.remote = None
            hub.remotes.release(bot)

    link = hub.connect_seat(game, seat, lambda line: bot.send(line.decode()), done)
    link.seat.note(f"remote bot {bot.name} connected from {bot.peer}")
    bot.deliver_to = link.answer
    bot.on_lost = lambda reason: hub.seat_lost(game, seat, reason)


async def _join(hub: Hub, request: Request) -> dict[str, Any]:
    game = _game_of(hub, request.path_params["id"])
    body = await _json_body(request)
    if game.status != "waiting":
        raise ApiError(409, "this game has started; you can watch it")
    for seat in game.seats:
        if seat.kind == "person" and not seat.claimed:
            seat.claimed = True
            seat.name = f"person:{clean_name(body.get('name'), 'guest')}"
            hub.lobby_changed()
            assert seat.token is not None
            return {"id": game.id, "seat": seat.index, "token": seat.token,
                    "url": f"/game/{game.id}#seat={seat.index}&token={seat.token}"}
    raise ApiError(409, "every seat of this game is taken; you can watch it")


async def _reserve(hub: Hub, request: Request) -> dict[str, Any]:
    """A ticket for a relay: only with the bot's owner's token (anyone else
    would get a free oracle, or hold the bot away from its games). A bot
    not connected is 404 at once; a busy one is waited for, up to `wait`
    seconds (at most 30 per request), then 409. A client holds at most
    RESERVATIONS_PER_CLIENT reservations and waiting requests (429)."""
    body = await _json_body(request)
    try:
        name = check_name(body.get("name"))
    except ValueError as e:
        raise ApiError(400, str(e)) from None
    wait = body.get("wait", 0)
    if type(wait) not in (int, float) or wait < 0:
        raise ApiError(400, "wait: seconds, not negative")
    token = body.get("token")
    if not isinstance(token, str) or not 16 <= len(token) <= 200:
        raise ApiError(403, f"reserving remote bot {name!r} needs its owner's token (the one its driver connect uses)")
    owned = await _owner(hub, name, token)
    if owned is None:
        raise ApiError(404, f"no bot {name!r} has ever connected to this server")
    if not owned:
        raise ApiError(403, f"that is not the token of remote bot {name!r}: only its owner may reserve it")
    if name not in hub.remotes.bots:
        raise ApiError(404, f"remote bot {name!r} is not connected")
    client = request.client.host if request.client else "?"
    if hub.remotes.held_by(client) >= RESERVATIONS_PER_CLIENT:
        raise ApiError(429, f"this address already holds {RESERVATIONS_PER_CLIENT} reservations or waiting requests")
    ticket = await hub.remotes.reserve(name, min(float(wait), 30.0), client)
    if ticket is None:
        if name not in hub.remotes.bots:
            raise ApiError(404, f"remote bot {name!r} is not connected")
        raise ApiError(409, f"remote bot {name!r} is busy: every connection of it plays a game")
    return {"ticket": ticket}


async def _remote_info(hub: Hub, request: Request) -> dict[str, Any]:
    """Whether remote bot `name` is connected, and how many of its
    connections are idle (what the lobby shows of it), or 404."""
    name = request.path_params["name"]
    for row in hub.remotes.names():
        if row["name"] == name:
            return row
    raise ApiError(404, f"remote bot {name[:40]!r} is not connected")


async def _owner(hub: Hub, name: str, token: str) -> bool | None:
    """Whether `token` owns the name `name`; None if no token ever claimed it."""
    digest = token_digest(token)
    tid = hub.db.tid
    known = await hub.db.acall(lambda s: s.note(tid, f"bot-token/{name}"))
    if known is None:
        return None
    return secrets.compare_digest(str(known.get("sha256", "")), digest)


async def _replay(hub: Hub, request: Request) -> Response:
    key = request.path_params["id"]
    if len(key) > 200:
        return Response("no such game", status_code=404)
    tid = hub.db.tid
    # an aborted game (cut off by a crash or a stop) is listed with its replay too: its trace up to the cut
    recs = await hub.db.acall(lambda s: s.games(tid, key=key, with_blobs=True, statuses=STATUSES))
    if not recs:
        live = hub.games.get(key)
        if live is not None and not live.over:
            return Response(status_code=307, headers={"Location": f"/game/{key}"})
        return Response("no such game", status_code=404)
    return await asyncio.to_thread(replay_response, recs[0])


# -- WebSockets -------------------------------------------------------------


async def _hello(ws: WebSocket) -> dict[str, Any] | None:
    """The client's first message, a JSON object, within HELLO_TIMEOUT."""
    await ws.accept()
    try:
        text = await asyncio.wait_for(ws.receive_text(), HELLO_TIMEOUT)
        hello = orjson.loads(text)
    except (asyncio.TimeoutError, WebSocketDisconnect, KeyError, orjson.JSONDecodeError, RuntimeError):
        await _close(ws, 4000, "say hello first: one JSON object")
        return None
    if not isinstance(hello, dict):
        await _close(ws, 4000, "say hello first: one JSON object")
        return None
    return hello


async def _close(ws: WebSocket, code: int, reason: str) -> None:
    with contextlib.suppress(Exception):
        await ws.send_text(orjson.dumps({"error": reason}).decode())
        await ws.close(code, reason[:120])


def _outbox(ws: WebSocket) -> Outbox:
    def overflow() -> None:
        asyncio.ensure_future(_close(ws, 4009, "too slow: messages piled up unread"))

    return Outbox(ws.send_text, overflow)


async def _messages(ws: WebSocket) -> AsyncIterator[bytes]:
    """Every message the client sends, as bytes, until it goes away."""
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        data = message.get("text")
        yield data.encode() if data is not None else (message.get("bytes") or b"")


async def _ws_bot(hub: Hub, ws: WebSocket) -> None:
    """A bot that stays connected: hello {"name", "token"}, then the states
    and moves of the stdio protocol, game after game."""
    hello = await _hello(ws)
    if hello is None:
        return
    try:
        name = check_name(hello.get("name"))
        token = hello.get("token")
        if not isinstance(token, str) or not 16 <= len(token) <= 200:
            raise ValueError("token: a secret of 16 to 200 characters (keep it: it owns the name)")
        await _claim(hub, name, token)
    except ValueError as e:
        await _close(ws, 4003, str(e))
        return
    box = _outbox(ws)
    peer = f"{ws.client.host}:{ws.client.port}" if ws.client else "?"
    bot = RemoteBot(name, box.put, lambda code, why: asyncio.ensure_future(_close(ws, code, why)), peer)
    hub.remotes.add(bot)
    box.put(orjson.dumps({"welcome": name}).decode())
    idle = 0
    try:
        async for data in _messages(ws):
            if bot.deliver_to is not None:
                bot.deliver_to(data)
                idle = 0
            else:
                idle += 1
                if idle > IDLE_MESSAGES:
                    await _close(ws, 4008, f"more than {IDLE_MESSAGES} messages while not asked")
                    return
    finally:
        box.close()
        hub.remotes.remove(bot)
        if bot.on_lost is not None:
            bot.on_lost("connection lost")


async def _claim(hub: Hub, name: str, token: str) -> None:
    """A name belongs to the first token that connected with it."""
    digest = token_digest(token)
    tid = hub.db.tid

    def claim(store: Any) -> bool:
        key = f"bot-token/{name}"
        known = store.note(tid, key)
        if known is None:
            store.set_note(tid, key, {"sha256": digest})
            return True
        return secrets.compare_digest(str(known.get("sha256", "")), digest)

    if not await hub.db.acall(claim):
        raise ValueError(f"the name {name!r} belongs to another token")


async def _ws_relay(hub: Hub, ws: WebSocket) -> None:
    """A referee elsewhere plays a remote bot through this connection: it
    sends states, gets the bot's moves. Closed with 4001 when the bot
    leaves, and with 4002 when the relay says nothing (no state, no empty
    keepalive message) for the move timeout: the bot is then free again.
    A relay that ends in the middle of a game (the bot got a state but not
    the game's final one) costs the bot its connection (4011), so that
    `driver connect` restarts it: its answer to that game must not land
    in the next one."""
    hello = await _hello(ws)
    if hello is None:
        return
    ticket = hello.get("ticket")
    bot = hub.remotes.redeem(ticket) if isinstance(ticket, str) else None
    if bot is None:
        await _close(ws, 4004, "no such reservation (expired, or the bot left)")
        return
    silence = hub.settings.game.timeout
    box = _outbox(ws)
    box.put(orjson.dumps({"welcome": bot.name, "keepalive": silence / 3}).decode())
    gone = asyncio.Event()
    bot.deliver_to = lambda data: box.put(data.decode("utf-8", "replace"))
    bot.on_lost = lambda reason: gone.set()
    mid_game = [False]
    receive = asyncio.ensure_future(_relay_states(ws, bot, silence, mid_game))
    lost = asyncio.ensure_future(gone.wait())
    try:
        await asyncio.wait({receive, lost}, return_when=asyncio.FIRST_COMPLETED)
        if gone.is_set():
            await box.drain(2.0)
            await _close(ws, 4001, f"remote bot {bot.name} disconnected")
        elif not receive.cancelled() and receive.exception() is None and receive.result() == "silent":
            await _close(ws, 4002, f"the relay said nothing for {silence:g} s (the move timeout); the bot is freed")
    finally:
        receive.cancel()
        lost.cancel()
        box.close()
        bot.on_lost = None
        if not gone.is_set() and bot in hub.remotes.bots.get(bot.name, []):
            if mid_game[0]:
                bot.close(4011, "the game it played through a relay was cut off; reconnect")
            else:
                hub.remotes.release(bot)


async def _relay_states(ws: WebSocket, bot: RemoteBot, silence: float, mid_game: list[bool]) -> str:
    """Pass the relay's states to the bot until it goes ("closed") or says
    nothing for `silence` seconds ("silent"); an empty message only says
    the relay is still there. `mid_game[0]`: the bot has a state of a game
    whose final state it has not had."""
    messages = _messages(ws)
    while True:
        try:
            data = await asyncio.wait_for(anext(messages), silence)
        except StopAsyncIteration:
            return "closed"
        except asyncio.TimeoutError:
            return "silent"
        if data:
            mid_game[0] = not _final_state(data)
            bot.send(data.decode("utf-8", "replace"))


def _final_state(data: bytes) -> bool:
    """A game's last state (phase end or fault)."""
    try:
        value = exact_loads(data)
    except (ValueError, JSONError):
        return False
    phase = value.get("phase") if isinstance(value, dict) else None
    return isinstance(phase, dict) and phase.get("name") in ("end", "fault")


async def _ws_play(hub: Hub, ws: WebSocket) -> None:
    """A person's seat: hello {"token"}; then the game's view (as to a
    spectator), plus "ask" messages with the legal moves when it is this
    seat's turn; the page answers with the move (a JSON array)."""
    hello = await _hello(ws)
    if hello is None:
        return
    game = hub.games.get(ws.path_params["id"])
    token = hello.get("token")
    seat = None
    if game is not None and isinstance(token, str):
        for s in game.seats:
            if s.kind == "person" and s.token is not None and s.claimed and secrets.compare_digest(s.token, token):
                seat = s
    if game is None or seat is None:
        await _close(ws, 4003, "no such game, or not your seat (a wrong token)")
        return
    box = _outbox(ws)
    box.put(orjson.dumps({"type": "seat", "seat": seat.index, "timeout": seat.timeout}).decode())

    def deliver(line: bytes) -> None:
        box.put(exact_dumps(ask_message(line, seat.index, seat.timeout)).decode())  # a purse may pass 64 bits

    if seat.link is None:
        hub.connect_seat(game, seat, deliver, lambda: None).seat.note("a person, in the browser")
        hub.maybe_start(game)
    else:
        seat.connected = True
        seat.link.attach(deliver)
    hub.watch(game, box)
    try:
        async for data in _messages(ws):
            if seat.link is not None and len(data) <= 4096:
                seat.link.answer(data)
    finally:
        hub.unwatch(game, box)
        box.close()
        if seat.link is not None and not seat.link.done:
            seat.link.attach(None)  # the seat waits for the person to come back (a reload)


def ask_message(line: bytes, seat: int, timeout: float) -> dict[str, Any]:
    """What a person's page gets for a state sent to its seat: the state and,
    unless it is the final one, the moves the engine allows."""
    from protocol.cards import NAMES, PASS
    from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, Game

    state = exact_loads(line)
    name = state.get("phase", {}).get("name")
    if name in ("end", "fault"):
        return {"type": "final", "state": state}
    game = Game.from_wire(state)
    legal = game.legal_moves(seat)
    moves: dict[str, Any] = {}
    if game.phase == INVESTING:
        moves = {"invest": [0, game.coins(seat)]}
    elif game.phase == ATTACKING:
        moves = {"cards": [m for m in legal if m != 0], "stop": 0 in legal}
    elif game.phase == DEFENDING:
        moves = {"cards": list(legal)}
    elif game.phase == BUY:
        moves = {"shop": [NAMES[m] for m in legal if m != PASS], "pass": PASS in legal}
    return {"type": "ask", "state": state, "legal": moves, "timeout": timeout}


async def _ws_watch(hub: Hub, ws: WebSocket) -> None:
    await ws.accept()
    game = hub.games.get(ws.path_params["id"])
    if game is None:
        await _close(ws, 4004, "no such game in progress")
        return
    box = _outbox(ws)
    hub.watch(game, box)
    try:
        async for _ in _messages(ws):
            pass  # spectators have nothing to say
    finally:
        hub.unwatch(game, box)
        box.close()


async def _ws_lobby(hub: Hub, ws: WebSocket) -> None:
    await ws.accept()
    box = _outbox(ws)
    box.put(orjson.dumps({"type": "lobby", **hub.lobby()}).decode())
    hub.lobby_watchers.add(box)
    try:
        async for _ in _messages(ws):
            pass
    finally:
        hub.lobby_watchers.discard(box)
        box.close()
