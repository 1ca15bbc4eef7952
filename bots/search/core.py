"""The search core in C, behind one small interface: a game, a budget, a
policy out.

    searcher = make("champion", weights, seed=1)
    outcome = searcher.search(game, me, Budget(seconds=0.5))
    outcome.move, outcome.strategy  # the move to play, and the mixed strategy it was drawn from

The searches run in C beside the rules engine (protocol/search/: one
algorithm per file, on the engine's own state struct), 20 to 40 times
faster than the Python modules of this package, which stay as the
reference implementations the tests compare them with (same value and
move at fixed depths, same candidate moves, same evaluation to the bit):

- `AlphaBeta`: paranoid alpha-beta with iterative deepening and a
  transposition table (bots.search.alphabeta);
- `MixedAlphaBeta`: the same, whose simultaneous 2-player root is solved
  as a matrix game (bots.search.mixed; the game is solved in C too,
  protocol/search/regret.c, whose reference is bots.search.matrix);
- either with `smab=True`: 2-player simultaneous steps below the root are
  solved as matrix games too, pruned by their serialised bounds (SMAB,
  Saffidine et al. 2012; protocol/search/smab.c), instead of serialised;
- `Mcts`: simultaneous-move MCTS, decoupled UCT or regret matching, with
  transpositions (bots.search.mcts).

Budgets are CPU time (the thread's, so that a busy machine makes a bot
slower, not weaker) or wall time, with a wall-clock cap either way; every
search answers when its budget ends (the deepest completed iteration, or
the visits so far). Purses beyond 2**63 stay exact in the moves searched
and played; only the evaluation saturates them.

The bots `mcts`, `alphabeta` and `champion`, the exploiter and the evolved
bot all search through `make(...).search(game, me, budget)`.
"""

from __future__ import annotations

import random
import time

from common.records import Record
from bots.search.weights import Weights
from protocol import _engine
from protocol.engine import BUY, INVESTING, Game

# Nothing a bot does not need for its first answer: no dataclasses, typing,
# numpy, nor the Python reference modules (a bot's start-up is part of every
# game it plays; tests/test_bot_startup.py checks).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Protocol

__all__ = ["Budget", "Outcome", "AlphaBeta", "MixedAlphaBeta", "Mcts", "MctsConfig", "ALGORITHMS", "make",
           "candidate_moves", "value", "tree_nodes",
           "check_tree_nodes", "PURIFY", "SLACK", "PROVEN"]

MAX_DEPTH = 64
TREE_NODES = 1 << 17
"""The MCTS tree's default bound, in nodes (about 250 bytes each when used)."""
TREE_NODES_MAX = 1 << 20
"""The most `tree_nodes` gives a budget: about 270 MB once used."""
TREE_BOUNDS = (16, 1 << 24)
"""The tree bounds the C MCTS accepts."""
TREE_RATE = 400_000
"""About the most iterations a second the C MCTS reaches (mid-game, playouts
cut at the horizon: 389,197 in `bench/search.py speed`); each adds at most
one node."""


class Budget(Record):
    """How long a search may think. `seconds` on the CPU clock of the
    calling thread (`cpu`, the default) or on the wall clock; `wall_limit`
    caps the wall time whatever the clock (keep it under the referee's
    per-move timeout). `iterations` (MCTS) and `depth` (alpha-beta) bound
    the work instead, and make a search reproducible with a fixed seed.
    At least one of seconds, iterations, depth must bound the search."""

    __slots__ = ("seconds", "iterations", "depth", "cpu", "wall_limit")
    seconds: float | None
    iterations: int | None
    depth: int
    cpu: bool
    wall_limit: float | None

    def __init__(self, seconds: float | None = None, iterations: int | None = None, depth: int = MAX_DEPTH,
                 cpu: bool = True, wall_limit: float | None = None) -> None:
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be positive, got {seconds}")
        if wall_limit is not None and not wall_limit > 0:
            raise ValueError(f"wall_limit must be positive, got {wall_limit}")
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self._set(seconds=seconds, iterations=iterations, depth=depth, cpu=cpu, wall_limit=wall_limit)


