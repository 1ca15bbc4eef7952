"""How the measured bot's games ended, replayed from stored games: won
or lost by elimination or on points, and on which day, or drawn at the
day limit, and whether that draw was a lock (every points card sold and
the leaders level, so that only an elimination could still decide it).

    python bench/endings.py [--base] [--players N] [--bids] [--games] ROW.jsonl...

A ROW is a file of stored games, one JSON object a line with the
measured bot's `seat` and every move from the start (`bench/strength.py
--db-dir DIR` writes one a pairing, `exploit.matches.play_match` too).
A win's or a loss's kind is read from the final state: the winner was
the last player with cards (an elimination) or held the most points (7
or more). Why it matters: a row short of its goal is fixed differently
when its losses are races for points lost by day 10 than when they are
Ghost attacks, and a draw that is a lock was decided when the points
were shared out, not on day 100 (docs/bots.md, "The lock"). Printed per
file: the games, and for each ending its count and mean day.

`--games` lists every game: its opening and seat, its ending and day,
the points the measured bot and its best opponent held at the end, and
the day the shop's last points card was sold (a lock is set that day).

`--bids` adds what the race for points cost in each ending: the coins
the measured bot bid (and paid: every bid is paid) while the shop still
sold points, on average a game, and the same for an opponent. A race for
points is lost by the side whose purse is empty when the last points
are sold; this shows whether its bids emptied it. (Bids after that are
left out: in a lock both sides' stocks compound for 80 days, and their
bids with them.)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from driver.game import game_days  # noqa: E402
from exploit.matches import records, steps  # noqa: E402
from protocol.cards import CARDS  # noqa: E402
from protocol.engine import INVESTING, Game, IllegalMove  # noqa: E402

ENDINGS = ("won by elimination", "won on points", "drawn, locked", "drawn, not locked",
           "lost by elimination", "lost on points")
"""The columns, in the order printed."""

POINT_CARDS = frozenset(card.id for card in CARDS if card.points)


@dataclass
class Endings:
    """One file's count: each ending's games and the sums of their days,
    of the measured bot's bids while points were sold and of its
    opponents' (their mean)."""

    games: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ENDINGS, 0))
    days: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ENDINGS, 0))
    bids: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ENDINGS, 0))
    opponent_bids: dict[str, float] = field(default_factory=lambda: dict.fromkeys(ENDINGS, 0.0))


def final_state(game: dict[str, Any], base: bool, players: int, bids: list[int] | None = None,
                sold_out: list[int] | None = None) -> Game:
    """The game's last state: its moves replayed in the order the referee
    asked for them (each step's pending seats in seat order). `bids`, if
    given (one zero a seat), gets each seat's investments added to it
    while the shop sells a points card; `sold_out`, if given, gets the day
    (counted from 1) on which the last points card left the shop."""
    state, day, was_selling = Game(players, base=base), 0, True
    for state, seat, move in steps(game, base, players):
        selling = any(state.shop().get(c, 0) for c in POINT_CARDS)
        if sold_out is not None and was_selling and not selling:
            sold_out.append(day)
        if bids is not None and state.phase == INVESTING and selling:
            bids[seat] += move
        day, was_selling = state.days_played + 1, selling
    if not state.is_over:
        raise ValueError("the game's moves stop before its end")
    if sold_out is not None and was_selling and not any(state.shop().get(c, 0) for c in POINT_CARDS):
        sold_out.append(day)
    return state


def locked(state: Game) -> bool:
    """No points card left in the shop, and the most points shared by two
    players or more: nobody can win on points any more."""
    if any(state.shop().get(card, 0) for card in POINT_CARDS):
        return False
    points = sorted((state.points(p) for p in range(state.n_players) if state.alive(p)), reverse=True)
    return len(points) > 1 and points[0] == points[1]


def ending(state: Game, seat: int) -> str:
    """One of ENDINGS, for `seat`, from a finished game's last state."""
    if state.fault is not None:
        raise ValueError("a forfeit: these rows hold none")
    if state.winner is None:
        return "drawn, locked" if locked(state) else "drawn, not locked"
    eliminated = sum(state.alive(p) for p in range(state.n_players)) == 1
    won = "won" if state.winner == seat else "lost"
    return f"{won} by elimination" if eliminated else f"{won} on points"


def endings(path: Path, base: bool, players: int) -> Endings:
    """The count over every game stored in `path`, each replayed once."""
    out = Endings()
    for game in records(path):
        bids = [0] * players
        state = final_state(game, base, players, bids)
        seat = game["seat"]
        kind = ending(state, seat)
        out.games += 1
        out.counts[kind] += 1
        out.days[kind] += game_days(state)
        out.bids[kind] += bids[seat]
        out.opponent_bids[kind] += (sum(bids) - bids[seat]) / (players - 1)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="+", type=Path, metavar="ROW.jsonl", help="files of stored games")
    parser.add_argument("--base", action="store_true", help="the games are of the base set (default: simple)")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players a game (default 2)")
    parser.add_argument("--games", action="store_true",
                        help="also list every game: opening, seat, ending, day, the points held at the end, and the "
                             "day the last points card was sold")
    parser.add_argument("--bids", action="store_true",
                        help="also print the coins bid a game while the shop sold points, in each ending, "
                             "by the bot and by an opponent")
    options = parser.parse_args(argv)
    missing = [str(row) for row in options.rows if not row.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    found: list[Endings] = []
    for row in options.rows:
        try:
            found.append(endings(row, options.base, options.players))
        except (IllegalMove, KeyError, TypeError, ValueError) as e:
            parser.error(f"{row}: not a file of finished {options.players}-player games of the "
                         f"{'base' if options.base else 'simple'} set ({e})")
    print("| file | games | " + " | ".join(ENDINGS) + " |")
    print("|---|---|" + "---|" * len(ENDINGS))
    for row, count in zip(options.rows, found):
        cells = [f"{count.counts[kind]} (day {count.days[kind] / count.counts[kind]:.1f})" if count.counts[kind]
                 else "0" for kind in ENDINGS]
        print(f"| {row.name} | {count.games} | " + " | ".join(cells) + " |")
    if options.games:
        print()
        print("| file | opening | seat | ending | day | its points | the best opponent's | last points card sold on "
              "day |")
        print("|---|---|---|---|---|---|---|---|")
        for row in options.rows:
            for game in records(row):
                sold: list[int] = []
                state = final_state(game, options.base, options.players, sold_out=sold)
                seat = game["seat"]
                best = max(state.points(p) for p in range(options.players) if p != seat)
                print(f"| {row.name} | {game['opening']} | {seat} | {ending(state, seat)} | {game_days(state)} | "
                      f"{state.points(seat)} | {best} | {sold[0] if sold else '-'} |")
    if options.bids:
        print()
        print("| file | ending | games | coins bid a game while points were sold, by the bot | by an opponent |")
        print("|---|---|---|---|---|")
        for row, count in zip(options.rows, found):
            for kind in ENDINGS:
                n = count.counts[kind]
                if n:
                    print(f"| {row.name} | {kind} | {n} | {count.bids[kind] / n:.1f} | "
                          f"{count.opponent_bids[kind] / n:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
