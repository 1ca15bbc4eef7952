"""A reproduction of the original driver's `play_points`.

From section 9 of the spec and the original's player/play_points.rhm: it
invests nothing, attacks and defends as play_simple (bots.simple_repro),
and buys a fixed route to points (Worker, Gold Fish, Incantations, a
Board of Monopoly as its fifth card or when an Incantation is too dear:
the route play_decent took from it), else any affordable card in stock.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots import simple_repro
from bots.decent_repro import points_route
from bots.sdk import Decide, option_parser, run
from protocol.engine import BUY, INVESTING, Game


def candidates(game: Game, me: int) -> list[int]:
    """Every move the original play_points might make here (it picks one uniformly)."""
    if game.phase == INVESTING:
        return [0]
    if game.phase == BUY:
        return points_route(game, me)
    return simple_repro.candidates(game, me)


def decide_with(rng: random.Random) -> Decide:
    """A play_points policy drawing from `rng`."""
    return simple_repro.drawing(candidates, rng)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.points_repro` and `economancy-points-repro`."""
    options = option_parser("Economancy bot: a reproduction of the original's play_points.").parse_args(argv)
    run(decide_with(random.Random(options.seed)), max_days=options.max_days)


if __name__ == "__main__":
    main()
