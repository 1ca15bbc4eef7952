"""The report's game sections: every stored game linked to its replay, a
filterable game list, and what the games say about each bot (game
lengths, how it wins, what it buys and when, its win rate with each card,
and the ladder's ratings over time).

How the report reaches replays: one self-contained replay page per game,
written into a folder beside the report (`REPORT_replays/game-ID.html`),
linked from the game list. Each page is the same file `tournament replay`
writes, so one game can be mailed on its own, and the report itself stays
small (a row per game) and opens at once whatever the number of games;
pages are only read when clicked. The cost is the renderer repeated in
every page (about 40 kB, measured by bench/replay.py) on top of the
game's own data; `--no-replays` writes none and the list then shows the
command that makes one.

Each game is read once: its trace becomes the replay's model
(viewer.model), and the statistics are taken from that model, so the
report and the replays cannot disagree about who bought what or how a
game ended.
"""

from __future__ import annotations

import html
import math
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tournaments.outcomes import Result, seat_outcome
from tournaments.report_charts import bar_chart, line_chart, stacked_bars
from tournaments.store import GameRecord, Store
from viewer.model import Replay, TraceError, build_replay, visible

__all__ = ["GameFacts", "game_replay", "seat_stderr", "read_games", "sections", "ladder_games", "WIN_KINDS", "REPORT_CSS"]

_LIST_STDERR = 1500  # characters of a forfeit's standard error in the game list (the replay keeps more)

WIN_KINDS = ("won on points", "won by elimination", "won by forfeit", "draw", "lost", "forfeited")


def _esc(x: object) -> str:
    """Escaped for HTML, with control characters made visible (bot names and reasons)."""
    return html.escape(visible(str(x)), quote=True)


def seat_stderr(blob: bytes, seats: Sequence[str]) -> list[str]:
    """Each seat's kept standard error from the store's blob (sections headed
    `== NAME ==` in seat order, empty ones left out). A header is only
    taken for a later seat than the current one, so a bot printing another
    bot's header can at worst move text between later seats."""
    text = zlib.decompress(blob).decode("utf-8", "replace") if blob else ""
    out = [""] * len(seats)
    current = -1
    lines: list[list[str]] = [[] for _ in seats]
    for line in text.split("\n"):
        nxt = next((j for j in range(current + 1, len(seats)) if line == f"== {seats[j]} =="), None)
        if nxt is not None:
            current = nxt
        elif current >= 0:
            lines[current].append(line)
    for j, ls in enumerate(lines):
        out[j] = "\n".join(ls)
    return out


def game_replay(rec: GameRecord, names: Sequence[str] | None = None) -> Replay:
    """The replay of one stored game: seat names (`names`, as people read
    them, or the stored ones), the kept standard error shown with a fault,
    each answer's think time and the opening's moves marked as the referee's."""
    shown = list(names) if names is not None else list(rec.seats)
    title = f"Game {rec.id}: " + " vs ".join(shown)
    return build_replay(rec.trace_lines(), shown, title=title, stderr=seat_stderr(rec.stderr, rec.seats),
                        times=rec.answer_times())


@dataclass
class GameFacts:
    """What the report needs of one game."""

    id: int
    seats: tuple[str, ...]
    result: Result
    kind: str  # points, elimination, draw, fault, aborted, cut (from the trace), or unread
    days: int
    moves: int
    fault_reason: str | None
    bought: list[list[tuple[int, str]]] = field(default_factory=list)  # per seat: (day, card) actually got
    replay: str | None = None  # the replay page, relative to the report
    stderr: str = ""  # the forfeiting bot's kept standard error (its end), shown in the list


