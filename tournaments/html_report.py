"""`tournament report`: one self-contained HTML page from a results database.

Inline CSS, inline SVG and one small inline script (the game list's
filters); nothing from the network, so the file can be mailed, archived
or opened offline. It renders the same Standings object as the terminal
table; the game sections (lengths, outcomes, buy profiles, the game list
linked to replays) come from tournaments.report_games.
"""

from __future__ import annotations

import html
import time
from collections.abc import Sequence
from pathlib import Path

import orjson

from tournaments.report_games import REPORT_CSS, ladder_games, read_games, sections
from tournaments.standings import Standings, compute, elo_text
from tournaments.store import Store, TournamentRow

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:80em}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}
th,td{padding:.3em .6em;border:1px solid #ddd;text-align:right;font-variant-numeric:tabular-nums}
th{background:#f4f4f4}td.name,th.name{text-align:left}
td.cell{min-width:5.5em}td.ns{opacity:.55}td.self{background:#eee}
.small{font-size:.8em;color:#555}
"""


def _esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def _heat(mean: float) -> str:
    """Red (0) through white (0.5) to green (1)."""
    t = max(0.0, min(1.0, mean))
    if t >= 0.5:
        k = (t - 0.5) * 2
        r, g, b = int(255 - 155 * k), int(255 - 55 * k), int(255 - 155 * k)
    else:
        k = (0.5 - t) * 2
        r, g, b = int(255 - 25 * k), int(255 - 155 * k), int(255 - 155 * k)
    return f"#{r:02x}{g:02x}{b:02x}"


def standings_table(st: Standings) -> str:
    rows = []
    for i, n in enumerate(st.names, 1):
        r = st.records[n]
        g = st.ratings[n]
        rows.append(
            f"<tr><td>{i}</td><td class=name>{_esc(n)}</td><td>{r.games}</td><td>{r.wins}</td>"
            f"<td>{r.draws}</td><td>{r.losses}</td><td>{r.forfeits}</td>"
            f"<td>{elo_text(g.elo)}</td><td>[{elo_text(g.low)}, {elo_text(g.high)}]</td></tr>"
        )
    return (
        "<table id=standings><tr><th>#</th><th class=name>bot</th><th>games</th><th>wins</th>"
        "<th>draws</th><th>losses</th><th>forfeits</th><th>Elo</th><th>95% interval</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def crosstable_table(st: Standings) -> str:
    head = "".join(f"<th>{_esc(n)}</th>" for n in st.names)
    rows = []
    for a in st.names:
        cells = []
        for b in st.names:
            c = st.cells.get((a, b))
            if a == b:
                cells.append("<td class='cell self'></td>")
            elif c is None or not c.games:
                cells.append("<td class=cell>&ndash;</td>")
            else:
                cls = "cell" if c.significant else "cell ns"
                title = f"{a} vs {b}: {c.score:g}/{c.games}, 95% [{c.low:.2f}, {c.high:.2f}]"
                mark = "" if c.significant else "&#8224;"
                cells.append(
                    f"<td class='{cls}' style='background:{_heat(c.mean)}' title='{_esc(title)}'>"
                    f"{c.mean:.2f}{mark}<br><span class=small>[{c.low:.2f}, {c.high:.2f}]</span></td>"
                )
        rows.append(f"<tr><th class=name>{_esc(a)}</th>{''.join(cells)}</tr>")
    return (
        f"<table id=crosstable><tr><th class=name>row vs column</th>{head}</tr>{''.join(rows)}</table>"
        "<p class=small>Mean score of the row bot against the column bot (win 1, draw 0.5) with its"
        " 95% Wilson interval; &#8224; marks results that are not statistically significant"
        " (the interval contains 0.5).</p>"
    )


def rating_chart(st: Standings) -> str:
    """Horizontal error bars for each bot's Elo interval, as inline SVG."""
    if not st.names:
        return ""
    lows = [st.ratings[n].low for n in st.names]
    highs = [st.ratings[n].high for n in st.names]
    lo, hi = min(lows + [0.0]), max(highs + [0.0])
    span = (hi - lo) or 1.0
    label_w, plot_w, row_h = 180, 520, 26
    height = row_h * len(st.names) + 30

    def x(v: float) -> float:
        return label_w + 10 + (v - lo) / span * plot_w

    parts = [
        f"<svg id=ratings xmlns='http://www.w3.org/2000/svg' width='{label_w + plot_w + 40}' "
        f"height='{height}' role='img' aria-label='Elo ratings with 95% intervals'>",
        f"<line x1='{x(0):.1f}' y1='0' x2='{x(0):.1f}' y2='{height - 20}' stroke='#aaa' stroke-dasharray='3,3'/>",
    ]
    for i, n in enumerate(st.names):
        g = st.ratings[n]
        y = 15 + i * row_h
        parts.append(f"<text x='0' y='{y + 4}' font-size='12'>{_esc(n[:28])}</text>")
        parts.append(
            f"<line x1='{x(g.low):.1f}' y1='{y}' x2='{x(g.high):.1f}' y2='{y}' stroke='#357' stroke-width='2'/>"
        )
        parts.append(f"<circle cx='{x(g.elo):.1f}' cy='{y}' r='4' fill='#c33'><title>{_esc(n)}: "
                     f"{elo_text(g.elo)} [{elo_text(g.low)}, {elo_text(g.high)}]</title></circle>")
    parts.append(
        f"<text x='{x(lo):.1f}' y='{height - 5}' font-size='11'>{elo_text(lo)}</text>"
        f"<text x='{x(hi) - 30:.1f}' y='{height - 5}' font-size='11'>{elo_text(hi)}</text>"
        f"<text x='{x(0) - 3:.1f}' y='{height - 5}' font-size='11'>0</text></svg>"
    )
    return "".join(parts)


def forfeit_table(st: Standings) -> str:
    rows = [
        f"<tr><td class=name>{_esc(n)}</td><td class=name>{_esc(reason)}</td><td>{k}</td></tr>"
        for n, reasons in st.forfeit_reasons.items()
        for reason, k in reasons.most_common()
    ]
    if not rows:
        return "<p>No forfeits.</p>"
    return (
        "<table id=forfeits><tr><th class=name>bot</th><th class=name>reason</th><th>games</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def render(st: Standings, title: str, subtitle: Sequence[str] = (), extra: str = "") -> str:
    sizes = ", ".join(f"{p}-player" for p in st.players) or "no games"
    model = (
        "Elo from a Bradley-Terry fit of all games"
        if st.players == (2,)
        else "Elo-scale Plackett-Luce fit of all games (tables of " + sizes + ")"
    )
    sub = "".join(f"<p class=small>{_esc(s)}</p>" for s in subtitle)
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>{_esc(title)}</title><style>{_CSS}{REPORT_CSS}</style></head><body>"
        f"<h1>{_esc(title)}</h1>{sub}"
        f"<p>{st.games} games ({_esc(sizes)}).{' <a href=#games>The games, each with its replay.</a>' if extra else ''}</p>"
        f"<h2>Standings</h2>{standings_table(st)}"
        f"<h2>Ratings</h2><p class=small>{_esc(model)}, 95% bootstrap intervals.</p>{rating_chart(st)}"
        f"<h2>Crosstable</h2>{crosstable_table(st)}"
        f"<h2>Forfeits</h2>{forfeit_table(st)}"
        f"{extra}</body></html>\n"
    )


def report(store: Store, tournament_id: int | None = None, *, bootstrap: int = 200,
           replay_dir: Path | None = None, link_prefix: str = "") -> str:
    """The HTML page for one tournament of the database, or for all its games;
    with `replay_dir`, every game's replay page is written there and linked
    as `link_prefix` + its name (see tournaments.report_games)."""
    rows: list[TournamentRow] = store.tournaments()
    if tournament_id is not None and tournament_id not in {t.id for t in rows}:
        raise ValueError(f"{store.path} has no tournament {tournament_id}")
    games = store.games(tournament_id)
    st = compute([(g.result, g.fault_reason) for g in games], bootstrap=bootstrap)
    chosen = [t for t in rows if tournament_id is None or t.id == tournament_id]
    subtitle = [f"Database {store.path}, generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}."]
    subtitle += [
        f"Tournament {t.id}: {t.kind}, {len(t.entrants)} bots, options "
        + orjson.dumps(t.config.get("options", {}), option=orjson.OPT_SORT_KEYS).decode()
        for t in chosen
    ]
    title = "Economancy results" if tournament_id is None else f"Economancy {chosen[0].kind}"
    facts = read_games(store, tournament_id, replay_dir, link_prefix)
    return render(st, title, subtitle, sections(facts, str(store.path), ladder_games(store, facts)))


