"""Search bots: speed as a bot sees the engine, and in-process strength.

    python bench/search.py speed [--seconds 2] [--base]
    python bench/search.py match BOT OPPONENT [-n GAMES] [-p PLAYERS] [--base] [-j JOBS]
    python bench/search.py depth [--times 0.1,0.5,2] [--wall-limit 5] [--base]
    python bench/search.py tree [--times 0.1,0.5,2] [--wall-limit 5] [--base]

`speed`: MCTS iterations per second and alpha-beta nodes per second, from
the first buy (day 1) and a mid-game position, on one core: the C search core
(bots.search.core, what the bots play) beside the Python reference
searches (bots/search/mcts.py, alphabeta.py) on the same positions, with
the ratio; the C core's MCTS with its playouts cut at the champion's
horizon (the reference has none); and the depth the champion completes at 0.5 s of CPU with
each (its Python reference, bots/search/mixed.py, is the champion as it
was before the C core), and with SMAB below the root as shipped.

`depth`: the depth the champion completes, and the wall time it takes,
at each CPU budget of `--times`, at its decisions in a reproducible game
(the champion at 0.1 s against `expert` from the real start, the first
12 decisions with a choice). Its budget is CPU time with a wall-clock
cap, so on a busy machine the cap, not the budget, can end a search:
this says which, and whether a larger budget searches deeper.

`tree`: the nodes in the MCTS champion's tree after each of its searches
at seat 0 of a reproducible game (`expert` against itself), at each CPU budget of `--times`, with its
tree sized from the budget (`champion --tree-nodes`'s default) and with
the 2**17 nodes it had at every budget before. A search adds a node an
iteration, a full tree (marked `*`) stops growing, and a search that finds
it three quarters full drops it (`-`) and starts again from nothing; this
says at which budgets a fixed bound made more time buy no deeper tree.

`match`: BOT against OPPONENT (2 players: seats swapped; 3-4 players: BOT
against copies of OPPONENT, BOT's seat rotated) in in-process games, no
processes or JSON, so many games fit in little CPU; prints BOT's win rate
with its 95% Wilson interval. Bots: random, expert, decent, mcts:SECONDS,
mcts-rm:SECONDS, mcts-eval:SECONDS, alphabeta:SECONDS, champion:SECONDS,
champion-ab:SECONDS (the champion with --search alphabeta), champion-serial:SECONDS
(that with --serialise; CPU seconds for the champions). `depth` is the
depth of the champion's alpha-beta (--search alphabeta).

The mid-game position is reached by a fixed-seed playout of the engine's
heuristic policy stopped at day 7 (or the last decision before its end),
so the figures are comparable between runs and machines.
"""

from __future__ import annotations

import argparse
import random
import time

from bots import decent_repro, expert
from common.pool import WorkerPool
from bots.alphabeta import AlphaBetaPolicy
from bots.champion import DEFAULT_WALL_LIMIT, HORIZON_DAYS, ChampionPolicy
from bots.inprocess import Policy, play_game
from bots.mcts import MctsPolicy
from bots.random_bot import random_policy
from bots.search import core
from bots.search.alphabeta import AlphaBeta
from bots.search.evaluation import CHAMPION_WEIGHTS_FILE, load_weights
from bots.search.core import MctsConfig
from bots.search.mcts import Searcher
from bots.search.mixed import MixedAlphaBeta
from protocol.engine import Game
from tournaments.stats.crosstable import wilson

MID_GAME_DAYS = 6


def first_buy(base: bool) -> Game:
    """The game's first decision with a choice for both searches: the
    day-1 buy after both players bid 0. (At the day-1 bids nobody holds a
    card that attacks, so the C core searches only the bid 0 and would
    measure nothing.)"""
    game = Game(2, base=base)
    game.play(0, 0)
    game.play(1, 0)
    return game


