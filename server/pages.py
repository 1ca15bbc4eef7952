"""The server's pages: small HTML shells; the scripts draw everything.

The table is drawn by the viewer's renderer (`viewer/static/table.js`
and `table.css`, served as they are), so a live game looks exactly like
its replay. Our own scripts (`server/static/`) hold the lobby, the
move controls and the live updates. The pages carry no inline script:
the Content-Security-Policy allows scripts from the server only, and
every text that came from a client is written with textContent.
"""

from __future__ import annotations

import html
from functools import cache
from importlib.resources import files
from typing import Any

from starlette.responses import HTMLResponse, Response

__all__ = ["home_page", "game_page", "replay_response", "static_file", "display_name"]


def display_name(name: str) -> str:
    """A seat's name as people read it (common.js's displayName): "person:Ann"
    is Ann, "remote:bob" is "bob (connected bot)"; the store keeps the kind."""
    if name.startswith("person:"):
        return "(open seat)" if name[7:] == "?" else name[7:]
    if name.startswith("remote:"):
        return name[7:] + " (connected bot)"
    if name.startswith("tcp:"):
        return "TCP seat " + name[4:]
    return name

_STATIC = {
    "table.js": ("viewer", "application/javascript"),
    "table.css": ("viewer", "text/css"),
    "app.css": ("server", "text/css"),
    "home.js": ("server", "application/javascript"),
    "game.js": ("server", "application/javascript"),
    "common.js": ("server", "application/javascript"),
    "favicon.svg": ("server", "image/svg+xml"),
}


@cache
def _static(name: str) -> bytes:
    package, _ = _STATIC[name]
    return (files(package) / "static" / name).read_bytes()


async def static_file(name: str) -> Response:
    if name not in _STATIC:
        return Response("not found", status_code=404)
    return Response(_static(name), media_type=_STATIC[name][1],
                    headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})


def _shell(title: str, body: str, scripts: list[str], styles: list[str]) -> str:
    links = "".join(f'<link rel=stylesheet href="/static/{s}">' for s in styles)
    tags = "".join(f'<script src="/static/{s}"></script>' for s in scripts)
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{title}</title>{links}</head><body>{body}{tags}</body></html>\n"
    )


_HOME = """
<header class=top><a class=brand href="/">Economancy arena</a>
<span class=tagline>Play the card game against bots or people, watch games live, rate bots on the ladder.</span></header>
<main class=home>
<section class="card play" aria-labelledby=play-title>
<h2 id=play-title>Play a game</h2>
<form id=new-game autocomplete=off>
<label class=field>Your name <input name=name maxlength=32 placeholder=guest></label>
<fieldset class=opponents><legend>Opponents</legend>
<div id=opponents></div>
<button type=button id=add-opponent class=secondary>+ add an opponent</button>
<p class=hint>Up to three. Our bots play at once; a connected bot must be idle;
"another person" leaves a seat open: share the game's link.</p>
</fieldset>
<div class=row>
<label class=field>Cards <select name=set><option value=simple selected>simple set (8 cards)</option>
<option value=base>base set (13 cards)</option></select></label>
<label class=field>Time per move for people <select name=people_timeout>
<option value=30>30 seconds</option><option value=60>1 minute</option><option value=120 selected>2 minutes</option>
<option value=300>5 minutes</option><option value=900>15 minutes</option></select></label>
<label class=field>Day limit <input name=max_days type=number min=1 max=1000 value=100></label>
</div>
<label class=check><input type=checkbox name=watch> only watch (bots against each other)</label>
<div class=actions><button type=submit id=start>Start the game</button> <span id=create-error class=error role=alert></span></div>
</form>
<form id=join class=join autocomplete=off>
<label class=field>Join or watch a game by id <input name=id maxlength=40 placeholder="e.g. k3m9x2qa" required></label>
<button type=submit class=secondary>Open</button>
</form>
</section>
<section class="card live" aria-labelledby=live-title>
<h2 id=live-title>Games in progress</h2>
<ul id=live class=games><li class=empty>No game in progress.</li></ul>
</section>
<section class="card finished" aria-labelledby=finished-title>
<h2 id=finished-title>Finished games</h2>
<ul id=finished class=games><li class=empty>No finished game yet.</li></ul>
</section>
<section class="card ladder" aria-labelledby=ladder-title>
<h2 id=ladder-title>Ladder</h2>
<div id=ladder><p class=empty>The ladder is empty. <code>ladder add NAME BOT</code> adds a bot, <code>ladder run --games 20</code> plays.</p></div>
</section>
<section class="card connect" aria-labelledby=connect-title>
<h2 id=connect-title>Bring your own bot</h2>
<p>Any program that speaks the stdio protocol plays here unchanged. From another terminal or machine:</p>
<pre id=connect-cmd>driver connect http://HOST ./my_bot</pre>
<p>It then appears under "Connected bots" above, and a ladder can rate it:
<code>ladder add mine remote:NAME</code>. Clients of the original game's server (play_gui) connect to
TCP port <b id=tcp-port>5555</b>.</p>
<h3>Connected bots</h3>
<ul id=remote class=games><li class=empty>None right now.</li></ul>
</section>
</main>
"""

