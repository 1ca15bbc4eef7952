"""What a worker does for one game: run it through the referee, pack the result.

This runs in worker processes (or Ray tasks), never in the parent that
owns the database; it returns a picklable GameRecord with the trace and
the bots' standard error already compressed.
"""

from __future__ import annotations

import dataclasses
import multiprocessing.util
import sys
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from driver.botspec import BotOptions, parse_bot_options
from common.settings import GameSettings
from tournaments.store import GameRecord, compress_lines, compress_times, trace_digest


@dataclass(frozen=True)
class PlayOptions(GameSettings):
    """What a tournament plays every game under: the command's
    `GameSettings` and the per-entrant options.

    `startup`, `margin` and `timeout` are every bot's time control;
    `bot_options` overrides them (and whether a bot gets a seed) per
    entrant: a mapping (or pairs) from an entrant's name, or `*` for
    every one, to `BotOptions` or their text (`"timeout=2,startup=60"`).
    `isolation` and `bot_env` are not part of a tournament's identity
    (`to_json` leaves them out).
    """

    bot_options: Any = field(default=())

    def __post_init__(self) -> None:
        super().__post_init__()
        given = self.bot_options.items() if isinstance(self.bot_options, Mapping) else self.bot_options
        pairs = tuple(
            (str(name), parse_bot_options(o) if isinstance(o, str) else o) for name, o in given
        )
        object.__setattr__(self, "bot_options", pairs)

    def game_options(self, seats: tuple[BotOptions, ...] = (), opening: tuple[int | str, ...] | None = None,
                     seed: int | None = None) -> Any:
        """The referee's `GameOptions` for one game with these seats' options."""
        from driver.game import GameOptions

        return GameOptions.of(self, seats=seats, opening=opening, seed=seed)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "base": self.base, "max_days": self.max_days, "timeout": self.timeout, "fair": self.fair,
            "startup": self.startup, "margin": self.margin,
        }
        if self.bot_options:
            out["bot_options"] = [[name, o.to_json()] for name, o in self.bot_options]
        return out


@dataclass(frozen=True)
class Job:
    """One game to play: its schedule key, the bots by seat, each seat's
    options, the opening and the game's seed, and whether this worker
    should keep the bots' processes alive for later games (all, or per
    seat)."""

    key: str
    names: tuple[str, ...]
    specs: tuple[Any, ...]
    options: PlayOptions
    reuse: bool | tuple[bool, ...] = False

    def kept(self) -> tuple[bool, ...]:
        """Per seat, whether its process is kept across games."""
        return self.reuse if isinstance(self.reuse, tuple) else (self.reuse,) * len(self.specs)
    seats: tuple[BotOptions, ...] = ()
    opening: tuple[int | str, ...] | None = None
    seed: int | None = None
    tournament: int | None = None  # where the game is stored: a kept bot's late standard error follows it (`Tail`)


def play(job: Job) -> GameRecord:
    """Play one game with real bot processes; the referee handles every fault."""
    from driver.game import play_game

    opts = job.options
    game_options = opts.game_options(job.seats, job.opening, job.seed)
    specs = [_on_this_node(spec) for spec in job.specs]
    started = time.time()
    if any(job.kept()):
        res = _kept.play(specs, game_options, job.kept(), None if job.tournament is None else (job.tournament, job.key))
    else:
        res = play_game(specs, game_options)
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
        stderr=compress_lines(stderr_lines(job.names, res.stderr)),
        opening=job.opening,
        seed=job.seed,
        times=compress_times(res.answer_times),
        digest=trace_digest(res.trace),
        cpu=compress_times(res.answer_cpu),
    )


def _on_this_node(spec: Any) -> Any:
    """Our named bots under this worker's interpreter: the parent's path to
    its own (a virtual environment on the machine that started the run)
    need not exist on a Ray node, which runs the arena it has installed."""
    from bots import registry

    if registry.owns(spec.argv) and spec.argv[0] != sys.executable:
        return dataclasses.replace(spec, argv=(sys.executable, *spec.argv[1:]))
    return spec


Tail = tuple[int, str, int, bytes]
"""What a kept bot wrote to standard error after a game's final state and
before its next game began (or it ended): (tournament, game key, seat,
bytes). Known only after the game's record was returned, it is sent apart
(`send_tails_to`) and added to the stored game (`with_tail`)."""


