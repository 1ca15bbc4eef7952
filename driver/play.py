"""`driver play` and `evolve play`: a person at this terminal against bots.

The game is the referee's (`driver.game.play_game`) and nothing else: the
person's seat is a seat like a network player's (`driver.seat`), a pair of
pipes that the referee serves exactly as it serves a bot, with the same
fault rules and the same trace. The referee runs in the main thread, so
Ctrl+C, SIGTERM and SIGHUP (an SSH connection that drops) unwind it as they
unwind `driver run`: every bot ended, the trace closed with an aborted
record. The person's side runs in a second thread, an asyncio loop that
holds the other ends of the seat's pipes (`driver.seat.SeatLink`, as the
server's event loop does), shows the table (`driver.screen`), reads what
the person types (`driver.person`) and answers.

The person has no clock unless --clock gives one: their seat's time limit
is then `NO_CLOCK` (a week), which the referee serves like any other.
Leaving at the prompt (quit, Ctrl+C, Ctrl+D) closes the seat's answer pipe
with `PersonSeat.left` set; the referee, reading that end of file, raises
`driver.signals.Left` instead of faulting the seat, so the game is
abandoned (not lost) and the trace says so.

Line editing is prompt_toolkit's (history, card-name completion, Ctrl+C
and Ctrl+D as a person expects, a prompt that can be withdrawn when the
game ends under it) when both ends are a terminal; from a pipe, lines are
read as they come, so a game can be scripted.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, BinaryIO

import click

from driver.botspec import BotOptions, BotSpec
from driver.game import GameOptions, GameResult, Seat, play_game
from driver.person import HELP, Command, Move, Refusal, card_help, phase_question, read_input
from driver.signals import Left
from common.settings import GameSettings
from common.text import printable
from protocol.cards import NAMES
from protocol.engine import Game
from protocol.exactjson import dumps, loads
from driver.seat import NetworkSeat, SeatLink

__all__ = ["NO_CLOCK", "EXIT_LEFT", "PersonSeat", "TraceOut", "play_person", "check_name"]

NO_CLOCK = 7 * 24 * 3600.0
"""The person's time per move without --clock (seconds): a week, so that
nobody is forfeited for thinking, and still a number the referee's
selector can wait for."""

EXIT_LEFT = 5
"""Exit status when the person leaves (quit or Ctrl+D; Ctrl+C gives 130)."""

MAX_NAME = 40
"""Characters of a person's --name."""

_REFRESH = 0.2  # seconds between redraws of the news while the person is not asked, at least
_REFRESH_SHARE = 0.2  # and at most this share of a core spent redrawing (a long game's view costs more)


def check_name(name: str) -> str:
    """A person's --name: 1 to MAX_NAME printable characters (it is shown to
    the bots' authors in traces and replays, and on this screen)."""
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise ValueError(f"a name is 1 to {MAX_NAME} characters, not {len(name)}")
    if printable(name) != name or not name.isprintable():
        raise ValueError(f"a name must be printable text, not {printable(name)}")
    return name


def default_name() -> str:
    """The login name, as a person expects to be called; "person" if none."""
    try:
        return check_name(getpass.getuser())
    except (ValueError, KeyError, OSError):
        return "person"


def display_names(names: Sequence[str]) -> list[str]:
    """Seat names as the screen shows them: a name that two seats share
    (`driver play random random`) gets its seat number, so that "random
    attacks" says which one; the trace keeps the names as given."""
    return [f"{n} ({i})" if names.count(n) > 1 else n for i, n in enumerate(names)]


