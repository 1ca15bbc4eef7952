"""How well does the champion's tree foresee its opponent? Stored games
are replayed; at each of the champion's decisions it searches again as
in the game (its tree kept from move to move, its bid model reading the
bids), and where the opponent chose at the same time (the day's bids and
buys), the tree's statistics for the opponent at the root are read
against the move the opponent really made (where it had more than one
move to choose from).

    python bench/predictions.py ROW.jsonl... [--base] [--games N] [--result won|lost|drawn|any]
                                [--champion TEXT]

A ROW is a file of stored 2-player games (`bench/strength.py --db-dir
DIR` or `bench/variants.py --out DIR` write them). Printed, for the
bids and for the buys: the decisions read, the mean share of the
tree's visits on the opponent's real move, and how often that move was
the tree's most visited; for the buys at which the opponent could buy a
card worth points, how often it did and the tree's mean share on such
buys, split by whether it did. Then, of the champion's own searched
decisions (more than one move): the CPU each took (its search stops
early once the rest of its budget could not change its move), and at how
many its prover proved a move lost, and how many times that move was
its MCTS's most visited, which the prover's veto then overruled.

Why: decoupled UCT answers each of an opponent's moves as its best, and
its statistics settle on few moves: a model of the opponent that no
score measures directly. A champion that loses races might not see the
opponent race; replayed from the games it lost to `mcts-v1`, its tree
did (0.79 of the visits on points buys where `mcts-v1` bought points,
0.03 where it did not; docs/bots.md, "The opponent in the tree"), and
a model that made the opponent race in the tree gained nothing.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import champion  # noqa: E402
from bots.search.core import Mcts  # noqa: E402
from decisions import how_stored  # noqa: E402  (bench/decisions.py: python puts bench/ first on the path)
from exploit.matches import records  # noqa: E402
from protocol.cards import CARDS  # noqa: E402
from protocol.engine import BUY, INVESTING, Game, IllegalMove, move_from_wire  # noqa: E402

CHAMPION = "champion --time 0.1 --wall-limit 120"
RESULTS = ("won", "lost", "drawn", "any")


@dataclass
class Tally:
    """What the tree foresaw at one kind of step (bids or buys)."""

    decisions: int = 0
    share: float = 0.0  # summed share of the opponent's real move
    top: int = 0  # decisions where it was the most visited
    could: int = 0  # buys where the opponent could buy points
    raced: int = 0  # ... and did
    points_share: dict[bool, float] = field(default_factory=lambda: {True: 0.0, False: 0.0})

    def line(self, name: str) -> str:
        if not self.decisions:
            return f"{name}: no decision read"
        text = (f"{name}: {self.decisions} decisions; the opponent's move had {self.share / self.decisions:.2f} "
                f"of the tree's visits on average and was its most visited at {self.top} "
                f"({self.top / self.decisions:.0%})")
        if self.could:
            others = self.could - self.raced
            did = self.points_share[True] / self.raced if self.raced else 0.0
            did_not = self.points_share[False] / others if others else 0.0
            text += (f"; it could buy points at {self.could} and did at {self.raced} ({self.raced / self.could:.0%}): "
                     f"the tree's share on points buys {did:.2f} where it did, {did_not:.2f} where it did not")
        return text


@dataclass
class Searches:
    """What the champion's own searches did at its decisions that had more
    than one move (the replay's other reading)."""

    cpu: list[float] = field(default_factory=list)  # CPU seconds each took
    proven: int = 0  # decisions with a move proven to lose
    vetoed: int = 0  # ... among them the search's most visited, which the champion then did not play

    def line(self, budget: float) -> str:
        if not self.cpu:
            return "the champion: no decision searched"
        cpu = sorted(self.cpu)
        quartiles = " ".join(f"{cpu[int(q * (len(cpu) - 1))]:.3f}" for q in (0.25, 0.5, 0.75))
        return (f"the champion: {len(cpu)} decisions searched, {sum(cpu) / len(cpu):.3f} s of CPU on average of its "
                f"{budget:g} s (quartiles {quartiles}); moves proven to lose at {self.proven}, its search's most "
                f"visited among them at {self.vetoed}")


def can_buy_points(game: Game, p: int) -> bool:
    """Whether p, at a buying step, can buy a card worth points."""
    coins = game.coins(p)
    return game.buys(p) > 0 and any(count > 0 and CARDS[card].points > 0 and (CARDS[card].cost or 0) <= coins
                                    for card, count in game.shop().items())


def read_game(game: dict[str, Any], words: list[str], base: bool, seed: int, tallies: dict[int, Tally],
              searches: Searches) -> None:
    """Replays one stored game, the champion searching at each of its
    decisions, and adds what its tree foresaw of the opponent's bids and
    buys to `tallies` (by phase), and what its searches did to `searches`."""
    seat = game["seat"]
    them = 1 - seat
    policy = champion.policy_from(champion.parser().parse_args([*words[1:], "--seed", str(seed)]))
    state = Game(2, base=base)
    policy.new_game(state, seat)
    moves = game["moves"]
    i = 0
    while i < len(moves) and not state.is_over:
        pending = state.pending()
        if seat in pending:
            started = time.thread_time()
            _ours, shares, losing = policy.think(state, seat)
            if len(shares) > 1:
                searches.cpu.append(time.thread_time() - started)
                searches.proven += bool(losing)
                searches.vetoed += max(shares, key=shares.__getitem__) in losing
            if them in pending and state.phase in tallies and isinstance(policy.searcher, Mcts):
                _move, _done, stats = policy.searcher.core.search(state, them, 0)  # no iteration: the root's counts
                visits = sum(count for _, count, _ in stats)
                if visits and len(stats) > 1:  # a move the opponent could not but make foresees nothing
                    real = move_from_wire(state, moves[i + pending.index(them)])
                    share = {move: count / visits for move, count, _ in stats}
                    tally = tallies[state.phase]
                    tally.decisions += 1
                    tally.share += share.get(real, 0.0)
                    tally.top += max(share, key=share.__getitem__) == real
                    if state.phase == BUY and can_buy_points(state, them):
                        did = real > 0 and CARDS[real].points > 0
                        tally.could += 1
                        tally.raced += did
                        tally.points_share[did] += sum(p for m, p in share.items() if m > 0 and CARDS[m].points > 0)
        for _ in pending:
            if i >= len(moves) or state.is_over:
                break
            state.play(state.pending()[0], move_from_wire(state, moves[i]))
            i += 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", type=Path, nargs="+", metavar="ROW.jsonl", help="files of stored 2-player games")
    parser.add_argument("--base", action="store_true", help="the games are of the base set (default: simple)")
    parser.add_argument("--games", type=int, default=10, metavar="N",
                        help="games read, the first N with that result (default %(default)s)")
    parser.add_argument("--result", choices=RESULTS, default="any",
                        help="only the games the champion won, lost or drew (default %(default)s)")
    parser.add_argument("--champion", default=CHAMPION, metavar="TEXT",
                        help="the champion that searches the replayed decisions (default %(default)r)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    for row in args.rows:
        if not row.is_file():
            parser.error(f"no such file: {row}")
    words = shlex.split(args.champion)
    if not words or words[0] != "champion":
        parser.error(f"--champion: not the champion's command (champion OPTIONS): {args.champion!r}")
    try:
        options = champion.parser().parse_args(words[1:])
    except SystemExit:
        parser.error(f"--champion: the champion refuses {args.champion!r}")
    if options.search != "mcts":
        parser.error("--champion: only the MCTS champion has a tree to read")
    games = [game for row in args.rows for game in records(row)
             if game.get("moves") and args.result in ("any", how_stored(game, game["seat"]))][:args.games]
    if not games:
        parser.error(f"no stored game with that result ({args.result}) in {', '.join(map(str, args.rows))}")
    tallies = {INVESTING: Tally(), BUY: Tally()}
    searches = Searches()
    for n, game in enumerate(games):
        try:
            read_game(game, words, args.base, n, tallies, searches)
        except (IllegalMove, IndexError, KeyError, TypeError, ValueError) as e:
            parser.error(f"a stored game (opening {game.get('opening')}, seat {game.get('seat')}) does not replay: {e}")
    print(f"{len(games)} games ({args.result}), {args.champion}:")
    print(tallies[INVESTING].line("bids"))
    print(tallies[BUY].line("buys"))
    print(searches.line(options.time))
    return 0


if __name__ == "__main__":
    sys.exit(main())