class _KeptBots:
    """The bot processes this worker keeps alive across games (--reuse).

    Bots loop until their input ends, so after a game's final state a bot
    simply waits for the next game's first state. A bot is replaced when
    the referee says it is not reusable (exited, owes an answer, left
    unread output) and ended at once when it faulted. The kept bots end
    with the worker.

    Each game's record holds each bot's standard error from that game
    only. What a kept bot writes after the final state (the end is news to
    it) has no end of its own: it is read when the bot's next game begins
    (once the bot has read the end and gone idle, `BotProcess.settle`, so
    that its words on the end are not taken for the next game's), or when
    the bot ends, and sent as a `Tail` of the game before.
    """

    def __init__(self) -> None:
        self.procs: dict[tuple[str, tuple[str, ...]], Any] = {}
        self.last: dict[tuple[str, tuple[str, ...]], tuple[int, str, int]] = {}  # a kept bot's last game, its seat
        self.finalizer: Any = None
        self.tails: Any = None  # where tails go (a multiprocessing queue), None: nowhere

    def play(self, specs: Sequence[Any], options: Any, kept: Sequence[bool] | None = None,
             game: tuple[int, str] | None = None) -> Any:
        """Play one game on this worker's kept processes; seats not `kept`
        are the referee's (a process for this game only). A kept bot that
        cannot start is left to the referee too, which forfeits it. `game`
        (tournament, key) is where the tails of this game's kept bots go."""
        from driver.game import Seat, play_game
        from driver.process import BotProcess, BotStartError

        if self.finalizer is None:
            # Before the tails' queue closes (its own finalizer, priority 10), so that the last tails go out.
            self.finalizer = multiprocessing.util.Finalize(self, self.close_all, exitpriority=20)
        kept = [True] * len(specs) if kept is None else list(kept)
        keys = [(s.name, tuple(s.argv)) for s in specs]

        def start(seat: int) -> BotProcess:
            spec = specs[seat]
            proc = BotProcess(options.launch(spec, seat), spec.name, line_limit=options.line_limit,
                              stderr_limit=options.stderr_limit, isolation=options.isolation_for(spec),
                              fence=options.fence(seat))
            self.procs[keys[seat]] = proc
            return proc

        def restart(seat: int) -> BotProcess:  # a kept bot that exited after its last game
            self.retire(keys[seat])
            return start(seat)

        seats: list[Seat] = []
        for seat, (key, spec) in enumerate(zip(keys, specs)):
            if not kept[seat]:
                seats.append(spec)
                continue
            proc = self.procs.get(key)
            if proc is not None and proc.reusable:
                proc.settle()  # done with the last game's end: what it wrote about it is in the pipe
                self.send_tail(key, proc)  # what it wrote since its last game's final state: that game's
            if proc is None or not proc.reusable:
                self.retire(key)
                try:
                    proc = start(seat)
                except BotStartError:
                    seats.append(spec)
                    continue
            seats.append(proc)
        try:
            res = play_game(seats, options, restart=restart)
        except BaseException:
            for key, k in zip(keys, kept):
                if k:
                    self.last.pop(key, None)  # no record: its standard error is nobody's tail
                    self.retire(key)
            raise
        for seat, key in enumerate(keys):
            proc = self.procs.get(key)
            if not kept[seat] or proc is None:
                continue
            proc.stderr.clear()  # this game's is in its record; what comes next is its tail
            proc.stderr_dropped = 0
            if game is not None:
                self.last[key] = (*game, seat)
            if (res.fault is not None and res.fault[0] == seat) or not proc.reusable:
                self.retire(key)
        return res

    def send_tail(self, key: tuple[str, tuple[str, ...]], proc: Any) -> None:
        """Send what `proc` wrote to standard error since its last game's
        record (read to the end of what its pipe holds now) as that game's
        tail, and forget it."""
        data = proc.take_stderr()
        where = self.last.pop(key, None)
        if data and where is not None and self.tails is not None:
            self.tails.put((*where, data))

    def retire(self, key: tuple[str, tuple[str, ...]]) -> None:
        from driver.process import BotGroup

        proc = self.procs.pop(key, None)
        if proc is not None:
            BotGroup([proc]).close(exit_grace=0.05, term_grace=0.2)
            self.send_tail(key, proc)

    def close_all(self) -> None:
        from driver.process import BotGroup

        procs, self.procs = dict(self.procs), {}
        if procs:
            for proc in procs.values():
                proc.settle()  # done with its last game's end, before its input closes
            BotGroup(list(procs.values())).close(exit_grace=0.5, term_grace=0.2)
            for key, proc in procs.items():
                self.send_tail(key, proc)


_kept = _KeptBots()


def send_tails_to(queue: Any) -> None:
    """Send this worker's `Tail`s to `queue` (a multiprocessing queue the
    parent reads: LocalBackend's); without it they are dropped."""
    _kept.tails = queue


def with_tail(stderr: bytes, names: Sequence[str], seat: int, tail: bytes) -> bytes:
    """A stored game's standard error (`stderr_lines`, compressed) with
    `tail` added at the end of seat `seat`'s section, after the line that
    says it came after the final state (its own section in seat order if
    the bot wrote nothing during the game)."""
    from driver.process import END_MARK

    lines = zlib.decompress(stderr).split(b"\n") if stderr else []
    headers = [f"== {name} ==".encode() for name in names]
    starts = [i for i, line in enumerate(lines) if line in headers]
    mine = next((i for i in starts if lines[i] == headers[seat]), None)
    added = tail.rstrip(b"\n").split(b"\n")
    if mine is None:
        later = set(headers[seat + 1:])
        at = next((i for i in starts if lines[i] in later), len(lines))
        lines[at:at] = [headers[seat], END_MARK.rstrip(b"\n"), *added]
    else:
        end = next((i for i in starts if i > mine), len(lines))
        mark = [] if END_MARK.rstrip(b"\n") in lines[mine:end] else [END_MARK.rstrip(b"\n")]
        lines[end:end] = [*mark, *added]
    return compress_lines(lines)


def stderr_lines(names: Sequence[str], stderr: Sequence[bytes]) -> list[bytes]:
    """Each seat's kept standard error, headed by the bot's name: the
    store's format, which the game server's records write too."""
    out = []
    for name, err in zip(names, stderr):
        if err:
            out.append(f"== {name} ==".encode())
            out.append(err.rstrip(b"\n"))
    return out
