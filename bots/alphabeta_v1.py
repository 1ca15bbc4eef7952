"""`alphabeta-v1`: the alpha-beta bot as it was before the C search core, searching in Python.

    python -m bots.alphabeta_v1 [--time 0.5] [--depth D] [--weights FILE]

Kept so that the champion's goals (issue 22) are measured against the
bot they named: the same options and search as `alphabeta` up to
d959ddc, whose search is `bots.search.alphabeta.AlphaBeta` (the
reference the C core is tested against: the same values and moves at a
given depth, but 20 to 40 times fewer nodes a second, so shallower at
the same time). `--time` is wall-clock time.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from bots.alphabeta import DEFAULT_SECONDS, MAX_DEPTH, parser as current_parser
from bots.sdk import bot_main
from bots.search.alphabeta import AlphaBeta
from bots.search.evaluation import Weights, load_weights
from protocol.engine import Game


class AlphaBetaV1Policy:
    """`decide(game, me)` backed by one Python searcher whose transposition
    table persists across the moves of a game."""

    def __init__(
        self,
        *,
        seconds: float | None = DEFAULT_SECONDS,
        depth: int = MAX_DEPTH,
        seed: int | None = None,
        weights: Weights | None = None,
        cpu: bool = False,
    ) -> None:
        if seconds is not None and seconds <= 0:
            raise ValueError(f"--time must be positive, got {seconds}")
        if depth < 1:
            raise ValueError(f"--depth must be at least 1, got {depth}")
        self.seconds = seconds
        self.depth = depth
        self.searcher = AlphaBeta(weights or load_weights(), random.Random(seed),
                                  clock=time.thread_time if cpu else time.perf_counter)

    def __call__(self, game: Game, me: int) -> int:
        return self.searcher.search(game, me, seconds=self.seconds, max_depth=self.depth).move

    def new_game(self, game: Game, me: int) -> None:
        self.searcher.reset()


def parser() -> argparse.ArgumentParser:
    """`alphabeta`'s command line: the two bots take the same options."""
    parser = current_parser()
    parser.prog = "alphabeta-v1"
    parser.description = "Economancy bot: paranoid alpha-beta search in Python (alphabeta before the C core)."
    return parser


def policy_from(options: argparse.Namespace) -> AlphaBetaV1Policy:
    """The policy `options` (parsed by `parser()`) describe; ValueError or
    OSError if they are bad."""
    return AlphaBetaV1Policy(
        seconds=options.time, depth=options.depth, seed=options.seed, weights=load_weights(options.weights),
        cpu=options.cpu,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.alphabeta_v1`."""
    bot_main(parser(), policy_from, argv)


if __name__ == "__main__":
    main()