_GAME = """
<header class=top><a class=brand href="/">Economancy arena</a>
<span class=crumb>Game <b id=game-id></b></span><span id=status class=status>connecting\u2026</span></header>
<div id=banner class=banner role=status aria-live=polite></div>
<div id=controls class=controls hidden></div>
<div id=recent class=recent role=status hidden></div>
<div id=pace class=pace hidden><button type=button id=pace-back class="secondary small" aria-label="previous step">&#x25C0; back</button>
<button type=button id=pace-next class="secondary small" aria-label="next step">next &#x25B6;</button>
<button type=button id=pace-live class="secondary small">live</button>
<label>speed <select id=speed><option value=0.5>&#xBD;&#xD7;</option><option value=1 selected>1&#xD7;</option>
<option value=2>2&#xD7;</option><option value=4>4&#xD7;</option></select></label> <span id=pace-where class=muted></span></div>
<div class=game-layout>
<main id=table class=table-area></main>
<aside class=side><h3>What happened</h3><ol id=log class=log></ol>
<details class=help open><summary>Reading the table</summary>{help}</details></aside>
</div>
"""


def home_page() -> str:
    return _shell("Economancy arena", _HOME, ["common.js", "home.js"], ["app.css"])


def game_page() -> str:
    from viewer.page import READING_THE_TABLE

    return _shell("Economancy game", _GAME.replace("{help}", READING_THE_TABLE), ["table.js", "common.js", "game.js"],
                  ["table.css", "app.css"])


_REPLAY_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"


def _aborted_reason(rec: Any) -> str | None:
    """The reason on an aborted trace's last line (`{"meta": "aborted", "reason": ...}`)."""
    import orjson

    try:
        last = orjson.loads(rec.trace_lines()[-1])
        return str(last["reason"]) if isinstance(last, dict) and last.get("meta") == "aborted" else None
    except (IndexError, KeyError, ValueError, TypeError):
        return None


def replay_response(rec: Any) -> Response:
    """The viewer's self-contained replay page of a stored game (the same
    page `tournament replay` writes)."""
    from tournaments.report_games import game_replay
    from viewer.model import TraceError
    from viewer.page import replay_page

    try:
        replay = game_replay(rec, [display_name(n) for n in rec.seats])
    except TraceError as e:
        if rec.status == "aborted":  # cut off before its first state: nothing to draw, but not an error
            reason = html.escape(rec.fault_reason or _aborted_reason(rec) or "cut off")
            return HTMLResponse(f"<!DOCTYPE html><title>Game {html.escape(rec.key)}</title>"
                                f"<p>Game {html.escape(rec.key)} was cut off before its first move: {reason}.</p>",
                                headers={"Content-Security-Policy": _REPLAY_CSP, "X-Content-Type-Options": "nosniff"})
        return Response(f"this game's trace cannot be shown: {e}", status_code=500)
    return HTMLResponse(replay_page(replay), headers={"Content-Security-Policy": _REPLAY_CSP,
                                                      "X-Content-Type-Options": "nosniff"})
