"""`tournament sprt`: A against B in seat-swapped pairs until the SPRT decides.

Pair i is the game with A in seat 0 and the game with B in seat 0, from
the same opening; only complete pairs count. Games already stored (a
resumed test) count first; the test stops starting games once the
bounds are crossed, and finishes and stores the games still in flight,
which then count too. `summary` computes the same verdict from the
database for the report.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from tournaments.entrants import Entrant
from tournaments.result import TournamentResult
from tournaments.runner import Context, make_plan, open_tournament, run
from tournaments.schedule import GameSpec, game_key
from tournaments.standings import compute
from tournaments.stats import sprt as sprt_stats
from tournaments.stats.elo import finite_or_none, interval_text
from tournaments.stats.pairs import PairCounter, pentanomial
from tournaments.store import GameRecord, TournamentRow


def check_bounds(elo0: float, elo1: float, alpha: float, beta: float) -> None:
    """ValueError for a test that cannot decide: called before any bot
    starts (tournaments.api) as well as here."""
    if not elo0 < elo1:
        raise ValueError(f"--elo0 must be below --elo1 (got {elo0} and {elo1})")
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise ValueError("--alpha and --beta must be between 0 and 0.5")


def sprt(
    ctx: Context,
    a: Entrant,
    b: Entrant,
    *,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 20000,
    seed: int = 0,
    openings: Any = "default",
) -> TournamentResult:
    check_bounds(elo0, elo1, alpha, beta)
    plan = make_plan(ctx, [a, b], 2, seed=seed, openings=openings)
    config = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "options": ctx.options.to_json(),
              **plan.config()}
    tid = open_tournament(ctx, "sprt", config, [a, b])
    pairs = PairCounter(a.name, b.name)
    for rec in ctx.store.games(tid):
        pairs.add(rec)

    def now() -> sprt_stats.SprtState:
        return sprt_stats.state(pairs.penta, elo0, elo1, alpha, beta)

    def stop(rec: GameRecord) -> bool:
        pairs.add(rec)
        return now().decision is not None

    def status() -> str:
        st = now()
        return f"LLR {st.llr:.2f} [{st.lower:.2f}, {st.upper:.2f}], {st.pairs} pairs"

    def specs() -> Iterator[GameSpec]:
        for i in range(max_games // 2):
            yield GameSpec(game_key("sprt", (0, 1), i), (0, 1), i)
            yield GameSpec(game_key("sprt", (1, 0), i), (1, 0), i)

    new = [] if now().decision is not None else run(
        ctx, tid, [a, b], specs(), plan, total=max_games, stop=stop, label="sprt", status=status
    )
    games = ctx.store.games(tid)
    # Recount: the games still in flight at the decision were stored and count too.
    details = {"sprt": _verdict(games, a.name, b.name, config), "openings": plan.openings.describe(), "seed": seed}
    standings = compute(games, [a.name, b.name])
    return TournamentResult("sprt", str(ctx.store.path), tid, [a, b], standings, len(new), details)


def summary(row: TournamentRow, stored: Sequence[GameRecord]) -> dict[str, Any]:
    """The test's state from the database (for the report)."""
    (a, _), (b, _) = row.entrants
    return {"sprt": _verdict(stored, a, b, row.config)}


def _verdict(games: Sequence[GameRecord], a: str, b: str, config: dict[str, Any]) -> dict[str, Any]:
    penta, _ = pentanomial(games, a, b)
    elo0, elo1, alpha, beta = config["elo0"], config["elo1"], config["alpha"], config["beta"]
    st = sprt_stats.state(penta, elo0, elo1, alpha, beta)
    return {
        "a": a,
        "b": b,
        "elo0": elo0,
        "elo1": elo1,
        "alpha": alpha,
        "beta": beta,
        "pentanomial": list(st.penta),
        "pairs": st.pairs,
        "llr": round(st.llr, 4),
        "lower": round(st.lower, 4),
        "upper": round(st.upper, 4),
        "decision": st.decision,
        "elo": finite_or_none(st.elo),
        "elo_low": finite_or_none(st.elo_low),
        "elo_high": finite_or_none(st.elo_high),
        "elo_text": interval_text(st.elo, st.elo_low, st.elo_high),
    }


def render(details: dict[str, Any]) -> str:
    s = details["sprt"]
    verdict = {"H1": "H1 accepted (A is stronger by elo1)", "H0": "H0 accepted (not by elo1)"}.get(
        s["decision"], "undecided"
    )
    return (
        f"SPRT {s['a']} vs {s['b']}: elo0={s['elo0']} elo1={s['elo1']} alpha={s['alpha']} beta={s['beta']}\n"
        f"pairs {s['pairs']}  pentanomial [LL, LD, DD/WL, WD, WW] = {s['pentanomial']}\n"
        f"LLR {s['llr']:.3f}  bounds [{s['lower']:.3f}, {s['upper']:.3f}]  -> {verdict}\n"
        f"Elo A - B: {s['elo_text']} (95%)"
    )
