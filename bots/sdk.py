"""The bot SDK: turn a `decide(game, me) -> move` function into a bot program.

A bot is a process that reads one JSON state per line on stdin and, when
the state asks it for a move, writes back a one-element JSON array. This
module does that loop once for every Python bot, so a bot's own file
holds only its policy:

    from bots.sdk import run

    def decide(game, me):
        return game.legal_moves(me)[0]

    if __name__ == "__main__":
        run(decide)

The wire does not say how many days have been played nor after how many
the game stops, which a bot needs to see the horizon: the SDK counts day
changes across the messages of a game (resetting the count at each
game's end, so one process can play any number of games in a row) and
takes `max_days` from the bot's `--max-days` option (default 100, the
drivers' default).

Numbers on the wire are exact integers of any size (Magic Bean Stock
grows purses past 2**64 in long games): states are read, and moves
written, with `protocol.exactjson`, and a state is refused only if it is
not a state, never for the size of its numbers.

Start-up time is part of every game a bot plays, so this module imports
only the engine and the standard library's json (no pydantic, no numpy,
not even orjson, whose import alone took longer than a bare Python
bot's whole start-up): Python's json reads integers exactly; the exact
JSON pair (`protocol.exactjson`) is loaded only for what json refuses,
an integer past Python's 4300-digit limit or a message that is not JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from common.defaults import MAX_DAYS
from protocol.engine import Game, move_to_wire

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a bot's start-up)
if TYPE_CHECKING:
    from typing import Any

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any, BinaryIO

Decide = Callable[[Game, int], int]
"""Chooses the engine move (int; a card id or PASS when buying) of player `me`."""

GameHook = Callable[[Game, int], None]
"""Called with the game and the bot's seat at a game's first or final state."""

_FINAL_PHASES = frozenset({"end", "fault"})


class BadMessage(ValueError):
    """A line from the driver that is not a state this SDK can answer."""


class DayCounter:
    """Counts completed days from the day numbers (1, 2, 3, 1, ...) seen in
    successive states of one game.

    Every player still in is asked to invest every day, so a bot sees each
    day at least once and no change of day can be missed.
    """

    def __init__(self) -> None:
        self.days_played = 0
        self._last_day: int | None = None

    def see(self, day: int) -> int:
        """Record a state's day number; return the days completed before it."""
        if self._last_day is None:
            self.days_played = day - 1
        elif day != self._last_day:
            self.days_played += (day - self._last_day) % 3
        self._last_day = day
        return self.days_played

    def reset(self) -> None:
        """Forget the game: the next state starts a new one."""
        self.days_played = 0
        self._last_day = None


class Session:
    """One bot's conversation with a driver, across any number of games."""

    def __init__(
        self,
        decide: Decide,
        on_game_start: GameHook | None = None,
        on_game_end: GameHook | None = None,
        max_days: int = MAX_DAYS,
    ) -> None:
        self.decide = decide
        self.max_days = max_days
        self.on_game_start = on_game_start
        self.on_game_end = on_game_end
        self.days = DayCounter()
        self.in_game = False
        self.games_finished = 0

    def answer(self, line: bytes) -> bytes | None:
        """The reply line to one message from the driver, or None when the
        message asks for nothing (the end of a game). Raises BadMessage."""
        state, me = _parse_state(line)
        if state["phase"]["name"] in _FINAL_PHASES:
            self._finish(state, me)
            return None
        if me is None:
            raise BadMessage('the state has no integer "player": the bot cannot tell which seat it plays')
        days_played = self.days.see(_day(state))
        game = _rebuild(state, days_played, self.max_days)
        if me not in game.pending():
            raise BadMessage(f"player {me} is asked for a move but has none to make in this state")
        if not self.in_game:
            self.in_game = True
            if self.on_game_start is not None:
                self.on_game_start(game, me)
        move = self.decide(game, me)
        legal = game.legal_moves(me)
        # An exact int only: anything else would be tested against a range of
        # investments one element at a time (forever, for a bean-grown purse).
        if type(move) is not int or move not in legal:
            # A bug in the bot, not in the message: stop with a clear account
            # rather than send a move the driver would fault anyway.
            # An investing range can be astronomically long: never materialise it.
            from protocol.exactjson import describe_int

            shown = f"0..{describe_int(legal[-1])}" if isinstance(legal, range) else legal
            raise ValueError(f"decide() returned {_describe(move)}, not one of the legal moves {shown}")
        return _encode_move(move_to_wire(game, move))

    def _finish(self, state: dict[str, Any], me: int | None) -> None:
        """The game is over: forget it even if the final state is odd."""
        days_played = self.days.see(_day(state))
        self.days.reset()
        self.in_game = False
        self.games_finished += 1
        if self.on_game_end is not None and me is not None:
            self.on_game_end(_rebuild(state, days_played, self.max_days), me)


