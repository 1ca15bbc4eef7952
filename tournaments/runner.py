"""Playing a schedule: skip what is stored, run the rest, store each result.

The parent keeps at most `backend.slots` games in flight, so stopping
(an SPRT decision, a finished bracket round, Ctrl-C) wastes little, and
writes every finished game to the database the moment it arrives.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import click

from tournaments.backends import Backend
from tournaments.entrants import Entrant
from tournaments.errors import TournamentError
from tournaments.schedule import GameSpec
from tournaments.store import GameRecord, Store
from tournaments.workers import Job, PlayOptions


@dataclass
class Context:
    """Everything a tournament needs to play games, shared by every format."""

    store: Store
    backend: Backend
    options: PlayOptions
    progress: bool = True  # a progress bar on stderr (off for --json)
    reuse: bool = False  # keep each bot's process alive across its games


def run(
    ctx: Context,
    tournament_id: int,
    entrants: Sequence[Entrant],
    specs: Iterable[GameSpec],
    *,
    total: int | None = None,
    stop: Callable[[GameRecord], bool] | None = None,
    label: str = "games",
) -> list[GameRecord]:
    """Play every spec not yet stored; return the records played now.

    `stop(record)` is asked after each stored game; once true, no new game
    starts, and the games in flight are still finished and stored.
    """
    played = ctx.store.played_keys(tournament_id)
    todo = (s for s in specs if s.key not in played)
    new: list[GameRecord] = []
    inflight: dict[Any, GameSpec] = {}
    stopping = False
    bar = _Progress(total - len(played) if total is not None else None, label, ctx.progress)
    try:
        while True:
            while not stopping and len(inflight) < ctx.backend.slots:
                spec = next(todo, None)
                if spec is None:
                    stopping = True
                    break
                inflight[ctx.backend.submit(_job(spec, entrants, ctx.options, ctx.reuse))] = spec
            if not inflight:
                break
            for handle in ctx.backend.wait(inflight):
                spec = inflight.pop(handle)
                try:
                    rec = ctx.backend.result(handle)
                except Exception as err:
                    raise TournamentError(
                        f"game {spec.key} failed in its worker ({type(err).__name__}: {err});"
                        f" {len(new)} games finished now are stored, rerun to resume"
                    ) from err
                if ctx.store.add_game(tournament_id, rec):
                    new.append(rec)
                bar.advance()
                if stop is not None and not stopping and stop(rec):
                    stopping = True
    except BaseException:
        ctx.backend.close(cancel=True)
        raise
    finally:
        bar.close()
    return new


def _job(spec: GameSpec, entrants: Sequence[Entrant], options: PlayOptions, reuse: bool) -> Job:
    bots = [entrants[p] for p in spec.seats]
    return Job(spec.key, tuple(b.name for b in bots), tuple(b.spec for b in bots), options, reuse)


class _Progress:
    """Games done, games per second and ETA on stderr (click's progress
    bar, drawn only on a terminal)."""

    def __init__(self, total: int | None, label: str, enabled: bool) -> None:
        self.start = time.monotonic()
        self.done = 0
        self.bar = None
        if enabled and total and sys.stderr.isatty():
            self.bar = click.progressbar(
                length=total,
                label=label,
                file=sys.stderr,
                show_eta=True,
                show_pos=True,
                item_show_func=lambda _: f"{self.rate():.1f} games/s",
            )
            self.bar.__enter__()

    def rate(self) -> float:
        return self.done / max(time.monotonic() - self.start, 1e-9)

    def advance(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1, current_item=self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
