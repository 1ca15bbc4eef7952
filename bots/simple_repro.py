"""A reproduction of the original driver's `play_simple`.

Written from section 9 of the spec and the original's player/play_simple.rhm,
so that the exploiter is calibrated on a bot whose holes are known: it
draws uniformly among the moves the original would consider.

* investing: a random non-zero amount up to its purse (the original's
  candidate list is empty with 0 coins, and it then times out and
  forfeits; ours invests 0 there, so it plays on: the one deviation);
* attacking: one of its strongest ready attackers, never stopping while
  one is ready;
* defending: one of its ready cards with the highest defense level;
* buying: any affordable card still in the shop, else Pass.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bots.sdk import Decide, option_parser, run
from protocol.cards import ATK, DEF
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, PASS, Game


def strongest(game: Game, me: int, indexes: Sequence[int], *, attack: bool) -> list[int]:
    """The card indexes among `indexes` with the highest attack (or defense) level."""
    cards = game.cards(me)

    def level(i: int) -> int:
        return (ATK[cards[i][0]] if attack else DEF[cards[i][0]]) or 0

    best = max((level(i) for i in indexes), default=None)
    return [i for i in indexes if level(i) == best]


def candidates(game: Game, me: int) -> list[int]:
    """Every move the original play_simple might make here (it picks one
    uniformly); never empty for a player who is asked."""
    phase = game.phase
    if phase == INVESTING:
        return list(range(1, game.coins(me) + 1)) or [0]
    if phase == ATTACKING:
        return strongest(game, me, [i for i in game.legal_moves(me) if i != 0], attack=True) or [0]
    if phase == DEFENDING:
        return strongest(game, me, list(game.legal_moves(me)), attack=False)
    if phase == BUY:
        shop = game.shop()
        return [m for m in game.legal_moves(me) if m != PASS and shop[m] > 0] or [PASS]
    return []


def drawing(choices: Callable[[Game, int], list[int]], rng: random.Random) -> Decide:
    """A policy drawing uniformly from `choices(game, me)` with `rng`, as the
    original's bots draw from their candidate lists."""

    def decide(game: Game, me: int) -> int:
        return rng.choice(choices(game, me))

    return decide


def decide_with(rng: random.Random) -> Decide:
    """A play_simple policy drawing from `rng`."""
    return drawing(candidates, rng)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.simple_repro` and `economancy-simple-repro`."""
    options = option_parser("Economancy bot: a reproduction of the original's play_simple.").parse_args(argv)
    run(decide_with(random.Random(options.seed)), max_days=options.max_days)


if __name__ == "__main__":
    main()
