"""`mcts-v1`: the MCTS bot as it was before the C search core, searching in Python.

    python -m bots.mcts_v1 [--time 0.5 | --iterations N] [--seed S]
                           [--selection duct|rm] [--leaf playout|eval]

Kept so that the champion's goals (issue 22: at least 90% against
"today's versions, kept as `*-v1` if replaced") are measured against the
bot the goal named: the same options and search as `mcts` up to d959ddc,
whose search is `bots.search.mcts.Searcher` (the reference the C core is
tested against), 20 to 40 times slower than the C core, so a weaker bot
at the same time. `--time` is wall-clock time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from bots.sdk import bot_main
from bots.mcts import DEFAULT_SECONDS, parser as current_parser
from bots.search.evaluation import Weights, load_weights
from bots.search.core import MctsConfig
from bots.search.mcts import Searcher
from protocol.engine import Game


class MctsV1Policy:
    """`decide(game, me)` backed by one Python Searcher that persists across moves."""

    def __init__(
        self,
        *,
        seconds: float | None = DEFAULT_SECONDS,
        iterations: int | None = None,
        seed: int | None = None,
        config: MctsConfig = MctsConfig(),
        weights: Weights | None = None,
        cpu: bool = False,
    ) -> None:
        if iterations is not None:
            seconds = None  # an iteration budget makes the move reproducible
        if seconds is None and iterations is None:
            raise ValueError("give a time or an iteration budget")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"--time must be positive, got {seconds}")
        if iterations is not None and iterations < 1:
            raise ValueError(f"--iterations must be at least 1, got {iterations}")
        self.seconds = seconds
        self.iterations = iterations
        self.searcher = Searcher(weights or load_weights(), config, seed, clock=time.thread_time if cpu else time.perf_counter)

    def __call__(self, game: Game, me: int) -> int:
        return self.searcher.choose(game, me, seconds=self.seconds, iterations=self.iterations)

    def new_game(self, game: Game, me: int) -> None:
        self.searcher.reset()


def parser() -> argparse.ArgumentParser:
    """`mcts`'s command line: the two bots take the same options, but for
    `--tree-nodes` (the Python tree has no bound)."""
    parser = current_parser(tree=False)
    parser.prog = "mcts-v1"
    parser.description = "Economancy bot: simultaneous-move Monte Carlo tree search in Python (mcts before the C core)."
    return parser


def policy_from(options: argparse.Namespace) -> MctsV1Policy:
    """The policy `options` (parsed by `parser()`) describe; ValueError or
    OSError if they are bad."""
    return MctsV1Policy(
        seconds=options.time,
        iterations=options.iterations,
        seed=options.seed,
        config=MctsConfig(options.selection, options.exploration, options.leaf),
        weights=load_weights(options.weights),
        cpu=options.cpu,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.mcts_v1`."""
    bot_main(parser(), policy_from, argv)


if __name__ == "__main__":
    main()
