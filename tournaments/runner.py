"""Playing a schedule: skip what is stored, run the rest, store each result.

The parent keeps at most `backend.slots` games in flight, so stopping
(an SPRT decision, a finished bracket round, Ctrl-C) wastes little, and
writes every finished game to the database the moment it arrives. On a
terminal a progress bar is drawn on stderr; elsewhere (a log, nohup,
CI) each finished game is one line there instead, fastchess style.

Everything that decides a game's course is fixed before it is played
and recorded with the tournament: the opening of each game index, the
game's seed (from the tournament's seed and the game's key) and each
entrant's time control. A database that already holds a tournament of
the same kind and bots, but with another identity (another order of the
bots, other options), is refused rather than silently joined by a
second tournament (`new=True`, `--new`, starts one beside it).
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import click

from driver.botspec import BotOptions, BotSpec, BotSpecError, options_by_seat
from common.text import printable
from tournaments.backends import Backend, LocalBackend
from tournaments.entrants import Entrant
from tournaments.errors import PlayError, TournamentError
from tournaments.openings import OpeningPlan, plan_openings
from tournaments.schedule import GameSpec, game_seed
from tournaments.store import GameRecord, Store, TournamentRow
from tournaments.workers import Job, PlayOptions, Tail, with_tail


@dataclass
class Context:
    """Everything a tournament needs to play games, shared by every format."""

    store: Store
    backend: Backend
    options: PlayOptions
    progress: bool = True  # progress on stderr: a bar on a terminal, one line per game elsewhere
    reuse: bool | None = None  # keep each bot's process alive across its games: all, none, or (None) the reusable
    new: bool = False  # start a tournament beside a stored one that differs from this one
    waiting_tails: list[Tail] = field(default_factory=list)  # kept bots' late stderr of games not yet stored


@dataclass
class GamePlan:
    """What is fixed for every game of one tournament before any is played."""

    openings: OpeningPlan  # for the tournament's table size
    seed: int | None
    bot_options: tuple[BotOptions, ...]  # per entrant position
    spec: Any = "default"  # how the openings were asked for
    others: dict[int, OpeningPlan] = field(default_factory=dict)  # smaller tables (an elimination's byes)

    def openings_for(self, players: int) -> OpeningPlan:
        """The openings of a table of `players`: those asked for, or, for a
        table size they were not made for (a file of 4-player openings at a
        2-player table), that size's default suite."""
        if players == self.openings.players:
            return self.openings
        if players not in self.others:
            spec = self.spec if self.spec in ("none", "default") or str(self.spec).startswith("random:") else "default"
            self.others[players] = plan_openings(spec, players=players, base=self.openings.base,
                                                 max_days=self.openings.max_days, seed=self.openings.seed)
        return self.others[players]

    def job(self, spec: GameSpec, entrants: Sequence[Entrant], options: PlayOptions,
            reuse: bool | Sequence[bool], tournament: int | None = None) -> Job:
        """The game `spec` as a worker plays it; `reuse`: for all entrants,
        or per entrant position, whether its process is kept across games;
        `tournament`: where it is stored (a kept bot's late standard error follows it)."""
        bots = [entrants[p] for p in spec.seats]
        opening = self.openings_for(len(bots)).opening(spec.index)
        kept = tuple(reuse if isinstance(reuse, bool) else reuse[p] for p in spec.seats)
        return Job(
            spec.key, tuple(b.name for b in bots), tuple(b.spec for b in bots), options, kept,
            seats=tuple(self.bot_options[p] for p in spec.seats),
            opening=None if opening is None else tuple(opening),
            seed=None if self.seed is None else game_seed(self.seed, spec.key),
            tournament=tournament,
        )

    def config(self) -> dict[str, Any]:
        """The plan's part of the tournament's identity."""
        return {"seed": self.seed, "openings": self.openings.to_json()}