class PersonSeat(NetworkSeat):
    """The referee's side of the person's seat: a network seat's pipes
    (`driver.seat.NetworkSeat`), told apart so that leaving on purpose
    (`left`) abandons the game instead of forfeiting it."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.isolation = "none: a person at this terminal"

    @property
    def left(self) -> Left | None:
        """Why the person left, once they have: what the referee raises
        (`PipeEndpoint.abandoned`) instead of faulting the seat."""
        return self.abandoned if isinstance(self.abandoned, Left) else None


class TraceOut:
    """The file the referee writes its trace into: each line goes to the
    --trace file (if any) and to the lines the screen reads. The referee
    writes a round's lines only once the round is resolved, so the screen
    never learns a hidden choice early."""

    def __init__(self, out: BinaryIO | None) -> None:
        self.out = out
        self.lines: list[bytes] = []
        self._listener: Callable[[], None] | None = None

    def listen(self, wake: Callable[[], None]) -> None:
        """`wake()` (thread-safe) after each line written."""
        self._listener = wake

    def write(self, data: bytes) -> int:
        if self.out is not None:
            self.out.write(data)
        self.lines.extend(line for line in data.splitlines() if line.strip())
        if self._listener is not None:
            self._listener()
        return len(data)

    def flush(self) -> None:
        if self.out is not None:
            self.out.flush()


class _LineReader:
    """Lines typed into a pipe (no terminal): read as they come, without
    blocking the loop; None at end of input."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.eof = False
        self.ready = asyncio.Event()
        try:
            asyncio.get_running_loop().add_reader(fd, self._on_readable)
            self.polled = True
        except PermissionError:  # a regular file (`< moves.txt`): never waits, read it as it is
            self.polled = False

    def _on_readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.eof = True
            if self.polled:
                asyncio.get_running_loop().remove_reader(self.fd)
        self.buffer += data
        self.ready.set()

    async def readline(self) -> str | None:
        while True:
            nl = self.buffer.find(b"\n")
            if nl >= 0:
                line = bytes(self.buffer[:nl])
                del self.buffer[: nl + 1]
                return line.decode("utf-8", "replace")
            if not self.polled and not self.eof:
                self._on_readable()
                continue
            if self.eof:
                if self.buffer:
                    line = bytes(self.buffer)
                    self.buffer.clear()
                    return line.decode("utf-8", "replace")
                return None
            self.ready.clear()
            await self.ready.wait()