PLAYOUT_NOISE: int = _engine.HEURISTIC_EXPLORE
"""The engine's heuristic plays one move in 16 at random (protocol/engine.h,
HEURISTIC_EXPLORE): the playouts of MctsConfig's default and of the
reference MCTS."""
MAX_PLAYOUT_NOISE = 1_000_000
"""The rarest random move asked for: one in a million (the engine takes an
int; 0 is none at all)."""
MAX_CONTEMPT = 0.5
"""The most contempt for a draw: an undecided leaf is valued from 0.25 to
0.75, so at 0.5 a lock is worth 0 to 0.25 to the searching player, about
what a loss is (0 to 0.2 with its fading); the C core refuses more."""


class MctsConfig(Record):
    """How the MCTS selects and values: `selection` "duct" (decoupled UCT)
    or "rm" (regret matching), its `exploration` constant (UCB1's c for
    duct; the uniform mix gamma for rm is exploration / 10), `leaf`
    "playout" or "eval", and how deep to look for the new root in the old
    tree (`reuse_depth`). bots.search.mcts, the reference, says what each
    does. The C core alone adds `horizon`: the days a playout runs (more
    while the shop sells points: a race the playout sees and the
    evaluation does not) before the evaluation values the state it reached
    (0: to the game's end), so that what a fight destroys counts, not the
    heuristic's blunders over the rest of a locked game
    (protocol/search/mcts.c says why), `finish`: the playouts' players
    play the engine's finisher (policy 2: the heuristic, buying a points
    card that wins at once) instead of the heuristic, and `noise`: the
    heuristic plays one move in `noise` at random (0: none; the engine's
    16 by default, the reference's), and `contempt`: once no card worth
    points is for sale at the root, taken off the searching player's
    value of a leaf drawn at the day limit or locked (the leaders level),
    so that of two lines it values alike it takes the one that still
    decides the game (0: a draw is worth what the evaluation says; with
    contempt, a tree searched for another player starts again), and
    `race_days`: from a leaf where points are still for sale, the days a
    playout runs before the evaluation values it (-1: on through the race,
    then `horizon`)."""

    __slots__ = ("selection", "exploration", "leaf", "reuse_depth", "horizon", "finish", "noise", "contempt",
                 "race_days")
    selection: str
    exploration: float
    leaf: str
    reuse_depth: int
    horizon: int
    finish: bool
    noise: int
    contempt: float
    race_days: int

    def __init__(self, selection: str = "duct", exploration: float = 1.0, leaf: str = "playout",
                 reuse_depth: int = 6, horizon: int = 0, finish: bool = False, noise: int = PLAYOUT_NOISE,
                 contempt: float = 0.0, race_days: int = -1) -> None:
        if selection not in ("duct", "rm"):
            raise ValueError(f"selection must be 'duct' or 'rm', not {selection!r}")
        if leaf not in ("playout", "eval"):
            raise ValueError(f"leaf must be 'playout' or 'eval', not {leaf!r}")
        if horizon < 0:
            raise ValueError(f"horizon must be 0 (the whole game) or more days, got {horizon}")
        if not 0 <= noise <= MAX_PLAYOUT_NOISE:
            raise ValueError(f"noise must be 0 (no random moves) or more, up to {MAX_PLAYOUT_NOISE}, got {noise}")
        if not 0 <= contempt <= MAX_CONTEMPT:
            raise ValueError(f"contempt must be from 0 to {MAX_CONTEMPT}, got {contempt}")
        if race_days < -1:
            raise ValueError(f"race_days must be -1 (playouts through the race) or 0 or more days, got {race_days}")
        self._set(selection=selection, exploration=exploration, leaf=leaf, reuse_depth=reuse_depth, horizon=horizon,
                  finish=finish, noise=noise, contempt=contempt, race_days=race_days)


