"""Replay page size and build time for a 100-day 4-player game (target: under 1 MB and 1 s).

    .venv/bin/python bench/replay.py [--days N] [--players N] [--simple] [--seed N] [--repeat N] [--keep FILE]

Plays one game in process with a policy that keeps everyone in for the
whole day limit and the tables full (base set; `--simple` runs out of
sturdy cards and ends early by elimination): nobody buys points,
an attack one day in three, every buy taken while the shop lasts (hands
grow to a dozen cards and more, Magic Bean Stock compounds purses past
2**53). The trace is written as the referee writes it (sorted compact
JSON lines), then the replay page is built from the trace bytes
(`viewer.model.build_replay` + `viewer.page.replay_page`, what `driver
view` does), `--repeat` times; prints the trace size, the page size, the
model's JSON size, the renderer's fixed share, and the best and median
build times. `--keep FILE` saves the trace.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from common.defaults import MAX_DAYS  # noqa: E402
from driver.game import state_lines  # noqa: E402
from protocol.exactjson import dumps, loads  # noqa: E402  (exact: purses pass 2**64)
from protocol.cards import ATK, COST, DEF, POINTS  # noqa: E402
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, PASS, Game, move_to_wire  # noqa: E402
from viewer.model import build_replay  # noqa: E402
from viewer.page import json_for_script, replay_page  # noqa: E402


def long_trace(players: int, days: int, base: bool, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    game = Game(players, base=base, max_days=days)
    lines: list[bytes] = []
    while not game.is_over:
        seat = game.pending()[0]
        moves = game.legal_moves(seat)  # investing: a range up to the purse, which compounds
        if game.phase == INVESTING:
            # len(moves) would overflow once the purse passes 2**63: ask the purse itself
            move = 1 if seat == game.days_played % players and game.days_played % 3 == 0 and game.coins(seat) > 0 else 0
        elif game.phase == ATTACKING:  # one attack per attack phase, with the strongest card
            fresh = all(uses == 0 for _, uses in game.cards(seat))
            move = max(moves[1:], key=lambda i: ATK[game.cards(seat)[i][0]] or 0) if fresh and len(moves) > 1 else 0
        elif game.phase == DEFENDING:  # the sturdiest card, so hands last the whole game
            move = max(moves, key=lambda i: (DEF[game.cards(seat)[i][0]] or 0, rng.random()))
        elif game.phase == BUY:
            stock = [m for m in moves if m != PASS and POINTS[m] == 0 and game.shop()[m] > 0]
            move = max(stock, key=lambda m: (COST[m], rng.random())) if stock else PASS
        else:
            raise RuntimeError(f"unexpected phase {game.phase}")
        state = game.to_wire()
        lines.append(state_lines(state, [seat])[seat])
        lines.append(dumps([move_to_wire(game, move)]))
        game.play(seat, move)
    lines.append(dumps(game.to_wire()))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=int, default=MAX_DAYS)
    ap.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    ap.add_argument("--simple", action="store_true", help="The 8 simple-set cards (default: all 13 base-set cards).")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--keep", type=Path, default=None, help="Save the generated trace here.")
    args = ap.parse_args()

    lines = long_trace(args.players, args.days, not args.simple, args.seed)
    data = b"\n".join(lines) + b"\n"
    if args.keep:
        args.keep.write_bytes(data)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        replay = build_replay(data, title="bench")
        page = replay_page(replay)
        times.append(time.perf_counter() - start)
    game = replay.games[0]
    final = loads(lines[-1])
    empty = replay_page(build_replay(lines[-1], title="bench"))
    size = len(page.encode())
    print(f"game        {args.players} players, {'simple' if args.simple else 'base'} set, "
          f"{game.steps[-1]['D']} days ({game.result.get('kind')}), {len(lines)} trace lines, "
          f"{len(game.steps)} steps, {len(game.states)} distinct states, "
          f"largest hand {max(len(p['cards']) for p in final['players'])} cards")
    print(f"trace       {len(data) / 1e6:.3f} MB")
    print(f"page        {size / 1e6:.3f} MB (model JSON {len(json_for_script(replay.to_json())) / 1e6:.3f} MB, "
          f"renderer and page frame {len(empty.encode()) / 1e3:.0f} kB)  target < 1 MB: {'ok' if size < 1e6 else 'OVER'}")
    print(f"build       best {min(times) * 1e3:.0f} ms, median {statistics.median(times) * 1e3:.0f} ms of "
          f"{args.repeat}  target < 1 s: {'ok' if statistics.median(times) < 1 else 'OVER'}")


if __name__ == "__main__":
    main()
