"""One server game in its thread: the referee's `play_game` on a mix of our
bot processes and network seats, its live trace, and what spectators may
see of it.

Everything that decides the game is the referee's (`driver.game`): the
engine, the per-move timeouts, the fault rules, the trace. This module
adds three things around it without changing it:

- `ServedGroup`, the referee's `BotGroup` with two hooks: per-seat
  timeouts (people get the time the game's creator chose, bots the
  server's), and a notice each time the referee waits for a round;
- `Withholder`, which keeps a round's trace lines from spectators until
  the next round starts, so that hidden choices (investments, buys) are
  never shown before the round resolves;
- `TraceTap`, the file the referee writes its trace to: each line goes to
  the game's journal on disk (so a crash loses nothing of it) and through
  the withholder to the spectators.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from driver.botspec import BotSpec
from driver.game import GameOptions, GameResult, play_game
from driver.process import BotGroup, BotProcess, BotStartError, Reply, ReplyKind

__all__ = ["ServedGroup", "Withholder", "TraceTap", "SeatRun", "referee_game"]


class ServedGroup(BotGroup):
    """The bots of one server game, with a timeout per seat and a notice
    each time the referee starts waiting for a round's answers."""

    def __init__(
        self,
        bots: Sequence[BotProcess],
        timeouts: Sequence[float],
        on_round: Callable[[list[int], bytes], None] | None = None,
    ) -> None:
        super().__init__(bots)
        self.timeouts = list(timeouts)
        self.on_round = on_round
        self._asked: dict[int, bytes] = {}

    def send(self, seat: int, line: bytes, request: bool = True) -> None:
        if request:
            self._asked[seat] = line
        super().send(seat, line, request)

    def replies(self, seats: Iterable[int], timeout: float) -> Iterator[tuple[int, Reply]]:
        """As `BotGroup.replies`, but each seat waits its own timeout (the
        referee's single `timeout` is replaced by the seat's). The referee
        has sent the round's questions when it calls this, and written
        every line of the rounds before: `on_round` hears it here."""
        start = time.monotonic()
        deadlines = {s: start + self.timeouts[s] for s in seats}
        waiting = sorted(deadlines)
        if self.on_round is not None and waiting:
            self.on_round(waiting, self._asked.get(waiting[0], b""))
        while waiting:
            still = []
            for seat in waiting:
                reply = self.bots[seat].take_reply()
                if reply is None:
                    still.append(seat)
                else:
                    yield seat, reply
            now = time.monotonic()
            waiting = []
            for seat in still:
                if deadlines[seat] <= now:
                    yield seat, Reply(ReplyKind.TIMEOUT, detail=f"no answer within {self.timeouts[seat]:g} s")
                else:
                    waiting.append(seat)
            if not waiting:
                return
            self._poll(min(deadlines[s] for s in waiting) - now)


class Withholder:
    """Trace lines in, the lines spectators may see out.

    The referee writes a round's lines (each question and its answer) as
    the answers arrive, in seat order; the round resolves when all are in,
    and only then does the referee ask the next round. So a round's lines
    are held until the referee waits for the next round (`round_started`) or the game
    ends (`end`): an investment or a buy is never shown while another
    player may still be choosing. Lines of rounds with one question (an
    attacker's card, a defender's card) wait one step too, which costs a
    spectator nothing: they are written only once answered anyway.
    """

    def __init__(self) -> None:
        self.held: list[bytes] = []

    def push(self, line: bytes) -> None:
        self.held.append(line)

    def round_started(self) -> list[bytes]:
        out, self.held = self.held, []
        return out

    def end(self) -> list[bytes]:
        return self.round_started()


class TraceTap:
    """The file-like object the referee writes the trace into."""

    def __init__(self, journal: Path | None, publish: Callable[[list[bytes], list[int], bytes], None]) -> None:
        """`publish(lines, asked, question)`: lines spectators may now see, the
        seats the referee now waits for (none once the game is over), and the
        state sent to the first of them (it holds no hidden choice)."""
        self.publish = publish
        self.withholder = Withholder()
        self._fd: int | None = None
        self.journal = journal
        if journal is not None:
            self._fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def header(self, meta: dict[str, object]) -> None:
        """The journal's first line: what the server needs to record the game
        as aborted if it never finishes (a crash)."""
        self._append(orjson.dumps(meta) + b"\n")

    def write(self, data: bytes) -> int:
        # The referee writes one whole line per call (its trace line and "\n").
        self._append(data)
        for line in data.splitlines():
            self.withholder.push(line)
        return len(data)

    def flush(self) -> None:
        pass

    def round_started(self, asked: list[int], question: bytes) -> None:
        self.publish(self.withholder.round_started(), asked, question)

    def finish(self) -> None:
        self.publish(self.withholder.end(), [], b"")
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _append(self, data: bytes) -> None:
        if self._fd is not None:
            os.write(self._fd, data)  # unbuffered: what is written survives a crash


@dataclass
class SeatRun:
    """One seat as the game thread gets it: a bot of ours to start
    (`spec`), or a network seat already connected (`endpoint`)."""

    name: str
    timeout: float
    spec: BotSpec | None = None
    endpoint: BotProcess | None = None
    stderr: bytes = field(default=b"", repr=False)


def referee_game(
    seats: Sequence[SeatRun],
    options: GameOptions,
    tap: TraceTap,
    on_start: Callable[[], None] | None = None,
) -> GameResult:
    """Start our bots, play the game through the referee, end our bots.

    Network seats are left as they are (the caller releases them). A bot
    of ours that cannot start forfeits, as `play_game` rules it.
    """
    local: list[BotProcess] = []
    members: list[BotProcess] = []
    try:
        for i, run in enumerate(seats):
            if run.endpoint is not None:
                members.append(run.endpoint)
                continue
            assert run.spec is not None
            try:
                proc = BotProcess(run.spec.command(options.max_days), run.name,
                                  line_limit=options.line_limit, stderr_limit=options.stderr_limit)
            except BotStartError as e:
                e.seat = i
                return _unstartable(seats, options, tap, e)
            local.append(proc)
            members.append(proc)
        group = ServedGroup(members, [s.timeout for s in seats], tap.round_started)
        if on_start is not None:
            on_start()
        specs = [s.spec or BotSpec((), s.name) for s in seats]
        return play_game(specs, options, trace_out=tap, group=group)  # type: ignore[arg-type]
    finally:
        if local:
            BotGroup(local).close(exit_grace=0.2, term_grace=0.3)
        tap.finish()


def _unstartable(seats: Sequence[SeatRun], options: GameOptions, tap: TraceTap, err: BotStartError) -> GameResult:
    from protocol.engine import Game

    game = Game(len(seats), base=options.base, max_days=options.max_days)
    game.forfeit(err.seat, str(err.strerror))
    line = orjson.dumps(game.to_wire(), option=orjson.OPT_SORT_KEYS)
    tap.write(line + b"\n")
    return GameResult(None, game.fault, 0, 0, 0.0, [line], [b""] * len(seats))