LOSS_DEPTH = 2
"""Steps on that AlphaBeta.proofs looks for losses with the opponent choosing
after us (from a bid: the fight, searched to its end, then the buying;
never the next day's bids)."""

SURE_LOSS_DEPTH = 6
"""Steps on that AlphaBeta.proofs looks for sure losses, the opponent
choosing first at every simultaneous step below the root (from a bid: the
fight, the buying, the next day's bids and fight, and on), deepening
while its share of the budget lasts."""

SURE_LOSS_SHARE = 0.5
"""The share of the proofs' budget, after the day's losses, spent on sure losses."""

PROVEN = 500.0
"""Alpha-beta values (`AlphaBeta`, `MixedAlphaBeta`; protocol/search/alphabeta.c,
bots.search.alphabeta) beyond +-PROVEN are proven results, not estimates."""


class Outcome:
    """A search's answer: the move to play, the mixed strategy it was drawn
    from (a single move with probability 1 where the search is pure), and
    what the search did: its value for the mover (alpha-beta: in the units
    of bots.search.alphabeta; MCTS: the mean result of the move, 0..1), the
    deepest completed depth, nodes searched, iterations run, and at a
    matrix-game root the searched matrix (rows: our moves, columns: theirs)."""

    __slots__ = ("move", "strategy", "value", "depth", "nodes", "iterations", "matrix")

    def __init__(self, move: int, strategy: dict[int, float], value: float = 0.0, depth: int = 0, nodes: int = 0,
                 iterations: int = 0, matrix: list[list[float]] | None = None) -> None:
        self.move = move
        self.strategy = strategy
        self.value = value
        self.depth = depth
        self.nodes = nodes
        self.iterations = iterations
        self.matrix = matrix

    def __repr__(self) -> str:
        return (f"Outcome(move={self.move!r}, strategy={self.strategy!r}, value={self.value!r}, depth={self.depth!r}, "
                f"nodes={self.nodes!r}, iterations={self.iterations!r})")


if TYPE_CHECKING:
    class Searcher(Protocol):
        """What every search offers."""

        def search(self, game: Game, me: int, budget: Budget) -> Outcome: ...

        def reset(self) -> None:
            """Forget what earlier searches learned (a new game starts)."""


def candidate_moves(game: Game, player: int) -> list[int]:
    """The moves the searches branch over (bots.search.actions.candidate_moves, in C)."""
    moves: list[int] = _engine.candidate_moves(game, player)
    return moves


def value(game: Game, me: int, weights: Weights) -> float:
    """`me`'s prospects in (0, 1) by the searches' evaluation (in C;
    bots.search.evaluation.evaluate is its reference, in (-1, 1)): the
    leaf value of a search that stops before the game ends, such as the
    exploiter's cut rollouts. Meaningful for a game that is not over."""
    evaluation: float = _engine.evaluate(game, me, weights.values, weights.scale)
    return (1.0 + evaluation) / 2.0


def _limits(budget: Budget) -> tuple[float, float]:
    return (budget.seconds if budget.seconds is not None else -1.0,
            budget.wall_limit if budget.wall_limit is not None else -1.0)


