"""Whether a bot can play at all, asked once before a series of games.

A bot whose program is missing, whose interpreter cannot open its
script, or that dies or stays silent at its first state would otherwise
forfeit every game of a tournament, one start-up allowance at a time,
and the tournament would end as if it had been played. So a tournament
starts each entrant once, as a game would (the same command, isolation
and limits), sends it the first state of a game and waits for any answer
within its start-up allowance and timeout: the answer is not judged
(that is the games' business), only that one comes.

The same start tells whether one process can play game after game (what
`driver check` calls reusable, and what a tournament reuses by
default): sent the end of that game, the bot must stay alive and send
nothing for `SILENCE` seconds (a late word would be read as its answer
in its next game), then answer the first state of another game within
`AGAIN` seconds.
"""

from __future__ import annotations

from collections.abc import Sequence

from driver.botspec import BotSpec
from driver.game import GameOptions, start_group, state_lines
from driver.process import BotGroup, BotStartError, ReplyKind
from common.text import printable, printable_lines
from protocol.engine import Game

__all__ = ["SILENCE", "probe", "probe_all"]

_STDERR_LINES = 5
SILENCE = 0.25
"""Seconds a bot must stay quiet after an end or fault message to count as reusable."""
AGAIN = 2.0
"""Seconds (at most its timeout) a bot gets to answer the second game's first
state to count as reusable: a bot found not reusable only costs throughput,
while a bot that hangs there would hold the tournament's start for its
whole timeout."""


def probe(bot: BotSpec, options: GameOptions, players: int = 2) -> bool:
    """Start `bot` in seat 0 of a `players` game and wait for its first
    answer; raise BotStartError (naming the bot and its command, saying
    what happened, with its last lines of standard error) if none comes.
    Return whether the same process can play another game (see the
    module's docstring). A bot of a registered kind (`BotKind`: a remote
    bot) is not probed: it is not started here, and its kind checks it
    (`BotSpec.unavailable`); False: each game is its kind's to serve."""
    if bot.kind is not None:
        return False
    command = " ".join(options.command(bot, 0))
    try:
        group: BotGroup = start_group([bot], options)
    except BotStartError as e:
        raise BotStartError(e.errno, f"bot {bot.name!r} cannot start: {e.strerror}") from None
    try:
        own = options.seat_options(0)
        limit = own.timeout + own.margin + own.startup  # type: ignore[operator]
        game = Game(players, base=options.base, max_days=options.max_days)
        first = state_lines(game.to_wire(), [0])[0]
        group.send(0, first)
        ((_, reply),) = group.replies([0], limit)
        if reply.kind in (ReplyKind.LINE, ReplyKind.TOO_LONG):
            again = min(AGAIN, own.timeout + own.margin)  # type: ignore[operator]
            return reply.kind is ReplyKind.LINE and _plays_again(group, game, first, again)
        what = (f"no answer to its first state within {limit:g} s (its start-up allowance included)"
                if reply.kind is ReplyKind.TIMEOUT else f"it {reply.detail} before answering its first state")
        stderr = printable_lines(group.bots[0].kept_stderr())[-_STDERR_LINES:]
    finally:
        group.close()
    said = "".join(f"\n  | {line}" for line in stderr)
    raise BotStartError(0, f"bot {bot.name!r} ({printable(command)}) cannot play: {what}"
                           + (f"; its standard error ends:{said}" if said else ""))


def _plays_again(group: BotGroup, game: Game, first: bytes, timeout: float) -> bool:
    """After its first answer: end the game (another player's fault), then
    whether the bot stays alive and quiet, and answers a new game's first
    state within `timeout`."""
    game.forfeit(1, "the probe's game ends here")
    group.bots[0].mark_end()
    group.send(0, state_lines(game.to_wire(), [0])[0], request=False)
    ((_, after),) = group.replies([0], SILENCE)
    if after.kind is not ReplyKind.TIMEOUT or not group.bots[0].reusable:
        return False  # it wrote, or exited (fine: a new process per game)
    group.send(0, first)
    ((_, again),) = group.replies([0], timeout)
    return again.kind is ReplyKind.LINE and group.bots[0].reusable


def probe_all(bots: Sequence[BotSpec], options: GameOptions, players: int = 2) -> dict[tuple[str, ...], bool]:
    """`probe` each distinct bot (by command), in order; the first that
    cannot play raises. Whether each can be reused, by command."""
    reusable: dict[tuple[str, ...], bool] = {}
    for bot in bots:
        if bot.argv not in reusable:
            reusable[bot.argv] = probe(bot, options, players)
    return reusable
