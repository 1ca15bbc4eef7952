"""Which move wins at one decision of a stored game? The game is replayed
to the champion's decision, the champion's search is asked about it
again, and then the game is played on from there against the row's
opponent with each candidate move forced, K games a move.

    python bench/decisions.py ROW.jsonl --opening N --seat S --day D --phase buy|invest|attack|defend
                              --opponent BOT [--base] [--games K] [--moves MOVE...]
                              [--champion TEXT] [--seeds N] [--warm]

A ROW is a file of stored 2-player games (`bench/strength.py --db-dir
DIR` writes one per pairing); the game is the first one stored with that opening and
the champion in that seat, and the decision is the champion's first one
in that phase on that day (days counted from the game's start, as
`bench/endings.py` counts them). BOT is the row's opponent as the
pairing names it (`"mcts-v1 --time 0.5 --cpu"`), one of our bots: every
game is played in-process, the opponent's reply at the decision its own.
MOVE is a card's name (a buy, or "Pass") or a number (a bid, or a card's
index when attacking or defending); by default the move played in the
game and the moves the search gave the most visits, four in all.

Printed: the position; what the champion's search does there with N
seeds (the move, the share of each move, the moves proven to lose; with
`--warm` after searching each of its own decisions before it, as in
the game, whose tables can carry a proof a cold search does not reach);
then for each move the score of the K games played on with it forced
(new seeds each game, both sides at their usual budgets) and how each
ended.

Why: a lost game is lost at some decision, and a search that spreads its
visits over moves that win and moves that lose against the real
opponent (not the one its playouts imagine) says where its model is
wrong. The forced games measure the moves against the opponent itself.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import champion  # noqa: E402
from bots.inprocess import play_out  # noqa: E402
from driver.game import game_days  # noqa: E402
from endings import ending  # noqa: E402  (bench/endings.py: python puts bench/ first on the path)
from exploit.arena import start_policies  # noqa: E402
from exploit.matches import records, unplayable  # noqa: E402
from exploit.target import resolve_target  # noqa: E402
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, Game, IllegalMove  # noqa: E402
from protocol.engine import move_from_wire, move_to_wire  # noqa: E402

PHASES = {"invest": INVESTING, "buy": BUY, "attack": ATTACKING, "defend": DEFENDING}
CHAMPION = "champion --time 0.5 --wall-limit 120"
SHOWN = 4
"""Moves tried by default: the one played and the most visited others."""


def stored_game(path: Path, opening: int, seat: int) -> dict[str, Any]:
    """The first game of the row with this opening and the champion in `seat`."""
    for game in records(path):
        if game["opening"] == opening and game["seat"] == seat:
            return game
    raise ValueError(f"no game of opening {opening} with the champion in seat {seat} in {path}")


def replay_to(game: dict[str, Any], seat: int, day: int, phase: int, base: bool,
              observe: Callable[[Game], None] | None = None) -> tuple[Game, int | str]:
    """The state at the decision (before any seat has moved at that step)
    and the move the champion played there. `observe(state)` is called at
    each earlier step where the champion was asked, once a step (its bid
    model reads the game's bids there, as it did while playing: a seat's
    answer to a simultaneous step changes no purse before the step ends)."""
    state = Game(2, base=base)
    moves = game["moves"]
    for i, move in enumerate(moves):
        pending = state.pending()
        if seat in pending:
            if state.phase == phase and game_days(state) == day:
                return state, moves[i + pending.index(seat)]
            if observe is not None and pending[0] == seat:
                observe(state)
        state.play(pending[0], move_from_wire(state, move))
    raise ValueError(f"the champion (seat {seat}) has no decision in that phase on day {day} "
                     f"(the game lasted {game_days(state)} days)")


def describe(state: Game) -> str:
    """One line a player: coins, points and cards."""
    wire = state.to_wire()
    return "\n".join(
        f"  seat {p}: {player['coins']} coins, {state.points(p)} points: "
        + ", ".join(card["name"] for card in player["cards"])
        for p, player in enumerate(wire["players"]))


def parse_move(state: Game, seat: int, text: str) -> int:
    """A move as typed (a card's name, Pass, or a number) as the engine's."""
    move = move_from_wire(state, text if not text.lstrip("-").isdigit() else int(text))
    if move not in state.legal_moves(seat):
        raise ValueError(f"{text!r} is not a legal move of seat {seat} here")
    return move


def observer(policy: champion.ChampionPolicy, seat: int, warm: bool) -> Callable[[Game], None] | None:
    """What the champion does at its earlier decisions while the game is
    replayed: search each (`warm`, its answer dropped), or let its bid
    model read the bids (what its searches would have done to it), or
    nothing (no bid model)."""
    if warm:
        def search(state: Game) -> None:
            policy.think(state, seat)
        return search
    bids = policy.bids
    if bids is None:
        return None
    return lambda state: bids.observe(state, seat)


def label(state: Game, move: int) -> str:
    """A move as the wire writes it (a card's name, or a number)."""
    return str(move_to_wire(state, move))


def play_on(state: Game, seat: int, move: int, champion_text: str, opponent: str, seed: int) -> Game:
    """The game from `state` with our move forced, played to its end."""
    game = state.copy()
    ours = resolve_target(champion_text).factory
    theirs = resolve_target(opponent).factory
    assert ours is not None and theirs is not None  # unplayable() said so
    policies = [ours(seed * 2) if p == seat else theirs(seed * 2 + 1) for p in range(game.n_players)]
    start_policies(policies, game)
    answers = {p: (move if p == seat else policies[p](game, p)) for p in game.pending()}
    for p in sorted(answers):
        if game.is_over:
            break
        game.play(p, answers[p])
    return play_out(game, policies) if not game.is_over else game


def how(game: Game, seat: int) -> str:
    """How a game played on ended for `seat` (bench/endings.py's kinds,
    or a forfeit), and the day."""
    if game.fault is not None:
        return f"seat {game.fault[0]} forfeited on day {game_days(game)} ({game.fault[1]})"
    return f"{ending(game, seat)} on day {game_days(game)}"


def how_stored(stored: dict[str, Any], seat: int) -> str:
    """How the stored game ended for the champion, as its record says."""
    winner = stored.get("winner")
    return "drawn" if winner is None else "won" if winner == seat else "lost"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("row", type=Path, metavar="ROW.jsonl", help="a file of stored games")
    parser.add_argument("--opening", type=int, required=True, metavar="N")
    parser.add_argument("--seat", type=int, choices=(0, 1), required=True, help="the champion's seat")
    parser.add_argument("--day", type=int, required=True, metavar="D", help="the day, counted from 1")
    parser.add_argument("--phase", choices=sorted(PHASES), required=True)
    parser.add_argument("--opponent", required=True, metavar="BOT", help="the row's opponent, one of our bots")
    parser.add_argument("--base", action="store_true", help="the games are of the base set (default: simple)")
    parser.add_argument("--games", type=int, default=8, metavar="K", help="games a move (default %(default)s)")
    parser.add_argument("--moves", nargs="+", default=None, metavar="MOVE",
                        help="the moves to force (default: the one played and the most visited)")
    parser.add_argument("--champion", default=CHAMPION, metavar="TEXT",
                        help="the champion's command (default %(default)r)")
    parser.add_argument("--seeds", type=int, default=4, metavar="N",
                        help="searches of the decision shown (default %(default)s)")
    parser.add_argument("--warm", action="store_true",
                        help="the champion searches every decision of its own before this one too (its answers "
                             "dropped, the stored moves played), so that its trees and its prover's tables are "
                             "warm as they were in the game; slower (default: only its bid model reads the game)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.seeds < 0 or args.day < 1:
        parser.error("--games and --day must be at least 1, --seeds at least 0")
    if not args.row.is_file():
        parser.error(f"no such file: {args.row}")
    for flag, text in (("--opponent", args.opponent), ("--champion", args.champion)):
        problem = unplayable(text)
        if problem is not None:
            parser.error(f"{flag}: {problem}")
    words = shlex.split(args.champion)
    if words[0] != "champion":
        parser.error(f"--champion: not the champion's command (champion OPTIONS): {args.champion!r}")
    phase = PHASES[args.phase]
    try:
        stored = stored_game(args.row, args.opening, args.seat)
        state, played = replay_to(stored, args.seat, args.day, phase, args.base)
        wanted = [parse_move(state, args.seat, text) for text in args.moves or ()]
    except (IllegalMove, KeyError, TypeError, ValueError) as e:
        parser.error(f"{args.row}: {e}")

    print(f"opening {args.opening}, champion in seat {args.seat}, day {args.day}, {args.phase}; "
          f"played {played}; the game was {how_stored(stored, args.seat)}")
    print(describe(state))
    visits: dict[int, float] = {}
    for seed in range(args.seeds):
        policy = champion.policy_from(champion.parser().parse_args([*words[1:], "--seed", str(seed)]))
        policy.new_game(Game(2, base=args.base), args.seat)
        at, _ = replay_to(stored, args.seat, args.day, phase, args.base, observer(policy, args.seat, args.warm))
        move, shares, losing = policy.think(at, args.seat)
        for m, share in shares.items():
            visits[m] = visits.get(m, 0.0) + share / args.seeds
        top = sorted(shares.items(), key=lambda kv: -kv[1])[:6]
        print(f"search, seed {seed}: {label(state, move)}; shares "
              + ", ".join(f"{label(state, m)} {share:.2f}" for m, share in top)
              + (f"; proven to lose: {', '.join(label(state, m) for m in sorted(losing))}" if losing else ""))
    if not wanted:
        wanted = [move_from_wire(state, played)]
        for m in sorted(visits, key=lambda m: -visits[m]):
            if len(wanted) >= SHOWN:
                break
            if m not in wanted:
                wanted.append(m)
    for move in wanted:
        score, ends = 0.0, []
        for k in range(args.games):
            end = play_on(state, args.seat, move, args.champion, args.opponent, 1000 + k)
            score += 1.0 if end.winner == args.seat else 0.5 if end.winner is None else 0.0
            ends.append(how(end, args.seat))
        print(f"{label(state, move)}: {score:g}/{args.games} ({'; '.join(ends)})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