def _facts(rec: GameRecord, replay: Replay | None) -> GameFacts:
    facts = GameFacts(rec.id or 0, tuple(rec.seats), rec.result, "unread", rec.days, rec.moves, rec.fault_reason,
                      [[] for _ in rec.seats])
    if replay is None or not replay.games:
        return facts
    game = replay.games[-1]
    facts.kind = game.result.get("kind", "cut")
    if game.steps:  # the day the game ended on, as its replay says (older stores counted completed days)
        facts.days = game.steps[-1]["D"]
        if game.steps[-1]["k"] == "fault":
            text = str(game.steps[-1].get("ev", {}).get("stderr", ""))
            facts.stderr = text if len(text) <= _LIST_STDERR else "\u2026" + text[-_LIST_STDERR:]
    names = [c["name"] for c in replay.cards]
    for step in game.steps:
        ev = step.get("ev")
        if step["k"] == "reveal" and ev and ev["type"] == "buy":
            for seat, card, got in ev["choices"]:
                if got and 0 <= seat < len(facts.bought):
                    facts.bought[seat].append((step["D"], names[card]))
    return facts


def read_games(store: Store, tournament_id: int | None, replay_dir: Path | None, link_prefix: str = "",
               progress: Callable[[int, int], None] | None = None) -> list[GameFacts]:
    """Every game of the selection as facts, writing its replay page into
    `replay_dir` when given (pages named game-ID.html, linked as
    link_prefix + name)."""
    from common.safefile import make_dirs
    from viewer.export import write_page

    records = store.games(tournament_id, with_blobs=True)
    out = []
    if replay_dir is not None:
        make_dirs(replay_dir)
    for k, rec in enumerate(records):
        try:
            replay = game_replay(rec) if rec.trace else None
        except TraceError:
            replay = None  # a damaged trace: the game still counts, without its replay
        facts = _facts(rec, replay)
        if replay is not None and replay_dir is not None:
            name = f"game-{rec.id}.html"
            write_page(replay, replay_dir / name)
            facts.replay = link_prefix + name
        out.append(facts)
        if progress is not None:
            progress(k + 1, len(records))
    return out


# ------------------------------------------------------------------ sections

_RESULT_TEXT = {"points": "won on points", "elimination": "won by elimination", "draw": "draw at the day limit",
                "fault": "forfeit", "aborted": "cut off", "cut": "unfinished trace", "unread": "no trace"}


def _result_text(f: GameFacts) -> str:
    r = f.result
    if r.fault_seat is not None:
        return f"{f.seats[r.fault_seat]} forfeited"
    if r.winner is not None:
        how = {"points": "on points", "elimination": "by elimination"}.get(f.kind, "")
        return f"{f.seats[r.winner]} won {how}".strip()
    return _RESULT_TEXT.get(f.kind, "draw") if f.kind in ("aborted", "cut") else "draw"


def _seat_key(f: GameFacts, seat: int) -> str:
    """One seat's result as the list's filter names it (a result chosen with a bot is that bot's)."""
    outcome = seat_outcome(f.result, seat)
    if outcome == "forfeit":
        return "fault"
    if outcome == "win":
        return f.kind if f.result.fault_seat is None and f.kind in ("points", "elimination") else "win"
    if outcome == "draw":
        return "aborted" if f.kind == "aborted" else "draw"
    return "loss"


def _block(text: str) -> str:
    """Bot text as a <pre>'s content: escaped, control characters visible, its lines kept."""
    return "\n".join(_esc(line) for line in text.split("\n"))


def _result_key(f: GameFacts) -> str:
    if f.result.fault_seat is not None:
        return "fault"
    if f.result.winner is None:
        return "aborted" if f.kind == "aborted" else "draw"
    return f.kind if f.kind in ("points", "elimination") else "win"