def mid_game(base: bool, n_players: int = 2) -> Game:
    """A reproducible position in the middle of a game, at a decision of
    player 0: fixed-seed random play from the cheaper half of the legal
    moves, until MID_GAME_DAYS days are complete."""
    rng = random.Random(7)
    game = Game(n_players, base=base)
    while game.days_played < MID_GAME_DAYS:
        trial = game.copy()
        for player in trial.pending():
            moves = trial.legal_moves(player)
            trial.play(player, rng.choice(moves[: len(moves) // 2 + 1]))
        if not trial.is_over:
            game = trial
    while 0 not in game.pending():
        player = game.pending()[0]
        game.play(player, game.legal_moves(player)[0])
    return game


def bench_mcts(game: Game, seconds: float, leaf: str) -> float:
    """The Python reference's iterations per second."""
    searcher = Searcher(load_weights(), MctsConfig(leaf=leaf), seed=1)
    start = time.perf_counter()
    searcher.choose(game, 0, seconds=seconds)
    return searcher.iterations / (time.perf_counter() - start)


def bench_core_mcts(game: Game, seconds: float, leaf: str, horizon: int = 0) -> float:
    """The C core's iterations per second (wall clock, as the reference's),
    its playouts cut after `horizon` days (0: played to the end)."""
    searcher = core.Mcts(load_weights(), MctsConfig(leaf=leaf, horizon=horizon), seed=1)
    start = time.perf_counter()
    outcome = searcher.search(game, 0, core.Budget(seconds=seconds, cpu=False))
    return outcome.iterations / (time.perf_counter() - start)


def bench_alphabeta(game: Game, seconds: float) -> tuple[float, int]:
    """The Python reference's nodes per second, and the depth it completed."""
    searcher = AlphaBeta(load_weights())
    start = time.perf_counter()
    result = searcher.search(game, 0, seconds=seconds)
    return result.nodes / (time.perf_counter() - start), result.depth


def bench_core_alphabeta(game: Game, seconds: float) -> tuple[float, int]:
    """The C core's nodes per second, and the depth it completed."""
    searcher = core.AlphaBeta(load_weights(), random.Random(1))
    start = time.perf_counter()
    outcome = searcher.search(game, 0, core.Budget(seconds=seconds, cpu=False))
    return outcome.nodes / (time.perf_counter() - start), outcome.depth


def champion_depths(game: Game, seconds: float = 0.5) -> tuple[int, int, int]:
    """The depth the champion completes at `seconds` of CPU: with the Python
    reference search (the champion before the C core), with the core
    serialising the simultaneous steps below the root (`--serialise`), and
    as shipped (SMAB below the root)."""
    weights = load_weights(packaged=CHAMPION_WEIGHTS_FILE)
    before = MixedAlphaBeta(weights, random.Random(1), clock=time.thread_time).search(game, 0, seconds=seconds)
    budget = core.Budget(seconds=seconds, cpu=True)
    serial = core.MixedAlphaBeta(weights, random.Random(1)).search(game, 0, budget)
    smab = core.MixedAlphaBeta(weights, random.Random(1), smab=True).search(game, 0, budget)
    return before.depth, serial.depth, smab.depth


def speed(seconds: float, base: bool) -> None:
    positions = {"first buy": first_buy(base), "mid-game": mid_game(base)}
    print(f"set: {'base' if base else 'simple'}, 2 players, {seconds} s per measurement, one process; "
          "Python reference | C core | ratio")
    for name, game in positions.items():
        print(f"{name}: day {game.day}, days played {game.days_played}, phase {game.phase}")
        for leaf in ("playout", "eval"):
            py, c = bench_mcts(game, seconds, leaf), bench_core_mcts(game, seconds, leaf)
            print(f"  mcts ({leaf} leaves): {py:10.0f} | {c:10.0f} iterations/s | {c / py:5.1f}x")
        cut = bench_core_mcts(game, seconds, "playout", HORIZON_DAYS)
        print(f"  mcts (playouts cut {HORIZON_DAYS} days on once no points are for sale, the champion's; C only): "
              f"{cut:10.0f} iterations/s")
        (py, py_depth), (c, c_depth) = bench_alphabeta(game, seconds), bench_core_alphabeta(game, seconds)
        print(f"  alpha-beta:            {py:10.0f} | {c:10.0f} nodes/s      | {c / py:5.1f}x "
              f"(depth {py_depth} | {c_depth} completed)")
        before, serial, smab = champion_depths(game)
        print(f"  champion at 0.5 s CPU: depth {before} | {serial} completed ({smab} with SMAB, as shipped)")


def depth(times: list[float], wall_limit: float, base: bool, decisions: int = 12) -> None:
    game = Game(2, base=base)
    guide = ChampionPolicy(seconds=0.1, seed=1, search="alphabeta")
    print(f"set: {'base' if base else 'simple'}; champion's depth completed (wall seconds) at "
          f"{', '.join(f'{t:g} s' for t in times)} of CPU, wall cap {wall_limit:g} s")
    shown = 0
    while not game.is_over and shown < decisions:
        for player in game.pending():
            if player == 0 and len(game.legal_moves(0)) > 1 and shown < decisions:
                cells = []
                for seconds in times:
                    searcher = ChampionPolicy(seconds=seconds, wall_limit=wall_limit, seed=1, search="alphabeta").searcher
                    start = time.perf_counter()
                    result = searcher.search(game, 0, core.Budget(seconds=seconds, cpu=True, wall_limit=wall_limit))
                    cells.append(f"d{result.depth} ({time.perf_counter() - start:4.1f} s)")
                print(f"  day {game.days_played + 1:2d} {game.to_wire(0)['phase']['name']:10s} " + "  ".join(f"{c:>12s}" for c in cells), flush=True)
                shown += 1
        moves = {p: (guide(game, p) if p == 0 else expert.decide(game, p)) for p in game.pending()}
        for player, move in moves.items():
            game.play(player, move)


def tree(times: list[float], wall_limit: float, base: bool, decisions: int = 12) -> None:
    game = Game(2, base=base)
    policies: list[tuple[float, int, ChampionPolicy]] = []
    for seconds in times:
        for bound in (None, core.TREE_NODES):
            policy = ChampionPolicy(seconds=seconds, wall_limit=wall_limit, seed=1, max_nodes=bound)
            policy.new_game(game, 0)
            assert isinstance(policy.searcher, core.Mcts)
            if not policies or (seconds, policy.searcher.max_nodes) != policies[-1][:2]:
                policies.append((seconds, policy.searcher.max_nodes, policy))
    print(f"set: {'base' if base else 'simple'}; nodes in the champion's MCTS tree after each search "
          f"(*: full; -: dropped at the search's start, three quarters full) at its decisions that MCTS searched, "
          f"CPU budget / tree bound:")
    print(" " * 17 + "".join(f"{f'{s:g} s / {n}':>18s}" for s, n, _ in policies))
    full = [0] * len(policies)
    dropped = [0] * len(policies)
    shown = 0
    while not game.is_over and shown < decisions:
        for player in game.pending():
            if player == 0 and len(game.legal_moves(0)) > 1 and shown < decisions:
                cells, searched = [], False
                for k, (_, bound, policy) in enumerate(policies):
                    assert isinstance(policy.searcher, core.Mcts)  # at 2 players think() keeps it
                    before = policy.searcher.core.nodes
                    policy.think(game, 0)
                    nodes = policy.searcher.core.nodes
                    filled = nodes >= bound
                    searched |= nodes != before
                    full[k] += filled
                    dropped[k] += nodes < before
                    cells.append(f"{nodes}{'*' if filled else '-' if nodes < before else ' '}")
                if searched:  # else the prover decided, or there was one candidate
                    print(f"  day {game.days_played + 1:2d} {game.to_wire(0)['phase']['name']:8s}"
                          + "".join(f"{c:>18s}" for c in cells), flush=True)
                    shown += 1
        moves = {p: expert.decide(game, p) for p in game.pending()}
        for player, move in moves.items():
            game.play(player, move)
    print("  full after    " + "".join(f"{f'{n} of {shown}':>18s}" for n in full))
    print("  dropped before" + "".join(f"{f'{n} of {shown}':>18s}" for n in dropped))


def make_policy(spec: str, seed: int) -> Policy:
    """A fresh policy from a spec such as `expert` or `mcts:0.1`."""
    name, _, budget = spec.partition(":")
    seconds = float(budget) if budget else 0.5
    if name == "random":
        return random_policy(random.Random(seed))
    if name == "expert":
        return expert.decide
    if name == "decent":
        return decent_repro.decide_with(random.Random(seed))
    if name == "mcts":
        return MctsPolicy(seconds=seconds, seed=seed)
    if name == "mcts-rm":
        return MctsPolicy(seconds=seconds, seed=seed, config=MctsConfig(selection="rm"))
    if name == "mcts-eval":
        return MctsPolicy(seconds=seconds, seed=seed, config=MctsConfig(leaf="eval"))
    if name == "alphabeta":
        return AlphaBetaPolicy(seconds=seconds, seed=seed)
    if name == "champion":
        return ChampionPolicy(seconds=seconds, seed=seed)
    if name == "champion-ab":
        return ChampionPolicy(seconds=seconds, seed=seed, search="alphabeta")
    if name == "champion-serial":
        return ChampionPolicy(seconds=seconds, seed=seed, smab=False, search="alphabeta")
    raise SystemExit(f"unknown bot {spec!r}")


def _one_game(job: tuple[str, str, int, int, bool, int]) -> float:
    """BOT's score (1 win, 0 loss; a draw counts 1/players) in one game."""
    bot, opponent, players, seat, base, seed = job
    policies = [make_policy(opponent, seed * 10 + k) for k in range(players)]
    policies[seat] = make_policy(bot, seed)
    game = play_game(policies, base=base)
    if game.fault is not None:
        raise RuntimeError(f"game {seed}: fault {game.fault}")
    if game.winner is None:
        return 1.0 / players
    return 1.0 if game.winner == seat else 0.0


def match(bot: str, opponent: str, games: int, players: int, base: bool, jobs: int) -> None:
    work = [(bot, opponent, players, g % players, base, g) for g in range(games)]
    start = time.perf_counter()
    with WorkerPool(jobs) as pool:
        scores = list(pool.map(_one_game, work))
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if 0 < s < 1)
    low, high = wilson(wins, len(scores))
    print(
        f"{bot} vs {opponent} ({players} players, {'base' if base else 'simple'}, in-process): "
        f"{wins}/{len(scores)} wins, {draws} draws; win rate {wins / len(scores):.3f} "
        f"[95% {low:.3f}, {high:.3f}]; {time.perf_counter() - start:.0f} s wall, {jobs} jobs"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    speed_cmd = commands.add_parser("speed", help="iterations and nodes per second")
    speed_cmd.add_argument("--seconds", type=float, default=2.0, help="search time per measurement")
    speed_cmd.add_argument("--base", action="store_true", help="base set instead of simple")
    depth_cmd = commands.add_parser("depth", help="the champion's depth at several CPU budgets")
    depth_cmd.add_argument("--times", default="0.1,0.5,2", help="CPU seconds a move, comma-separated (default %(default)s)")
    depth_cmd.add_argument("--wall-limit", type=float, default=DEFAULT_WALL_LIMIT,
                           help="the champion's wall-clock cap (default %(default)s)")
    depth_cmd.add_argument("--base", action="store_true", help="base set instead of simple")
    tree_cmd = commands.add_parser("tree", help="the MCTS champion's tree after each search at several CPU budgets")
    tree_cmd.add_argument("--times", default="0.1,0.5,2", help="CPU seconds a move, comma-separated (default %(default)s)")
    tree_cmd.add_argument("--wall-limit", type=float, default=DEFAULT_WALL_LIMIT,
                          help="the champion's wall-clock cap (default %(default)s)")
    tree_cmd.add_argument("--base", action="store_true", help="base set instead of simple")
    match_cmd = commands.add_parser("match", help="in-process win rate of BOT against OPPONENT")
    match_cmd.add_argument("bot")
    match_cmd.add_argument("opponent")
    match_cmd.add_argument("-n", "--games", type=int, default=20)
    match_cmd.add_argument("-p", "--players", type=int, default=2, choices=(2, 3, 4))
    match_cmd.add_argument("--base", action="store_true")
    match_cmd.add_argument("-j", "--jobs", type=int, default=1)
    options = parser.parse_args()
    if options.command == "speed":
        speed(options.seconds, options.base)
    elif options.command in ("depth", "tree"):
        try:
            times = [float(t) for t in options.times.split(",")]
        except ValueError:
            parser.error(f"--times: comma-separated seconds, got {options.times!r}")
        if not times or min(times) <= 0 or options.wall_limit <= 0:
            parser.error("--times and --wall-limit must be positive")
        (depth if options.command == "depth" else tree)(times, options.wall_limit, options.base)
    else:
        match(options.bot, options.opponent, options.games, options.players, options.base, options.jobs)


if __name__ == "__main__":
    main()