class AlphaBeta:
    """Paranoid alpha-beta in C (bots.search.alphabeta is its reference).
    Its transposition table persists across searches from the same seat.
    The root's moves are searched in a seeded random order, so that ties
    between equally valued moves are a seeded coin toss."""

    def __init__(self, weights: Weights, rng: random.Random | None = None, table_bits: int = 19,
                 smab: bool = False) -> None:
        self.weights = weights
        self.rng = rng or random.Random()
        self.smab = smab
        self.core = _engine.AlphaBeta(weights.values, weights.scale, table_bits, smab)
        self._today: Any = None  # proofs()'s table-less search of the day's losses, made when first needed
        self._beyond: Any = None  # and its search of sure losses, the opponent choosing first

    def reset(self) -> None:
        self.core.reset()
        if self._beyond is not None:
            self._beyond.reset()

    def search(self, game: Game, me: int, budget: Budget) -> Outcome:
        moves = candidate_moves(game, me)
        if not moves:
            raise ValueError(f"player {me} has no move to make in this state")
        self.rng.shuffle(moves)
        seconds, wall = _limits(budget)
        move, value, depth, nodes = self.core.search(game, me, moves, budget.depth, seconds, wall, budget.cpu)
        if move is None:
            # The budget ended before a single root move was searched: the
            # expert rule's move, never an unsearched coin toss.
            move = _expert_move(game, me)
        return Outcome(move, {move: 1.0}, value, depth, nodes)

    def proofs(self, game: Game, me: int, budget: Budget, sure_losses: bool = True) -> tuple[int | None, frozenset[int]]:
        """What this search can prove within `budget`: a move that wins
        against every answer (or None), and the moves that lose this day
        against some answer while another move does not (never all of them).

        At a 2-player simultaneous step (investing, buying) every pair of
        moves is searched (`matrix`): a bid below the purse of an opponent
        whose Ghosts would then eliminate us is such a losing move, and
        neither sampling (MCTS) nor an equilibrium of estimates must play
        it while a safe bid exists. Losses are looked for only LOSS_DEPTH
        steps on (the fight, searched to its end, and the buying), without
        the table: below the root the search is serialised, each opponent
        choosing after seeing our move, which is exact within a day but
        not at the next day's bids, where it would outbid any bid of ours
        and so "prove" the loss of every position a richer opponent could
        attack. Beyond the day (to SURE_LOSS_DEPTH steps, with
        SURE_LOSS_SHARE of what is left) the search is serialised the
        other way round, the opponent choosing first at every simultaneous
        step and we answering knowing its move: a loss found so is sure,
        inflicted by moves of theirs made without seeing ours. A bid that
        spends the purse a richer opponent outbids tomorrow, with a Ghost
        that then takes our last defender, is such a loss (a game lost
        that way to `expert` on day 3, tests/test_champion.py). Its wins hold whatever the
        opponents answer, at any depth: they are searched to the end of the
        budget. Elsewhere only a win is looked for, by the serialised search.
        `sure_losses=False` looks for the day's losses only."""
        opponents = [p for p in game.pending() if p != me]
        if game.n_players != 2 or len(opponents) != 1 or game.phase not in (INVESTING, BUY):
            outcome = self.search(game, me, budget)
            return (outcome.move if outcome.value > PROVEN else None), frozenset()
        them = opponents[0]
        ours, theirs = candidate_moves(game, me), candidate_moves(game, them)
        seconds, wall = _limits(budget)
        clock = time.thread_time if budget.cpu else time.perf_counter

        def lost(rows: list[list[float]] | None) -> frozenset[int]:
            """Our moves whose row holds a proven loss."""
            return frozenset(move for move, row in zip(ours, rows or ()) if min(row) < -PROVEN)

        def left(seconds: float, started: float) -> float:
            """What a search started at `started` left of `seconds` (at least a little: depth 1 is cheap)."""
            return max(seconds - (clock() - started), seconds / 10) if seconds > 0 else seconds

        started = clock()
        if self._today is None:
            self._today = _engine.AlphaBeta(self.weights.values, self.weights.scale, 0, False)
        today, _depth, _nodes = self._today.matrix(game, me, them, ours, theirs, min(LOSS_DEPTH, budget.depth),
                                                   seconds, wall, budget.cpu)
        losing = lost(today)
        if len(losing) == len(ours):
            losing = frozenset()
        seconds = left(seconds, started)
        if sure_losses and budget.depth > LOSS_DEPTH:
            if self._beyond is None:
                self._beyond = _engine.AlphaBeta(self.weights.values, self.weights.scale, 16, False, True)
            share = seconds * SURE_LOSS_SHARE if seconds > 0 else seconds
            started = clock()
            beyond, _depth, _nodes = self._beyond.matrix(game, me, them, ours, theirs,
                                                         min(SURE_LOSS_DEPTH, budget.depth), share, wall, budget.cpu)
            both = losing | lost(beyond)
            if len(both) < len(ours):
                losing = both
            seconds = left(seconds, started)
        rows, _depth, _nodes = self.core.matrix(game, me, them, ours, theirs, budget.depth, seconds, wall, budget.cpu)
        if rows is not None:
            worst = [min(row) for row in rows]
            best = max(range(len(ours)), key=worst.__getitem__)
            if worst[best] > PROVEN:
                return ours[best], frozenset()
        return None, losing


