"""Do the playouts' players buy, in the race for points, what real players buy?

    python bench/race_buys.py [--base] [--seeds N] [--top K] ROW.jsonl...

A ROW is a file of stored 2-player games (`bench/variants.py` and
`bench/strength.py --db-dir` write them). At every buy of theirs while a
card worth points is for sale (with more than one move to choose from),
the engine's heuristic, the policy of the champion's and `mcts-v1`'s
playouts, is asked what it would buy there (its most common answer over
N seeds: it plays one move in 16 at random), and that is set against
the card the measured bot and its opponent really bought. Printed: for
each side, the buys read and how many the heuristic named; then the K
commonest misses (the heuristic's card, the card bought) of each side.

Why: the search values a leaf by a playout of these players, and from a
race position their results predict the real game's no better than a
constant (bench/leaf_values.py; docs/bots.md, "The games mcts-v1 takes,
whoever plays them").
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from endings import POINT_CARDS  # noqa: E402  (bench/endings.py: python puts bench/ first on the path)
from exploit.matches import records, steps  # noqa: E402
from protocol.cards import CARDS, PASS_NAME  # noqa: E402
from protocol.engine import BUY, PASS, Game, IllegalMove  # noqa: E402

SIDES = ("the bot", "its opponent")


def name(move: int) -> str:
    return PASS_NAME if move == PASS else CARDS[move].name


def heuristic_buy(game: Game, seat: int, seeds: int) -> int:
    """The heuristic's commonest buy for `seat` over `seeds` seeds."""
    votes = Counter(game.policy_move(seat, seed, 1) for seed in range(seeds))
    return votes.most_common(1)[0][0]


def read(games: Sequence[dict[str, Any]], base: bool, seeds: int) -> dict[str, Counter[tuple[str, str]]]:
    """For each side, (the heuristic's buy, the buy made) counted over the
    race's buys with a choice."""
    out: dict[str, Counter[tuple[str, str]]] = {side: Counter() for side in SIDES}
    for game in games:
        for state, seat, made in steps(game, base):
            shop = state.shop()
            if (state.phase == BUY and len(state.legal_moves(seat)) > 1
                    and any(shop.get(card, 0) for card in POINT_CARDS)):
                side = SIDES[0] if seat == game["seat"] else SIDES[1]
                out[side][(name(heuristic_buy(state, seat, seeds)), name(made))] += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="+", metavar="ROW.jsonl", help="files of stored 2-player games")
    parser.add_argument("--base", action="store_true", help="the games are of the base set (default: simple)")
    parser.add_argument("--seeds", type=int, default=9, metavar="N",
                        help="seeds the heuristic is asked with (default %(default)s)")
    parser.add_argument("--top", type=int, default=5, metavar="K", help="misses listed a side (default %(default)s)")
    options = parser.parse_args(argv)
    if options.seeds < 1 or options.top < 0:
        parser.error("--seeds must be positive and --top 0 or more")
    missing = [str(row) for row in options.rows if not row.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    try:
        counts = read([game for row in options.rows for game in records(row)], options.base, options.seeds)
    except (IllegalMove, KeyError, TypeError, ValueError) as problem:
        parser.error(f"not files of 2-player games of the {'base' if options.base else 'simple'} set ({problem})")
    print("| side | race buys read | the heuristic's buy | share |")
    print("|---|---|---|---|")
    for side in SIDES:
        total = sum(counts[side].values())
        named = sum(n for (theirs, made), n in counts[side].items() if theirs == made)
        share = f"{100 * named / total:.1f}%" if total else "-"
        print(f"| {side} | {total} | {named} | {share} |")
    for side in SIDES:
        misses = [(pair, n) for pair, n in counts[side].most_common() if pair[0] != pair[1]][:options.top]
        if misses:
            print()
            print(f"| {side}: the heuristic's buy | the buy made | times |")
            print("|---|---|---|")
            for (theirs, made), n in misses:
                print(f"| {theirs} | {made} | {n} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
