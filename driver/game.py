"""One refereed game between bot processes, and its trace.

The engine decides what is legal and who must answer; this module only
moves bytes between it and the bots. Hidden simultaneous choices
(investments, buys) go out to every pending bot at once and the answers
are awaited together, each under its own timeout, so a game lasts as
long as its slowest thinker rather than the sum of all of them.
Answers are then applied, and the trace written, in seat order, exactly
as the original driver (which asks one player at a time) would have:
whoever is first in seat order to misbehave forfeits, even if a later
seat misbehaved sooner.

The inner loop works on the engine's dicts and orjson bytes only
(pydantic stays in `protocol.wire`): a round costs one `to_wire`, two
small encodings and a few system calls.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import orjson

from driver.botspec import BotSpec
from driver.process import LINE_LIMIT, STDERR_LIMIT, BotGroup, BotStartError, Reply, ReplyKind
from driver.signals import stop_reason
from protocol.engine import DEFENDING, END, Game, IllegalMove, move_from_wire

__all__ = ["GameOptions", "GameResult", "play_game", "state_lines", "interpret_reply"]

_SORTED = orjson.OPT_SORT_KEYS
_SNIPPET = 200  # characters of a bad answer kept in the trace and the reason


@dataclass
class GameOptions:
    """How to play: card set, day limit, per-move timeout (seconds), and
    `fair`, which hides earlier defenders' choices from later ones (the
    original shows them; traces differ from the original's with it).
    `line_limit` caps an answer line and `stderr_limit` the standard error
    kept per bot (bytes). `isolation` is how bots are fenced off from the
    referee and each other: "auto", "namespaces" or "none" (see
    driver.isolation)."""

    base: bool = False
    max_days: int = 100
    timeout: float = 10.0
    fair: bool = False
    line_limit: int = LINE_LIMIT
    stderr_limit: int = STDERR_LIMIT
    isolation: str = "auto"


@dataclass
class GameResult:
    """The outcome. `trace` holds the trace lines as written, without newlines;
    `stderr` each seat's kept (bounded) standard error; `isolation` says for
    each seat how its bot was isolated (empty if it never started)."""

    winner: int | None
    fault: tuple[int, str] | None
    days: int
    moves: int
    duration: float
    trace: list[bytes] = field(default_factory=list)
    stderr: list[bytes] = field(default_factory=list)
    isolation: list[str] = field(default_factory=list)


def play_game(
    bots: Sequence[BotSpec],
    options: GameOptions,
    trace_out: BinaryIO | None = None,
    group: BotGroup | None = None,
) -> GameResult:
    """Play one game between bot processes (2 to 4 BotSpecs, seat order).

    Every bot process, and everything it started, is gone when this
    returns; unless `group` is given: then the game is played on those
    running bots (one per seat) and the group is detached, not closed, so
    that they can play on (replace those no longer `reusable`; `group.bots`
    may hold processes restarted during the game).

    If it is cut off (Ctrl-C, SIGTERM, an error of its own) before the
    game is over, the trace ends with `{"meta":"aborted","reason":...}`.
    Trace lines go out one resolved round at a time, so that a trace file
    never shows one player's hidden choice while another is still asked.
    """
    if not 2 <= len(bots) <= 4:
        raise ValueError(f"a game needs 2 to 4 bots, not {len(bots)}")
    if group is not None and len(group.bots) != len(bots):
        raise ValueError(f"{len(bots)} bots but a group of {len(group.bots)} processes")
    started = time.monotonic()
    game = Game(len(bots), base=options.base, max_days=options.max_days)
    trace = _Trace(trace_out)
    keep = group is not None
    try:
        if group is None:
            group = BotGroup.spawn(
                [(b.command(options.max_days), b.name) for b in bots],
                isolation=options.isolation,
                line_limit=options.line_limit,
                stderr_limit=options.stderr_limit,
            )
    except BotStartError as e:
        game.forfeit(e.seat, str(e.strerror))
        trace.end(orjson.dumps(game.to_wire(), option=_SORTED))
        trace.flush()
        return GameResult(None, game.fault, 0, 0, time.monotonic() - started, trace.lines, [b""] * len(bots))
    except BaseException as e:  # stopped while starting the bots (they are gone)
        trace.abort(stop_reason(e))
        trace.flush()
        raise
    moves = 0
    try:
        while not game.is_over:
            moves += _play_round(game, group, trace, options)
            trace.commit()
        final = game.to_wire()
        trace.end(orjson.dumps(final, option=_SORTED))
        lines = state_lines(final, range(len(bots)))
        for seat, line in lines.items():
            group.send(seat, line, request=False)
    except BaseException as e:
        if not trace.ended:
            trace.abort(stop_reason(e))
        raise
    finally:
        try:
            group.detach() if keep else group.close()
        finally:
            trace.flush()  # may raise (a closed pipe): the bots are gone by then
    return GameResult(
        winner=game.winner if game.phase == END else None,
        fault=game.fault,
        days=game.days_played,
        moves=moves,
        duration=time.monotonic() - started,
        trace=trace.lines,
        stderr=[b.kept_stderr() for b in group.bots],
        isolation=[b.isolation for b in group.bots],
    )


class _Trace:
    """The trace lines, kept, and (if asked) written out a round at a time."""

    def __init__(self, out: BinaryIO | None) -> None:
        self.out = out
        self.lines: list[bytes] = []
        self._written = 0
        self.ended = False  # the final state, or an aborted record, is in

    def emit(self, line: bytes) -> None:
        self.lines.append(line)

    def commit(self) -> None:
        """Write out the lines emitted so far: call once a round is resolved."""
        while self._written < len(self.lines):
            if self.out is not None:
                self.out.write(self.lines[self._written] + b"\n")
            self._written += 1

    def end(self, final_state: bytes) -> None:
        """The final (end or fault) state: the trace is complete."""
        self.emit(final_state)
        self.ended = True
        self.commit()

    def abort(self, reason: str) -> None:
        """End an unfinished trace with the record saying why (see docs/protocol.md)."""
        self.emit(orjson.dumps({"meta": "aborted", "reason": reason}, option=_SORTED))
        self.ended = True
        try:
            self.commit()
        except OSError:  # the trace's reader is gone: the lines are still in `lines`
            pass

    def flush(self) -> None:
        self.commit()
        if self.out is not None:
            self.out.flush()


def _play_round(game: Game, group: BotGroup, trace: _Trace, options: GameOptions) -> int:
    """Ask every seat whose state does not depend on another's answer, apply
    the answers in seat order, and return how many moves were applied."""
    if game.phase == DEFENDING and options.fair:
        seats = _fair_defenders(game)
    else:
        seats = list(game.pending())
    if not seats:  # the engine contract says this cannot happen: never spin on it
        raise RuntimeError(f"engine waits for nobody in phase {game.phase} of a game not over")
    lines = state_lines(game.to_wire(), seats)
    for seat in seats:
        group.send(seat, lines[seat])
    arrived: dict[int, Reply] = {}
    applied = 0
    for seat, reply in group.replies(seats, options.timeout):
        arrived[seat] = reply
        while applied < len(seats) and seats[applied] in arrived:
            turn = seats[applied]
            trace.emit(lines[turn])
            answer, move, reason = interpret_reply(game, arrived[turn])
            if answer is not None:
                trace.emit(answer)
            if reason is None:
                try:
                    game.play(turn, move)
                except IllegalMove as e:
                    reason = _reason(e)
            if reason is not None:
                game.forfeit(turn, reason)
                return applied
            applied += 1
        if applied == len(seats):
            break
    return applied


def _fair_defenders(game: Game) -> list[int]:
    """Everyone who will be asked to defend against the current attack, found
    on a copy of the game (no defender's choice changes who else may defend)."""
    probe = game.copy()
    seats = []
    while probe.phase == DEFENDING:
        seat = probe.pending()[0]
        seats.append(seat)
        probe.play(seat, probe.legal_moves(seat)[0])
    return seats


def state_lines(state: dict[str, Any], seats: Sequence[int] | range) -> dict[int, bytes]:
    """The state encoded once, with each seat's `"player"` spliced in where
    sorted keys put it (between "phase" and "players")."""
    players = state.pop("players")
    shop = state.pop("shop")
    head = orjson.dumps(state, option=_SORTED)[:-1]
    tail = orjson.dumps({"players": players, "shop": shop}, option=_SORTED)[1:]
    state["players"] = players
    state["shop"] = shop
    return {seat: b'%s,"player":%d,%s' % (head, seat, tail) for seat in seats}


def interpret_reply(game: Game, reply: Reply) -> tuple[bytes | None, int, str | None]:
    """(trace line of the answer or None, engine move, fault reason or None)."""
    kind = reply.kind
    if kind is ReplyKind.LINE:
        try:
            value = orjson.loads(reply.line)
        except orjson.JSONDecodeError:
            text = _snippet(reply.line)
            return orjson.dumps(text), 0, f"answer is not JSON: {text}"
        answer = orjson.dumps(value, option=_SORTED)
        if type(value) is not list or len(value) != 1:
            return answer, 0, f"move is not in a one-element array: {_snippet(answer)}"
        try:
            return answer, move_from_wire(game, value[0]), None
        except IllegalMove as e:
            return answer, 0, _reason(e)
    if kind is ReplyKind.TIMEOUT:
        return b'"timeout"', 0, f"timeout: {reply.detail}"
    if kind is ReplyKind.TOO_LONG:
        return orjson.dumps(_snippet(reply.line)), 0, reply.detail
    return None, 0, f"bot {reply.detail} instead of answering"


def _reason(e: ValueError) -> str:
    return getattr(e, "reason", None) or str(e)


def _snippet(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return text if len(text) <= _SNIPPET else text[:_SNIPPET] + "..."
