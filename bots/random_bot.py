"""The random bot: a uniformly random legal move, every time.

The baseline every other bot must beat, and the same distribution as the
original's play_random: each legal move of the phase equally likely
(investing: 0..coins; buying: Pass or any affordable shop card, sold out
or not).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots.sdk import Decide, option_parser, run
from protocol.engine import Game


def random_policy(rng: random.Random) -> Decide:
    """A policy drawing from `rng`, for in-process games and tests."""

    def decide(game: Game, me: int) -> int:
        legal = game.legal_moves(me)
        if isinstance(legal, range):
            # Investments: choice() needs len(), which stops at 2**63 (a
            # bean-grown purse passes it); randrange draws the same number
            # for the same generator state and takes any size.
            return rng.randrange(legal.start, legal.stop)
        return rng.choice(legal)

    return decide


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.random_bot` and `economancy-random`."""
    options = option_parser("Economancy bot playing a uniformly random legal move.").parse_args(argv)
    run(random_policy(random.Random(options.seed)), max_days=options.max_days)


if __name__ == "__main__":
    main()
