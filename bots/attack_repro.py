"""A reproduction of the original driver's `play_attack`.

From section 9 of the spec and the original's player/play_attack.rhm:
it buys Ghosts (two), then Senior Workers, then Workers; it bids one more
than the richest opponent (or its whole purse) only when one of its cards
beats every defender it could meet, keeping a coin unless it can attack
with several; it attacks only with such a card, else stops; it defends
as play_simple (bots.simple_repro). play_decent took these rules from it
(bots.decent_repro holds them).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots import simple_repro
from bots.decent_repro import attack_buys, attack_investment, beats_every_defender
from bots.sdk import Decide, option_parser, run
from protocol.engine import ATTACKING, BUY, INVESTING, Game


def candidates(game: Game, me: int) -> list[int]:
    """Every move the original play_attack might make here (it picks one uniformly)."""
    phase = game.phase
    if phase == INVESTING:
        return [attack_investment(game, me)]
    if phase == ATTACKING:
        return beats_every_defender(game, me, simple_repro.candidates(game, me)) or [0]
    if phase == BUY:
        return attack_buys(game, me)
    return simple_repro.candidates(game, me)


def decide_with(rng: random.Random) -> Decide:
    """A play_attack policy drawing from `rng`."""
    return simple_repro.drawing(candidates, rng)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.attack_repro` and `economancy-attack-repro`."""
    options = option_parser("Economancy bot: a reproduction of the original's play_attack.").parse_args(argv)
    run(decide_with(random.Random(options.seed)), max_days=options.max_days)


if __name__ == "__main__":
    main()
