"""The search bots' strength protocol, through the real tournament harness.

    python bench/strength.py [--db-dir DIR] [--games N] [--distinct N] [--only NAME ...] [--list] [--summary]
                             [-j N] [--champion "champion --time 0.1 --wall-limit 120 ..."]

Each pairing is a `tournament round-robin` (real bot processes, the real
referee, seats swapped or rotated) stored in its own database under
`--db-dir` (default `strength/`), so an interrupted run resumes where it
stopped and `--games` can be raised later. The table printed at the end
gives the search bot's wins with their 95% Wilson interval for every
pairing that has games; `--summary` prints it without playing.

Games against a deterministic bot (`expert`) are far from independent:
the search bot's only variety is its seeded tie-breaks and the clock, so
the interval overstates what those games say about other positions.

The champion's pairings (`champion-...`) are played in-process instead
(`exploit.matches`: the same decide() functions, games appended to
`DIR/NAME.jsonl` as they end, resumable, each with the load average),
until the harness plays openings: either from the real start with a
fresh seed for every bot in every game (`start`), or from openings,
each from every seat (`openings`): the harness's balanced suite for the
set and table size (tournaments/suites) where it exists, else 4 random
plies drawn for each opening. Their rows
give the distinct games and the range of the load average beside the
win rate; `--distinct N` plays on past `--games` until a row holds N
distinct games (the issue's goals count distinct games, and a suite's
openings come round again). `--champion TEXT` plays another command (a budget, an option
of the champion's) where the champion's pairings play CHAMPION, to
compare variants on the same openings: give each its own `--db-dir`.
`busy` pairings are meant to be run with both cores loaded
(two `sh -c 'while :; do :; done'` loops); nothing checks that they are.
"""

from __future__ import annotations

import argparse
import signal
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from exploit.matches import MOST_PER_DISTINCT, Match, play_until_distinct, records, tally, unplayable  # noqa: E402
from tournaments import PlayOptions, Store, round_robin  # noqa: E402
from tournaments.make_suites import SUITES  # noqa: E402
from tournaments.openings import suite_name  # noqa: E402
from tournaments.schedule import Seatings  # noqa: E402
from tournaments.stats.crosstable import wilson  # noqa: E402


@dataclass(frozen=True)
class Pairing:
    name: str
    bots: tuple[str, ...]  # the bot measured first
    base: bool = False
    players: int = 2
    concurrency: int = 2  # 1 when two searchers share a game

    @property
    def seatings(self) -> int:
        """Both seatings for 2 players; a Latin square (one seating per
        seat) for more, where all 24 permutations would be wasteful."""
        return 2 if self.players == 2 else self.players


STRONGEST = "alphabeta"
"""Our strongest bot, the one measured against decent-repro: alpha-beta
beat MCTS in the head-to-head pairing `mcts-alphabeta-simple`."""


def _pairings() -> list[Pairing]:
    pairings = []
    for bot in ("mcts", "alphabeta"):
        for opponent in ("expert", "random"):
            for base in (False, True):
                name = f"{bot}-{opponent}-{'base' if base else 'simple'}"
                pairings.append(Pairing(name, (f"{bot} --time 0.5", opponent), base))
    pairings += [
        Pairing(f"{STRONGEST}-decent-simple", (f"{STRONGEST} --time 0.5", "decent-repro")),
        Pairing(f"{STRONGEST}-decent-base", (f"{STRONGEST} --time 0.5", "decent-repro"), base=True),
        Pairing("mcts-vs-3-expert", ("mcts --time 0.5", "expert", "expert", "expert"), players=4),
        Pairing("alphabeta-vs-3-expert", ("alphabeta --time 0.5", "expert", "expert", "expert"), players=4),
        Pairing("mcts-alphabeta-simple", ("mcts --time 0.5", "alphabeta --time 0.5"), concurrency=1),
    ]
    pairings += [Pairing(f"mcts-{t}s-evolved", (f"mcts --time {t}", "evolved")) for t in ("0.1", "0.5", "2")]
    return pairings


PAIRINGS = _pairings()

CHAMPION = "champion --time 0.5 --wall-limit 120"
"""The champion's CPU budget, its wall-clock cap lifted: in-process games
have no referee to time a move out, and on a busy machine (a load of 12
on 2 cores) the default 5 s cap cut 0.5 s of CPU short and 2 s to a
fraction, so the time pairings measured the load, not the budget."""
FIXED = "expert"
"""The fixed opponent of the time and load pairings: rules, so its
strength does not depend on the clock or the machine, cheap, and the
opponent the champion's other rows are measured against (its 0.5 s,
idle-machine point is `champion-expert-simple-openings`). An MCTS at a
fixed iteration count was the first choice; its games cost several
times more for the same information."""


