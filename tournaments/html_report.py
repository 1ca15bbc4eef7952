"""`tournament report`: one self-contained HTML page from a results database.

Inline CSS, inline SVG and one small inline script (the game list's
filters); nothing from the network, so the file can be mailed, archived
or opened offline. It renders the same Standings object as the terminal
table, with the same numbers and marks, and each tournament's own result
(the elimination's bracket and champion, the SPRT's decision and LLR,
the gauntlet's table) computed from the database by the format's own
code; the game sections (lengths, outcomes, buy profiles, the game list
linked to replays) come from tournaments.report_games.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Sequence
from pathlib import Path

import orjson

from tournaments.report_games import REPORT_CSS, ladder_games, read_games, sections
from tournaments.standings import SIGNIFICANT, Standings, compute, elo_text, percent, score_text
from tournaments.store import GameRecord, Store, TournamentRow

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:80em}
.fit,details{max-width:100%;overflow-x:auto}svg{max-width:100%;height:auto}a.pair{color:inherit;text-decoration:none;display:block}a.pair:hover{outline:2px solid #2a62c9}
@media (max-width:600px){body{margin:.6em}th,td{padding:.2em .35em}h1{font-size:1.3em}}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}
th,td{padding:.3em .6em;border:1px solid #ddd;text-align:right;font-variant-numeric:tabular-nums}
th{background:#f4f4f4}td.name,th.name{text-align:left}
td.cell{min-width:5.5em}td.ns{opacity:.55}td.self{background:#eee}
.small{font-size:.8em;color:#555;overflow-wrap:anywhere}
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
        rows.append(
            f"<tr><td>{i}</td><td class=name>{_esc(n)}</td><td>{r.games}</td><td>{r.wins}</td>"
            f"<td>{r.draws}</td><td>{r.losses}</td><td>{r.forfeits}</td>"
            f"<td>{_esc(st.rating_text(n))}</td></tr>"
        )
    return (
        "<table id=standings><tr><th>#</th><th class=name>bot</th><th>games</th><th>wins</th>"
        "<th>draws</th><th>losses</th><th>forfeits</th><th>Elo [95% interval]</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def _pair_link(a: str, b: str, text: str, linked: bool) -> str:
    """A cell's text, linked to the game list showing the games of a against b (when the report lists games)."""
    if not linked:
        return text
    return f"<a class=pair href='#games' data-bot='{_esc(a)}' data-vs='{_esc(b)}' title='the games of {_esc(a)} against {_esc(b)}'>{text}</a>"


def pairings_table(st: Standings, linked: bool = False) -> str:
    """One row per pair of bots that met: the terminal's pairings table;
    `linked`: each row's games count opens their list."""
    rows = []
    for a, b, c in st.pairings():
        rows.append(
            f"<tr><td class=name>{_esc(a)}</td><td class=name>{_esc(b)}</td><td>{_pair_link(a, b, str(c.games), linked)}</td>"
            f"<td>{c.wins}-{c.draws}-{c.losses}</td><td>{score_text(c)} [{c.low:.2f}, {c.high:.2f}]</td>"
            f"<td>{_esc(c.elo_text())}</td><td>{percent(c.los)}</td><td>{percent(c.draw_ratio)}</td>"
            f"<td>{' '.join(map(str, c.penta))}</td><td>{c.distinct}</td></tr>"
        )
    if not rows:
        return "<p>No pairings.</p>"
    return (
        "<table id=pairings><tr><th class=name>bot</th><th class=name>opponent</th><th>games</th><th>W-D-L</th>"
        "<th>score [95%]</th><th>Elo diff [95%]</th><th>LOS</th><th>draws</th>"
        "<th>pentanomial</th><th>distinct games</th></tr>" + "".join(rows) + "</table>"
        f"<p class=small>The first bot's view. {SIGNIFICANT} marks a result whose 95% Wilson interval excludes"
        " an even score; the Elo difference is the score's on the logistic scale (&gt; X: a perfect score only"
        " bounds it from below). LOS: likelihood of superiority from wins and losses. Pentanomial: the"
        " seat-swapped pairs of games from one opening, scored LL, LD, DD/WL, WD, WW. Distinct games: games"
        " with different traces.</p>"
    )