def make_plan(ctx: Context, entrants: Sequence[Entrant], players: int, *, seed: int | None,
              openings: Any = "default") -> GamePlan:
    """Resolve the openings and each entrant's options; TournamentError for bad ones."""
    from protocol.openings import OpeningError

    opts = ctx.options
    _check_remotes(entrants)
    try:
        plan = plan_openings(openings, players=players, base=opts.base, max_days=opts.max_days,
                             seed=seed or 0)
        per_entrant = options_by_seat([e.name for e in entrants], opts.bot_options)
    except (OpeningError, BotSpecError) as err:
        raise TournamentError(str(err)) from None
    return GamePlan(plan, seed, tuple(per_entrant), openings)


def _check_remotes(entrants: Sequence[Entrant]) -> None:
    """An entrant of a registered kind that cannot play now (`BotSpec.unavailable`:
    a `remote:NAME` bot whose server does not answer, or which is not
    connected) stops the run before its first game (its games would all be
    forfeits, each after a wait)."""
    for e in entrants:
        if isinstance(e.spec, BotSpec):
            why = e.spec.unavailable()
            if why is not None:
                raise TournamentError(f"bot {e.name!r}: {why}")


def open_tournament(ctx: Context, kind: str, config: dict[str, Any], entrants: Sequence[Entrant]) -> int:
    """The tournament's id: resumed if stored, else new, unless the database
    holds one of the same kind and bots that this one differs from."""
    identities = [e.identity for e in entrants]
    found = ctx.store.find_tournament(kind, config, identities)
    if found is not None:
        return found
    if not ctx.new:
        names = sorted(n for n, _ in identities)
        for row in ctx.store.tournaments():
            if row.kind == kind and sorted(n for n, _ in row.entrants) == names:
                raise TournamentError(_differences(ctx.store, row, config, identities))
    return ctx.store.tournament(kind, config, identities)


def _differences(store: Store, row: TournamentRow, config: dict[str, Any],
                 identities: Sequence[tuple[str, Sequence[str]]]) -> str:
    said = []
    theirs = [n for n, _ in row.entrants]
    if theirs != [n for n, _ in identities]:
        said.append(f"bots in another order (there: {', '.join(theirs)})")
    elif [list(a) for _, a in identities] != [list(a) for _, a in row.entrants]:
        changed = [n for (n, a), (_, b) in zip(identities, row.entrants) if list(a) != list(b)]
        said.append(f"other commands for {', '.join(changed)}")
    flat_here, flat_there = _flatten(config), _flatten(row.config)
    for key in sorted(set(flat_here) | set(flat_there)):
        here, there = flat_here.get(key, "unset"), flat_there.get(key, "unset")
        if here != there:
            said.append(f"{key} {_short(there)} there, {_short(here)} here")
    what = "; ".join(said) or "an identity recorded by an older version"
    return (
        f"{store.path} holds {row.kind} {row.id} with the same bots, and this command differs from it: {what}."
        " Rerun that tournament's command to resume it, use another --db, or pass --new to start"
        " another tournament beside it"
    )


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict) and v and not (k == "openings"):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _short(value: Any) -> str:
    if isinstance(value, dict) and "suite" in value:
        return f"a suite of {len(value['suite'])} openings"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


def _probe_entrants(ctx: Context, entrants: Sequence[Entrant], plan: GamePlan, players: int) -> list[bool]:
    """Start each entrant once, as its games would, and require an answer
    to a first state (`driver.probe`); raise TournamentError naming the
    first that cannot play. Whether each entrant's process can be reused
    across games, by position."""
    from driver.probe import probe
    from driver.process import BotStartError

    seen: dict[tuple[Any, ...], bool] = {}
    for position, entrant in enumerate(entrants):
        options = ctx.options.game_options(seats=(plan.bot_options[position],))
        key = (entrant.spec.argv, plan.bot_options[position])
        if key in seen:
            continue
        try:
            seen[key] = probe(entrant.spec, options, players)
        except BotStartError as err:
            raise TournamentError(f"no game was played: {err.strerror}") from None
    return [seen[(e.spec.argv, plan.bot_options[p])] for p, e in enumerate(entrants)]