def _openings(base: bool, players: int) -> dict[str, Any]:
    """The tournament harness's balanced opening suite for the set and table
    size (tournaments/suites) where it exists, else 4 random plies per game."""
    suite = SUITES / suite_name(players, base)
    return {"suite": str(suite)} if suite.exists() else {"plies": 4}


def _champion_matches() -> dict[str, Match]:
    matches: dict[str, Match] = {}
    # The search opponents count their time in CPU too (--cpu), as the
    # champion does: on the wall clock a busy machine weakens them only.
    # attack-repro (the original's play_attack: two Ghosts, then attack
    # whenever a card beats every defender) stands for the Ghost rush that
    # beat the champion from outside the project.
    opponents = ("random", "expert", "decent-repro", "attack-repro", "evolved", "mcts --time 0.5 --cpu", "alphabeta --time 0.5 --cpu",
                 "mcts-v1 --time 0.5 --cpu", "alphabeta-v1 --time 0.5 --cpu", "champion-v1 --time 0.5 --wall-limit 120")
    for opponent in opponents:
        short = opponent.split()[0]
        for base in (False, True):
            tag = "base" if base else "simple"
            matches[f"champion-{short}-{tag}-start"] = Match(CHAMPION, opponent, base=base, plies=0)
            matches[f"champion-{short}-{tag}-openings"] = Match(CHAMPION, opponent, base=base, **_openings(base, 2))
    matches["champion-vs-3-expert-start"] = Match(CHAMPION, "expert", players=4, plies=0)
    matches["champion-vs-3-expert-openings"] = Match(CHAMPION, "expert", players=4, **_openings(False, 4))
    for seconds in ("0.1", "2"):  # 0.5 s: champion-expert-simple-openings
        matches[f"champion-{seconds}s-fixed"] = Match(f"champion --time {seconds} --wall-limit 120", FIXED, **_openings(False, 2))
    # Strength rises with time, head to head (issue 22: 2 s beats 0.5 s, 0.5 s beats 0.1 s).
    matches["champion-2s-vs-0.5s"] = Match("champion --time 2 --wall-limit 120", CHAMPION, **_openings(False, 2))
    matches["champion-0.5s-vs-0.1s"] = Match(CHAMPION, "champion --time 0.1 --wall-limit 120", **_openings(False, 2))
    matches["champion-0.5s-fixed-busy"] = Match(CHAMPION, FIXED, **_openings(False, 2))
    # The C core's MCTS on the same CPU budget against the alpha-beta
    # champion (at 0.1 s: 9.5/16, in-process, suite openings), which made
    # MCTS the champion's search.
    for base in (False, True):
        tag = "base" if base else "simple"
        matches[f"mcts-cpu-vs-champion-{tag}-openings"] = Match(
            "mcts --time 0.5 --cpu", "champion --search alphabeta --time 0.5 --wall-limit 120", base=base,
            **_openings(base, 2))
    matches["alphabeta-0.5s-fixed"] = Match("alphabeta --time 0.5", FIXED, **_openings(False, 2))
    matches["alphabeta-0.5s-fixed-busy"] = Match("alphabeta --time 0.5", FIXED, **_openings(False, 2))
    return matches


CHAMPION_MATCHES = _champion_matches()
"""The champion's goals (issues 16 and 22), in-process: name -> match. The
`*-v1` opponents are the search bots before the C core (their Python
searches), the versions issue 22's goals name."""


def champion_matches(champion: str) -> dict[str, Match]:
    """CHAMPION_MATCHES with `champion` wherever they play CHAMPION."""
    if champion == CHAMPION:
        return CHAMPION_MATCHES
    return {name: replace(m, bot=champion if m.bot == CHAMPION else m.bot,
                          opponent=champion if m.opponent == CHAMPION else m.opponent)
            for name, m in CHAMPION_MATCHES.items()}


def champion_summary(db_dir: Path, names: list[str]) -> None:
    print(f"{'pairing':34s} {'score':>13s}  {'rate':>6s}  95% interval    wins draws  distinct  load (1 min)")
    for name in names:
        path = db_dir / f"{name}.jsonl"
        games = records(path)
        if not games:
            continue
        result = tally(path)
        low, high = result.interval
        loads = sorted(float(g["load"].split()[0]) for g in games if g.get("load", "unknown") != "unknown")
        load = f"{loads[0]:.1f}-{loads[-1]:.1f}" if loads else "?"
        print(f"{name:34s} {result.score:>6g} / {result.games:<5d} {100 * result.rate:5.1f}%  "
              f"[{100 * low:4.1f}, {100 * high:5.1f}]  {result.wins:4d} {result.draws:5d}  {result.distinct_games:8d}  {load}")