class MixedAlphaBeta(AlphaBeta):
    """Alpha-beta whose simultaneous 2-player root (investing, buying) is
    the matrix game of the searched values of every pair of moves, solved
    to an equilibrium from which the move is drawn (bots.search.mixed, the
    reference, says why). Elsewhere plain alpha-beta."""

    def search(self, game: Game, me: int, budget: Budget) -> Outcome:
        opponents = [p for p in game.pending() if p != me]
        if game.n_players != 2 or len(opponents) != 1 or game.phase not in (INVESTING, BUY):
            return super().search(game, me, budget)
        them = opponents[0]
        ours, theirs = candidate_moves(game, me), candidate_moves(game, them)
        if len(ours) == 1:
            return Outcome(ours[0], {ours[0]: 1.0})
        seconds, wall = _limits(budget)
        rows, depth, nodes = self.core.matrix(game, me, them, ours, theirs, budget.depth, seconds, wall, budget.cpu)
        if rows is None:
            move = _expert_move(game, me)
            return Outcome(move, {move: 1.0}, 0.0, 0, nodes)
        row, column, equilibrium_value, _gap = _engine.matrix_game_solve(rows)
        strategy = purified(row, column, rows, PURIFY, SLACK)
        move = ours[self.rng.choices(range(len(ours)), weights=strategy)[0]]
        return Outcome(move, {a: p for a, p in zip(ours, strategy) if p > 0}, equilibrium_value, depth, nodes,
                       matrix=rows)


PURIFY = 0.05
"""Equilibrium weights below this are dropped before drawing the move."""
SLACK = 1.0
"""A move whose value against the opponent's equilibrium strategy is this
much below the best (a fifth of a coin in the evaluation's units) is
dropped too: the solver's averages leave a little weight on moves that
are worse by a hair, such as a coin bid on a day nobody can attack."""


def purified(row: list[float], column: list[float], matrix: list[list[float]], threshold: float,
             slack: float) -> list[float]:
    """The row strategy without the weights under `threshold` and without
    the moves more than `slack` worse than the best against the column
    strategy, renormalised (a best move is always kept): the values are
    heuristic estimates, and a move the equilibrium barely uses is noise in
    them, not a strategy (bots.search.mixed.purified is the reference)."""
    against = [sum(a * c for a, c in zip(values, column)) for values in matrix]
    best = max(range(len(against)), key=against.__getitem__)  # the first best, as numpy's argmax
    floor = against[best] - slack
    kept = [p if p >= threshold and v >= floor else 0.0 for p, v in zip(row, against)]
    total = sum(kept)
    if total <= 0:
        kept = [0.0] * len(row)
        kept[best] = total = 1.0
    return [p / total for p in kept]


def _expert_move(game: Game, me: int) -> int:
    """The expert rule's move: what a search plays when its budget ended
    before it searched a single root move (never an unsearched coin toss).
    Imported here, not at start-up: it is rarely needed."""
    from bots import expert

    return expert.decide(game, me)


