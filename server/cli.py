"""`driver serve` and `driver connect`: the game server and the bridge that
plays a local bot on it. Registered on the `driver` command; the heavy
imports (uvicorn, websockets) wait until a command runs."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import click

from common.options import timeout_option

__all__ = ["serve", "connect"]


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every interface, to accept other machines).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="HTTP and WebSocket port (0: any free port).")
@click.option("--tcp-port", type=click.IntRange(0, 65535), default=5555, show_default=True,
              help="TCP port of the original game server's protocol (0: any free port).")
@click.option("--no-tcp", is_flag=True, help="Do not listen for the original's protocol.")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="SQLite results file (the one `tournament report` and `ladder` read) "
                   "[default: the ladder's database].")
@timeout_option
@click.option("--tcp-timeout", type=click.FloatRange(min=0, min_open=True), default=600.0, show_default=True,
              metavar="SECONDS", help="Time for each move in games on the original's TCP protocol, "
              "whose clients include people (play_gui); the original has no limit.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object with the addresses once listening (for scripts).")
def serve(host: str, port: int, tcp_port: int, no_tcp: bool, db: Path | None, timeout: float,
          tcp_timeout: float, as_json: bool) -> None:
    """Run the game server: people play in the browser, bots connect over
    WebSocket (`driver connect`) or the original's TCP protocol, and every
    game is stored with the tournaments' and the ladder's.

    Open http://HOST:PORT/ in a browser. Stop with Ctrl-C: games still
    playing are stored as aborted (nobody's loss).
    """
    import logging

    import orjson
    import uvicorn

    from server.app import MESSAGE_LIMIT, create_app
    from server.guard import connection_budget, guarded_http, raise_open_files
    from common.settings import GameSettings
    from server.hub import Hub, Settings
    from tournaments.errors import TournamentError
    from tournaments.ladder import default_db
    from tournaments.store import Store

    # Every move crosses between a game thread (the referee) and the event
    # loop (the connection) twice; with Python's default 5 ms switch interval
    # a busy loop makes each crossing wait up to that long for the GIL.
    sys.setswitchinterval(0.0005)
    db_path = db if db is not None else default_db()
    try:  # a foreign or corrupt file is refused here, with the store's own words
        Store.open(db_path).close()
    except TournamentError as e:
        raise click.ClickException(str(e)) from None
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s")
    hub = Hub(db_path, Settings(game=GameSettings(timeout=timeout), tcp_timeout=tcp_timeout))
    files, _ = raise_open_files()  # before any socket: slow clients meet the timeouts, not the descriptor limit
    config = uvicorn.Config(
        None,  # type: ignore[arg-type]  # the app is set below, once it knows the server
        host=host, port=port, log_level="warning", ws_max_size=MESSAGE_LIMIT, lifespan="on",
        ws_ping_interval=20.0, ws_ping_timeout=20.0, ws_per_message_deflate=False, timeout_graceful_shutdown=5,
        http=guarded_http(hub.addresses), limit_concurrency=connection_budget(files),
    )
    server = uvicorn.Server(config)

    try:
        listening = _listen(host, port)
    except OSError as e:
        raise click.ClickException(f"cannot listen on {host}:{port}: {e.strerror or e}") from None

    def ready() -> None:
        http_port = listening.getsockname()[1]
        app_tcp = getattr(app.state, "tcp_port", None)
        info = {"url": f"http://{_url_host(host)}:{http_port}/", "tcp_port": app_tcp, "db": str(db_path.resolve())}
        if as_json:
            sys.stdout.write(orjson.dumps(info).decode() + "\n")
            sys.stdout.flush()
        else:
            click.echo(f"serving {info['url']}  (open it in a browser)", err=True)
            for other in _other_urls(host, http_port):
                click.echo(f"  and to other machines at {other}", err=True)
            if app_tcp is not None:
                click.echo(f"original protocol on TCP port {app_tcp}", err=True)
            click.echo(f"games stored in {info['db']}", err=True)

    app = create_app(hub, ready, None if no_tcp else (host, tcp_port))
    config.app = app
    try:
        server.run(sockets=[listening])
    except TournamentError as e:
        raise click.ClickException(str(e)) from None
    if not server.started:
        raise click.ClickException(f"could not start the server on {host}:{port} (see above)")


def _listen(host: str, port: int) -> socket.socket:
    """The HTTP socket, bound and listening before the server starts, so that
    its port is known (`--port 0`) when the server says it is ready."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    return sock


def _other_urls(host: str, port: int) -> list[str]:
    """Where other machines reach a server listening on every interface
    (`--host 0.0.0.0`): by this machine's name; none for one address."""
    if host not in ("0.0.0.0", "::", ""):
        return []
    name = socket.getfqdn() or socket.gethostname()
    return [f"http://{name}:{port}/"] if name and name not in ("localhost", "localhost.localdomain") else []


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


@click.command()
@click.argument("url", metavar="URL", required=False)
@click.argument("bot", metavar="BOT", required=False)
@click.option("--name", default=None, help="The name the bot plays under [default: from BOT].")
@click.option("--token", envvar="ECONOMANCY_TOKEN", default=None,
              help="The secret that owns the name (env ECONOMANCY_TOKEN) [default: one made and kept "
                   "in your user data directory for this server and name: see --tokens].")
@click.option("--tokens", "list_tokens", is_flag=True,
              help="List the servers and names a token is kept for, and the file, then exit.")
@click.option("--forget", is_flag=True,
              help="Forget the token kept for URL and the name (--name, or BOT's), then exit.")
@click.option("-j", "--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Games played at once (one bot process each).")
@click.option("--max-games", type=click.IntRange(1), default=None,
              help="Stop after this many games [default: play until stopped].")
def connect(url: str | None, bot: str | None, name: str | None, token: str | None, list_tokens: bool, forget: bool,
            concurrency: int, max_games: int | None) -> None:
    """Play BOT (any form `driver run` accepts) on the server at URL, game
    after game, as a bot that stays connected: the server seats it in
    games people start against it, and tournaments and ladders elsewhere
    enter it as remote:NAME. The bot itself is unchanged: it reads states
    and writes moves on stdio, as under `driver run`.

    Reconnects with a growing pause when the connection drops. Ctrl-C stops.

    The token that owns the name is kept in your user data directory
    (on Linux ~/.local/share/economancy-arena/bot-tokens.json, mode 600):
    --tokens lists what is kept there, --forget removes one.
    """
    from driver.botspec import BotSpecError, parse_bot
    from server.bridge import BridgeError, default_name, forget_token, kept_tokens, run_bridge, token_file, ws_endpoint

    if list_tokens:
        click.echo(f"tokens kept in {token_file()}")
        for server, kept in kept_tokens():
            click.echo(f"  {server}  {kept}")
        return
    if url is None or (bot is None and not (forget and name)):
        raise click.UsageError("URL and BOT are needed (or --tokens; or --forget with URL and --name or BOT)")
    spec = None
    if bot is not None:
        try:
            spec = parse_bot(bot)
        except BotSpecError as e:
            raise click.BadParameter(str(e), param_hint="BOT") from None
    if forget:
        assert name is not None or spec is not None
        who = name or default_name(spec)  # type: ignore[arg-type]
        try:
            endpoint = ws_endpoint(url)
        except BridgeError as e:
            raise click.BadParameter(str(e), param_hint="URL") from None
        if not forget_token(endpoint, who):
            raise click.ClickException(f"no token kept for {who!r} on {endpoint} (driver connect --tokens lists them)")
        click.echo(f"forgot the token of {who!r} on {endpoint} (kept in {token_file()})")
        return
    if spec is None:
        raise click.UsageError("BOT is needed to play")
    try:
        played = run_bridge(url, spec, name=name, token=token, concurrency=concurrency, max_games=max_games)
    except BridgeError as e:
        raise click.ClickException(str(e)) from None
    except KeyboardInterrupt:
        click.echo("\nstopped", err=True)
        sys.exit(130)
    click.echo(f"played {played} games", err=True)
