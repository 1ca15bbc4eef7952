"""The champion: alpha-beta that mixes its simultaneous moves, on a CPU-time budget.

    python -m bots.champion [--time 0.5] [--wall-limit 5] [--depth D] [--seed S] [--weights FILE] [--serialise]

Why this bot (docs/bots.md has the measurements): alpha-beta is our
strongest bot head to head, and its serialised search proves forced wins
and losses; what it lacks is a mixed strategy where the game has one.
Its bid and its buy were a function of the state, so a bot that knows
it could always outbid it by one or match it (issue 16). The champion
keeps alpha-beta everywhere but at a root where both players choose at
once: there it solves the matrix game of the searched values of every
pair of moves and draws its move from the equilibrium
(`bots.search.core.MixedAlphaBeta`, in C; `bots.search.mixed` is its
Python reference). Below the root too, with two players, a step where both
choose at once is solved as the matrix game of its children (SMAB,
protocol/search/smab.c) instead of being serialised: head to head at
0.1 s of CPU a move this won 20, drew 4 and lost 6 of 30 games against
the serialised search (`--serialise`; docs/bots.md, the champion).

Its budget is CPU time (the thread's CPU clock), not wall time: on a busy
machine a wall-clock bot searches less and plays worse, while this one
searches as deep as on an idle machine and answers later. `--wall-limit`
bounds the wall time of a move whatever the load (keep it well under the
referee's per-move timeout, 10 s by default).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from bots.sdk import option_parser, bot_main
from bots.search.core import Budget, MixedAlphaBeta
from bots.search.weights import CHAMPION_WEIGHTS_FILE, Weights, load_weights
from protocol.engine import Game

DEFAULT_SECONDS = 0.5
DEFAULT_WALL_LIMIT = 5.0
MAX_DEPTH = 64


class ChampionPolicy:
    """`decide(game, me)` backed by one mixed alpha-beta searcher whose
    transposition table persists across the moves of a game."""

    def __init__(
        self,
        *,
        seconds: float = DEFAULT_SECONDS,
        wall_limit: float | None = DEFAULT_WALL_LIMIT,
        depth: int = MAX_DEPTH,
        seed: int | None = None,
        weights: Weights | None = None,
        smab: bool = True,
    ) -> None:
        if seconds <= 0:
            raise ValueError(f"--time must be positive, got {seconds}")
        if wall_limit is not None and wall_limit <= 0:
            raise ValueError(f"--wall-limit must be positive, got {wall_limit}")
        if depth < 1:
            raise ValueError(f"--depth must be at least 1, got {depth}")
        self.seconds = seconds
        self.depth = depth
        self.searcher = MixedAlphaBeta(weights or load_weights(packaged=CHAMPION_WEIGHTS_FILE), random.Random(seed),
                                       smab=smab)
        self.budget = Budget(seconds=seconds, depth=depth, cpu=True, wall_limit=wall_limit)

    def __call__(self, game: Game, me: int) -> int:
        return self.searcher.search(game, me, self.budget).move

    def new_game(self, game: Game, me: int) -> None:
        self.searcher.reset()


def parser() -> argparse.ArgumentParser:
    """The bot's command line (also read by tools that run it in-process)."""
    parser = option_parser(
        "Economancy bot: alpha-beta that draws its bids and buys from a matrix game's equilibrium.", prog="champion"
    )
    parser.add_argument("--time", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help="CPU time per move (default %(default)s)")
    parser.add_argument("--wall-limit", type=float, default=DEFAULT_WALL_LIMIT, metavar="SECONDS",
                        help="wall-clock time a move may never exceed, however busy the machine (default %(default)s)")
    parser.add_argument("--depth", type=int, default=MAX_DEPTH,
                        help="deepest iteration, in steps (default %(default)s: time decides)")
    parser.add_argument("--weights", default=None, metavar="FILE",
                        help="evaluation weights JSON (default: the champion's shipped weights, bots/search/champion.json)")
    parser.add_argument("--serialise", action="store_true",
                        help="serialise the simultaneous steps below the root (we choose first) instead of solving "
                             "them as matrix games (SMAB): the champion as it was before SMAB")
    return parser


def policy_from(options: argparse.Namespace) -> ChampionPolicy:
    """The policy `options` (parsed by `parser()`) describe; ValueError or
    OSError if they are bad."""
    return ChampionPolicy(
        seconds=options.time, wall_limit=options.wall_limit, depth=options.depth, seed=options.seed,
        weights=load_weights(options.weights, CHAMPION_WEIGHTS_FILE), smab=not options.serialise,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.champion` and `economancy-champion`."""
    bot_main(parser(), policy_from, argv)


if __name__ == "__main__":
    main()