_LIST_SCRIPT = """
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll("#game-list tbody tr"));
  var bot = document.getElementById("f-bot"), vs = document.getElementById("f-vs"), res = document.getElementById("f-result"),
      lo = document.getElementById("f-min"), hi = document.getElementById("f-max"),
      count = document.getElementById("f-count");
  function matches(key, r) {
    return key === r || (r === "win" && /^(points|elimination|win)$/.test(key));
  }
  function apply() {
    var shown = 0, b = bot.value, o = vs.value, r = res.value, min = parseInt(lo.value, 10), max = parseInt(hi.value, 10);
    rows.forEach(function (tr) {
      var bots = JSON.parse(tr.getAttribute("data-bots")), keys = JSON.parse(tr.getAttribute("data-seat-results")),
          days = +tr.getAttribute("data-days");
      var mine = [];  // the chosen bot's own results (a bot met twice at one table: each seat)
      bots.forEach(function (name, i) { if (name === b) mine.push(keys[i]); });
      var rest = bots.slice();  // the opponents: every seat but one of the chosen bot's
      if (b && mine.length) rest.splice(bots.indexOf(b), 1);
      var ok = (!b || mine.length > 0) && (!o || rest.indexOf(o) >= 0) &&
        (!r || (b ? mine.some(function (k) { return matches(k, r); }) : matches(tr.getAttribute("data-result"), r))) &&
        (isNaN(min) || days >= min) && (isNaN(max) || days <= max);
      tr.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = shown + " of " + rows.length + " games shown" + (b && r ? " (the result is " + b + "'s)" : "");
  }
  [bot, vs, res, lo, hi].forEach(function (e) { e.addEventListener("input", apply); e.addEventListener("change", apply); });
  // A pairing or crosstable cell: the games of its two bots.
  Array.prototype.forEach.call(document.querySelectorAll("a.pair"), function (a) {
    a.addEventListener("click", function () {
      bot.value = a.getAttribute("data-bot"); vs.value = a.getAttribute("data-vs"); res.value = ""; lo.value = hi.value = "";
      apply();
    });
  });
  apply();
})();
"""


def game_list(facts: Sequence[GameFacts], db: str) -> str:
    """The filterable list of every game, each linked to its replay."""
    import orjson

    bots = sorted({s for f in facts for s in f.seats})
    options = "".join(f"<option value='{_esc(b)}'>{_esc(b)}</option>" for b in bots)
    rows = []
    for f in facts:
        seats = ", ".join(f"{i}: {s}" for i, s in enumerate(f.seats))
        if f.replay:
            link = f"<a class=replay href='{_esc(f.replay)}' data-game='{f.id}'>replay</a>"
        else:
            link = f"<code class=small>tournament replay {_esc(db)} {f.id}</code>"
        reason = f"<br><span class=small>{_esc(f.fault_reason)}</span>" if f.fault_reason else ""
        if f.stderr:
            reason += f"<details class=err><summary class=small>its standard error</summary><pre>{_block(f.stderr)}</pre></details>"
        keys = [_seat_key(f, i) for i in range(len(f.seats))]
        rows.append(
            f"<tr data-bots='{html.escape(orjson.dumps([visible(x) for x in f.seats]).decode(), quote=True)}'"
            f" data-seat-results='{orjson.dumps(keys).decode()}' data-result='{_result_key(f)}'"
            f" data-days='{f.days}' data-game='{f.id}'><td>{f.id}</td><td class=name>{_esc(seats)}</td>"
            f"<td class=name>{_esc(_result_text(f))}{reason}</td><td>{f.days}</td><td>{f.moves}</td><td>{link}</td></tr>"
        )
    return (
        "<div class=filters><label>bot <select id=f-bot><option value=''>any</option>" + options + "</select></label>"
        " <label>against <select id=f-vs><option value=''>anyone</option>" + options + "</select></label>"
        " <label>result <select id=f-result><option value=''>any</option><option value=win>a win</option>"
        "<option value=points>won on points</option><option value=elimination>won by elimination</option>"
        "<option value=draw>draw</option><option value=loss>a loss</option><option value=fault>forfeit</option>"
        "<option value=aborted>cut off</option>"
        "</select></label> <label>days from <input id=f-min type=number min=0 size=4></label>"
        " <label>to <input id=f-max type=number min=0 size=4></label> <span id=f-count class=small></span></div>"
        "<div class=scroll><table id=game-list><thead><tr><th>game</th><th class=name>seats</th>"
        "<th class=name>result</th><th>days</th><th>moves</th><th>replay</th></tr></thead><tbody>"
        + "".join(rows) + f"</tbody></table></div><script>{_LIST_SCRIPT}</script>"
    )


