"""Play games in-process, without bot processes or JSON.

Evolution, tuning and tests need thousands of games per second; spawning
processes and encoding states would dominate. A policy here is the same
`decide(game, me) -> move` function a bot executable wraps with
`bots.sdk.run`, so what is tuned in-process is exactly what ships.

Hidden simultaneous choices (investments, buys) are collected from every
pending player on the same, unmodified state before any is played, which
is what each player would see over the wire.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from common.defaults import MAX_DAYS
from protocol.engine import ATTACKING, DEFENDING, Game, IllegalMove

Policy = Callable[[Game, int], int]
"""Chooses `me`'s move in `game`. Must not mutate `game` (copy it to simulate)."""


def play_out(game: Game, policies: Sequence[Policy]) -> Game:
    """Play `game` to its end in place with one policy per seat; return it.

    An illegal move from a policy ends the game as a fault naming that seat,
    as the referee would.
    """
    if len(policies) != game.n_players:
        raise ValueError(f"{len(policies)} policies for {game.n_players} players")
    while not game.is_over:
        pending = game.pending()
        if game.phase in (ATTACKING, DEFENDING):
            seat = pending[0]
            _apply(game, seat, policies[seat](game, seat))
            continue
        moves = [(seat, policies[seat](game, seat)) for seat in pending]
        for seat, move in moves:
            if not _apply(game, seat, move):
                break
    return game


def play_game(
    policies: Sequence[Policy], *, base: bool = False, max_days: int = MAX_DAYS
) -> Game:
    """A fresh game between `policies` (2 to 4), played to its end."""
    return play_out(Game(len(policies), base=base, max_days=max_days), policies)


def _apply(game: Game, seat: int, move: int) -> bool:
    """Play one move; an illegal one forfeits the seat. True if the game goes on."""
    try:
        game.play(seat, move)
    except IllegalMove as err:
        game.forfeit(seat, f"illegal move {move!r}: {err}")
        return False
    return not game.is_over