def reuse_line(entrants: Sequence[Entrant], reused: Sequence[bool], forced: bool | None) -> str:
    """The line that says which bots keep their process across games, and why."""
    names = [e.name for e, kept in zip(entrants, reused) if kept]
    fresh = [e.name for e, kept in zip(entrants, reused) if not kept]
    if forced is False:
        return "a new process for every game of every bot (--no-reuse)"
    if forced is True:
        return f"reused across games (--reuse): {', '.join(names)}"
    parts = []
    if names:
        parts.append(f"reused across games: {', '.join(names)}")
    if fresh:
        parts.append(f"a new process for each game: {', '.join(fresh)} (not reusable: it exits, writes after"
                     " a game's end or answers no new game; `driver check` says which)")
    return "; ".join(parts) + ("; --no-reuse for a new process every game" if names else "")


def run(
    ctx: Context,
    tournament_id: int,
    entrants: Sequence[Entrant],
    specs: Iterable[GameSpec],
    plan: GamePlan,
    *,
    total: int | None = None,
    new_games: int | None = None,
    stop: Callable[[GameRecord], bool] | None = None,
    label: str = "games",
    status: Callable[[], str] | None = None,
) -> list[GameRecord]:
    """Play every spec not yet stored; return the records played now.

    `total` is how many games `specs` holds, played or not (the progress
    counts the unplayed ones); `new_games`, for specs that only ever hold
    new games (the ladder's), is how many will be played now.

    `stop(record)` is asked after each stored game; once true, no new game
    starts, and the games in flight are still finished and stored.
    `status()` adds to each game's progress line (e.g. the SPRT's LLR).
    """
    played = ctx.store.played_keys(tournament_id)
    todo: Iterator[GameSpec] = (s for s in specs if s.key not in played)
    first = next(todo, None)
    reused: bool | list[bool] = bool(ctx.reuse)
    if first is not None:  # a bot that cannot play is refused before the first game, not forfeited in each
        reusable = _probe_entrants(ctx, entrants, plan, len(first.seats))
        # Only local workers end with the run, and the bots they keep with them: Ray's
        # outlive it, so there a kept bot would idle on until its worker goes (--reuse still asks for it).
        auto = ctx.reuse is None and isinstance(ctx.backend, LocalBackend)
        reused = reusable if auto else [bool(ctx.reuse)] * len(entrants)
        if ctx.progress:
            click.echo(reuse_line(entrants, reused, ctx.reuse) if ctx.reuse is not None or auto else
                       "a new process for every game of every bot (Ray's workers outlive the run;"
                       " --reuse keeps bots there all the same)", err=True)
        todo = itertools.chain([first], todo)
    new: list[GameRecord] = []
    inflight: dict[Any, GameSpec] = {}
    stopping = False
    if new_games is not None:
        to_play: int | None = new_games
    elif total is not None and isinstance(specs, Sequence):  # the tournament may hold other rounds' games
        to_play = total - sum(1 for s in specs if s.key in played)
    elif total is not None:
        to_play = max(total - len(played), 0)
    else:
        to_play = None
    bar = _Progress(to_play, label, ctx.progress, status)
    try:
        while True:
            while not stopping and len(inflight) < ctx.backend.slots:
                spec = next(todo, None)
                if spec is None:
                    stopping = True
                    break
                inflight[ctx.backend.submit(plan.job(spec, entrants, ctx.options, reused, tournament_id))] = spec
            if not inflight:
                break
            for handle in ctx.backend.wait(inflight):
                spec = inflight.pop(handle)
                try:
                    rec = ctx.backend.result(handle)
                except BrokenProcessPool as err:
                    raise PlayError(
                        f"the worker processes died before or while playing game {spec.key} ({err})."
                        " A script that calls the tournaments API must call it under"
                        " `if __name__ == \"__main__\":`, since each worker process imports the script"
                        " again (see docs/tournaments.md); otherwise the messages above say what ended them."
                        f" {len(new)} games finished now are stored"
                    ) from None
                except Exception as err:
                    raise PlayError(
                        f"game {spec.key} failed in its worker ({type(err).__name__}: {err});"
                        f" {len(new)} games finished now are stored, rerun to resume"
                    ) from err
                if ctx.store.add_game(tournament_id, rec):
                    new.append(rec)
                ctx.waiting_tails = store_tails(ctx.store, [*ctx.waiting_tails, *ctx.backend.tails()])
                stopped = stop is not None and not stopping and stop(rec)
                bar.advance(rec)
                if stopped:
                    stopping = True
    except BaseException:
        ctx.backend.close(cancel=True)
        raise
    finally:
        bar.close()
    return new


