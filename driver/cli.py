"""The referee's commands: `driver run` (a game), `driver check` (a bot),
`driver schema`, and `driver play` (driver/play.py). The `driver` command
itself, with `view` (viewer), `serve` and `connect` (server), is composed
in `arena.cli`."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import click

from driver.botspec import BotSpec, BotSpecError, options_by_seat, parse_bot
from common.options import game_options, timeout_option, VersionedGroup, version_option
from common.settings import GameSettings
from driver.options import bot_env_option, isolation_option, time_control_options
from driver.signals import Stopped, stop_reason, stop_status
from common.text import printable, printable_lines
from viewer.cli import RUN_REPLAY

__all__ = ["driver", "BOT_FORMS", "EXIT_WINNER", "EXIT_DRAW", "EXIT_FORFEIT", "EXIT_USAGE", "EXIT_CHECK_FAILED"]

EXIT_WINNER = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_DRAW = 3
EXIT_FORFEIT = 4

_STDERR_LINES = 10  # lines of a faulty bot's standard error shown in the summary
_FAILURES_SHOWN = 3  # failed steps of each kind `driver check` details without -v

BOT_FORMS = """\b
BOT is one of:
  random, expert, mcts --time 0.2, ...   one of our bots, with its options
  ./path/to/program [ARGS]               a program (must be executable)
  node bot.js                            a command found on PATH
  NAME=COMMAND                           any of these, called NAME in results
Quote a BOT that has spaces: driver run "mcts --time 0.2" random"""


@click.group(cls=VersionedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@version_option
def driver() -> None:
    """Referee for Economancy bots that speak JSON over standard input and output."""


@driver.command(
    epilog=BOT_FORMS
    + """

