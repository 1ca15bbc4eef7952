"""The ladder: a persistent pool of bots, their games and ratings.

Published ratings are a batch Plackett-Luce refit of every ladder game
with 95% intervals (`tournaments.standings`), as for tournaments. Games
of different card sets or day limits are different games: each
(card set, day limit) is a rating pool of its own, and `show`, `run` and
`eval` each work in one pool (simple set, 100 days unless told).
Choosing which games to play next needs a rating that moves after each
game, so match-making keeps openskill's online Plackett-Luce model,
replayed from the stored games: the next table is the group whose
members are most uncertain (sigma) and whose outcome is least
predictable, and a scheduled table already shrinks its members' sigma
so a batch of parallel games spreads over the pool.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

from common.safefile import make_dirs
from common.settings import MAX_DAYS
from tournaments.api import playing
from tournaments.entrants import Entrant, from_stored, parse_entrants
from tournaments.errors import TournamentError
from tournaments.outcomes import Result, win_shares
from tournaments.result import TournamentResult
from tournaments.runner import make_plan, open_tournament, run
from tournaments.schedule import GameSpec, Seatings, gauntlet
from tournaments.standings import Standings, compute
from tournaments.store import GameRecord, Store
from tournaments.workers import PlayOptions

LADDER_KIND = "ladder"


def default_db(create: bool = True) -> Path:
    """The ladder database in the platform's user data directory. Its folder
    is created (`create`), since a new user has none yet and every command
    that uses the default (the ladder, `driver serve`) must just work."""
    from platformdirs import user_data_path

    path = user_data_path("economancy-arena", appauthor=False) / "ladder.sqlite"
    if create:
        make_dirs(path.parent)
    return path


@dataclass(frozen=True)
class PoolBot:
    name: str
    argv: list[str]


def _ranks(res: Result) -> list[float]:
    """openskill ranks (1 = best) from the same shares every statistic uses."""
    shares = win_shares(res)
    top = max(shares)
    return [1 if s == top else 2 for s in shares]


class _Live:
    """openskill ratings replayed from the ladder's games, for match-making."""

    def __init__(self, names: Sequence[str]) -> None:
        self.model = PlackettLuce()
        self.ratings = {n: self.model.rating(name=n) for n in names}

    def update(self, res: Result) -> None:
        if not all(s in self.ratings for s in res.seats):
            return
        teams = [[self.ratings[s]] for s in res.seats]
        new = self.model.rate(teams, ranks=_ranks(res))
        for s, [r] in zip(res.seats, new):
            self.ratings[s] = r

    def value(self, group: Sequence[str]) -> float:
        """How much playing `group` should teach: summed variance, weighted by
        how open the predicted outcome is (normalised entropy, 1 = even)."""
        teams = [[self.ratings[n]] for n in group]
        probs = self.model.predict_win(teams)
        entropy = -sum(p * math.log(p) for p in probs if p > 0) / math.log(len(group))
        return sum(self.ratings[n].sigma ** 2 for n in group) * (0.25 + entropy)

    def pending(self, group: Sequence[str]) -> None:
        """Count a scheduled table as played: shrink its members' sigma as a
        game would, keep their mu (the result is not known yet)."""
        teams = [[self.ratings[n]] for n in group]
        after = self.model.rate(teams, ranks=[1] * len(group))
        for n, [r] in zip(group, after):
            self.ratings[n] = self.model.rating(mu=self.ratings[n].mu, sigma=r.sigma, name=n)