def length_section(facts: Sequence[GameFacts]) -> str:
    if not facts:
        return "<p>No games.</p>"
    longest = max(f.days for f in facts)
    width = max(1, math.ceil((longest + 1) / 25))
    buckets = list(range(0, longest + 1, width))
    labels = [str(b) if width == 1 else f"{b}-{b + width - 1}" for b in buckets]
    by_size: dict[str, list[int]] = {}
    for n in sorted({len(f.seats) for f in facts}):
        counts = Counter(f.days // width for f in facts if len(f.seats) == n)
        by_size[f"{n} players"] = [counts.get(i, 0) for i in range(len(buckets))]
    days = sorted(f.days for f in facts)
    median = days[len(days) // 2]
    return (bar_chart(labels, by_size, chart_id="lengths", title="Games by length",
                      x_label="the day the game ended on (as its replay counts)")
            + f"<p class=small>Median {median} days, shortest {days[0]}, longest {days[-1]}.</p>")


def how_bots_win(facts: Sequence[GameFacts]) -> tuple[list[str], dict[str, list[int]]]:
    """Per bot, its games split into WIN_KINDS (a bot met twice at one table counts each seat)."""
    table: dict[str, list[int]] = defaultdict(lambda: [0] * len(WIN_KINDS))
    for f in facts:
        for seat, name in enumerate(f.seats):
            outcome = seat_outcome(f.result, seat)
            if outcome == "win":
                kind = ("won by forfeit" if f.result.fault_seat is not None
                        else "won by elimination" if f.kind == "elimination" else "won on points")
            elif outcome == "draw":
                kind = "draw"
            else:
                kind = "lost" if outcome == "loss" else "forfeited"
            table[name][WIN_KINDS.index(kind)] += 1
    bots = sorted(table, key=lambda b: (-sum(table[b][:3]) / max(sum(table[b]), 1), b))
    return bots, dict(table)


def buy_profile(facts: Sequence[GameFacts]) -> str:
    """Per bot: the cards it bought by day (copies per game) and its win
    rate in the games where it bought each card."""
    by_bot: dict[str, list[tuple[GameFacts, int]]] = defaultdict(list)
    for f in facts:
        for seat, name in enumerate(f.seats):
            by_bot[name].append((f, seat))
    if not facts:
        return "<p>No games.</p>"
    longest = max(f.days for f in facts)
    width = max(1, math.ceil(longest / 12))
    cols = list(range(0, longest, width))
    heads = "".join(f"<th>{c + 1}</th>" if width == 1 else f"<th>{c + 1}-{c + width}</th>" for c in cols)
    parts = []
    for bot in sorted(by_bot):
        games = by_bot[bot]
        counts: dict[str, Counter[int]] = defaultdict(Counter)
        held: dict[str, list[float]] = defaultdict(list)
        for f, seat in games:
            score = _score(f.result, seat)
            for card in {c for _, c in f.bought[seat]}:
                held[card].append(score)
            for day, card in f.bought[seat]:
                counts[card][(day - 1) // width] += 1
        if not counts:
            parts.append(f"<details><summary>{_esc(bot)}: bought nothing in {len(games)} games</summary></details>")
            continue
        peak = max(v for c in counts.values() for v in c.values())
        rows = []
        for card in sorted(counts, key=lambda c: -sum(counts[c].values())):
            cells = "".join(
                f"<td style='background:rgba(42,98,201,{counts[card][i] / peak * 0.85:.2f})'"
                f" title='{counts[card][i]} bought'>{counts[card][i] / len(games):.2f}</td>"
                if counts[card][i] else "<td></td>" for i in range(len(cols)))
            scores = held[card]
            rate = sum(scores) / len(scores)
            rows.append(f"<tr><td class=name>{_esc(card)}</td>{cells}<td>{sum(counts[card].values()) / len(games):.2f}"
                        f"</td><td>{rate:.0%} <span class=small>({len(scores)})</span></td></tr>")
        parts.append(
            f"<details><summary>{_esc(bot)}: {len(games)} games</summary><div class=fit><table class=buys><tr><th class=name>card \\ day"
            f"</th>{heads}<th>per game</th><th>score when bought</th></tr>{''.join(rows)}</table></div></details>"
        )
    return ("<p class=small>Copies bought per game, by day of the game (columns); the last column is the bot's"
            " mean score (win 1, draw 1/2, by the standings' rules) in the games where it bought the card at least"
            " once, with that number of games. Click a bot to open its table.</p>" + "".join(parts))


def _score(result: Result, seat: int) -> float:
    outcome = seat_outcome(result, seat)
    if outcome == "win":
        return 1.0
    if outcome == "draw":
        winners = result.n_players - (1 if result.fault_seat is not None else 0)
        return 1.0 / winners
    return 0.0


def ratings_over_time(facts: Sequence[GameFacts], points: int = 24) -> str:
    """Elo of each bot refitted on the first k games, at up to `points` values of k."""
    from tournaments.stats.plackett_luce import ratings  # numpy: only where ratings are fitted (tournaments.standings)

    if len(facts) < 2:
        return "<p>Not enough games yet.</p>"
    results = [f.result for f in facts]
    names = sorted({s for r in results for s in r.seats})
    ks = sorted({max(1, round(len(results) * i / points)) for i in range(1, points + 1)})
    series: dict[str, list[float]] = {n: [] for n in names}
    for k in ks:
        rated = {r.name: r.elo for r in ratings(results[:k], names)}
        for n in names:
            v = rated.get(n, 0.0)
            series[n].append(max(-1500.0, min(1500.0, v if math.isfinite(v) else 0.0)))
    return line_chart(ks, series, chart_id="ladder-ratings", title="Ladder ratings as games were played",
                      x_label="games played", y_label="Elo")


def ladder_games(store: Store, facts: Sequence[GameFacts]) -> list[GameFacts]:
    """The facts of the games that belong to a ladder, in the order played."""
    from tournaments.ladder import LADDER_KIND

    ids = {g.id for t in store.tournaments() if t.kind == LADDER_KIND for g in store.games(t.id)}
    return [f for f in facts if f.id in ids]


def sections(facts: Sequence[GameFacts], db: str, ladder: Sequence[GameFacts] = ()) -> str:
    """The report's new sections, in reading order."""
    bots, table = how_bots_win(facts)
    out = [
        "<h2>How each bot wins</h2>",
        stacked_bars(bots, WIN_KINDS, table, chart_id="how-wins", title="Games by outcome, per bot")
        if bots else "<p>No games.</p>",
        "<h2>Game length</h2>", length_section(facts),
        "<h2>Buy profiles</h2>", buy_profile(facts),
    ]
    if ladder:
        out += ["<h2>Ladder ratings over time</h2>", ratings_over_time(ladder)]
    out += ["<h2 id=games>Games</h2>", game_list(facts, db)]
    return "".join(out)


REPORT_CSS = """
.chart{display:block;margin:.5em 0}.chart .ct{font-size:13px;font-weight:600}.chart .tk{font-size:11px;fill:#444}
.chart .in{font-size:10px;fill:#fff}.chart .ax{stroke:#999}
.legend{display:flex;flex-wrap:wrap;gap:.3em 1em;font-size:.85em;margin-bottom:1em}
.legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-.1em;border-radius:2px}
.filters{display:flex;flex-wrap:wrap;gap:.5em 1em;align-items:center;margin:.5em 0}
.filters select,.filters input{font:inherit}.filters input{width:5em}
.scroll{max-height:40em;overflow:auto}#game-list td{vertical-align:top}
details.err pre{max-height:12em;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;background:#1f2430;color:#eee;padding:.4em;font-size:.8em;text-align:left}
@media (max-width:600px){.filters input{width:3.5em}#game-list td.name{max-width:9em;overflow-wrap:anywhere}}
table.buys td{min-width:2.6em}details{margin:.3em 0}summary{cursor:pointer;font-weight:600}
a.replay{font-weight:600}
"""
