"""The server's games in the results store (`tournaments.store`), and the
journals that let a crash lose nothing.

Every finished server game is one row of the store, in a tournament of
kind "server", so that `tournament report` and the replay viewer show it
next to tournament and ladder games. The store is one SQLite connection,
used from one thread (`Database`); the event loop and the game threads
hand it work.

While a game runs, its trace is appended line by line to a journal file
beside the database (`<db>.live/<game>.trace`, headed by one line saying
who plays and how). A game that finishes is stored and its journal
removed; a journal still there when the server starts belongs to a game
cut off by a crash: it is stored as aborted (a fault of nobody), with
the trace it had, and removed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from driver.game import GameResult
from protocol.exactjson import JSONError, dumps, loads
from tournaments.store import GameRecord, Store, compress_lines, compress_times, trace_digest
from tournaments.workers import stderr_lines  # the store's format of kept standard errors

__all__ = ["SERVER_KIND", "Database", "game_record", "aborted_record", "journal_dir", "recover_journals"]

SERVER_KIND = "server"
ABORTED_AT_CRASH = "the server stopped during the game (crash or restart); nobody's loss"

T = TypeVar("T")


def journal_dir(db: Path) -> Path:
    return db.with_name(db.name + ".live")


def game_record(
    key: str,
    names: Sequence[str],
    result: GameResult,
    options: dict[str, Any],
    stderr: Sequence[bytes],
) -> GameRecord:
    """The store's row for a game the referee finished (status "finished",
    with its answer times and trace digest, as a tournament's games)."""
    fault_seat, fault_reason = result.fault if result.fault else (None, None)
    return GameRecord(
        key=key,
        seats=tuple(names),
        winner=result.winner,
        fault_seat=fault_seat,
        fault_reason=fault_reason,
        days=result.days,
        moves=result.moves,
        duration=result.duration,
        options=options,
        trace=compress_lines(result.trace),
        stderr=compress_lines(stderr_lines(names, stderr)),
        status="finished",
        times=compress_times(result.answer_times),
        digest=trace_digest(result.trace),
        cpu=compress_times(result.answer_cpu),
    )


def aborted_record(
    key: str, names: Sequence[str], trace: Sequence[bytes], options: dict[str, Any], reason: str, started: float
) -> GameRecord:
    """A game cut off before its end (status "aborted"): nobody won, nobody
    faulted. The trace ends with the referee's `aborted` line saying why."""
    lines = list(trace) + [dumps({"meta": "aborted", "reason": reason})]
    states = sum(1 for line in trace if line.startswith(b"{"))
    return GameRecord(
        key=key,
        seats=tuple(names),
        winner=None,
        fault_seat=None,
        fault_reason=None,
        days=0,
        moves=states,
        duration=max(time.time() - started, 0.0),
        options=options,
        trace=compress_lines(lines),
        status="aborted",
        digest=trace_digest(lines),
    )


class Database:
    """The results store, owned by one thread; everything else asks it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="store")
        self.store: Store = self._pool.submit(Store.open, path).result()
        self.tid: int = self.call(lambda s: s.tournament(SERVER_KIND, {"server": 1}, []))

    def call(self, fn: Callable[[Store], T]) -> T:
        """Run `fn(store)` on the store's thread and wait for it (any thread
        but the event loop's)."""
        return self._pool.submit(fn, self.store).result()

    async def acall(self, fn: Callable[[Store], T]) -> T:
        """The same, awaited from the event loop."""
        return await asyncio.wrap_future(self._pool.submit(fn, self.store))

    def add(self, rec: GameRecord) -> bool:
        return self.call(lambda s: s.add_game(self.tid, rec))

    def close(self) -> None:
        try:
            self._pool.submit(self.store.close).result()
        finally:
            self._pool.shutdown(wait=True)


def _whole_lines(lines: list[bytes]) -> list[bytes]:
    """A journal's trace lines up to the cut: a last line the crash cut in
    half is dropped (the replay then shows everything before it)."""
    kept = [ln for ln in lines if ln.strip()]
    if kept:
        try:
            loads(kept[-1])
        except (ValueError, JSONError):
            kept.pop()
    return kept


def recover_journals(db: Database, directory: Path) -> list[str]:
    """Store every game a crash cut off as aborted, then drop its journal.
    Returns their keys. A journal that cannot be read is kept, renamed
    `.bad`, so that nothing is lost silently."""
    keys: list[str] = []
    if not directory.is_dir():
        return keys
    for path in sorted(directory.glob("*.trace")):
        try:
            head, *lines = path.read_bytes().splitlines()
            meta = loads(head)
            rec = aborted_record(
                str(meta["key"]), [str(n) for n in meta["seats"]], _whole_lines(lines),
                dict(meta.get("options") or {}), ABORTED_AT_CRASH, float(meta.get("started", time.time())),
            )
        except (ValueError, KeyError, TypeError, JSONError):
            path.rename(path.with_suffix(".bad"))
            continue
        db.add(rec)
        keys.append(rec.key)
        path.unlink()
    return keys
