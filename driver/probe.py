"""Whether a bot can play at all, asked once before a series of games.

A bot whose program is missing, whose interpreter cannot open its
script, or that dies or stays silent at its first state would otherwise
forfeit every game of a tournament, one start-up allowance at a time,
and the tournament would end as if it had been played. So a tournament
starts each entrant once, as a game would (the same command, isolation
and limits), sends it the first state of a game and waits for any answer
within its start-up allowance and timeout: the answer is not judged
(that is the games' business), only that one comes.
"""

from __future__ import annotations

from collections.abc import Sequence

from driver.botspec import BotSpec
from driver.game import GameOptions, start_group, state_lines
from driver.process import BotGroup, BotStartError, ReplyKind
from common.text import printable, printable_lines
from protocol.engine import Game

__all__ = ["probe", "probe_all"]

_STDERR_LINES = 5


def probe(bot: BotSpec, options: GameOptions, players: int = 2) -> None:
    """Start `bot` in seat 0 of a `players` game and wait for its first
    answer; raise BotStartError (naming the bot and its command, saying
    what happened, with its last lines of standard error) if none comes.
    A bot of a registered kind (`BotKind`: a remote bot) is not probed:
    it is not started here, and its kind checks it (`BotSpec.unavailable`)."""
    if bot.kind is not None:
        return
    command = " ".join(options.command(bot, 0))
    try:
        group: BotGroup = start_group([bot], options)
    except BotStartError as e:
        raise BotStartError(e.errno, f"bot {bot.name!r} cannot start: {e.strerror}") from None
    try:
        own = options.seat_options(0)
        limit = own.timeout + own.margin + own.startup  # type: ignore[operator]
        group.send(0, state_lines(Game(players, base=options.base, max_days=options.max_days).to_wire(), [0])[0])
        ((_, reply),) = group.replies([0], limit)
        if reply.kind in (ReplyKind.LINE, ReplyKind.TOO_LONG):
            return
        what = (f"no answer to its first state within {limit:g} s (its start-up allowance included)"
                if reply.kind is ReplyKind.TIMEOUT else f"it {reply.detail} before answering its first state")
        stderr = printable_lines(group.bots[0].kept_stderr())[-_STDERR_LINES:]
    finally:
        group.close()
    said = "".join(f"\n  | {line}" for line in stderr)
    raise BotStartError(0, f"bot {bot.name!r} ({printable(command)}) cannot play: {what}"
                           + (f"; its standard error ends:{said}" if said else ""))


def probe_all(bots: Sequence[BotSpec], options: GameOptions, players: int = 2) -> None:
    """`probe` each distinct bot (by command), in order; the first that
    cannot play raises."""
    seen: set[tuple[str, ...]] = set()
    for bot in bots:
        if bot.argv not in seen:
            seen.add(bot.argv)
            probe(bot, options, players)
