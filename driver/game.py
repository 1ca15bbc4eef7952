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

A game may start from an opening (moves the referee plays for the bots
before handing over; they are traced as if the bots had answered them,
so the trace is a whole game in the original's format). Each answer's
time is measured from the moment its state was sent; a bot's first
answer after its process started gets a start-up allowance on top of
its per-move timeout (see `driver.botspec.BotOptions`).

The inner loop works on the engine's dicts and bytes only (pydantic
stays in `protocol.wire`): a round costs one `to_wire`, two small
encodings and a few system calls. Encoding and decoding go through
`protocol.exactjson` (orjson, with an exact fallback): numbers are exact
integers of any size, as in the original's traces.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from driver.botspec import BotOptions, BotSpec
from driver.isolation import Fence
from driver.process import BotGroup, BotStartError, LineChannel, PipeEndpoint, Reply, ReplyKind
from driver.signals import stop_reason
from protocol.engine import DEFENDING, END, Game, IllegalMove, move_from_wire
from protocol.exactjson import DEFAULT_MAX_DIGITS, JSONError, NotJSON, digits_of, dumps, loads
from protocol.openings import play_opening
from common.settings import LINE_LIMIT, STDERR_LIMIT, STARTUP, GameSettings

__all__ = [
    "GameOptions",
    "GameResult",
    "Seat",
    "OnRound",
    "STARTUP",
    "play_game",
    "start_group",
    "seat_seed",
    "state_lines",
    "interpret_reply",
    "game_days",
    "header_record",
    "is_meta",
    "game_lines",
]

class TraceSink(Protocol):
    """Where the referee writes its trace, a round at a time, once the round
    is resolved: a binary file, or what shows it to a person (`driver.play`)."""

    def write(self, data: bytes, /) -> int | None: ...

    def flush(self) -> None: ...

_SNIPPET = 200  # characters of a bad answer kept in the trace and the reason


@dataclass(frozen=True)
class GameOptions(GameSettings):
    """How to play one game: the command's `GameSettings` (card set, day
    limit, `fair`, time controls, isolation, variables; see there) and
    what is the game's own.

    `line_limit` caps an answer line and `stderr_limit` the standard error
    kept per bot (bytes). Every answer is due `timeout + margin` seconds
    after its state was sent, the first answer of a freshly started bot
    process `startup` seconds later still; `seats` overrides them per seat
    (`BotOptions`). `opening`: wire moves the referee plays first (see
    `protocol.openings`). `seed`: the game's seed; each seat's bot of ours
    (or one whose BotOptions say `seed=on`) is started with `--seed` and a
    seed derived from it and the seat (`seat_seed`).
    """

    line_limit: int = LINE_LIMIT
    stderr_limit: int = STDERR_LIMIT
    seats: Sequence[BotOptions] = ()
    opening: Sequence[int | str] | None = None
    seed: int | None = None

    @classmethod
    def of(cls, settings: GameSettings, **game: Any) -> GameOptions:
        """A game under `settings`, with the game's own fields (`seats`, `opening`, `seed`, the limits) in `game`."""
        return cls(**vars(settings.settings()), **game)

    def seat_options(self, seat: int) -> BotOptions:
        """Seat `seat`'s settings, every field filled in."""
        own = self.seats[seat] if seat < len(self.seats) else BotOptions()
        return own.over(BotOptions(self.timeout, self.startup, self.margin, None, env=tuple(self.bot_env)))

    def fence(self, seat: int) -> Fence:
        """Seat `seat`'s limits and variables (`driver.isolation.Fence`)."""
        return self.seat_options(seat).fence()

    def isolation_for(self, bot: BotSpec) -> str:
        """How `bot`'s process is fenced off: `isolation`, unless its kind
        decides (`BotKind.isolation`: a relay to a bot elsewhere must reach
        the network)."""
        return bot.kind.isolation if bot.kind is not None else self.isolation

    def command(self, bot: BotSpec, seat: int) -> tuple[str, ...]:
        """How to start `bot` at `seat`: with the day limit and, if it takes
        one, its seed."""
        wants = self.seat_options(seat).seed
        give = self.seed is not None and (bot.ours if wants is None else wants)
        return bot.command(self.max_days, seat_seed(self.seed, seat) if give else None)

    def launch(self, bot: BotSpec, seat: int) -> tuple[str, ...]:
        """The argv that starts `bot` at `seat` now (`BotSpec.launch`: a bot of
        a registered kind may be waited for, so before the game's clock)."""
        return bot.launch(self.command(bot, seat))


