"""Does a change leave the champion's play alone? Its games with the
work bounded instead of the clock, so that two checkouts can be compared
move for move.

    python bench/fixed_play.py [--champion "champion OPTIONS"] [--opponent BOT] [--players N] [--base]
                               [--openings K] [--iterations I] [--proof-depth D]

The champion (its options as on its command line; `--time` is replaced)
plays the first K openings of the harness's suite for the set and table
size from every seat, the other seats held by OPPONENT (one of our bots,
in-process), its MCTS bounded by I iterations a move and its sure-loss
prover by depth D, every seed fixed by the opening and the seat. Printed:
one line a game (opening, seat, winner, days, moves) with a digest of
its moves, then the digest of them all.

Why: a change meant for one table size (2 players) or one search should
leave the others' games as they were, and a row measured before it then
still stands. Measured games cannot show it (CPU budgets make each run
differ); the same digest at two commits does, and a different one names
the first game that moved.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import champion  # noqa: E402
from bots.inprocess import play_out  # noqa: E402
from bots.search.core import Budget  # noqa: E402
from driver.game import game_days  # noqa: E402
from exploit.arena import Recorder, start_policies  # noqa: E402
from exploit.matches import unplayable  # noqa: E402
from exploit.target import resolve_target  # noqa: E402
from protocol import exactjson  # noqa: E402
from protocol.engine import Game  # noqa: E402
from protocol.openings import play_opening  # noqa: E402
from tournaments.openings import load_suite  # noqa: E402


def champion_policy(text: str, seed: int, iterations: int, proof_depth: int) -> champion.ChampionPolicy:
    """The champion of the command `text` ("champion --exploration 0.5"),
    its budgets replaced by fixed work: the same position and seed give
    the same move whatever the machine's load."""
    words = shlex.split(text)
    if not words or words[0] != "champion":
        raise ValueError(f"not the champion's command (champion OPTIONS): {text!r}")
    options = champion.parser().parse_args([*words[1:], "--seed", str(seed)])
    policy = champion.policy_from(options)
    if policy.search == "mcts":
        policy.budget = Budget(iterations=iterations)
        policy.proof_budget = Budget(depth=proof_depth)
    else:
        policy.budget = Budget(depth=proof_depth)
    return policy


def play(args: argparse.Namespace) -> list[str]:
    """Every opening from every seat, each game printed; their digests."""
    factory = resolve_target(args.opponent).factory
    assert factory is not None  # unplayable() said so
    suite = load_suite(args.players, args.base)
    games = []
    for index in range(args.openings):
        for seat in range(args.players):
            rng = random.Random(f"{index}/{seat}")
            game = Game(args.players, base=args.base)
            opening = suite[index % len(suite)]
            play_opening(game, opening)
            policies = [factory(rng.getrandbits(32)) for _ in range(args.players)]
            policies[seat] = champion_policy(args.champion, rng.getrandbits(32), args.iterations, args.proof_depth)
            moves: list[int | str] = list(opening)
            start_policies(policies, game)
            play_out(game, [Recorder(policy, moves) for policy in policies])
            digest = hashlib.sha256(exactjson.dumps(moves)).hexdigest()[:16]
            games.append(digest)
            print(f"opening {index} seat {seat}: winner {game.winner}, {game_days(game)} days, "
                  f"{len(moves)} moves, {digest}", flush=True)
    return games


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--champion", default="champion", metavar="TEXT",
                        help="the champion's command and options (default %(default)s)")
    parser.add_argument("--opponent", default="expert", metavar="BOT",
                        help="our bot in the other seats, in-process (default %(default)s)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--base", action="store_true", help="all 13 base-set cards (default: the simple set)")
    parser.add_argument("--openings", type=int, default=12, metavar="K",
                        help="the suite's first K openings, each from every seat (default %(default)s)")
    parser.add_argument("--iterations", type=int, default=1500, metavar="I",
                        help="the MCTS's iterations a move (default %(default)s)")
    parser.add_argument("--proof-depth", type=int, default=1, metavar="D",
                        help="the sure-loss prover's depth (alpha-beta's, with --search alphabeta) "
                             "(default %(default)s)")
    args = parser.parse_args(argv)
    if args.openings < 1 or args.iterations < 1 or args.proof_depth < 1:
        parser.error("--openings, --iterations and --proof-depth must be at least 1")
    problem = unplayable(args.opponent)
    if problem is not None:
        parser.error(f"--opponent: {problem}")
    try:
        champion_policy(args.champion, 0, args.iterations, args.proof_depth)
    except (ValueError, OSError) as problem:
        parser.error(f"--champion: {problem}")
    games = play(args)
    whole = hashlib.sha256("\n".join(games).encode()).hexdigest()[:16]
    print(f"{len(games)} games, digest {whole}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
