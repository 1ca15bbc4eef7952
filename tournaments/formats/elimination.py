"""Knockout tournaments: seeding, then the bracket round by round.

Seeding uses stored ratings when every entrant already has games against
the others in the database; otherwise one seeding round is played
(entrants placed at random, by --seed, around a circle; each run of
`players` neighbours is a table playing every seating) and ranked by a Plackett-Luce fit of
that round. The seeding is saved with the tournament, so a resumed run
rebuilds exactly the same bracket and plays only what is missing, and
the report rebuilds it from the database (`summary`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, cast

from tournaments import schedule
from tournaments.bracket import Bracket, Table, table_winner
from tournaments.entrants import Entrant
from tournaments.result import TournamentResult
from tournaments.runner import Context, GamePlan, make_plan, open_tournament, run
from tournaments.schedule import Seatings
from tournaments.standings import compute
from tournaments.store import GameRecord, Store, TournamentRow


def elimination(
    ctx: Context,
    entrants: Sequence[Entrant],
    *,
    players: int = 2,
    games: int = 1,
    seatings: Seatings = "all",
    seed: int = 0,
    echo: Callable[[str], None] = lambda _: None,
    openings: Any = "default",
) -> TournamentResult:
    schedule.check_field(len(entrants), 2)
    if players not in (2, 3, 4):
        raise ValueError(f"tables have 2, 3 or 4 players, not {players}")
    plan = make_plan(ctx, entrants, players, seed=seed, openings=openings)
    config = {
        "players": players,
        "seatings": seatings,
        "games": games,
        "options": ctx.options.to_json(),
        **plan.config(),
    }
    tid = open_tournament(ctx, "elimination", config, entrants)
    ctx.store.games(tid)  # a damaged row is reported now, before any game is played
    played_now = 0

    seeding, how = ctx.store.note(tid, "seeding") or (None, None)
    if seeding is None:
        seeding, how, n = _seed(ctx, tid, entrants, players, games, seatings, seed, plan)
        played_now += n
        ctx.store.set_note(tid, "seeding", [seeding, how])
    names = [entrants[p].name for p in seeding]  # names[seed - 1]
    echo(f"Seeding ({how}): " + ", ".join(f"[{i}] {n}" for i, n in enumerate(names, 1)))

    bracket = Bracket(len(entrants), players)
    while bracket.champion is None:
        tables = bracket.ready()
        specs = [spec for t in tables for spec in _table_games(t, seeding, games, seatings)]
        played_now += len(run(ctx, tid, entrants, specs, plan, total=len(specs), label=f"round {tables[0].round}"))
        _decide(bracket, tables, names, ctx.store.games(tid))
        echo(bracket.render(names))

    st = compute(ctx.store.games(tid), [e.name for e in entrants])
    details = _details(bracket, names, cast(str, how))  # set with the seeding, stored or just made
    details.update(openings=plan.openings.describe(), seed=seed)
    return TournamentResult("elimination", str(ctx.store.path), tid, list(entrants), st, played_now, details)


def summary(store: Store, row: TournamentRow, stored: Sequence[GameRecord]) -> dict[str, Any]:
    """The bracket as far as the stored games decide it (for the report)."""
    note = store.note(row.id, "seeding")
    if not note:
        return {"bracket_text": "(not seeded yet)", "champion": None}
    seeding, how = note
    names = [row.entrants[p][0] for p in seeding]
    players, games, seatings = row.config["players"], row.config["games"], row.config["seatings"]
    bracket = Bracket(len(row.entrants), players)
    while bracket.champion is None:
        tables = bracket.ready()
        done = {g.key for g in stored}
        complete = [t for t in tables if all(s.key in done for s in _table_games(t, seeding, games, seatings))]
        if not complete:
            break
        _decide(bracket, complete, names, stored)
    return _details(bracket, names, how)


def _table_games(t: Table, seeding: Sequence[int], games: int, seatings: Seatings) -> list[schedule.GameSpec]:
    return schedule.group_games(t.stage, [seeding[s - 1] for s in t.seeds], games, seatings)


def _decide(bracket: Bracket, tables: Sequence[Table], names: Sequence[str], stored: Sequence[GameRecord]) -> None:
    for t in tables:
        mine = [g.result for g in stored if g.key.split("/", 1)[0] == t.stage]
        winner, record = table_winner(t.seeds, names, mine)
        t.record = record
        bracket.decide(t, winner)


def _details(bracket: Bracket, names: Sequence[str], how: str) -> dict[str, Any]:
    return {
        "champion": names[bracket.champion - 1] if bracket.champion else None,
        "seeding": list(names),
        "seeding_from": how,
        "bracket": [
            [
                {
                    "table": t.stage,
                    "bots": [names[s - 1] for s in t.seeds],
                    "winner": names[t.winner - 1] if t.winner else None,
                    "record": {names[s - 1]: {"wins": w, "forfeits": f} for s, (w, f) in t.record.items()},
                }
                for t in rnd
            ]
            for rnd in bracket.rounds
        ],
        "bracket_text": bracket.render(names),
    }


def _seed(
    ctx: Context,
    tid: int,
    entrants: Sequence[Entrant],
    players: int,
    games: int,
    seatings: Seatings,
    seed: int,
    plan: GamePlan,
) -> tuple[list[int], str, int]:
    """Entrant positions best first, how they were found, games played for it."""
    from tournaments.stats.plackett_luce import ratings  # numpy: only where ratings are fitted (tournaments.standings)

    names = [e.name for e in entrants]
    if len(entrants) <= players:
        return list(range(len(entrants))), "entry order (one table)", 0
    known = list(ctx.store.iter_results(set(names)))
    seen = {s for r in known for s in r.seats}
    if all(n in seen for n in names):
        elo = {r.name: r.elo for r in ratings(known, names)}
        return sorted(range(len(names)), key=lambda p: (-round(elo[names[p]], 6), p)), "stored ratings", 0

    rng = random.Random(seed)
    circle = list(range(len(entrants)))
    rng.shuffle(circle)
    # Tables of `players` neighbours around a shuffled circle: every entrant
    # sits at exactly `players` tables, each table is full.
    n = len(circle)
    tables = [sorted(circle[(i + k) % n] for k in range(players)) for i in range(n)]
    specs = [s for t in tables for s in schedule.group_games("seeding", t, games, seatings)]
    new = run(ctx, tid, entrants, specs, plan, total=len(specs), label="seeding round")
    wanted = {s.key for s in specs}
    results = [g.result for g in ctx.store.games(tid) if g.key in wanted]
    elo = {r.name: r.elo for r in ratings(results, names)}
    tie = {p: i for i, p in enumerate(circle)}
    ranked = sorted(range(n), key=lambda p: (-round(elo[names[p]], 6), tie[p]))
    return ranked, "seeding round", len(new)
