"""Simultaneous-move Monte Carlo tree search (SM-MCTS).

Investments and buys are chosen by several players at once, none seeing
the others' choices, so a node does not pick one joint move: each pending
player keeps its own statistics over its own candidate moves and picks by
its own rule, and the joint move is the tuple of their picks (the child
is found by that tuple). Attacks and defences are the special case of a
single pending player. Every player maximises its own result, so the same
code serves 2, 3 and 4 players.

Two selection rules, as in Lanctot et al., "Monte Carlo Tree Search in
Simultaneous Move Games with Applications to Goofspiel" (2013):

- `duct`, decoupled UCT: UCB1 per player; the move played is the most
  visited. Strong in practice, but not guaranteed to find a mixed
  equilibrium.
- `rm`, regret matching with exploration: each player's strategy follows
  its positive regrets; the move played is sampled from the average
  strategy, which converges to an equilibrium in two-player zero-sum
  games.

Leaves are valued by a playout to the end with the engine's built-in
light heuristic (in C), or, with `leaf="eval"`, cut off at once by the
heuristic evaluation.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from bots.search.actions import candidate_moves
from bots.search.core import PLAYOUT_NOISE, MctsConfig
from bots.search.evaluation import Weights, evaluate_all
from protocol.engine import Game

HEURISTIC_PLAYOUT = 1
"""The engine's built-in playout policy used below (1 = light heuristic)."""
_DECIDED_EVERY = 128
"""Iterations between checks whether the move is already decided."""


class Node:
    """A decision point: the pending players, their candidate moves and
    their separate statistics, and the children reached so far."""

    __slots__ = ("key", "players", "moves", "visits", "counts", "totals", "regrets", "strategy_sums", "children")

    def __init__(self, game: Game) -> None:
        self.key = game.key()
        self.players: tuple[int, ...] = game.pending()
        self.moves: list[list[int]] = [candidate_moves(game, p) for p in self.players]
        self.visits = 0
        self.counts = [[0] * len(m) for m in self.moves]
        self.totals = [[0.0] * len(m) for m in self.moves]
        self.regrets = [[0.0] * len(m) for m in self.moves]
        self.strategy_sums = [[0.0] * len(m) for m in self.moves]
        self.children: dict[tuple[int, ...], Node] = {}


def outcome(game: Game, weights: Weights) -> list[float]:
    """Each player's result at a finished game: 1 to the winner, 0 to the
    others. A draw (the `max_days` horizon) is graded by the evaluation of
    the final state: between evenly matched bots most playouts end in a
    draw, and a flat value there would leave the search without a signal."""
    winner = game.winner
    if winner is None:
        # Between a loss (0) and a win (1), never as good as either extreme.
        return [0.25 + 0.5 * v for v in evaluate_all(game, weights)]
    return [1.0 if p == winner else 0.0 for p in range(game.n_players)]


