"""Depth-limited paranoid alpha-beta with iterative deepening.

Simultaneous choices are serialised pessimistically: at a step where we
choose together with opponents, we choose first and the opponents answer
knowing our choice (a max node over our moves, each followed by a min
node over the opponents' joint replies). We chose this over solving the
matrix game at each node because

- its value is a lower bound on what we can guarantee, so a win it finds
  is a real forced win whatever the opponents do (the forced-win tests
  rely on it), and it never counts on an opponent's mistake;
- it keeps alpha-beta's pruning and the transposition table, whereas a
  matrix game needs every entry of the matrix, exactly, before it can be
  solved, which at our branching factors costs two or three plies.

Its known weakness is over-caution in the bid (the serialised opponent
always knows our investment); the evaluation's coin weight partly pays
for it. For 3 and 4 players the search is *paranoid*: all opponents act
as one coalition minimising our value (their replies form one joint min
move), for the same reason: it is sound for forced wins and prunes well,
whereas best-reply search would need a value per player at every leaf.

Leaves inside an attack phase are searched on until the phase ends (a
quiescence extension): the static evaluation cannot see a fight's
outcome. With 3 or 4 players every attack asks several opponents to
defend, one after another, and the extension's tree grows with the
product of their choices: measured on positions of a 4-player game, a
depth-1 search took 100,000 to 19 million nodes (4 s to 4 minutes), so
at 0.5 s per move no depth was ever finished. Inside the extension those
opponents therefore defend as `bots.expert` would (one reply each, not
all of them); our own choices and the attacker's stay complete, and two
players keep the full extension.

If the deadline still passes before depth 1 is finished, the move is the
best of the root moves searched so far, or when none is, the expert
rule's move: never an unsearched coin toss.

Terminal values follow the minimax seed: a win is worth more the sooner
it comes and a loss less the later it comes; a draw is 0; non-terminal
leaves are valued by the heuristic evaluation, strictly between.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import product
from typing import TypeVar

from bots import expert
from bots.search.actions import candidate_moves
from bots.search.evaluation import Weights, evaluate
from protocol.engine import ATTACKING, BUY, DEFENDING, Game

WIN = 1000.0
"""The value of winning now; a win found k plies ahead is WIN - k."""
PROVEN = WIN - 500.0
"""Values beyond +-PROVEN are proven results, not estimates."""
T = TypeVar("T")

EVAL_SCALE = 100.0
"""Heuristic values lie in (-EVAL_SCALE, EVAL_SCALE)."""

NEXT_DEPTH_COST = 3.0
"""How many times the last depth's time the next depth is assumed to take
at least (measured: 5 to 13 times on random base-set positions)."""
MIN_SPENT = 0.25
"""Never stop before this share of the budget (early depths are cheap and
their timings noisy)."""

MAX_COMBAT_EXTENSION = 16
"""A leaf in the middle of an attack phase is searched on until the phase
ends (or this many steps more): the evaluation cannot see a fight's
outcome, and a leaf between the attacker's last card and the defender's
empty hand cost whole games. A leaf at a buy where some player can buy
the winning points is searched on too (`winning_buy_now`): the
evaluation cannot see that a race is over, and such a leaf, at the end of
a long attack phase's extension, let the champion attack with five cards
that could not hurt while expert bought its seventh point. (Extending
every leaf from which someone could win later the same day, through the
bids and fights before the buy, took minutes for a depth.)"""
_COMBAT = (ATTACKING, DEFENDING)
_INCANTATION, _BOARD, _WIN_POINTS = 2, 1, 7

_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 64


class OutOfTime(Exception):
    """Raised inside the search when the deadline passes."""


@dataclass
class SearchResult:
    move: int
    value: float
    depth: int  # the deepest fully searched depth
    nodes: int


@dataclass(slots=True)
class _Entry:
    depth: int
    value: float
    bound: int
    mine: int | None  # our best move here, for ordering
    reply: tuple[int, ...] | None  # the opponents' best joint reply, for ordering


@dataclass
class AlphaBeta:
    """A searcher for player `me`, reusable across moves (its transposition
    table keeps what the last search learned)."""

    weights: Weights
    rng: random.Random = field(default_factory=random.Random)
    clock: Callable[[], float] = time.perf_counter  # time.process_time: a budget in CPU time
    wall_limit: float | None = None  # wall-clock seconds a search may never exceed, whatever the clock
    table_size: int = 400_000
    nodes: int = 0
    table: dict[bytes, _Entry] = field(default_factory=dict)
    leaves: dict[bytes, float] = field(default_factory=dict)  # evaluated leaves, by state
    _searched: tuple[float, int] | None = None  # (value, move): the best root move fully searched so far
    _seat: int | None = None  # the seat the stored values are for

    def reset(self) -> None:
        self.table.clear()
        self.leaves.clear()

    def search(self, game: Game, me: int, *, seconds: float | None = None, max_depth: int = 64) -> SearchResult:
        """Iterative deepening until `max_depth` or the deadline (`game` is
        not modified). Returns the move of the deepest completed depth."""
        if me not in game.pending():
            raise ValueError(f"player {me} has no move to make in this state")
        self._start(me, seconds)
        moves = candidate_moves(game, me)
        # Among equally valued moves the first searched wins; shuffling the
        # root's order makes that choice a seeded coin toss, so games against
        # a deterministic opponent differ from seed to seed.
        self.rng.shuffle(moves)
        result = SearchResult(moves[0], 0.0, 0, 0)
        if len(moves) == 1:
            return result
        started = last = self.clock()
        for depth in range(1, max_depth + 1):
            try:
                value, move = self._root(game, depth, moves)
            except OutOfTime:
                if depth == 1:
                    result = self._unfinished(game, me)
                break
            result = SearchResult(move, value, depth, self.nodes)
            if abs(value) > PROVEN:
                break  # proven: deeper search cannot change the verdict
            if not self._next_depth_fits(started, last):
                # The next depth would not finish, and an unfinished depth
                # is thrown away: answer now rather than burn the clock.
                break
            last = self.clock()
        result.nodes = self.nodes
        return result

    def _start(self, me: int, seconds: float | None) -> None:
        """Set the clocks and counters of a search for seat `me`."""
        self.me = me
        self.deadline = self.clock() + seconds if seconds is not None else float("inf")
        self.wall_deadline = time.perf_counter() + self.wall_limit if self.wall_limit is not None else float("inf")
        self.nodes = 0
        # A move searched for another state is no answer to this one: the
        # mixed root never runs _root, and a deadline met before the first
        # root move left the last search's move here (an illegal bid).
        self._searched = None
        if len(self.table) > self.table_size or len(self.leaves) > self.table_size or me != self._seat:
            self.reset()  # values are stored from one seat's side
        self._seat = me

    def _next_depth_fits(self, started: float, last: float) -> bool:
        """Whether the next depth may still finish: it is assumed to take at
        least NEXT_DEPTH_COST times the last one, and a search always gets
        MIN_SPENT of its budget (early depths are cheap, their timings noisy)."""
        now = self.clock()
        return now + NEXT_DEPTH_COST * (now - last) <= self.deadline or now - started <= MIN_SPENT * (self.deadline - started)

    def out_of_time(self) -> bool:
        return self.clock() > self.deadline or time.perf_counter() > self.wall_deadline

    def _unfinished(self, game: Game, me: int) -> SearchResult:
        """The answer when the deadline cut depth 1 short."""
        if self._searched is not None:
            value, move = self._searched
            return SearchResult(move, value, 0, self.nodes)
        return SearchResult(expert.decide(game, me), 0.0, 0, self.nodes)

    # -- the tree ----------------------------------------------------------

    def _root(self, game: Game, depth: int, moves: list[int]) -> tuple[float, int]:
        entry = self.table.get(game.key())
        ordered = _first(moves, entry.mine if entry else None)
        opponents = tuple(p for p in game.pending() if p != self.me)
        best_value, best_move = -float("inf"), ordered[0]
        alpha, beta = -float("inf"), float("inf")
        self._searched = None
        for move in ordered:
            value = self._replies(game, move, opponents, depth, 0, max(alpha, best_value), beta, entry)
            if value > best_value:
                best_value, best_move = value, move
                self._searched = (best_value, best_move)
        self.table[game.key()] = _Entry(depth, best_value, _EXACT, best_move, entry.reply if entry else None)
        return best_value, best_move

    def _value(self, game: Game, depth: int, ply: int, alpha: float, beta: float) -> float:
        """The value for `me` of `game`, searched `depth` more steps."""
        self.nodes += 1
        if self.nodes % _CHECK_EVERY == 0 and self.out_of_time():
            raise OutOfTime
        if game.is_over:
            return self._terminal(game, ply)
        if not game.alive(self.me):
            return -WIN + ply
        key = game.key()
        if depth <= 0 and (depth <= -MAX_COMBAT_EXTENSION or not (game.phase in _COMBAT or winning_buy_now(game))):
            # Leaves repeat (the same purchases in another order, the same
            # fight reached by another bid): in mid-game searches 70% of the
            # evaluations were of a leaf already evaluated, and the
            # evaluation is half of the search's time.
            value = self.leaves.get(key)
            if value is None:
                value = self.leaves[key] = EVAL_SCALE * evaluate(game, self.me, self.weights)
            return value
        entry = self.table.get(key)
        if entry is not None and entry.depth >= depth:
            stored = _from_table(entry.value, ply)
            if entry.bound == _EXACT:
                return stored
            if entry.bound == _LOWER and stored >= beta:
                return stored
            if entry.bound == _UPPER and stored <= alpha:
                return stored
        alpha0, beta0 = alpha, beta
        pending = game.pending()
        opponents = tuple(p for p in pending if p != self.me)
        best_mine: int | None = None
        best_reply: tuple[int, ...] | None = None
        if self.me in pending:
            value = -float("inf")
            for move in _first(candidate_moves(game, self.me), entry.mine if entry else None):
                v = self._replies(game, move, opponents, depth, ply, max(alpha, value), beta, entry)
                if v > value:
                    value, best_mine = v, move
                if value >= beta:
                    break
        else:
            value, best_reply = self._min_replies(game, None, opponents, depth, ply, alpha, beta, entry)
        bound = _EXACT
        if value <= alpha0:
            bound = _UPPER
        elif value >= beta0:
            bound = _LOWER
        self.table[key] = _Entry(depth, _to_table(value, ply), bound, best_mine, best_reply)
        return value

    def _replies(
        self, game: Game, mine: int, opponents: tuple[int, ...], depth: int, ply: int,
        alpha: float, beta: float, entry: _Entry | None,
    ) -> float:
        """The value of our `mine` once the opponents answer it as badly
        for us as they can (a min node)."""
        value, _ = self._min_replies(game, mine, opponents, depth, ply, alpha, beta, entry)
        return value

    def _min_replies(
        self, game: Game, mine: int | None, opponents: tuple[int, ...], depth: int, ply: int,
        alpha: float, beta: float, entry: _Entry | None,
    ) -> tuple[float, tuple[int, ...] | None]:
        replies = list(product(*(self._moves(game, p, depth) for p in opponents)))
        replies = _first(replies, entry.reply if entry else None)
        value, best = float("inf"), None
        for reply in replies:
            child = game.copy()
            if mine is not None:
                _play_in_order(child, self.me, mine, opponents, reply)
            else:
                for player, move in zip(opponents, reply):
                    child.play(player, move)
            v = self._value(child, depth - 1, ply + 1, alpha, min(beta, value))
            if v < value:
                value, best = v, reply
            if value <= alpha:
                break
        return value, best

    def _moves(self, game: Game, player: int, depth: int) -> list[int]:
        """An opponent's moves to search: all candidates, except a defender's
        inside the combat extension with 3-4 players (see the module's
        docstring), which is the expert rule's one."""
        if depth <= 0 and game.phase == DEFENDING and game.n_players > 2:
            return [expert.choose_defender(game, player)]
        return candidate_moves(game, player)

    def _terminal(self, game: Game, ply: int) -> float:
        winner = game.winner
        if winner is None:
            return 0.0
        return WIN - ply if winner == self.me else -WIN + ply


