"""The MCTS bot: simultaneous-move Monte Carlo tree search over the engine.

    python -m bots.mcts [--time 0.5 | --iterations N] [--seed S]
                        [--selection duct|rm] [--leaf playout|eval] [--tree-nodes N]

The search is the C core's (`bots.search.core.Mcts`; `bots.search.mcts`
is its Python reference); this module turns it into a policy
(`MctsPolicy`, for in-process games) and a bot program (`main`). The
tree is kept between moves and found again from the new state; it is
dropped at each game's start, and holds `--tree-nodes` nodes (by default
room for about three searches of the budget, `bots.search.core.tree_nodes`).
`--time` is wall-clock time (`--cpu`: the thread's CPU time).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bots.sdk import option_parser, bot_main
from bots.search.core import Budget, Mcts, MctsConfig, check_tree_nodes, tree_nodes
from bots.search.weights import Weights, load_weights
from protocol.engine import Game

DEFAULT_SECONDS = 0.5


class MctsPolicy:
    """`decide(game, me)` backed by one Searcher that persists across moves."""

    def __init__(
        self,
        *,
        seconds: float | None = DEFAULT_SECONDS,
        iterations: int | None = None,
        seed: int | None = None,
        config: MctsConfig = MctsConfig(),
        weights: Weights | None = None,
        cpu: bool = False,
        max_nodes: int | None = None,
    ) -> None:
        if iterations is not None:
            seconds = None  # an iteration budget makes the move reproducible
        if seconds is None and iterations is None:
            raise ValueError("give a time or an iteration budget")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"--time must be positive, got {seconds}")
        if iterations is not None and iterations < 1:
            raise ValueError(f"--iterations must be at least 1, got {iterations}")
        check_tree_nodes(max_nodes)
        self.seconds = seconds
        self.iterations = iterations
        if max_nodes is None:
            max_nodes = tree_nodes(seconds, iterations)
        self.searcher = Mcts(weights or load_weights(), config, seed, max_nodes)
        self.budget = Budget(seconds=seconds, iterations=iterations, cpu=cpu)

    def __call__(self, game: Game, me: int) -> int:
        return self.searcher.search(game, me, self.budget).move

    def new_game(self, game: Game, me: int) -> None:
        self.searcher.reset()


def parser(*, tree: bool = True) -> argparse.ArgumentParser:
    """The bot's command line (also read by tools that run it in-process);
    without `tree`, no --tree-nodes (mcts-v1's Python tree has no bound)."""
    parser = option_parser("Economancy bot: simultaneous-move Monte Carlo tree search.", prog="mcts")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--time", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help="thinking time per move (default %(default)s)")
    budget.add_argument("--iterations", type=int, default=None, metavar="N",
                        help="search N iterations per move instead of a time budget (reproducible with --seed)")
    parser.add_argument("--selection", choices=("duct", "rm"), default="duct",
                        help="per-player selection rule: decoupled UCT or regret matching (default %(default)s)")
    parser.add_argument("--leaf", choices=("playout", "eval"), default="playout",
                        help="value new leaves by a playout or by the evaluation (default %(default)s)")
    parser.add_argument("--exploration", type=float, default=1.0,
                        help="UCB1 constant (duct) or 10 x the exploration mix (rm) (default %(default)s)")
    parser.add_argument("--weights", default=None, metavar="FILE",
                        help="evaluation weights JSON (default: the shipped tuned weights)")
    if tree:
        parser.add_argument("--tree-nodes", type=int, default=None, metavar="N",
                            help="the most nodes its tree holds (about 250 bytes each; default: room for about three "
                                 "searches of the budget, from 2**17 to 2**20)")
    parser.add_argument("--cpu", action="store_true",
                        help="count --time in this thread's CPU time, not wall time: a busy machine then makes "
                             "moves slower, not weaker (for measurements)")
    return parser


def policy_from(options: argparse.Namespace) -> MctsPolicy:
    """The policy `options` (parsed by `parser()`) describe; ValueError or
    OSError if they are bad."""
    return MctsPolicy(
        seconds=options.time,
        iterations=options.iterations,
        seed=options.seed,
        config=MctsConfig(options.selection, options.exploration, options.leaf),
        weights=load_weights(options.weights),
        cpu=options.cpu,
        max_nodes=options.tree_nodes,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.mcts` and `economancy-mcts`."""
    bot_main(parser(), policy_from, argv)


if __name__ == "__main__":
    main()