\b
Exit status:
  0  a player won
  3  the game was a draw (max days reached)
  4  a bot forfeited (timeout, bad or illegal answer, crash)
  2  usage error (bad option, unknown bot, wrong number of bots)
  1  the driver itself failed (e.g. the trace's reader went away)
  128+N  stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP): the
         bots are ended and the trace ends with an "aborted" record"""
)
@click.argument("bots", nargs=-1, required=True, metavar="BOT BOT [BOT [BOT]]")
@game_options
@time_control_options
@click.option("--seed", type=int, default=None, metavar="N",
              help="The game's seed: our bots (and bots given seed=on) get one derived from it as --seed.")
@click.option("--opening", default=None, metavar="JSON",
              help='Moves the referee plays before handing over, e.g. \'[1, 0, "Worker", "Pass"]\'.')
@isolation_option
@click.option(
    "--trace",
    "trace",
    type=click.Path(dir_okay=False, allow_dash=True),
    default="-",
    metavar="FILE",
    help="Where the trace goes, one JSON value per line, as the original driver writes it. [default: stdout]",
)
@click.option("--view", "view", is_flag=True,
              help="Also write the game's replay page (see `driver view`) to replay.html and print its path.")
def run(
    bots: Sequence[str], trace: str, bot_options: Sequence[tuple[str, str]], seed: int | None, opening: str | None,
    view: bool, **settings: Any,
) -> None:
    """Play one game between 2 to 4 bots, in seat order.

    The trace goes to standard output (or --trace FILE); a short summary
    goes to standard error, with the isolation the bots got. The files
    written (--trace, --view) are opened before any bot starts, and never
    through a link another user laid (`common.safefile`).
    """
    from driver.game import GameOptions, play_game
    from protocol.openings import OpeningError, parse_opening, play_opening
    from protocol.engine import Game

    game = GameSettings.from_options(settings)  # --base, --max-days, --timeout, --fair, time controls, fences

    if not 2 <= len(bots) <= 4:
        raise click.UsageError(f"a game needs 2 to 4 bots, got {len(bots)}")
    specs = [_bot_param(text) for text in bots]
    try:
        seats = options_by_seat([s.name for s in specs], bot_options)
    except BotSpecError as e:
        raise click.BadParameter(str(e), param_hint="--bot-option") from None
    moves = None
    if opening is not None:
        try:
            moves = parse_opening(opening)
            play_opening(Game(len(specs), base=game.base, max_days=game.max_days), moves)
        except OpeningError as e:
            raise click.BadParameter(str(e), param_hint="--opening") from None
    options = GameOptions.of(game, seats=seats, seed=seed, opening=moves)
    # Opened now, before any bot starts: a bot cannot lay a link where they go.
    trace_out = _output(trace, "--trace")
    page_out = _output(str(RUN_REPLAY), "--view", truncate=False) if view else None
    page_path = Path(os.path.abspath(RUN_REPLAY))
    try:
        result = play_game(specs, options, trace_out)
    except BrokenPipeError:
        # `driver run ... | head`: the bots are already cleaned up; say so quietly.
        sys.stdout = None  # no flush error at exit
        click.echo("driver: the trace's reader closed its end; game abandoned", err=True)
        sys.exit(1)
    except (KeyboardInterrupt, Stopped) as e:
        click.echo(f"driver: {stop_reason(e)}; game abandoned, its bots ended", err=True)
        sys.exit(stop_status(e))
    def echo(text: str = "") -> None:
        click.echo(text, err=True)

    if view:
        from viewer.cli import write_run_replay

        assert page_out is not None
        write_run_replay(result.trace, [s.name for s in specs], result.stderr, page_out, result.answer_times)
        echo(f"replay   {page_path}")
    # Everything a bot wrote, and so everything shown below, goes through printable().
    names = ", ".join(f"{seat}: {printable(spec.name)}" for seat, spec in enumerate(specs))
    echo(f"seats  {names}")
    _echo_isolation(echo, result.isolation)
    _echo_fences(echo, result.trace)
    # One count of days everywhere (driver.game.game_days): the day the game ended on, as the replay says.
    played = f"day {result.days}, {result.moves} moves, {result.duration:.2f} s"
    if result.fault is not None:
        seat, reason = result.fault
        echo(f"forfeit  seat {seat} ({printable(specs[seat].name)}): {printable(reason)}")
        echo(f"on       {played}")
        tail = printable_lines(result.stderr[seat])[-_STDERR_LINES:]
        if tail:
            echo(f"last lines of seat {seat}'s standard error:")
            for line in tail:
                echo(f"  | {line}")
        sys.exit(EXIT_FORFEIT)
    if result.winner is None:
        echo(f"draw     on {played}")
        sys.exit(EXIT_DRAW)
    echo(f"winner   seat {result.winner} ({printable(specs[result.winner].name)}) on {played}")
    sys.exit(EXIT_WINNER)


@driver.command(epilog=BOT_FORMS + "\n\nExit status: 0 the bot passed, 1 it failed, 2 usage error.")
@click.argument("bot", metavar="BOT")
@timeout_option
@isolation_option
@bot_env_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the opponents' random moves.")
@click.option("-v", "--verbose", is_flag=True, help="Show every step, not only the failed ones.")
def check(bot: str, timeout: float, isolation: str, bot_env: tuple[str, ...], seed: int, verbose: bool) -> None:
    """Check that a bot follows the protocol, before it meets other bots.

    BOT plays several games against random opponents (2, 3 and 4 players,
    simple and base sets, a game ending in another player's fault) and
    must answer every state in time, with a well-formed, legal move. As
    with the original driver, it may exit after a game's end (the next
    game starts a new process); output after the end is a warning. The
    report says whether one process can play game after game
    (tournament --reuse) and which isolation the bot got.
    """
    from driver.check import check_bot
    from driver.isolation import Fence
    from driver.process import BotStartError

    spec = _bot_param(bot)
    try:
        report = check_bot(spec, timeout=timeout, seed=seed, isolation=isolation, fence=Fence(env=bot_env))
    except BotStartError as e:
        click.echo(f"FAIL: {printable(str(e.strerror))}")
        sys.exit(EXIT_CHECK_FAILED)
    except (KeyboardInterrupt, Stopped) as e:
        click.echo(f"driver: {stop_reason(e)}; check abandoned, the bot ended", err=True)
        sys.exit(stop_status(e))
    out = click.echo
    _echo_isolation(out, report.isolation)
    if report.header is not None:
        out(f"limits     {_limits_text(report.header['limits'])}")
        out(f"env        {' '.join(report.header['env']) or '(none)'}")
    shown: dict[str, int] = {}
    for step in report.steps:
        kind = step.check if step.problem is not None else "warning" if step.warning is not None else None
        if kind is not None:
            shown[kind] = shown.get(kind, 0) + 1
        if verbose or (kind is not None and shown[kind] <= _FAILURES_SHOWN):
            where = (
                f"game {step.game} ({step.players}p {'base' if step.base else 'simple'}, seat {step.seat}) "
                f"day {step.day} {step.phase}"
            )
            verdict = "ok"
            if step.problem is not None:
                verdict = f"FAILED {step.check}: {printable(step.problem)}"
            elif step.warning is not None:
                verdict = f"WARNING: {printable(step.warning)}"
            out(f"{where}: {printable(step.answer)} in {step.seconds * 1000:.0f} ms: {verdict}")
    answered = [s for s in report.steps if s.phase not in ("end", "fault")]
    slowest = max((s.seconds for s in answered), default=0.0)
    games = len({s.game for s in report.steps})
    processes = f" ({report.processes} processes)" if report.processes > 1 else ""
    out(f"{len(report.steps)} steps in {games} games{processes}; slowest answer {slowest * 1000:.0f} ms")
    by_check: dict[str, int] = {}
    for step in report.failures:
        by_check[step.check] = by_check.get(step.check, 0) + 1
    for name in ("answered", "in time", "well-formed", "legal"):
        bad = by_check.get(name, 0)
        more = f" (first {_FAILURES_SHOWN} shown above; -v for all)" if bad > _FAILURES_SHOWN and not verbose else ""
        out(f"  {name:<12} {'ok' if not bad else f'{bad} failed{more}'}")
    warned = len(report.warnings)
    out(f"  {'after end':<12} {'silent' if not warned else f'{warned} warnings: output after the end (ignored)'}")
    out(f"  {'answer form':<12} {report.answer_forms()}")
    out(f"reusable across games: {report.reuse()}")
    missing = report.missing()
    if missing:
        out("never asked (the game did not get there): " + "; ".join(missing))
    if report.aborted:
        out(f"stopped: {printable(report.aborted)}")
    if report.stderr and (verbose or not report.passed):
        out("last lines of the bot's standard error:")
        for line in printable_lines(report.stderr)[-_STDERR_LINES:]:
            out(f"  | {line}")
    if report.passed:
        out(f"PASS: {printable(spec.name)} follows the protocol")
        sys.exit(0)
    out(f"FAIL: {printable(spec.name)} does not follow the protocol ({len(report.failures)} failed steps)")
    sys.exit(EXIT_CHECK_FAILED)


@driver.command()
@click.argument("message", type=click.Choice(["all", "state", "move"]), default="all")
def schema(message: str) -> None:
    """Print the JSON Schema of the protocol's messages.

    MESSAGE: "state" (what a bot receives), "move" (what it answers) or
    "all" (one schema accepting either, with both under $defs).
    """
    import orjson

    from protocol.wire import messages_schema, move_schema, state_schema

    document = {"all": messages_schema, "state": state_schema, "move": move_schema}[message]()
    click.echo(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode())


def _echo_isolation(echo: Callable[[str], None], isolation: Sequence[str]) -> None:
    """One line if every bot got the same isolation, else one per seat."""
    if len(set(isolation)) == 1:
        echo(f"isolation  {isolation[0]}")
    else:
        for seat, text in enumerate(isolation):
            echo(f"isolation  seat {seat}: {text or 'not started'}")


def _output(path: str, option: str, truncate: bool = True) -> BinaryIO:
    """A file `run` writes, opened safely (`-`: standard output), or a usage error naming it."""
    if path == "-":
        return sys.stdout.buffer
    from common.safefile import error_text, open_write

    try:
        out = open_write(path, truncate=truncate)
    except OSError as e:
        raise click.BadParameter(error_text(e, path), param_hint=option) from None
    click.get_current_context().call_on_close(out.close)
    return out


def _echo_fences(echo: Callable[[str], None], trace: Sequence[bytes]) -> None:
    """The limits and environment names of the trace's header, one line each
    when every seat has the same, else one per seat."""
    import orjson

    from driver.game import is_meta

    header = next((orjson.loads(line) for line in trace[:1] if is_meta(line)), None)
    if not header or header.get("meta") != "header":
        return
    for key, show in (("limits", _limits_text), ("env", lambda names: " ".join(names) or "(none)")):
        texts = [show(value) for value in header.get(key, [])]
        if len(set(texts)) == 1:
            echo(f"{key:<9}  {texts[0]}")
        else:
            for seat, text in enumerate(texts):
                echo(f"{key:<9}  seat {seat}: {text}")


def _limits_text(limits: dict[str, Any] | None) -> str:
    if limits is None:
        return "none"
    from driver.isolation import Limits

    fields = {k: v for k, v in limits.items() if k not in ("by", "core")}
    return f"{Limits(**fields).describe()}; by {limits.get('by')}"


def _bot_param(text: str) -> BotSpec:
    try:
        return parse_bot(text)
    except BotSpecError as e:
        raise click.BadParameter(str(e), param_hint="BOT") from None


def _add_play_command() -> None:
    """`driver play` (a person against bots in this terminal) lives in driver/play.py."""
    from driver.play import play

    play.epilog = BOT_FORMS.replace("driver run", "driver play") + "\n\n" + (play.epilog or "")
    driver.add_command(play)


_add_play_command()