class Terminal:
    """The person's side of the game, in its own thread (see the module's
    docstring): states in, the screen out, typed moves back."""

    def __init__(self, seat: PersonSeat, me: int, names: Sequence[str], trace: TraceOut, *,
                 clock: float | None, interactive: bool, console: Any) -> None:
        self.seat = seat
        self.me = me
        self.names = list(names)
        self.trace = trace
        self.clock = clock
        self.interactive = interactive
        self.console = console
        self.shown = 0  # steps of the view already told
        self.final: dict[str, Any] | None = None
        self.asking: asyncio.Task[None] | None = None
        self.question: bytes | None = None  # the state line being answered
        self.done = threading.Event()
        self.error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._finished: asyncio.Event | None = None
        self._refresh_due = False
        self._build_seconds = 0.0  # what the last view of the trace took to build
        self._reader: _LineReader | None = None
        self._session: Any = None

    # -- the thread --------------------------------------------------------

    def run(self) -> None:
        """The thread's body: serve the seat until the referee lets go of it."""
        try:
            asyncio.run(self._main())
        except BaseException as e:  # shown by the main thread, never a silent dead seat
            self.error = e
            self._leave("the screen failed: " + printable(f"{type(e).__name__}: {e}"), 1)
        finally:
            self.done.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._finished = asyncio.Event()
        self.link = SeatLink(self.seat, self._loop, self._on_state, self._on_finished)
        self.trace.listen(self._wake)
        self.console.print(f"You are seat {self.me}, {printable(self.names[self.me])}, against "
                           + ", ".join(printable(n) for i, n in enumerate(self.names) if i != self.me)
                           + ". Type ? for help, quit to leave.")
        self.console.print("Waiting for the first question\u2026", style="dim")
        await self._finished.wait()
        if self.asking is not None:
            self.asking.cancel()
            try:
                await self.asking
            except asyncio.CancelledError:
                pass
        if self.final is not None:
            self._tell_end()

    def _wake(self) -> None:
        """Called by the referee's thread after each trace line."""
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._on_trace)
        except RuntimeError:  # the screen is done: nothing more to tell
            pass

    def _view(self, asking: bytes | None = None) -> dict[str, Any] | None:
        from viewer.live import build_view

        return build_view(list(self.trace.lines), self.names, asking)

    # -- events from the referee --------------------------------------------

    def _on_state(self, line: bytes) -> None:
        try:
            state = loads(line)
        except ValueError:
            return
        phase = state.get("phase", {}).get("name")
        if phase in ("end", "fault"):
            self.final = state
            if self.asking is not None:
                self.asking.cancel()
            return
        self.asking = asyncio.ensure_future(self._ask(line, state))

    def _on_finished(self) -> None:
        assert self._finished is not None
        self._finished.set()

    def _on_trace(self) -> None:
        """News while the person is not asked (the others play on, or the
        person is out): told every `_REFRESH` seconds at most."""
        if self._refresh_due or self.asking is not None or self.seat.left is not None:
            return
        self._refresh_due = True
        assert self._loop is not None
        self._loop.call_later(max(_REFRESH, self._build_seconds / _REFRESH_SHARE), self._refresh)

    def _refresh(self) -> None:
        self._refresh_due = False
        if self.asking is not None or self.final is not None or self.seat.left is not None:
            return
        began = time.monotonic()
        view = self._view()
        self._build_seconds = time.monotonic() - began
        if view is not None and not _over(view):  # the end is told with the final table
            self._tell_news(view, len(view["steps"]))

    # -- the screen ------------------------------------------------------------

    def _tell_news(self, view: dict[str, Any], upto: int) -> None:
        from driver.screen import event_steps, render_events

        news = event_steps(view, self.shown, self.me)
        render_events(self.console, view, news, self.me)
        self.shown = max(self.shown, upto)
        if any(self.me in (step.get("ev") or {}).get("out", ()) for step in news) and not _over(view):
            self.console.print("You are out of the game; the others play on (Ctrl+C leaves).", style="bold")

    def _tell_end(self) -> None:
        from driver.screen import render_board

        view = self._view()
        if view is None:
            return
        self._tell_news(view, len(view["steps"]))
        render_board(self.console, view, view["steps"][-1]["s"], self.me)
        result = view.get("result", {})
        if result.get("kind") in ("points", "elimination"):
            won = result.get("winner") == self.me
            self.console.print("You win!" if won else "You lose.", style="bold green" if won else "bold red")
        elif result.get("kind") == "draw":
            self.console.print("A draw.", style="bold")
        elif result.get("kind") == "fault":
            lost = result.get("seat") == self.me
            self.console.print("You forfeit." if lost else "The game ends in a forfeit.", style="bold red")

    # -- asking -----------------------------------------------------------------

    async def _ask(self, line: bytes, state: dict[str, Any]) -> None:
        from driver.screen import render_board

        self.question = line
        try:
            deadline = time.monotonic() + self.clock if self.clock is not None else None
            view = self._view(line)
            game = Game.from_wire(state)
            if view is not None:
                self._tell_news(view, len(view["steps"]) - 1)
                render_board(self.console, view, view["steps"][-1]["s"], self.me)
            self.console.print(phase_question(game, self.me), style="bold")
            warned: Move | None = None
            while True:
                text = await self._read(deadline, game)
                if text is None:
                    self._leave("the person left the game (Ctrl+D)", EXIT_LEFT)
                    return
                said = read_input(text, game, self.me)
                if isinstance(said, Move) and said.warning and said != warned:
                    self.console.print(said.warning[0].upper() + said.warning[1:] + ".", style="yellow")
                    warned = said
                    continue
                if isinstance(said, Move):
                    self.link.answer(dumps([said.value]))
                    sealed = state["phase"]["name"] in ("investing", "buy")
                    after = " (sealed until everyone has answered)." if sealed else "."
                    self.console.print(f"You {said.words}{after}",
                                       style="dim")
                    return
                if isinstance(said, Refusal):
                    self.console.print(said.why[0].upper() + said.why[1:] + ".", style="yellow")
                    continue
                self._command(said, game)
                if said.name == "quit":
                    return
        except KeyboardInterrupt:
            self._leave("the person left the game (Ctrl+C)", 128 + signal.SIGINT)
        except Exception as e:  # a screen that cannot ask must not leave the referee waiting for ever
            self.error = e
            self._leave("the screen failed: " + printable(f"{type(e).__name__}: {e}"), 1)
        finally:
            if self.asking is asyncio.current_task():
                self.asking = None

    def _command(self, said: Command, game: Game) -> None:
        from driver.screen import CARDS_TABLE, describe

        if said.name == "quit":
            self._leave("the person left the game (quit)", EXIT_LEFT)
        elif said.name == "help" and said.arg:
            self.console.print(card_help(said.arg, CARDS_TABLE))
        elif said.name == "help":
            self.console.print(HELP)
        elif said.name == "log":
            view = self._view(self.question)
            if view is None:
                return
            steps = view["steps"][:-1]  # the question being answered is not news
            today = view["steps"][-1]["D"]
            told = [s for s in steps if s["D"] == today]
            if not told:
                self.console.print(f"Nothing has happened yet today (day {today}); yesterday:")
                told = [s for s in steps if s["D"] == today - 1]
            for step in told:
                self.console.print(f"Day {step['D']}: {describe(view, step, self.me)}")

    async def _read(self, deadline: float | None, game: Game) -> str | None:
        """One typed line; None at end of input; KeyboardInterrupt for Ctrl+C."""
        if not self.interactive:
            if self._reader is None:
                self._reader = _LineReader(sys.stdin.fileno())
            self.console.print("> ", end="")
            text = await self._reader.readline()
            if text is not None and not sys.stdin.isatty():
                self.console.print(printable(text))
            return text
        if self._session is None:
            self._session = _prompt_session()
        from prompt_toolkit.formatted_text import FormattedText

        def message() -> FormattedText:
            if deadline is None:
                return FormattedText([("bold", "> ")])
            left = max(0, int(deadline - time.monotonic()))
            return FormattedText([("", f"[{left} s] "), ("bold", "> ")])

        try:
            said: str = await self._session.prompt_async(message, refresh_interval=1.0 if deadline is not None else 0)
            return said
        except EOFError:
            return None

    def _leave(self, reason: str, status: int) -> None:
        """Leave the game: the referee abandons it at once (`PipeEndpoint.abandoned`)."""
        if self.seat.left is not None:
            return
        self.seat.abandoned = Left(reason, status)
        link = getattr(self, "link", None)
        try:
            if link is not None:
                link.close_answers(reason)
                return
        except RuntimeError:  # the loop is gone (the thread is ending): close the pipe by hand
            pass
        fd = self.seat.net_answers_fd
        if fd is not None:
            self.seat.net_answers_fd = None
            os.close(fd)