def crosstable_table(st: Standings, linked: bool = False) -> str:
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
                cells.append(
                    f"<td class='{cls}' style='background:{_heat(c.mean)}' title='{_esc(title)}'>"
                    + _pair_link(a, b, f"{score_text(c)}<br><span class=small>[{c.low:.2f}, {c.high:.2f}]</span>", linked)
                    + "</td>"
                )
        rows.append(f"<tr><th class=name>{_esc(a)}</th>{''.join(cells)}</tr>")
    return (
        f"<table id=crosstable><tr><th class=name>row vs column</th>{head}</tr>{''.join(rows)}</table>"
        "<p class=small>Mean score of the row bot against the column bot (win 1, draw 0.5) with its"
        f" 95% Wilson interval; {SIGNIFICANT} marks results that are statistically significant"
        " (the interval excludes 0.5), the others are faded.</p>"
    )


def rating_chart(st: Standings) -> str:
    """Horizontal error bars for each bot's Elo interval, as inline SVG."""
    if not st.names:
        return ""
    finite = [x for n in st.names for x in (st.ratings[n].low, st.ratings[n].elo, st.ratings[n].high)
              if math.isfinite(x)]
    lo, hi = min(finite + [0.0]), max(finite + [0.0])
    span = (hi - lo) or 1.0
    label_w, plot_w, row_h = 180, 520, 26
    height = row_h * len(st.names) + 30

    def x(v: float) -> float:
        return label_w + 10 + (v - lo) / span * plot_w

    parts = [
        f"<svg id=ratings xmlns='http://www.w3.org/2000/svg' width='{label_w + plot_w + 40}' "
        f"height='{height}' viewBox='0 0 {label_w + plot_w + 40} {height}' role='img' aria-label='Elo ratings with 95% intervals'>",
        f"<line x1='{x(0):.1f}' y1='0' x2='{x(0):.1f}' y2='{height - 20}' stroke='#aaa' stroke-dasharray='3,3'/>",
    ]
    for i, n in enumerate(st.names):
        g = st.ratings[n]
        y = 15 + i * row_h
        parts.append(f"<text x='0' y='{y + 4}' font-size='12'>{_esc(n[:28])}</text>")
        # An open side (a perfect score) runs to the chart's edge, dashed.
        left, right = max(g.low, lo), min(g.high, hi)
        dash = " stroke-dasharray='4,3'" if not (math.isfinite(g.low) and math.isfinite(g.high)) else ""
        parts.append(
            f"<line x1='{x(left):.1f}' y1='{y}' x2='{x(right):.1f}' y2='{y}' stroke='#357' stroke-width='2'{dash}/>"
        )
        parts.append(f"<circle cx='{x(g.elo):.1f}' cy='{y}' r='4' fill='#c33'><title>{_esc(n)}: "
                     f"{_esc(st.rating_text(n))}</title></circle>")
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


def render(st: Standings, title: str, subtitle: Sequence[str] = (), results: Sequence[str] = (),
           extra: str = "") -> str:
    sizes = ", ".join(f"{p}-player" for p in st.players) or "no games"
    model = (
        "Elo from a Bradley-Terry fit of all games"
        if st.players == (2,)
        else "Elo-scale Plackett-Luce fit of all games (tables of " + sizes + ")"
    )
    sub = "".join(f"<p class=small>{_esc(s)}</p>" for s in subtitle)
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)}</title><style>{_CSS}{REPORT_CSS}</style></head><body>"
        f"<h1>{_esc(title)}</h1>{sub}"
        f"<p>{st.games} games ({_esc(sizes)}).{' <a href=#games>The games, each with its replay.</a>' if extra else ''}</p>"
        + "".join(results)
        + f"<h2>Standings</h2><div class=fit>{standings_table(st)}</div>"
        f"<h2>Ratings</h2><p class=small>{_esc(model)}, 95% intervals (Laplace approximation under a weak"
        " prior; an open side, dashed, where a perfect score bounds a rating from one side only).</p>"
        f"{rating_chart(st)}"
        f"<h2>Pairings</h2><div class=fit>{pairings_table(st, bool(extra))}</div>"
        f"<h2>Crosstable</h2><div class=fit>{crosstable_table(st, bool(extra))}</div>"
        f"<h2>Forfeits</h2><div class=fit>{forfeit_table(st)}</div>"
        f"{extra}</body></html>\n"
    )