def play(pairing: Pairing, db: Path, games: int) -> None:
    """Play (or resume) one pairing, at least `games` games in all."""
    seatings: Seatings = "latin" if pairing.players > 2 else "all"
    per_seating = -(-games // pairing.seatings)
    round_robin(
        list(pairing.bots), players=pairing.players, games=per_seating, seatings=seatings, db=db,
        options=PlayOptions(base=pairing.base), concurrency=pairing.concurrency, progress=True,
    )


def wins(db: Path) -> tuple[int, int, int]:
    """The measured bot's wins, the games, and the games without a winner,
    over every game in `db` (the bot entered first)."""
    with Store.open(db) as store:
        rows = store.tournaments()
        if not rows:
            return 0, 0, 0
        measured = rows[0].entrants[0][0]
        won = games = other = 0
        for game in store.games():
            games += 1
            if game.winner is None:
                other += 1
            elif game.seats[game.winner] == measured:
                won += 1
    return won, games, other


def summary(db_dir: Path, pairings: list[Pairing]) -> None:
    print(f"{'pairing':26s} {'wins':>12s}  {'rate':>6s}  95% interval    no winner")
    for pairing in pairings:
        db = db_dir / f"{pairing.name}.sqlite"
        if not db.exists():
            continue
        won, games, other = wins(db)
        if games == 0:
            continue
        low, high = wilson(won, games)
        print(f"{pairing.name:26s} {won:>5d} / {games:<5d} {100 * won / games:5.1f}%  "
              f"[{100 * low:4.1f}, {100 * high:5.1f}]  {other}")


def _stop(signum: int, frame: object) -> None:
    """`kill` stops the protocol as Ctrl-C does: workers ended, table printed."""
    raise KeyboardInterrupt


def main() -> None:
    signal.signal(signal.SIGTERM, _stop)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db-dir", type=Path, default=Path("strength"), help="where each pairing's database goes")
    parser.add_argument("--games", type=int, default=400, help="games per pairing, seats balanced (default %(default)s)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these pairings only (see --list)")
    parser.add_argument("--list", action="store_true", help="list the pairings and exit")
    parser.add_argument("--summary", action="store_true", help="print the table of what is stored, play nothing")
    parser.add_argument("-j", "--concurrency", type=int, default=2,
                        help="games at once in the champion's in-process pairings (default %(default)s)")
    parser.add_argument("--distinct", type=int, default=0, metavar="N",
                        help="the champion's in-process pairings: play on past --games until N distinct games are "
                             f"stored (at most {MOST_PER_DISTINCT}N games; issue 22 counts distinct games)")
    parser.add_argument("--champion", default=CHAMPION, metavar="TEXT",
                        help="the champion's command in its in-process pairings (default %(default)r)")
    options = parser.parse_args()
    problem = unplayable(options.champion)
    if problem is not None:
        parser.error(f"--champion: {problem}")
    matches = champion_matches(options.champion)
    chosen = PAIRINGS
    champion = list(CHAMPION_MATCHES)
    if options.only:
        known = {p.name: p for p in PAIRINGS}
        unknown = [name for name in options.only if name not in known and name not in matches]
        if unknown:
            parser.error(f"unknown pairings {unknown}; see --list")
        chosen = [known[name] for name in options.only if name in known]
        champion = [name for name in options.only if name in matches]
    if options.list:
        for p in PAIRINGS:
            print(f"{p.name:34s} {' vs '.join(p.bots)}{' (base)' if p.base else ''}")
        for name, m in matches.items():
            seats = f"{m.players} players, " if m.players > 2 else ""
            start = (f"openings of {Path(m.suite).name}" if m.suite else
                     "the real start" if m.plies == 0 else f"{m.plies}-ply random openings")
            print(f"{name:34s} {m.bot} vs {m.opponent} ({seats}{'base' if m.base else 'simple'}, {start}, in-process)")
        return
    if options.games < 1:
        parser.error("--games must be at least 1")
    if options.distinct < 0:
        parser.error("--distinct must be 0 (off) or more")
    options.db_dir.mkdir(parents=True, exist_ok=True)
    if not options.summary:
        try:
            for pairing in chosen:
                print(f"== {pairing.name}: {' vs '.join(pairing.bots)}{' (base set)' if pairing.base else ''}", flush=True)
                play(pairing, options.db_dir / f"{pairing.name}.sqlite", options.games)
            for name in champion:
                match = matches[name]
                print(f"== {name}: {match.bot} vs {match.opponent}", flush=True)
                openings = -(-options.games // match.players)
                progress = lambda text, name=name: print(f"  {name}: {text}", file=sys.stderr, flush=True)  # noqa: E731
                play_until_distinct(match, openings, options.distinct, options.db_dir / f"{name}.jsonl",
                                    options.concurrency, progress)
        except KeyboardInterrupt:
            print("\ninterrupted: finished games are stored; run the same command to resume", file=sys.stderr)
    summary(options.db_dir, chosen)
    champion_summary(options.db_dir, champion)


if __name__ == "__main__":
    main()