class Searcher:
    """One bot's search, kept across moves so the subtree of the move
    actually played is reused."""

    def __init__(self, weights: Weights, config: MctsConfig = MctsConfig(), seed: int | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if config.horizon:
            raise ValueError("the reference MCTS plays its playouts to the end: a horizon is the C core's (core.Mcts)")
        if config.finish:
            raise ValueError("the reference MCTS's playouts are the heuristic's: the finisher is the C core's (core.Mcts)")
        if config.noise != PLAYOUT_NOISE:
            raise ValueError(f"the reference MCTS's playouts are the engine's heuristic, one move in {PLAYOUT_NOISE} at "
                             "random: another noise is the C core's (core.Mcts)")
        if config.contempt:
            raise ValueError("the reference MCTS values a draw as it comes: contempt is the C core's (core.Mcts)")
        self.weights = weights
        self.clock = clock  # time.thread_time: a budget in CPU time
        self.config = config
        self.rng = random.Random(seed)
        self.root: Node | None = None
        self.iterations = 0  # of the last search

    def reset(self) -> None:
        """Forget the tree (a new game starts)."""
        self.root = None

    def choose(self, game: Game, me: int, *, seconds: float | None = None, iterations: int | None = None) -> int:
        """Search from `game` (not modified) within the budget; return `me`'s move."""
        if seconds is None and iterations is None:
            raise ValueError("give a time or an iteration budget")
        start = self.clock()
        root = self._find_root(game)
        if me not in root.players:
            raise ValueError(f"player {me} has no move to make in this state")
        moves = root.moves[root.players.index(me)]
        if len(moves) == 1:
            self.iterations = 0
            return moves[0]
        deadline = start + seconds if seconds is not None else math.inf
        limit = iterations if iterations is not None else math.inf
        i = root.players.index(me)
        done = 0
        while done < limit:
            now = self.clock()
            if now >= deadline:
                break
            self._iterate(root, game.copy())
            done += 1
            if done % _DECIDED_EVERY == 0 and self._decided(root, i, done, now - start, deadline - now, limit - done):
                break
        self.iterations = done
        return self._final_move(root, i)

    def _decided(self, root: Node, i: int, done: int, elapsed: float, time_left: float, iterations_left: float) -> bool:
        """Whether the rest of the budget can no longer change the move
        played: the most visited move leads the runner-up by more visits
        than the iterations left (at the rate so far) could give it. Only
        `duct` plays the most visited move; `rm` samples, so it never stops
        early. Stopping then saves the time and changes nothing."""
        if self.config.selection != "duct":
            return False
        left = iterations_left
        if time_left != math.inf:
            left = min(left, done / max(elapsed, 1e-9) * time_left)
        counts = sorted(root.counts[i], reverse=True)
        return counts[0] - counts[1] > left

    def _find_root(self, game: Game) -> Node:
        """The node of `game` in the tree kept from the last search, if it is
        close below the old root; else a fresh one."""
        key = game.key()
        frontier = [self.root] if self.root is not None else []
        for _ in range(self.config.reuse_depth + 1):
            following: list[Node] = []
            for node in frontier:
                if node.key == key:
                    self.root = node
                    return node
                following.extend(node.children.values())
            frontier = following
        self.root = Node(game)
        return self.root

    def _iterate(self, root: Node, game: Game) -> None:
        path: list[tuple[Node, list[int]]] = []
        node = root
        while True:
            picks = [self._select(node, i) for i in range(len(node.players))]
            path.append((node, picks))
            joint = tuple(node.moves[i][k] for i, k in enumerate(picks))
            for player, move in zip(node.players, joint):
                game.play(player, move)
            if game.is_over:
                values = outcome(game, self.weights)
                break
            child = node.children.get(joint)
            if child is None:
                node.children[joint] = Node(game)
                values = self._leaf_value(game)
                break
            node = child
        for node, picks in path:
            self._update(node, picks, values)

    def _leaf_value(self, game: Game) -> list[float]:
        if self.config.leaf == "eval":
            return evaluate_all(game, self.weights)
        game.playout(self.rng.getrandbits(62), HEURISTIC_PLAYOUT)
        return outcome(game, self.weights)

    # -- selection rules -------------------------------------------------

    def _select(self, node: Node, i: int) -> int:
        if self.config.selection == "duct":
            return self._select_ucb(node, i)
        return self._select_rm(node, i)

    def _select_ucb(self, node: Node, i: int) -> int:
        counts = node.counts[i]
        untried = [k for k, c in enumerate(counts) if c == 0]
        if untried:
            return self.rng.choice(untried)
        totals = node.totals[i]
        log_n = math.log(node.visits)
        c = self.config.exploration
        best, best_score = 0, -math.inf
        for k, n in enumerate(counts):
            score = totals[k] / n + c * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = k, score
        return best

    def _rm_strategy(self, node: Node, i: int) -> list[float]:
        positive = [r if r > 0 else 0.0 for r in node.regrets[i]]
        total = sum(positive)
        k = len(positive)
        if total <= 0:
            return [1.0 / k] * k
        return [r / total for r in positive]

    def _select_rm(self, node: Node, i: int) -> int:
        gamma = self.config.exploration / 10
        strategy = self._rm_strategy(node, i)
        k = len(strategy)
        mixed = [(1 - gamma) * s + gamma / k for s in strategy]
        return self.rng.choices(range(k), weights=mixed)[0]

    def _update(self, node: Node, picks: list[int], values: list[float]) -> None:
        node.visits += 1
        rm = self.config.selection == "rm"
        for i, player in enumerate(node.players):
            k = picks[i]
            value = values[player]
            node.counts[i][k] += 1
            node.totals[i][k] += value
            if rm:
                strategy = self._rm_strategy(node, i)
                gamma = self.config.exploration / 10
                n = len(strategy)
                played = (1 - gamma) * strategy[k] + gamma / n
                regrets = node.regrets[i]
                sums = node.strategy_sums[i]
                for b in range(n):
                    # Importance-sampled estimate of each move's value
                    # minus the value obtained (Lanctot et al., SM-MCTS with RM).
                    estimate = value / played if b == k else 0.0
                    regrets[b] += estimate - value
                    sums[b] += strategy[b]

    def _final_move(self, root: Node, i: int) -> int:
        moves = root.moves[i]
        if self.config.selection == "rm":
            sums = root.strategy_sums[i]
            if sum(sums) > 0:
                return self.rng.choices(moves, weights=sums)[0]
        counts = root.counts[i]
        totals = root.totals[i]
        best = max(range(len(moves)), key=lambda k: (counts[k], totals[k]))
        return moves[best]