def tree_nodes(seconds: float | None = None, iterations: int | None = None) -> int:
    """The MCTS tree bound for a move's budget: room for the iterations of
    about three searches (a power of two from TREE_NODES to TREE_NODES_MAX).

    Why: an iteration adds a node, and a full tree stops growing (its
    iterations only refine the statistics of the nodes it has), while a
    search that starts with the tree three quarters full starts a new one.
    With the fixed 2**17 nodes the champion's tree was full after 6 of its
    9 searches of a replayed game at 2 s of CPU, and at 0.5 s it was dropped
    at 2 of them: more time bought more playouts from the same leaves, not
    a deeper tree (docs/bots.md, "The tree's size")."""
    wanted = 0
    if seconds is not None:
        wanted = max(wanted, int(3 * seconds * TREE_RATE))
    if iterations is not None:
        wanted = max(wanted, 3 * iterations)
    nodes = TREE_NODES
    while nodes < wanted and nodes < TREE_NODES_MAX:
        nodes *= 2
    return nodes


def check_tree_nodes(nodes: int | None) -> None:
    """ValueError, worded for the bots' `--tree-nodes`, unless `nodes` is
    None (sized from the budget) or a bound the C MCTS accepts."""
    low, high = TREE_BOUNDS
    if nodes is not None and not low <= nodes <= high:
        raise ValueError(f"--tree-nodes must be from {low} to {high}, got {nodes}")


class Mcts:
    """Simultaneous-move MCTS in C (bots.search.mcts is its reference),
    with transpositions; the tree persists across searches and is found
    again from the next root. `max_nodes` bounds the tree (`tree_nodes`
    sizes it for a budget)."""

    def __init__(self, weights: Weights, config: MctsConfig = MctsConfig(), seed: int | None = None,
                 max_nodes: int = TREE_NODES) -> None:
        self.weights = weights
        self.config = config
        self.max_nodes = max_nodes
        self.core = _engine.Mcts(weights.values, weights.scale, config.selection, config.exploration, config.leaf,
                                 random.Random(seed).getrandbits(64), max_nodes, config.horizon,
                                 config.finish, config.noise, config.contempt, config.race_days)

    def reset(self) -> None:
        self.core.reset()

    def search(self, game: Game, me: int, budget: Budget, passive: Sequence[float] | None = None,
               denied: float = 1.0) -> Outcome:
        """`passive`: each player's chance of bidding 0 while it holds a sure
        attack, played in the tree instead of searched (bots.search.bids);
        with it, `denied` is the chance that an opponent our sure attack
        threatens matches our purse to stop it, in the playouts."""
        if budget.seconds is None and budget.iterations is None:
            raise ValueError("give a time or an iteration budget")
        seconds, wall = _limits(budget)
        iterations = budget.iterations if budget.iterations is not None else -1
        move, done, stats = self.core.search(game, me, iterations, seconds, wall, budget.cpu, passive, denied)
        visits = sum(count for _, count, _ in stats)
        strategy = {m: count / visits for m, count, _ in stats if count} if visits else {move: 1.0}
        value = next((mean for m, _, mean in stats if m == move), 0.0)
        return Outcome(move, strategy, value, 0, self.core.nodes, done)


ALGORITHMS = ("alphabeta", "champion", "champion-serial", "mcts", "mcts-rm")


def make(algorithm: str, weights: Weights, seed: int | None = None, **options: Any) -> Searcher:
    """A searcher by name: `alphabeta` (AlphaBeta), `champion` (the
    champion bot's search: MixedAlphaBeta with smab), `champion-serial`
    (the same serialising below the root), `mcts` and `mcts-rm` (Mcts with
    decoupled UCT or regret matching); `options` go to its constructor."""
    if algorithm == "alphabeta":
        return AlphaBeta(weights, random.Random(seed), **options)
    if algorithm in ("champion", "champion-serial"):
        return MixedAlphaBeta(weights, random.Random(seed), smab=algorithm == "champion", **options)
    if algorithm in ("mcts", "mcts-rm"):
        config = options.pop("config", MctsConfig(selection="rm" if algorithm == "mcts-rm" else "duct"))
        return Mcts(weights, config, seed, **options)
    raise ValueError(f"unknown search {algorithm!r}; expected one of {', '.join(ALGORITHMS)}")