def serve(session: Session, lines: Iterable[bytes], out: BinaryIO, err: BinaryIO | None = None) -> None:
    """Answer every message in `lines` on `out` until the input ends.

    A bad message is reported on `err` (stderr by default) and skipped, so
    a driver bug costs at most that move, never the bot's later games.
    """
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            reply = session.answer(line)
        except BadMessage as problem:
            _report(err, number, line, str(problem))
            continue
        if reply is not None:
            out.write(reply)
            out.flush()


def run(
    decide: Decide,
    *,
    on_game_start: GameHook | None = None,
    on_game_end: GameHook | None = None,
    max_days: int | None = None,
    argv: Sequence[str] | None = None,
) -> None:
    """Play on stdin/stdout with `decide` until the driver closes stdin.

    `max_days` is the game's day limit as the bot was told it (the wire
    does not carry it). Without it (a bot of your own calling
    `run(decide)`), the options every SDK bot takes are read from the
    command line (`argv`, default `sys.argv[1:]`): `--max-days N`, and
    `--seed N`, which seeds Python's `random` module, so that a bot
    drawing from it replays the same games; `--version`; `--help`. Other
    arguments are left to the bot. Bots that parse their own options
    (`option_parser`) pass `max_days` and use the seed themselves.

    Returns normally at end of input. If the driver goes away while the bot
    is answering (broken pipe), returns quietly too: the game is over for
    this bot either way, and a traceback would only clutter the driver's log.
    """
    if max_days is None:
        options, _ = option_parser(prog=os.path.basename(sys.argv[0]) or None).parse_known_args(argv)
        max_days = options.max_days
        if options.seed is not None:
            random.seed(options.seed)
    session = Session(decide, on_game_start, on_game_end, max_days)
    try:
        serve(session, sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:
        # Point stdout at /dev/null so the interpreter's final flush is silent.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def option_parser(description: str | None = None, prog: str | None = None) -> argparse.ArgumentParser:
    """An argument parser with the options every bot shares (`--seed`,
    `--max-days`).

    Bots add their own options to it. Every option must be optional: the
    original driver starts a bot with no arguments at all.
    """
    parser = argparse.ArgumentParser(prog=prog, description=description, formatter_class=_HelpFormatter)
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed for the bot's random choices (default: a fresh one each run)",
    )
    parser.add_argument(
        "--max-days",
        type=int,
        default=MAX_DAYS,
        metavar="N",
        help=f"the game's day limit, if not the default {MAX_DAYS} (the wire does not say)",
    )
    return parser


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's own, given the terminal's width from `os` rather than
    `shutil`: argparse builds a formatter for every option it is given (to
    check its metavar), and the formatter's import of shutil (with zlib,
    bz2 and lzma behind it) cost every bot's start-up a tenth of a bare
    Python bot's, to print a help it never prints."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        if width is None:
            width = _terminal_columns() - 2  # as argparse does with shutil.get_terminal_size()
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns: $COLUMNS, else the width of the
    terminal on stdout, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Version(argparse.Action):
    """`--version`, with the version looked up only when asked (a bot's
    start-up is part of every game it plays)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from importlib.metadata import version

        sys.stdout.write(f"{parser.prog} (economancy-arena) {version('economancy-arena')}\n")
        parser.exit()


def _parse_state(line: bytes) -> tuple[dict[str, Any], int | None]:
    """The state object and the receiving player's index (None if absent),
    checked enough that every later step can index it without surprises."""
    try:
        state = json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # not JSON, or an integer past Python's digit limit: the exact reader
        from protocol.exactjson import JSONError, NotJSON, loads

        try:
            state = loads(line, max_digits=None)  # the driver's numbers, however long
        except NotJSON as problem:
            raise BadMessage(f"not valid JSON ({problem.detail})") from None
        except JSONError as problem:  # too deep: no state nests like that
            raise BadMessage(f"the message {problem.problem}") from None
    if not isinstance(state, dict):
        raise BadMessage(f"expected a JSON object (a game state), got {type(state).__name__}")
    phase = state.get("phase")
    if not isinstance(phase, dict) or not isinstance(phase.get("name"), str):
        raise BadMessage('the state has no "phase" object with a "name"')
    me = state.get("player")
    if me is not None and type(me) is not int:
        raise BadMessage(f'"player" must be an integer, got {me!r}')
    players = state.get("players")
    if not isinstance(players, list):
        raise BadMessage('the state has no "players" array')
    if me is not None and not 0 <= me < len(players):
        raise BadMessage(f'"player" {me} is not an index into "players"')
    _day(state)
    return state, me


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON (RFC 8259): refused, as the exact reader refuses them."""
    raise ValueError(f"{name} is not JSON")


