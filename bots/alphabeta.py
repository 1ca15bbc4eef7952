"""The alpha-beta bot: paranoid alpha-beta with iterative deepening.

    python -m bots.alphabeta [--time 0.5] [--depth D] [--weights FILE]

The search is the C core's (`bots.search.core.AlphaBeta`; its Python
reference `bots.search.alphabeta` says how simultaneous choices and 3-4
players are handled); this module turns it into a policy (`AlphaBetaPolicy`, for in-process games) and a bot
program (`main`). `--seed` decides the ties between equally valued moves
(the root's moves are searched in a seeded random order); without it each
run draws a fresh seed.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from bots.sdk import option_parser, bot_main
from bots.search.core import AlphaBeta, Budget
from bots.search.weights import Weights, load_weights
from protocol.engine import Game

DEFAULT_SECONDS = 0.5
MAX_DEPTH = 64


class AlphaBetaPolicy:
    """`decide(game, me)` backed by one searcher whose transposition table
    persists across the moves of a game."""

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
        self.searcher = AlphaBeta(weights or load_weights(), random.Random(seed))
        self.budget = Budget(seconds=seconds, depth=depth, cpu=cpu)  # wall-clock time unless --cpu, as documented

    def __call__(self, game: Game, me: int) -> int:
        return self.searcher.search(game, me, self.budget).move

    def new_game(self, game: Game, me: int) -> None:
        self.searcher.reset()


def parser() -> argparse.ArgumentParser:
    """The bot's command line (also read by tools that run it in-process)."""
    parser = option_parser("Economancy bot: paranoid alpha-beta search with a tuned evaluation.", prog="alphabeta")
    parser.add_argument("--time", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help="thinking time per move (default %(default)s)")
    parser.add_argument("--depth", type=int, default=MAX_DEPTH,
                        help="deepest iteration, in steps (default %(default)s: time decides)")
    parser.add_argument("--weights", default=None, metavar="FILE",
                        help="evaluation weights JSON (default: the shipped tuned weights)")
    parser.add_argument("--cpu", action="store_true",
                        help="count --time in this thread's CPU time, not wall time: a busy machine then makes "
                             "moves slower, not weaker (for measurements)")
    return parser


def policy_from(options: argparse.Namespace) -> AlphaBetaPolicy:
    """The policy `options` (parsed by `parser()`) describe; ValueError or
    OSError if they are bad."""
    return AlphaBetaPolicy(
        seconds=options.time, depth=options.depth, seed=options.seed, weights=load_weights(options.weights),
        cpu=options.cpu,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.alphabeta` and `economancy-alphabeta`."""
    bot_main(parser(), policy_from, argv)


if __name__ == "__main__":
    main()