def format_result(store: Store, row: TournamentRow, games: Sequence[GameRecord], st: Standings) -> str:
    """The tournament's own result, as its format computes it from the database."""
    head = f"<h2>Tournament {row.id}: {_esc(row.kind)}</h2>"
    if row.kind == "elimination":
        from tournaments.formats.elimination import summary

        d = summary(store, row, games)
        champion = d["champion"] or "not decided yet"
        return (head + f"<p id=champion>Champion: <b>{_esc(champion)}</b></p>"
                f"<pre id=bracket>{_esc(d['bracket_text'])}</pre>")
    if row.kind == "sprt":
        from tournaments.formats.sprt import render as render_sprt
        from tournaments.formats.sprt import summary as sprt_summary

        return head + f"<pre id=sprt>{_esc(render_sprt(sprt_summary(row, games)))}</pre>"
    if row.kind == "gauntlet" and row.entrants:
        challenger = row.entrants[0][0]
        cells = [(b, st.cells.get((challenger, b))) for b, _ in row.entrants[1:]]
        rows = "".join(
            f"<tr><td class=name>{_esc(b)}</td><td>{c.games}</td><td>{c.wins}-{c.draws}-{c.losses}</td>"
            f"<td>{score_text(c)} [{c.low:.2f}, {c.high:.2f}]</td><td>{_esc(c.elo_text())}</td></tr>"
            for b, c in cells if c is not None and c.games
        )
        return (head + f"<p>{_esc(challenger)} against each bot of the field:</p><table id=gauntlet>"
                "<tr><th class=name>opponent</th><th>games</th><th>W-D-L</th><th>score [95%]</th>"
                f"<th>Elo diff [95%]</th></tr>{rows}</table>")
    return ""


def report(store: Store, tournament_id: int | None = None, *, replay_dir: Path | None = None,
           link_prefix: str = "") -> str:
    """The HTML page for one tournament of the database, or for all its games;
    with `replay_dir`, every game's replay page is written there and linked
    as `link_prefix` + its name (see tournaments.report_games)."""
    rows: list[TournamentRow] = store.tournaments()
    if tournament_id is not None and tournament_id not in {t.id for t in rows}:
        raise ValueError(f"{store.path} has no tournament {tournament_id}")
    games = store.games(tournament_id)
    st = compute(games)
    chosen = [t for t in rows if tournament_id is None or t.id == tournament_id]
    subtitle = [f"Database {store.path}, generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}."]
    subtitle += [
        f"Tournament {t.id}: {t.kind}, {len(t.entrants)} bots, options "
        + orjson.dumps(t.config.get("options", {}), option=orjson.OPT_SORT_KEYS).decode()
        + (f", seed {t.config['seed']}" if t.config.get("seed") is not None else "")
        for t in chosen
    ]
    results = []
    for t in chosen:
        own = games if tournament_id is not None else store.games(t.id)
        own_st = st if tournament_id is not None else compute(own)
        results.append(format_result(store, t, own, own_st))
    title = "Economancy results" if tournament_id is None else f"Economancy {chosen[0].kind}"
    facts = read_games(store, tournament_id, replay_dir, link_prefix)
    return render(st, title, subtitle, results, sections(facts, str(store.path), ladder_games(store, facts)))
