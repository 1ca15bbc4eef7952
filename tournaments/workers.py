"""What a worker does for one game: run it through the referee, pack the result.

This runs in worker processes (or Ray tasks), never in the parent that
owns the database; it returns a picklable GameRecord with the trace and
the bots' standard error already compressed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from tournaments.store import GameRecord, compress_lines


@dataclass(frozen=True)
class PlayOptions:
    """The referee options a tournament passes to every game."""

    base: bool = False
    max_days: int = 100
    timeout: float = 10.0
    fair: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Job:
    """One game to play: its schedule key and the bots by seat."""

    key: str
    names: tuple[str, ...]
    specs: tuple[Any, ...]
    options: PlayOptions


def play(job: Job) -> GameRecord:
    """Play one game with real bot processes; the referee handles every fault."""
    from driver.game import GameOptions, play_game

    opts = job.options
    started = time.time()
    res = play_game(
        list(job.specs),
        GameOptions(base=opts.base, max_days=opts.max_days, timeout=opts.timeout, fair=opts.fair),
    )
    fault_seat, fault_reason = res.fault if res.fault else (None, None)
    return GameRecord(
        key=job.key,
        seats=job.names,
        winner=res.winner,
        fault_seat=fault_seat,
        fault_reason=fault_reason,
        days=res.days,
        moves=res.moves,
        duration=res.duration or (time.time() - started),
        options=opts.to_json(),
        trace=compress_lines(res.trace),
        stderr=compress_lines(_stderr_lines(job.names, res.stderr)),
    )


def _stderr_lines(names: Sequence[str], stderr: Sequence[bytes]) -> list[bytes]:
    """Each seat's kept standard error, headed by the bot's name."""
    out = []
    for name, err in zip(names, stderr):
        if err:
            out.append(f"== {name} ==".encode())
            out.append(err.rstrip(b"\n"))
    return out