def game_days(game: Game) -> int:
    """How long a game lasted, in the one sense every page uses: the day of
    the game it ended on (a game won in day 4's attack lasted 4 days, a
    draw at a 100-day limit 100). The engine's `days_played` counts
    completed days, one fewer unless the day limit ended the game."""
    return min(game.days_played + 1, game.max_days) if game.max_days > 0 else game.days_played


def seat_seed(seed: int | None, seat: int) -> int | None:
    """The seed handed to seat `seat`'s bot in a game of seed `seed`: one
    per seat, so two copies of a bot do not mirror each other."""
    if seed is None:
        return None
    digest = hashlib.blake2b(f"{seed}/{seat}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 33  # 31 bits: any bot's int parser takes it


@dataclass
class GameResult:
    """The outcome. `trace` holds the trace lines as written, without newlines;
    `stderr` each seat's kept (bounded) standard error; `answer_times` the
    time each answer took (the trace format itself is the original's);
    `isolation` says for each seat how its bot was isolated (empty if it
    never started)."""

    winner: int | None
    fault: tuple[int, str] | None
    days: int
    """The day of the game it ended on (`game_days`), as the replay, the
    report and the server count it."""
    moves: int
    duration: float
    trace: list[bytes] = field(default_factory=list)
    stderr: list[bytes] = field(default_factory=list)
    answer_times: list[float | None] = field(default_factory=list)
    """Seconds each answer line of the trace took, in trace order: from the
    state's sending to the answer's arrival (a timeout counts its limit);
    None for the opening's moves, which the referee played."""
    isolation: list[str] = field(default_factory=list)
    answer_cpu: list[float | None] = field(default_factory=list)
    """CPU seconds each answer of `answer_times` cost the bot (its whole
    process tree, from its previous answer of the game, or the state's
    sending for its first, to the answer), None where not known (the
    opening, a network seat, a bot gone)."""


Seat = BotSpec | LineChannel
"""What plays at one seat of a game: a bot that the referee starts for the
game and ends after it (`BotSpec`), or a channel that someone else started
and ends (`LineChannel`: a bot process kept across games, a network seat,
a person's seat)."""

OnRound = Callable[[list[int], bytes], None]
"""`on_round(seats, question)`: the referee has sent a round's states to
`seats` (in seat order) and written every line of the rounds before; the
state sent to the first of them (`question`, which shows no hidden choice)."""


def start_group(seats: Sequence[Seat], options: GameOptions,
                restart: Callable[[int], LineChannel] | None = None) -> BotGroup:
    """Start a game's bots as the referee does: each `BotSpec` seat's
    command (day limit, seed), under its isolation
    (`GameOptions.isolation_for`) and `options`' limits; a `LineChannel`
    seat takes its place as it is. `restart`: see `BotGroup`. Raises
    BotStartError (its `seat` set) if one cannot start, after stopping
    those it started."""
    return BotGroup.spawn(
        [
            seat if isinstance(seat, LineChannel)
            else (options.launch(seat, i), seat.name, options.isolation_for(seat), options.fence(i))
            for i, seat in enumerate(seats)
        ],
        isolation=options.isolation,
        line_limit=options.line_limit,
        stderr_limit=options.stderr_limit,
        restart=restart,
    )


def play_game(
    seats: Sequence[Seat],
    options: GameOptions,
    trace_out: TraceSink | None = None,
    *,
    restart: Callable[[int], LineChannel] | None = None,
    on_round: OnRound | None = None,
) -> GameResult:
    """Play one game (2 to 4 seats, in seat order).

    A `BotSpec` seat is the referee's: started when the game starts (one
    that cannot start forfeits) and, with everything it started, gone
    when this returns. A `LineChannel` seat is its owner's: the game is
    played on it as it is and it is let go of, never ended, so that it
    can play on (its owner ends it; `LineChannel.reusable` says whether it
    may start another game). A channel that has finished a game before
    and closes before its first answer of this one is not at fault (a
    bot may exit after a game's end): `restart(seat)`, its owner's,
    replaces it (see `driver.process.BotGroup`); without `restart` it
    forfeits. `on_round`: told each time the referee waits for a round.

    If it is cut off (Ctrl-C, SIGTERM, an error of its own) before the
    game is over, the trace ends with `{"meta":"aborted","reason":...}`.
    Trace lines go out one resolved round at a time, so that a trace file
    never shows one player's hidden choice while another is still asked.
    A `PipeEndpoint` seat whose holder `abandoned` the game ends it that
    way too: the referee raises what it was given.
    """
    if not 2 <= len(seats) <= 4:
        raise ValueError(f"a game needs 2 to 4 bots, not {len(seats)}")
    started = time.monotonic()
    game = Game(len(seats), base=options.base, max_days=options.max_days)
    opening = list(options.opening or ())
    if opening:
        play_opening(game.copy(), opening)  # OpeningError (a ValueError) before any bot starts
    trace = _Trace(trace_out)
    names = [seat.name for seat in seats]
    ours = [i for i, seat in enumerate(seats) if not isinstance(seat, LineChannel)]
    try:
        group = start_group(seats, options, restart)
    except BotStartError as e:
        game.forfeit(e.seat, str(e.strerror))
        trace.emit(dumps(header_record(names)))
        trace.end(dumps(game.to_wire()))
        trace.flush()
        return GameResult(None, game.fault, 0, 0, time.monotonic() - started, trace.lines, [b""] * len(seats))
    except BaseException as e:  # stopped while starting the bots (they are gone)
        trace.emit(dumps(header_record(names)))
        trace.abort(stop_reason(e))
        trace.flush()
        raise
    moves = 0
    try:
        trace.emit(dumps(header_record(names, group.bots)))
        trace.commit()
        moves += _play_opening(game, opening, trace, options)
        ask = _asker(group, options, on_round)
        while not game.is_over:
            moves += _play_round(game, ask, trace, options)
            trace.commit()
        final = game.to_wire()
        trace.end(dumps(final))
        lines = state_lines(final, range(len(seats)))
        for seat, line in lines.items():
            group.bots[seat].mark_end()
            group.send(seat, line, request=False)
    except BaseException as e:
        if not trace.ended:
            trace.abort(stop_reason(e))
        raise
    finally:
        try:
            _let_go(group, ours)
        finally:
            trace.flush()  # may raise (a closed pipe): the bots are gone by then
    return GameResult(
        winner=game.winner if game.phase == END else None,
        fault=game.fault,
        days=game_days(game),
        moves=moves,
        duration=time.monotonic() - started,
        trace=trace.lines,
        stderr=[b.kept_stderr() for b in group.bots],
        answer_times=trace.times,
        isolation=[b.isolation for b in group.bots],
        answer_cpu=trace.cpu,
    )


def _let_go(group: BotGroup, ours: Sequence[int]) -> None:
    """End the bots the referee started (seats `ours`) and let go of the
    others', which their owners end."""
    if len(ours) == len(group.bots):
        group.close()
        return
    group.detach()
    if ours:
        BotGroup([group.bots[i] for i in ours]).close()


def header_record(names: Sequence[str], bots: Sequence[LineChannel] | None = None) -> dict[str, Any]:
    """The trace's first record, `{"meta": "header", ...}`: who sits where
    ("seats": so a piped trace keeps the bots' names, `driver run A B |
    driver view -`) and, once the bots run, per seat how its bot is
    isolated, its limits (and how they are enforced) and the names, never
    the values, of its environment variables. A reader tells it from a
    state by its "meta" key and skips what it does not know; the original's
    tools skip lines that are not states."""
    record: dict[str, Any] = {"meta": "header", "seats": [str(n) for n in names]}
    if bots is not None:
        parts = [b.header() for b in bots]
        record.update({key: [part[key] for part in parts] for key in ("isolation", "limits", "env")})
    return record


def game_lines(trace: Sequence[bytes]) -> list[bytes]:
    """A trace's states and answers as the original writes them: without
    its header (the first line) and its aborted record (the last line),
    what compares with the original's traces. Only those positions are
    looked at: a bot's answer may look like a record and is still an answer."""
    lines = list(trace)
    if lines and is_meta(lines[0]):
        lines = lines[1:]
    if lines and is_meta(lines[-1]):
        lines = lines[:-1]
    return lines


def is_meta(line: bytes) -> bool:
    """Whether a trace line is one of the referee's own records (the header,
    an aborted mark), not a state or an answer of the game. Only meaningful
    for a trace's first and last lines (`game_lines`)."""
    if not line.startswith(b'{"meta"') and not (line.startswith(b"{") and b'"meta"' in line):
        return False
    try:
        value = loads(line)
    except (JSONError, NotJSON):
        return False
    return isinstance(value, dict) and "meta" in value and "phase" not in value


class _Trace:
    """The trace lines, kept, and (if asked) written out a round at a time."""

    def __init__(self, out: TraceSink | None) -> None:
        self.out = out
        self.lines: list[bytes] = []
        self.times: list[float | None] = []  # one per answer line
        self.cpu: list[float | None] = []  # one per answer line: CPU seconds, where known
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
        self.emit(dumps({"meta": "aborted", "reason": reason}))
        self.ended = True
        try:
            self.commit()
        except OSError:  # the trace's reader is gone: the lines are still in `lines`
            pass

    def flush(self) -> None:
        self.commit()
        if self.out is not None:
            self.out.flush()


Ask = Callable[[list[int], dict[int, bytes]], Iterator[tuple[int, Reply, float | None, float | None]]]
"""Sends a round's states to `seats` and yields (seat, reply, seconds it
took, CPU seconds it cost) as the replies come; it may stop before every
seat has answered."""


def _asker(group: BotGroup, options: GameOptions, on_round: OnRound | None = None) -> Ask:
    """Asks the bots, each under its own time limit.

    A bot's CPU is read once per answer, when the answer is in: that
    reading is where the bot's next answer starts counting (`marks`), so
    an answer costs the CPU its bot used since its previous answer of
    this game, or since its state was sent for its first. Between two
    answers a bot waits for its next state, so this is the answer's CPU
    at half the cost of reading before each state too; a bot that thinks
    on while it waits is charged for it at its next answer."""
    marks: dict[LineChannel, float | None] = {}  # CPU reading at each bot's last answer
    seat_options = [options.seat_options(seat) for seat in range(len(group.bots))]  # fixed for the game

    def ask(seats: list[int], lines: dict[int, bytes]) -> Iterator[tuple[int, Reply, float | None, float | None]]:
        limits: dict[int, float] = {}
        startup: dict[int, float] = {}
        budgets: dict[int, float] = {}
        before: dict[int, tuple[LineChannel, float | None]] = {}
        for seat in seats:
            own = seat_options[seat]
            assert own.timeout is not None and own.margin is not None and own.startup is not None  # all filled in
            bot = group.bots[seat]
            first = bot.answered == 0
            startup[seat] = own.startup  # also for a bot restarted inside replies()
            limits[seat] = own.timeout + own.margin + (own.startup if first else 0.0)
            if own.cpu is not None:
                budgets[seat] = own.cpu + (own.startup if first else 0.0)
            before[seat] = (bot, marks[bot] if bot in marks else bot.cpu_seconds())
        sent = time.monotonic()
        for seat in seats:
            group.send(seat, lines[seat])
        if on_round is not None:
            on_round(sorted(seats), lines[min(seats)])
        for seat, reply in group.replies(seats, limits, startup):
            took = time.monotonic() - sent
            bot = group.bots[seat]
            if reply.kind is not ReplyKind.LINE and isinstance(bot, PipeEndpoint) and bot.abandoned is not None:
                raise bot.abandoned
            marks[bot] = now = bot.cpu_seconds()
            cpu = _cpu_used(now, bot, *before[seat])
            if reply.kind is ReplyKind.TIMEOUT:
                # a network seat's first answer is like any other: nothing started
                first = bot.answered == 0 and not isinstance(bot, PipeEndpoint)
                reply = Reply(ReplyKind.TIMEOUT, detail=_timeout_detail(seat_options[seat], limits[seat], first))
                took = limits[seat]
            elif reply.kind is ReplyKind.LINE and seat in budgets and cpu is not None and cpu > budgets[seat]:
                reply = Reply(ReplyKind.TIMEOUT, detail=f"used {cpu:.2f} s of CPU, over its budget of {budgets[seat]:g} s")
            yield seat, reply, took, cpu

    return ask


def _cpu_used(now: float | None, bot: LineChannel, asked: LineChannel, at: float | None) -> float | None:
    """CPU seconds `bot` (at `now`) spent on an answer: since `at`, or all
    of it for a process started (restarted) since; None where not known."""
    if now is None:
        return None
    if bot is not asked:
        return round(now, 3)
    return None if at is None else round(max(now - at, 0.0), 3)


def _timeout_detail(own: BotOptions, limit: float, first: bool) -> str:
    if not first:
        return f"no answer within {limit:g} s"
    return (f"no first answer within {limit:g} s (a {own.startup:g} s start-up allowance included):"
            " did the bot flush its output?")


def _play_opening(game: Game, opening: Sequence[int | str], trace: _Trace, options: GameOptions) -> int:
    """Play the opening's moves through the round loop, as the first pending
    seats' answers, so that the trace holds them exactly as if the bots had
    answered (the moves were checked with `protocol.openings.play_opening`)."""
    moves = iter(opening)
    left = len(opening)

    def ask(seats: list[int], lines: dict[int, bytes]) -> Iterator[tuple[int, Reply, float | None, float | None]]:
        for seat in seats:
            move = next(moves, None)
            if move is None:
                return
            yield seat, Reply(ReplyKind.LINE, dumps([move])), None, None

    played = 0
    while played < left:
        played += _play_round(game, ask, trace, options)
    return played


def _play_round(game: Game, ask: Ask, trace: _Trace, options: GameOptions) -> int:
    """Ask every seat whose state does not depend on another's answer, apply
    the answers in seat order, and return how many moves were applied."""
    if game.phase == DEFENDING and options.fair:
        seats = _fair_defenders(game)
    else:
        seats = list(game.pending())
    if not seats:  # the engine contract says this cannot happen: never spin on it
        raise RuntimeError(f"engine waits for nobody in phase {game.phase} of a game not over")
    lines = state_lines(game.to_wire(), seats)
    arrived: dict[int, tuple[Reply, float | None, float | None]] = {}
    applied = 0
    for seat, reply, took, cpu in ask(seats, lines):
        arrived[seat] = (reply, took, cpu)
        while applied < len(seats) and seats[applied] in arrived:
            turn = seats[applied]
            trace.emit(lines[turn])
            turn_reply, turn_took, turn_cpu = arrived[turn]
            answer, move, reason = interpret_reply(game, turn_reply)
            if answer is not None:
                trace.emit(answer)
                trace.times.append(None if turn_took is None else round(turn_took, 6))
                trace.cpu.append(turn_cpu)
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
    head = dumps(state)[:-1]
    tail = dumps({"players": players, "shop": shop})[1:]
    state["players"] = players
    state["shop"] = shop
    return {seat: b'%s,"player":%d,%s' % (head, seat, tail) for seat in seats}


def interpret_reply(game: Game, reply: Reply) -> tuple[bytes | None, int, str | None]:
    """(trace line of the answer or None, engine move, fault reason or None)."""
    kind = reply.kind
    if kind is ReplyKind.LINE:
        try:
            value = loads(reply.line, max_digits=_digit_limit(game, reply.line))
        except NotJSON:
            text = _snippet(reply.line)
            return dumps(text), 0, f"answer is not JSON: {text}"
        except JSONError as e:  # valid JSON beyond a limit: say which
            text = _snippet(reply.line)
            return dumps(text), 0, f"answer {e.problem}: {text}"
        answer = dumps(value)  # exact: [99999999999999999999] stays that
        if type(value) is not list or len(value) != 1:
            return answer, 0, f"move is not in a one-element array: {_snippet(answer)}"
        try:
            return answer, move_from_wire(game, value[0]), None
        except IllegalMove as e:
            return answer, 0, _reason(e)
    if kind is ReplyKind.TIMEOUT:
        return b'"timeout"', 0, f"timeout: {reply.detail}"
    if kind is ReplyKind.TOO_LONG:
        return dumps(_snippet(reply.line)), 0, reply.detail
    return None, 0, f"bot {reply.detail} instead of answering"


def _digit_limit(game: Game, line: bytes) -> int:
    """The longest integer an answer may hold: Python's default limit, or more
    if a purse is longer, so that every legal investment is read (a longer
    number cannot be a legal move)."""
    if len(line) <= DEFAULT_MAX_DIGITS:
        return DEFAULT_MAX_DIGITS
    return max(DEFAULT_MAX_DIGITS, max(digits_of(game.coins(p)) for p in range(game.n_players)))


def _reason(e: ValueError) -> str:
    return getattr(e, "reason", None) or str(e)


def _snippet(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return text if len(text) <= _SNIPPET else text[:_SNIPPET] + "..."
