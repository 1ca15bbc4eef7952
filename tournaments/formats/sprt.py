"""`tournament sprt`: A against B in seat-swapped pairs until the SPRT decides.

Pair i is the game with A in seat 0 and the game with B in seat 0; only
complete pairs count. Games already stored (a resumed test) count first;
the test stops starting games once the bounds are crossed, and finishes
and stores the games still in flight, which then count too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tournaments.entrants import Entrant
from tournaments.outcomes import pair_score
from tournaments.result import TournamentResult
from tournaments.runner import Context, run
from tournaments.schedule import GameSpec, game_key
from tournaments.standings import compute
from tournaments.stats import sprt as sprt_stats
from tournaments.store import GameRecord


class _Pairs:
    """Pentanomial counts from games as they arrive, in any order."""

    def __init__(self) -> None:
        self.halves: dict[int, float] = {}
        self.penta = [0, 0, 0, 0, 0]

    def add(self, rec: GameRecord) -> None:
        if not rec.key.startswith("sprt/"):
            return
        _, seats, index = rec.key.split("/")
        a_seat = 0 if seats == "0.1" else 1
        score = pair_score(rec.result, a_seat, 1 - a_seat)
        i = int(index)
        if i in self.halves:
            self.penta[int(round((self.halves.pop(i) + score) * 2))] += 1
        else:
            self.halves[i] = score


def _count(games: Iterable[GameRecord]) -> _Pairs:
    pairs = _Pairs()
    for rec in games:
        pairs.add(rec)
    return pairs


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
    bootstrap: int = 0,
) -> TournamentResult:
    if not elo0 < elo1:
        raise ValueError(f"--elo0 must be below --elo1 (got {elo0} and {elo1})")
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise ValueError("--alpha and --beta must be between 0 and 0.5")
    config = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "options": ctx.options.to_json()}
    tid = ctx.store.tournament("sprt", config, [a.identity, b.identity])
    pairs = _count(ctx.store.games(tid))

    def decided() -> bool:
        return sprt_stats.state(pairs.penta, elo0, elo1, alpha, beta).decision is not None

    def stop(rec: GameRecord) -> bool:
        pairs.add(rec)
        return decided()

    def specs() -> Iterator[GameSpec]:
        for i in range(max_games // 2):
            yield GameSpec(game_key("sprt", (0, 1), i), (0, 1))
            yield GameSpec(game_key("sprt", (1, 0), i), (1, 0))

    new = [] if decided() else run(ctx, tid, [a, b], specs(), total=max_games, stop=stop, label="sprt")
    games = ctx.store.games(tid)
    # Recount: the games still in flight at the decision were stored and count too.
    st = sprt_stats.state(_count(games).penta, elo0, elo1, alpha, beta)
    standings = compute([(g.result, g.fault_reason) for g in games], [a.name, b.name], bootstrap=bootstrap)
    details = {
        "sprt": {
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
            "elo": st.elo,
            "elo_low": st.elo_low,
            "elo_high": st.elo_high,
        }
    }
    return TournamentResult("sprt", str(ctx.store.path), tid, [a, b], standings, len(new), details)


def render(details: dict) -> str:
    s = details["sprt"]
    verdict = {"H1": "H1 accepted (A is stronger by elo1)", "H0": "H0 accepted (not by elo1)"}.get(
        s["decision"], "undecided (limit reached)"
    )
    return (
        f"SPRT elo0={s['elo0']} elo1={s['elo1']} alpha={s['alpha']} beta={s['beta']}\n"
        f"pairs {s['pairs']}  pentanomial [LL, LD, DD/WL, WD, WW] = {s['pentanomial']}\n"
        f"LLR {s['llr']:.3f}  bounds [{s['lower']:.3f}, {s['upper']:.3f}]  -> {verdict}\n"
        f"Elo A - B: {s['elo']:.1f} [{s['elo_low']:.1f}, {s['elo_high']:.1f}] (95%)"
    )