def winning_buy_now(game: Game) -> bool:
    """Whether, in a buy phase, some player still in could reach the
    winning points with this buy: 4 coins for an Incantation and 3 points
    short at most, or 2 coins for a Board of Monopoly and 1 point short,
    with the card in the shop."""
    if game.phase != BUY:
        return False
    shop = game.shop()
    incantation, board = shop.get(_INCANTATION, 0) > 0, shop.get(_BOARD, 0) > 0
    for p in range(game.n_players):
        if not game.alive(p) or game.buys(p) == 0:
            continue
        short, coins = _WIN_POINTS - game.points(p), game.coins(p)
        if (short <= 3 and coins >= 4 and incantation) or (short <= 1 and coins >= 2 and board):
            return True
    return False


def _play_in_order(game: Game, me: int, mine: int, opponents: tuple[int, ...], reply: tuple[int, ...]) -> None:
    """Play our move and the opponents' replies in seat order (the order
    of recording is irrelevant to a hidden step, but keep it canonical)."""
    moves = dict(zip(opponents, reply))
    moves[me] = mine
    for player in sorted(moves):
        game.play(player, moves[player])


def _first(items: list[T], preferred: T | None) -> list[T]:
    """`items` with `preferred` moved to the front (move ordering)."""
    if preferred is None or preferred not in items:
        return items
    return [preferred] + [item for item in items if item != preferred]


def _to_table(value: float, ply: int) -> float:
    """Proven results are stored relative to the node, so a transposition
    reached at another ply still reads the right distance to the end."""
    if value > PROVEN:
        return value + ply
    if value < -PROVEN:
        return value - ply
    return value


def _from_table(value: float, ply: int) -> float:
    if value > PROVEN:
        return value - ply
    if value < -PROVEN:
        return value + ply
    return value