def _encode_move(move: int | str) -> bytes:
    """The answer line `[move]`, as `protocol.exactjson.dumps` writes it."""
    if type(move) is int:
        try:
            return b"[%d]\n" % move
        except ValueError:  # past Python's digit limit for int to str: converted piecewise
            from protocol.exactjson import dumps

            return dumps([move]) + b"\n"
    return json.dumps([move], ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _describe(move: object) -> str:
    from protocol.exactjson import describe_int

    return describe_int(move) if type(move) is int else repr(move)


def _day(state: dict[str, Any]) -> int:
    day = state.get("day")
    if type(day) is not int or not 1 <= day <= 3:
        raise BadMessage(f'"day" must be 1, 2 or 3, got {day!r}')
    return day


def _rebuild(state: dict[str, Any], days_played: int, max_days: int) -> Game:
    try:
        return Game.from_wire(state, days_played=days_played, max_days=max_days)
    except (ValueError, KeyError, TypeError, IndexError) as problem:
        raise BadMessage(f"not a valid game state: {problem}") from None


def _report(err: BinaryIO | None, number: int, line: bytes, problem: str) -> None:
    excerpt = line.strip()
    if len(excerpt) > 200:
        excerpt = excerpt[:200] + b"..."
    text = f"bot: ignoring bad message {number} from the driver: {problem}\n  message: {excerpt.decode('utf-8', 'replace')}\n"
    if err is None:
        sys.stderr.write(text)
        sys.stderr.flush()
    else:
        err.write(text.encode())
        err.flush()


def bot_main(
    command: argparse.ArgumentParser,
    policy_from: Callable[[argparse.Namespace], Decide],
    argv: Sequence[str] | None = None,
) -> None:
    """A bot's whole entry point, from its command line (`option_parser`
    plus its own options) and the policy its options describe.

    Options the policy refuses (ValueError, a missing file, an unknown
    name) end the bot as a usage error, with the parser's message and exit
    status 2, before it reads any state. The policy's optional hooks are
    honoured: `new_game(game, me)` at each game's first state, `close()`
    when the bot ends (a model process to stop, say)."""
    options = command.parse_args(argv)
    try:
        decide = policy_from(options)
    except (ValueError, OSError, LookupError) as problem:
        command.error(str(problem))
    try:
        run(decide, on_game_start=getattr(decide, "new_game", None), max_days=options.max_days)
    finally:
        close = getattr(decide, "close", None)
        if callable(close):
            close()
