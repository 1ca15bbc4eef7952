"""What opponents paid to stop the measured bot's sure attacks, replayed
from stored games: the price the champion's bid model counts
(bots/search/bids.py, `BidModel.denied`) and charges in its playouts.

    python bench/bid_prices.py [--base] ROW.jsonl...

A ROW is a file of stored games, one JSON object a line with the
measured bot's `seat` and every move from the start (`bench/strength.py
--db-dir DIR` writes one a pairing, `exploit.matches.play_match` too).
Each game is replayed and the bid model is shown every state at which
the measured bot had a move, as the champion shows it; it counts the
investing steps at which the bot held a sure attack and coins and an
opponent held at least as many (so could match its purse), and that
opponent's bid there as a share of the bot's purse (at most all of it).
Printed per file: the steps, how many of them the opponent bid
something at, and the mean share (docs/bots.md, "What the opponent pays
to stop our attacks").
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.search.bids import BidModel  # noqa: E402
from exploit.matches import records  # noqa: E402
from protocol.engine import Game, IllegalMove, move_from_wire  # noqa: E402


@dataclass
class Prices:
    """One file's count: steps, steps with a bid, the shares summed."""

    games: int = 0
    steps: int = 0
    bids: int = 0
    paid: float = 0.0


def states(game: dict[str, Any], base: bool) -> Iterator[Game]:
    """Each state at which the game's measured seat had a move, before
    any move of that step applies (a simultaneous step shows no one's
    choice), as the bot was asked. The moves are stored in the order the
    referee asks for them: each step's pending seats, in seat order."""
    state = Game(2, base=base)
    moves = iter(game["moves"])
    while not state.is_over:
        seats = state.pending()
        if game["seat"] in seats:
            yield state
        for seat in seats:
            move = next(moves, None)
            if move is None:
                return
            state.play(seat, move_from_wire(state, move))


def prices(path: Path, base: bool) -> Prices:
    """The count over every game stored in `path` (2 players: one opponent)."""
    out = Prices()
    for game in records(path):
        out.games += 1
        model = BidModel()
        for state in states(game, base):
            steps, paid = sum(model.threatened.values()), sum(model.paid.values())
            model.observe(state, game["seat"])
            if sum(model.threatened.values()) > steps:
                out.bids += sum(model.paid.values()) > paid
        out.steps += sum(model.threatened.values())
        out.paid += sum(model.paid.values())
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="+", type=Path, metavar="ROW.jsonl", help="files of stored games")
    parser.add_argument("--base", action="store_true", help="the games are of the base set (default: simple)")
    options = parser.parse_args(argv)
    missing = [str(row) for row in options.rows if not row.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    found: list[Prices] = []
    for row in options.rows:
        try:
            found.append(prices(row, options.base))
        except (IllegalMove, KeyError, TypeError, ValueError) as e:
            parser.error(f"{row}: not a file of stored games of the {'base' if options.base else 'simple'} set ({e!r})")
    print("| file | games | steps | bid something | share of the purse paid |")
    print("|---|---|---|---|---|")
    for row, count in zip(options.rows, found):
        if not count.steps:
            print(f"| {row.name} | {count.games} | 0 | - | - |")
            continue
        print(f"| {row.name} | {count.games} | {count.steps} | {count.bids / count.steps:.0%} "
              f"| {count.paid / count.steps:.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
