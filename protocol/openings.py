"""Openings: start positions given as the moves that reach them from the start.

Between deterministic bots a game from the real start is one game, however
often it is played; arenas for such bots (fastchess, cutechess, Fishtest)
start games from a suite of positions instead, each played once per
seating so that every bot plays both sides of it. A position here is the
list of moves that reach it, which any referee can replay exactly (the
game has no chance) and which keeps the trace a whole game.

An opening's moves are in wire form (an int for an investment or a card
index, a card name or "Pass" for a buy) and in the order a referee asks
for them: at each step the first pending player answers (seat order
within a simultaneous round, the next defender in a fight).

An opening can also leave both seats a game (`random_opening(...,
both_play=True)`, what the exploiter draws): in 2 players, a random
opening sometimes leaves a seat with no card that defends while the other
holds an attacker (`exposed`). Such a seat is eliminated the first time
the other outbids it, so it must match or beat every bid, paying for it,
until it holds a defender (with no more coins than the other, it buys
nothing while the other builds); with fewer coins, the first bid decides
(`lost_at_once`). A game from such an opening
measures the opening (against a target that bids at random, its luck),
not the bots; such openings are drawn again.

File format (`--openings FILE`): one JSON array of moves per line; blank
lines and lines starting with `#` are skipped.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from common.defaults import MAX_DAYS
from protocol.cards import ATTACKS, DEFENDS
from protocol.engine import BUY, INVESTING, Game, IllegalMove, move_from_wire, move_to_wire
from protocol.exactjson import JSONError, NotJSON, dumps, loads

__all__ = [
    "Opening",
    "OpeningError",
    "play_opening",
    "random_opening",
    "exposed",
    "exposed_seats",
    "lost_at_once",
    "doomed_seats",
    "parse_opening",
    "read_openings",
    "format_opening",
]

Opening = tuple[int | str, ...]
"""The wire moves of an opening, in the order a referee asks for them."""


class OpeningError(ValueError):
    """An opening that cannot be played from the start of the game it is given."""


def play_opening(game: Game, moves: Sequence[int | str]) -> int:
    """Play `moves` on `game` in place, each by the first pending player.

    Returns how many moves were played (all of them). Raises OpeningError
    naming the first bad move (1-based) if one is malformed or illegal, or
    if the game is over before the opening is (an opening must leave the
    bots something to play).
    """
    for number, value in enumerate(moves, start=1):
        if game.is_over:
            raise OpeningError(f"the game is over before opening move {number} ({_show(value)})")
        seat = game.pending()[0]
        try:
            game.play(seat, move_from_wire(game, value))
        except IllegalMove as e:
            reason = getattr(e, "reason", None) or str(e)
            raise OpeningError(f"opening move {number} ({_show(value)}, seat {seat}) is illegal: {reason}") from None
    if game.is_over:
        raise OpeningError(f"the opening ends the game (after {len(moves)} moves): nothing is left to play")
    return len(moves)


def random_opening(
    n_players: int,
    plies: int,
    rng: random.Random,
    *,
    base: bool = False,
    max_days: int = MAX_DAYS,
    attempts: int = 1000,
    both_play: bool = False,
) -> Opening:
    """`plies` moves of uniformly random legal play, then the rest of the
    simultaneous round they stop in, so that no hidden choice is left made
    for a bot that never saw it. Draws again (from the same `rng`, so the
    result is reproducible) while the game would end inside the opening,
    and with `both_play` (2 players only) while it leaves a seat with no
    defence against an attacker (`exposed_seats`): a game decided by its
    opening measures nobody.
    """
    if plies < 0:
        raise ValueError(f"an opening has at least 0 plies, not {plies}")
    if both_play and n_players != 2:
        raise ValueError(f"only a 2-player opening can be drawn to leave both seats a game, not {n_players}")
    for _ in range(attempts):
        game = Game(n_players, base=base, max_days=max_days)
        moves: list[int | str] = []
        while not game.is_over and (len(moves) < plies or _mid_round(game)):
            seat = game.pending()[0]
            if game.phase == INVESTING:
                move = rng.randint(0, game.coins(seat))  # a range can be astronomically long
            else:
                move = rng.choice(list(game.legal_moves(seat)))
            moves.append(move_to_wire(game, move))
            game.play(seat, move)
        if not game.is_over and not (both_play and exposed_seats(game)):
            return tuple(moves)
    wanted = "undecided and both seats a game" if both_play else "undecided"
    raise OpeningError(f"no {plies}-ply opening of {n_players} players left the game {wanted} in {attempts} draws")


def exposed(game: Game, seat: int) -> bool:
    """Whether `seat` holds no card able to defend while an opponent
    holds a card able to attack: the first day that opponent invests the
    most, it attacks and eliminates the seat. So the seat must match or
    beat every bid, paying for it, until it holds a defender; with no more
    coins than the opponent it buys nothing meanwhile and lives on the
    opponent's bids (against a target that bids at random, on its luck).
    At a table of 3 or 4 it must outbid every armed opponent. Every seat
    `lost_at_once` is exposed; the filter is broad on purpose: an exposed
    seat with more coins can buy its way out, but the opening still leans
    on it."""
    return (not any(DEFENDS[c] for c, _ in game.cards(seat))
            and any(ATTACKS[c] for other in range(game.n_players) if other != seat for c, _ in game.cards(other)))


def exposed_seats(game: Game) -> list[int]:
    """The seats with no defence against an armed opponent (`exposed`)."""
    return [seat for seat in range(game.n_players) if exposed(game, seat)]


def lost_at_once(game: Game, seat: int) -> bool:
    """Whether `seat` loses at the next bid to an opponent that takes the
    win (2 players, at an investing step): no card of it can defend, and
    the richer opponent holds a card that can attack, so outbidding it
    and attacking eliminates it whatever it does. Any opponent that bids
    high finds this win; no exploiter can do better than it there."""
    if game.n_players != 2:
        raise ValueError(f"lost_at_once is defined for 2 players, not {game.n_players}")
    return game.phase == INVESTING and exposed(game, seat) and game.coins(1 - seat) > game.coins(seat)


def doomed_seats(game: Game) -> list[int]:
    """The seats of a 2-player game lost at the next bid (`lost_at_once`)."""
    return [seat for seat in (0, 1) if lost_at_once(game, seat)]


def _mid_round(game: Game) -> bool:
    """Whether some players of the current simultaneous round have answered
    and others not yet (their answers are hidden in the engine)."""
    if game.phase == INVESTING:
        everyone = sum(1 for p in range(game.n_players) if game.alive(p))
    elif game.phase == BUY:
        everyone = sum(1 for p in range(game.n_players) if game.alive(p) and game.buys(p) > 0)
    else:
        return False
    return len(game.pending()) < everyone


def parse_opening(text: str | bytes) -> Opening:
    """One opening from its JSON array; raises OpeningError if it is not one."""
    try:
        value = loads(text, max_digits=None)  # investments are exact, of any size
    except NotJSON as e:
        raise OpeningError(f"not JSON: {e.detail}") from None
    except JSONError as e:
        raise OpeningError(f"the line {e.problem}") from None
    if type(value) is not list or not all(type(v) in (int, str) for v in value):
        raise OpeningError("an opening is a JSON array of moves (integers, card names or \"Pass\")")
    return tuple(value)


def read_openings(path: str | Path) -> list[Opening]:
    """Every opening of a file (one JSON array per line, # comments)."""
    path = Path(path)
    try:
        lines = path.read_bytes().splitlines()
    except OSError as e:
        raise OpeningError(f"cannot read openings from {path}: {e.strerror or e}") from None
    openings = []
    for number, line in enumerate(lines, start=1):
        line = line.strip()
        if not line or line.startswith(b"#"):
            continue
        try:
            openings.append(parse_opening(line))
        except OpeningError as e:
            raise OpeningError(f"{path}, line {number}: {e}") from None
    if not openings:
        raise OpeningError(f"{path} holds no opening")
    return openings


def format_opening(opening: Iterable[int | str]) -> str:
    """The compact JSON array, one line of an openings file."""
    return dumps(list(opening)).decode()


def _show(value: object) -> str:
    try:
        return dumps([value]).decode()
    except TypeError:
        return repr(value)