def _over(view: dict[str, Any]) -> bool:
    """Whether the view shows a game that ended (the live view of a game in
    progress reads as a trace cut short: result kind "cut")."""
    return view.get("result", {}).get("kind") not in (None, "cut")


def _prompt_session() -> Any:
    """prompt_toolkit's line editor: history, and card names and commands
    completed with Tab (any case)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import WordCompleter
    from prompt_toolkit.history import InMemoryHistory

    from prompt_toolkit.output import create_output

    words = [n for n in NAMES] + ["pass", "log", "quit", "help"]
    # No cursor position requests: a terminal (or a test's pseudo-terminal)
    # that does not answer them would get a warning on the screen, and
    # nothing here needs to know where the cursor is.
    output = create_output(sys.stdout)
    if hasattr(output, "enable_cpr"):
        output.enable_cpr = False
    return PromptSession(history=InMemoryHistory(), completer=WordCompleter(words, ignore_case=True, sentence=True),
                         complete_while_typing=False, output=output)


def play_person(
    bots: Sequence[BotSpec],
    me: int,
    name: str,
    options: GameOptions,
    trace_out: BinaryIO | None,
    *,
    clock: float | None = None,
    interactive: bool | None = None,
    console: Any = None,
) -> GameResult:
    """Play one game: the person (seat `me`, called `name`) against `bots` (in
    seat order, the person's seat left out), at this terminal. Returns as
    `play_game` does; raises `Left` if the person left, KeyboardInterrupt or
    `driver.signals.Stopped` if the referee was stopped. Every bot process is
    gone and the screen's thread finished when this returns or raises."""
    from driver.screen import make_console

    seat = PersonSeat(name)
    seats: list[Seat] = list(bots)
    seats.insert(me, seat)
    own = list(options.seats) + [BotOptions()] * (len(seats) - len(options.seats))
    own[me] = BotOptions(timeout=clock if clock is not None else NO_CLOCK, startup=0.0, margin=0.0, seed=False)
    options = replace(options, seats=own)
    trace = TraceOut(trace_out)
    if interactive is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    terminal = Terminal(seat, me, display_names([s.name for s in seats]), trace, clock=clock, interactive=interactive,
                        console=console or make_console())
    thread = threading.Thread(target=terminal.run, name="screen", daemon=True)
    thread.start()
    try:
        return play_game(seats, options, trace)
    finally:
        seat.release()
        terminal.done.wait(5.0)


# -- the commands ----------------------------------------------------------------

def _trace_file(ctx: click.Context, param: click.Parameter, path: str | None) -> BinaryIO | None:
    """--trace FILE, opened for writing; not "-": standard output is the screen."""
    if path is None:
        return None
    if path == "-":
        raise click.BadParameter("the screen is on standard output: give the trace a file", ctx=ctx, param=param)
    from common.safefile import error_text, open_write

    try:
        out = open_write(path)  # before any bot starts, never through a link a bot laid (common.safefile)
    except OSError as e:
        raise click.BadParameter(error_text(e, path), ctx=ctx, param=param) from None
    ctx.call_on_close(out.close)
    return out


def play_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options `driver play` and `evolve play` share, spelled and meaning
    what they do in `driver run` where `driver run` has them."""
    from common.options import max_days_option, timeout_option
    from driver.options import isolation_option, time_control_options

    options = [
        click.option("--seat", type=click.IntRange(0, 3), default=0, show_default=True, metavar="N",
                     help="Your seat (0 plays first in each round)."),
        click.option("--name", default=None, metavar="NAME",
                     help="Your name in the game and its trace. [default: your login name]"),
        click.option("--clock", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
                     help="Your time for each move; past it you forfeit, as a bot does. [default: no clock]"),
        max_days_option,
        timeout_option,
        click.option("--fair", is_flag=True, help="Hide earlier defenders' choices from later defenders."),
        click.option("--seed", type=int, default=None, metavar="N",
                     help="The game's seed: our bots get one derived from it as --seed."),
        isolation_option,
        click.option("--trace", "trace", type=click.Path(dir_okay=False, allow_dash=True), default=None,
                     callback=_trace_file, metavar="FILE",
                     help="Write the game's trace to FILE (`driver view FILE` replays it). [default: none]"),
    ]
    f = time_control_options(f)
    for option in reversed(options):
        f = option(f)
    return f


PLAY_EPILOG = """\b
At the prompt: a number, a card's name (or the start of it), pass;
? for help, ? CARD for a card, log for the day so far, quit to leave.

\b
Exit status:
  0  a player won (you or a bot)
  3  the game was a draw (max days reached)
  4  a player forfeited (a bot, or you past your --clock)
  5  you left (quit, Ctrl+D): the game is abandoned, the bots ended
  2  usage error
  1  the driver itself failed
  128+N  stopped by signal N (130 Ctrl+C, at the prompt or not)"""


def run_play(bots: Sequence[BotSpec], seat: int, name: str | None, options: GameOptions, trace: BinaryIO | None,
             clock: float | None) -> None:
    """Play, then exit with the status `PLAY_EPILOG` lists. Usage errors
    (seat, name, number of players) are raised as click's, before any bot starts."""
    from driver.cli import EXIT_DRAW, EXIT_FORFEIT, EXIT_WINNER
    from driver.signals import Stopped, stop_reason, stop_status

    if not 1 <= len(bots) <= 3:
        raise click.UsageError(f"a game is you and 1 to 3 bots, got {len(bots)} bots")
    if seat > len(bots):
        raise click.BadParameter(f"a {len(bots) + 1}-player game has seats 0 to {len(bots)}", param_hint="--seat")
    try:
        name = check_name(name) if name is not None else default_name()
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--name") from None
    try:
        result = play_person(bots, seat, name, options, trace, clock=clock)
    except (Left, KeyboardInterrupt, Stopped) as e:
        click.echo(f"driver: {stop_reason(e)}; game abandoned, its bots ended", err=True)
        sys.exit(stop_status(e))
    if result.fault is not None:
        if result.fault[0] != seat and result.moves == 0:  # a bot that never started: the screen told nothing
            click.echo(f"driver: seat {result.fault[0]} forfeits: {printable(result.fault[1])}", err=True)
        sys.exit(EXIT_FORFEIT)
    sys.exit(EXIT_DRAW if result.winner is None else EXIT_WINNER)


@click.command(epilog=PLAY_EPILOG)
@click.argument("bots", nargs=-1, required=True, metavar="BOT [BOT [BOT]]")
@click.option("--base", is_flag=True, help="Play with all 13 base-set cards (default: the 8 simple ones).")
@play_options
def play(bots: Sequence[str], seat: int, name: str | None, clock: float | None, seed: int | None,
         trace: BinaryIO | None, bot_options: Sequence[tuple[str, str]], **settings: Any) -> None:
    """Play a game yourself, in this terminal, against 1 to 3 bots.

    Each BOT is any bot `driver run` accepts. You sit at --seat among them;
    the bots keep their time controls, you have none unless --clock. At
    each of your decisions the table is shown (day, phase, every player's
    coins, buys, points and cards, the shop) with what just happened.
    """
    from driver.botspec import BotSpecError, parse_bot

    specs = []
    for text in bots:
        try:
            specs.append(parse_bot(text))
        except BotSpecError as e:
            raise click.BadParameter(str(e), param_hint="BOT") from None
    options = game_options_for(specs, seat, GameSettings.from_options(settings), seed=seed, bot_options=bot_options)
    run_play(specs, seat, name, options, trace, clock)


def game_options_for(specs: Sequence[BotSpec], seat: int, settings: GameSettings, *, seed: int | None,
                     bot_options: Sequence[tuple[str, str]]) -> GameOptions:
    """GameOptions for the bots as `driver run` builds them (per-bot options
    by name), the person's seat left free (`play_person` fills it)."""
    from driver.botspec import BotSpecError, options_by_seat

    try:
        own = options_by_seat([s.name for s in specs], bot_options)
    except BotSpecError as e:
        raise click.BadParameter(str(e), param_hint="--bot-option") from None
    own.insert(min(seat, len(own)), BotOptions())
    return GameOptions.of(settings, seats=own, seed=seed)
