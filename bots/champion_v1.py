"""`champion-v1`: the champion as it was before the C search core, searching in Python.

    python -m bots.champion_v1 [--time 0.5] [--wall-limit 5] [--depth D] [--seed S] [--weights FILE]

Kept so that the champion's progress (issue 22) is measured against the
bot it replaced: the same options, weights (bots/search/champion-v1.json, the
champion's hand-tuned weights before the learned ones)
and search as `champion` up to d959ddc: `bots.search.mixed.MixedAlphaBeta`,
the Python reference of the C core, which solves the 2-player
simultaneous root as a matrix game and serialises every simultaneous
step below it (no SMAB), on a CPU-time budget with a wall-clock limit.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from bots.champion import DEFAULT_SECONDS, DEFAULT_WALL_LIMIT, MAX_DEPTH
from bots.sdk import bot_main, option_parser
from bots.search.evaluation import CHAMPION_V1_WEIGHTS_FILE, Weights, load_weights
from bots.search.mixed import MixedAlphaBeta
from protocol.engine import Game


class ChampionV1Policy:
    """`decide(game, me)` backed by one Python mixed alpha-beta searcher
    whose transposition table persists across the moves of a game."""

    def __init__(
        self,
        *,
        seconds: float = DEFAULT_SECONDS,
        wall_limit: float | None = DEFAULT_WALL_LIMIT,
        depth: int = MAX_DEPTH,
        seed: int | None = None,
        weights: Weights | None = None,
    ) -> None:
        if seconds <= 0:
            raise ValueError(f"--time must be positive, got {seconds}")
        if wall_limit is not None and wall_limit <= 0:
            raise ValueError(f"--wall-limit must be positive, got {wall_limit}")
        if depth < 1:
            raise ValueError(f"--depth must be at least 1, got {depth}")
        self.seconds = seconds
        self.depth = depth
        self.searcher = MixedAlphaBeta(
            weights or load_weights(packaged=CHAMPION_V1_WEIGHTS_FILE), random.Random(seed),
            clock=time.thread_time, wall_limit=wall_limit,
        )

    def __call__(self, game: Game, me: int) -> int:
        return self.searcher.search(game, me, seconds=self.seconds, max_depth=self.depth).move

    def new_game(self, game: Game, me: int) -> None:
        self.searcher.reset()


def parser() -> argparse.ArgumentParser:
    """The bot's command line: `champion`'s, less `--serialise` (this one always serialises below the root)."""
    parser = option_parser(
        "Economancy bot: the champion before the C core (Python alpha-beta, a matrix game at the root).",
        prog="champion-v1",
    )
    parser.add_argument("--time", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help="CPU time per move (default %(default)s)")
    parser.add_argument("--wall-limit", type=float, default=DEFAULT_WALL_LIMIT, metavar="SECONDS",
                        help="wall-clock time a move may never exceed, however busy the machine (default %(default)s)")
    parser.add_argument("--depth", type=int, default=MAX_DEPTH,
                        help="deepest iteration, in steps (default %(default)s: time decides)")
    parser.add_argument("--weights", default=None, metavar="FILE",
                        help="evaluation weights JSON (default: bots/search/champion-v1.json)")
    return parser


def policy_from(options: argparse.Namespace) -> ChampionV1Policy:
    """The policy `options` (parsed by `parser()`) describe; ValueError or
    OSError if they are bad."""
    return ChampionV1Policy(
        seconds=options.time, wall_limit=options.wall_limit, depth=options.depth, seed=options.seed,
        weights=load_weights(options.weights, CHAMPION_V1_WEIGHTS_FILE),
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.champion_v1`."""
    bot_main(parser(), policy_from, argv)


if __name__ == "__main__":
    main()
