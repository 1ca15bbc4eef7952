"""One server game in its thread: the referee's `play_game` on a mix of our
bot processes and network seats, its live trace, and what spectators may
see of it.

Everything that decides the game is the referee's (`driver.game`): the
engine, the per-move timeouts, the fault rules, the trace. This module
adds three things around it without changing it:

- the referee's `on_round` notice each time it waits for a round (each
  seat's time control is the referee's own, `seat_options`: people get
  the time the game's creator chose, bots the server's);
- `Withholder`, which keeps a round's trace lines from spectators until
  the next round starts, so that hidden choices (investments, buys) are
  never shown before the round resolves;
- `TraceTap`, the file the referee writes its trace to: each line goes to
  the game's journal on disk (so a crash loses nothing of it but the
  round being asked) and through the withholder to the spectators.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from driver.botspec import BotOptions, BotSpec
from driver.game import GameOptions, GameResult, Seat, play_game
from driver.process import PipeEndpoint
from protocol.exactjson import dumps

__all__ = ["Withholder", "TraceTap", "SeatRun", "seat_options", "referee_game"]


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
        self._unwritten = bytearray()  # journal lines of the round just resolved: one write per round
        self.journal = journal
        if journal is not None:
            from common.safefile import open_fd

            self._fd = open_fd(journal, append=True, truncate=False, mode=0o600)  # never through a link laid for it

    def header(self, meta: dict[str, object]) -> None:
        """The journal's first line: what the server needs to record the game
        as aborted if it never finishes (a crash)."""
        self._append(dumps(meta) + b"\n")

    def write(self, data: bytes) -> int:
        # The referee writes one whole line per call (its trace line and "\n"),
        # a resolved round's lines at once, then asks the next round (`round_started`).
        if self._fd is not None:
            self._unwritten += data
        for line in data.splitlines():
            self.withholder.push(line)
        return len(data)

    def flush(self) -> None:
        """Write the journal's pending lines (the referee flushes at the game's end)."""
        if self._unwritten:
            self._append(bytes(self._unwritten))
            self._unwritten.clear()

    def round_started(self, asked: list[int], question: bytes) -> None:
        self.flush()  # the rounds before are resolved: on disk before anyone waits on the next
        self.publish(self.withholder.round_started(), asked, question)

    def finish(self) -> None:
        self.flush()
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
    (`spec`), or a network seat already connected (`endpoint`), and the
    seconds it has per move."""

    name: str
    timeout: float
    spec: BotSpec | None = None
    endpoint: PipeEndpoint | None = None
    stderr: bytes = field(default=b"", repr=False)


def seat_options(seats: Sequence[SeatRun], options: GameOptions) -> GameOptions:
    """`options` with each seat's time control: its own per-move timeout;
    no start-up allowance for a network seat (nothing starts here: its
    client is connected already, a person's clock is the one the game's
    creator set), the referee's for a bot started here."""
    own = [
        BotOptions(timeout=run.timeout, startup=0.0 if run.endpoint is not None else None).over(
            options.seats[i] if i < len(options.seats) else BotOptions()
        )
        for i, run in enumerate(seats)
    ]
    return replace(options, seats=own)


def referee_game(seats: Sequence[SeatRun], options: GameOptions, tap: TraceTap) -> GameResult:
    """Play the game through the referee: our bots started as `driver run`
    starts them (each seat's command, seed, isolation: `BotSpec` seats of
    `driver.game.play_game`), network seats taken as they are, and our
    bots ended after.

    Network seats are left open (the caller releases them). A bot of ours
    that cannot start forfeits, as `play_game` rules it.
    """
    options = seat_options(seats, options)
    played: list[Seat] = []
    for run in seats:
        seat = run.endpoint if run.endpoint is not None else run.spec
        if seat is None:
            raise ValueError(f"seat {run.name!r} has neither a bot nor a connection")
        played.append(seat)
    try:
        return play_game(played, options, trace_out=tap, on_round=tap.round_started)
    finally:
        tap.finish()
