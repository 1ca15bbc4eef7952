"""The replay page: one self-contained HTML file (no network, works from file://).

The page is the model (viewer.model) as JSON in a data block, the table
renderer (static/table.js, table.css: shared with the game server's live
pages) and the replay navigation (static/replay.js, replay.css), all
inlined. A Content-Security-Policy forbids every fetch, so nothing a bot
wrote can make the page load anything even if it were drawn as markup
(it is not: the scripts write bot text with textContent only).
"""

from __future__ import annotations

import html
from functools import cache
from importlib.resources import files

import orjson

from viewer.model import Replay, visible

__all__ = ["replay_page", "static_text", "json_for_script", "READING_THE_TABLE"]

_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"


@cache
def static_text(name: str) -> str:
    """One of the package's static files (table.js, table.css, replay.js, replay.css)."""
    return (files("viewer") / "static" / name).read_text(encoding="utf-8")


def json_for_script(value: object) -> str:
    """JSON that cannot end or confuse the <script> block holding it: every
    <, > and & (only possible inside strings) and the JavaScript line
    separators are written as \\u escapes."""
    raw = orjson.dumps(value).decode()
    return (raw.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


READING_THE_TABLE = """<p><b>Reading the table.</b> Each day: income, then everyone secretly <b>invests</b> coins; the one who invested
strictly the most <b>attacks</b>: each attacking card (A = attack) is met by one card of each other player
(D = defense); a card faints when the other side's attack is greater than its defense; a player with no
card able to defend is eliminated. Then everyone secretly <b>buys</b>; a card wanted by more players than
are left goes to nobody. 7 points and strictly the most wins. Each card says what it does: income comes
on the days of the 3-day cycle it names.</p>"""
# The rules in one paragraph: on the replay page and on the game server's game page.

_BODY = """<div class=page>
<div class=bar><h1 id=title></h1><label id=games hidden>Game <select id=game></select></label></div>
<div class=controls role=toolbar aria-label="replay controls">
<button id=start title="First step (Home)" aria-label="first step">&#x21E4;<span class=w> start</span></button>
<button id=prev-day title="Previous day (PageUp or [)" aria-label="previous day">&#x25C0;&#x25C0;<span class=w> day</span></button>
<button id=prev-round title="Previous round (Up, Shift+Left or p)" aria-label="previous round">&#x25C0;<span class=w> round</span></button>
<button id=prev title="Previous decision (Left)" aria-label="previous step">&#x2039;<span class=w> step</span></button>
<button id=play title="Play / pause (Space)" aria-label="play or pause">&#x25B6;<span class=w> play</span></button>
<button id=next title="Next decision (Right)" aria-label="next step"><span class=w>step </span>&#x203A;</button>
<button id=next-round title="Next round (Down, Shift+Right or n)" aria-label="next round"><span class=w>round </span>&#x25B6;</button>
<button id=next-day title="Next day (PageDown or ])" aria-label="next day"><span class=w>day </span>&#x25B6;&#x25B6;</button>
<button id=end title="Last step (End)" aria-label="last step"><span class=w>end </span>&#x21E5;</button>
<input id=scrub type=range min=0 max=0 value=0 aria-label="timeline">
<label class=pace>play by <select id=unit aria-label="play by"><option value=step>step</option><option value=round>round</option><option value=day>day</option></select></label>
<label class=pace>speed <select id=speed aria-label="speed"><option value=0.5>&#xBD;&#xD7;</option><option value=1 selected>1&#xD7;</option><option value=2>2&#xD7;</option><option value=4>4&#xD7;</option></select></label>
<div id=where></div>
</div>
<div class=layout>
<main id=table></main>
<div class=aside>
<div class=box id=log></div>
<div class=box><div id=chart-coins></div><div id=chart-points></div><div id=legend></div></div>
<div class="box help">
""" + READING_THE_TABLE + """<p><b>Keys.</b> &larr; &rarr; decision, &uarr; &darr; round, PageUp/PageDown day, Home/End, Space plays
(by step, round or day, at the chosen speed; it lingers on revealed bids and fights).
The address (#step=N, #day=D) points at the step shown: copy it to share.
A grey figure beside an answer is the time the bot took; "opening move" marks a move the referee set.</p>
</div>
</div>
</div>
</div>"""


def replay_page(replay: Replay) -> str:
    """The whole page for a replay, as one string."""
    title = html.escape(visible(replay.title), quote=True)
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{title}</title>"
        f"<style>{static_text('table.css')}\n{static_text('replay.css')}</style></head><body>"
        f"{_BODY}"
        f'<script type="application/json" id="replay-data">{json_for_script(replay.to_json())}</script>'
        f"<script>{static_text('table.js')}</script>"
        f"<script>{static_text('replay.js')}</script>"
        "</body></html>\n"
    )