def store_tails(store: Store, tails: Iterable[Tail]) -> list[Tail]:
    """Add to stored games what their kept bots wrote to standard error
    after the final state (tournaments.workers.Tail): known only once the
    bot's next game began or the bot ended. A worker starts its next game
    as soon as it has sent a result, so a tail can arrive before this
    process has stored the game it belongs to: those tails are returned,
    to be offered again (after the last game, a game still missing was
    never stored: a run cut short)."""
    waiting: list[Tail] = []
    for tail in tails:
        tournament_id, key, seat, data = tail
        stored = store.game_stderr(tournament_id, key)
        if stored is None:
            waiting.append(tail)
            continue
        names, stderr = stored
        store.set_game_stderr(tournament_id, key, with_tail(stderr, names, seat, data))
    return waiting


def game_line(number: int, total: int | None, rec: GameRecord) -> str:
    """One finished game, fastchess style: number, key, seats, result, reason, days, seconds."""
    seats = " vs ".join(rec.seats)
    if rec.fault_seat is not None:
        n = len(rec.seats)
        result = ("0-1" if rec.fault_seat == 0 else "1-0") if n == 2 else f"{rec.seats[rec.fault_seat]} forfeits"
        reason = f"{rec.seats[rec.fault_seat]} forfeits: {printable(rec.fault_reason or '')}"
    elif rec.winner is None:
        result, reason = ("1/2-1/2" if len(rec.seats) == 2 else "draw"), "day limit, nobody ahead"
    else:
        result = ("1-0" if rec.winner == 0 else "0-1") if len(rec.seats) == 2 else f"{rec.seats[rec.winner]} wins"
        reason = f"{rec.seats[rec.winner]} wins"
    count = f"{number}/{total}" if total else str(number)
    return f"game {count} {rec.key}: {seats}: {result} ({reason}), {rec.days} days, {rec.duration:.1f} s"


class _Progress:
    """Games done, games per second and ETA on stderr: click's progress bar on
    a terminal, one line per finished game elsewhere."""

    def __init__(self, total: int | None, label: str, enabled: bool,
                 status: Callable[[], str] | None = None) -> None:
        self.start = time.monotonic()
        self.done = 0
        self.total = total
        self.status = status
        self.bar: Any = None  # click's progress bar, when shown
        self.lines = enabled and not sys.stderr.isatty()
        if enabled and total and sys.stderr.isatty():
            self.bar = click.progressbar(
                length=total,
                label=label,
                file=sys.stderr,
                show_eta=True,
                show_pos=True,
                item_show_func=lambda _: f"{self.rate():.1f} games/s" + (f", {status()}" if status else ""),
            )
            self.bar.__enter__()

    def rate(self) -> float:
        return self.done / max(time.monotonic() - self.start, 1e-9)

    def advance(self, rec: GameRecord) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1, current_item=self.done)
        elif self.lines:
            extra = f"; {self.status()}" if self.status else ""
            click.echo(game_line(self.done, self.total, rec) + extra, err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