class Ladder:
    """A ladder database. Python API of the `ladder` command:

        with Ladder.open() as lad:           # or Ladder.open("my.sqlite")
            lad.add("rnd", "random")
            lad.run(games=20, options=PlayOptions(max_days=50), concurrency=2)
            print(lad.show(max_days=50).names)
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.tid = store.tournament(LADDER_KIND, {"ladder": 1}, [])

    @classmethod
    def open(cls, db: str | Path | None = None) -> "Ladder":
        return cls(Store.open(default_db() if db is None else db))

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Ladder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # pool --------------------------------------------------------------

    def pool(self) -> list[PoolBot]:
        return [PoolBot(n, a) for n, a in self.store.ladder_bots()]

    def add(self, name: str, command: str) -> PoolBot:
        """Add a bot under `name`; COMMAND is any BOT form `driver run` accepts."""
        if not name or "=" in name or "/" in name:
            raise TournamentError(f"bad ladder name {name!r} (no '=' or '/', not empty)")
        [entrant] = parse_entrants([command])
        argv = list(entrant.argv)
        if os.sep in argv[0]:  # the ladder outlives the current directory
            argv[0] = os.path.abspath(argv[0])
        used = {s for g in self.store.games(self.tid) for s in g.seats}
        if name in used and name not in {b.name for b in self.pool()}:
            raise TournamentError(
                f"{name!r} has stored ladder games from a bot removed before removal kept them under"
                f" {name + '~1'!r}; choose another name"
            )
        self.store.add_ladder_bot(name, argv)
        return PoolBot(name, argv)

    def remove(self, name: str) -> str | None:
        """Take a bot out of the pool; its games stay in the history under
        the name returned (`name~1`, ...; None if it played none), and `name`
        is free for another bot."""
        return self.store.remove_ladder_bot(name, self.tid)

    def _entrants(self) -> list[Entrant]:
        return [from_stored(b.name, b.argv) for b in self.pool()]

    # games -------------------------------------------------------------

    def _games(self, base: bool, max_days: int) -> list[GameRecord]:
        """The pool's games: this card set and day limit only."""
        return [
            g for g in self.store.games(self.tid)
            if bool(g.options.get("base", False)) == base and int(g.options.get("max_days", 100)) == max_days
        ]

    def run(self, *, games: int, players: int = 2, **playing_args: Any) -> TournamentResult:
        """Play `games` games chosen to reduce rating uncertainty the most, in
        the pool of the options' card set and day limit.
        `playing_args`: options, backend, concurrency, progress (see api.playing)."""
        entrants = self._entrants()
        if len(entrants) < players:
            raise TournamentError(
                f"the ladder has {len(entrants)} bots; {players}-player games need {players}"
            )
        options = playing_args.get("options") or PlayOptions()
        names = [e.name for e in entrants]
        index = {n: i for i, n in enumerate(names)}
        live = _Live(names)
        stored = self._games(options.base, options.max_days)
        for g in stored:
            live.update(g.result)
        group_counts: dict[tuple[str, ...], int] = {}
        for g in stored:
            key = tuple(sorted(g.seats))
            group_counts[key] = group_counts.get(key, 0) + 1
        start = len(self.store.played_keys(self.tid))  # keys are unique across pools
        groups = [tuple(g) for g in combinations(sorted(names), players)]

        def specs() -> Iterator[GameSpec]:
            for i in range(games):
                best = max(groups, key=live.value)
                k = group_counts.get(best, 0)
                group_counts[best] = k + 1
                orders = list(permutations(best))
                seats = tuple(index[n] for n in orders[k % len(orders)])
                live.pending(best)
                # One opening per group and round of its seatings, so a group's games pair up.
                yield GameSpec(f"ladder/{start + i}", seats, k // len(orders))

        def stop(rec: GameRecord) -> bool:
            live.update(rec.result)
            return False

        with playing(self.store, **playing_args) as ctx:
            plan = make_plan(ctx, entrants, players, seed=0)
            new = run(ctx, self.tid, entrants, specs(), plan, new_games=games, stop=stop, label="ladder")
        return TournamentResult(LADDER_KIND, str(self.store.path), self.tid, entrants,
                                self.show(base=options.base, max_days=options.max_days), len(new),
                                {"pool": _pool_name(options.base, options.max_days)})

    def show(self, *, base: bool = False, max_days: int = MAX_DAYS) -> Standings:
        """Pool standings: the batch fit over the pool's games, pool bots listed."""
        pool = [b.name for b in self.pool()]
        results = self._games(base, max_days)
        everyone = sorted({s for r in results for s in r.seats} | set(pool))
        full = compute(results, everyone)
        keep = [n for n in full.names if n in pool]
        return Standings(
            keep,
            {n: full.records[n] for n in keep},
            {n: full.ratings[n] for n in keep},
            {k: c for k, c in full.cells.items() if k[0] in pool and k[1] in pool},
            {n: r for n, r in full.forfeit_reasons.items() if n in pool},
            full.games,
            full.players,
        )

    def pools(self) -> dict[str, int]:
        """Games stored per pool ("simple, 100 days": 40, ...)."""
        counts: dict[str, int] = {}
        for g in self.store.games(self.tid):
            name = _pool_name(bool(g.options.get("base", False)), int(g.options.get("max_days", 100)))
            counts[name] = counts.get(name, 0) + 1
        return counts

    def eval(
        self,
        command: str,
        *,
        games: int = 1,
        players: int = 2,
        seatings: Seatings = "all",
        seed: int = 0,
        openings: Any = "default",
        **playing_args: Any,
    ) -> TournamentResult:
        """A gauntlet of a new bot against the pool; its rating on the pool's
        scale (pool mean 0) with a 95% interval. The bot is not added."""
        [challenger] = parse_entrants([command])
        pool = self._entrants()
        pool_names = {e.name for e in pool}
        if challenger.name in pool_names:
            challenger = Entrant(f"{challenger.name} (eval)", challenger.argv, challenger.spec)
        if len(pool) < players - 1:
            raise TournamentError(
                f"the ladder has {len(pool)} bots; a {players}-player gauntlet needs {players - 1}"
            )
        options = playing_args.get("options") or PlayOptions()
        entrants = [challenger, *pool]
        specs = gauntlet(len(entrants), players, games, seatings)
        with playing(self.store, **playing_args) as ctx:
            plan = make_plan(ctx, entrants, players, seed=seed, openings=openings)
            config = {"players": players, "seatings": seatings, "options": ctx.options.to_json(), **plan.config()}
            ctx.new = True  # each evaluation is its own tournament
            tid = open_tournament(ctx, "ladder-eval", config, entrants)
            new = run(ctx, tid, entrants, specs, plan, total=len(specs), label="eval")
        wanted = {s.key for s in specs}
        mine = [g for g in self.store.games(tid) if g.key in wanted]
        names = [e.name for e in entrants]
        history = [g for g in self._games(options.base, options.max_days) if all(s in pool_names for s in g.seats)]
        st = compute(history + mine, names)
        shift = sum(st.ratings[n].elo for n in pool_names) / len(pool_names)
        st = _shifted(st, shift)
        c = st.ratings[challenger.name]
        details = {"challenger": challenger.name, "elo": c.elo, "elo_low": c.low, "elo_high": c.high,
                   "elo_text": st.rating_text(challenger.name), "pool": _pool_name(options.base, options.max_days)}
        return TournamentResult("ladder-eval", str(self.store.path), tid, entrants, st, len(new), details)


def _pool_name(base: bool, max_days: int) -> str:
    return f"{'base' if base else 'simple'} set, {max_days} days"


def _shifted(st: Standings, shift: float) -> Standings:
    from dataclasses import replace

    st.ratings = {
        n: replace(r, elo=r.elo - shift, low=r.low - shift, high=r.high - shift) for n, r in st.ratings.items()
    }
    return st


def pool_json(bots: Sequence[PoolBot]) -> list[dict[str, Any]]:
    return [{"name": b.name, "argv": b.argv} for b in bots]
