"""The champion: our strongest search, on a CPU-time budget.

    python -m bots.champion [--time 0.5] [--wall-limit 5] [--search mcts|alphabeta] [--seed S]
                            [--weights FILE] [--horizon DAYS] [--exploration C] [--no-bid-model]
                            [--no-sure-losses] [--finisher] [--playout-noise N] [--contempt C] [--race-days D] [--tree-nodes N]
                            [--depth D] [--serialise]

Why this bot (docs/bots.md has the measurements): it is whichever of our
searches wins head to head at the same CPU budget. That is now the C
core's simultaneous-move MCTS (`--search mcts`, the default;
`bots.search.core.Mcts`, decoupled UCT, playouts to the game's end): on
the same 0.5 s of CPU a move it beat the alpha-beta champion in every
game it has finished (docs/bots.md, the learned champion, and MCTS on
the same CPU), because its playouts see a race for the points that a
depth-5 alpha-beta and its evaluation do not. Before it searches, the
champion spends a fifth of its budget on alpha-beta proofs
(`AlphaBeta.proofs`): it plays a win proven against every answer, so
that a forced win is never left to sampling, and never plays a move
proven to lose against some answer while another move is not so proven.
MCTS's playouts bid only to outbid a poorer opponent, so it saw little
threat in a poorer player's Ghosts, and a Ghost rush (attack-repro)
eliminated it after a bid of 0 that any bid of 2 would have survived.

Its tree has each opponent bid 0, at an investing step where it holds a
sure attack, as often as it has in this game (the bid model,
bots.search.bids), and searches its bids otherwise: decoupled UCT
answers every bid as an opponent's best, so against `evolved`, which
mostly does not attack when it could, the champion paid to deny attacks
that were not coming, and lost the race and then the game (docs/bots.md,
the bid model, has the rows). `--no-bid-model` searches every bid.
The model is for 2 players, where it was measured: at 4 players against
three `expert` it cost about ten points of score, and on the day-3 buy
of a game lost to the race for points the champion with it bought income
where without it, as the winning `expert`, it bought a Board of Monopoly
(docs/bots.md, "The bid model at 4 players", has the rows).

Its playouts stop `--horizon` days on (HORIZON_DAYS), or later while
the shop still sells points, and the evaluation values the state they
reach: played to the day limit from a locked position (both players 11
points, the points sold out), a playout's result was the heuristic's
random blunders over the days left, every bid scored about one half,
and a defender destroyed today did not count (docs/bots.md, the lock).

`--finisher` plays its playouts with the engine's finisher (policy 2):
the light heuristic, except that a player buys a card worth points that
wins the game at once whenever it can. The heuristic buys an Incantation
when it can and a Board of Monopoly late in its order, so its players,
holding 6 points and 2 coins, buy a Senior Worker rather than the Board
that wins, and the race for points, which `mcts-v1` wins against the
champion, runs slower in the playouts than in the games. Measured on 192
paired games against `mcts-v1` at 0.1 s it scored what the champion
scores in the simple set (164 against 163) and a little less in the
base set (145.5 against 151), so it is not the default
(docs/bots.md, "The finisher in the playouts").

`--playout-noise N` has the playouts' players play one move in N
uniformly at random instead of the heuristic's (16, the engine's rate,
by default; 0 never). At 64 the playouts' racers race as the heuristic
does, nearly every time, and against `mcts-v1` the champion won more
games on points, fewer by elimination and drew more, but its score was
not better beyond chance at 0.1 s (384 games, simple set), nor in the
base set, nor at 0.5 s; 8 and 256 neither (docs/bots.md, "The
playouts' random moves").

`--contempt C`, once the points are sold out, takes C off the
champion's own value of a playout that ends drawn or locked (the
leaders level), so that it plays for a decision rather than a share of
the points: 0.25 by default at 2 players (CONTEMPT), none at 3 and 4,
where it was not measured. In the base set a quarter of the games
against `mcts-v1` ended in such a lock; with contempt once the race is
over, 192 paired games at 0.5 s scored 148.5 against 139 (37 better,
24 worse): 39 draws against 50, 24 losses against 28; in the simple
set, where its draws stay, 149 against 146.5. Applied in the race
as well, it traded draws for races lost (docs/bots.md, "Contempt for a
draw"). `--contempt 0` is the champion before it.

Its tree holds `--tree-nodes` nodes, by default room for about three
searches of its budget (`bots.search.core.tree_nodes`: 2**17 at 0.1 s,
2**19 at 0.5 s, 2**20 from 0.55 s): with 2**17 at every budget the tree
was full after most searches at 2 s, so that more time bought more
playouts from the same leaves, not a deeper tree, and at 0.5 s the tree
of the moves before was often dropped (docs/bots.md, "The tree's size").

At 2 players its decoupled UCT explores with UCB1's constant 0.5, not
the textbook 1 (`--exploration`): the values of the early buys differ by
a few hundredths, and with 1 the visits spread over the moves (the most
visited move of a day-3 buy held 24-38% of them, four seeds) where 0.5
gives it about half or more; with 0.5 the champion lost the race for
points to `mcts-v1` less often at 0.1 s (a little less at 0.5 s), and
nothing fell beyond chance (docs/bots.md, "UCB1's constant"). At 3 and
4 players it keeps 1, where 0.5 was not better.

`--search alphabeta` is the champion before MCTS: alpha-beta whose
simultaneous root is a matrix game its move is drawn from
(`bots.search.core.MixedAlphaBeta`; a bot that knows a pure bid could
outbid it by one, issue 16), with the steps below the root solved as
matrix games too (SMAB, protocol/search/smab.c; `--serialise` restores
the serialised search), and the learned evaluation (champion.json).
`--depth` and `--serialise` apply to it alone.

Its budget is CPU time (the thread's CPU clock), not wall time: on a busy
machine a wall-clock bot searches less and plays worse, while this one
searches as much as on an idle machine and answers later. `--wall-limit`
bounds the wall time of a move whatever the load (keep it well under the
referee's per-move timeout, 10 s by default).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from bots.sdk import option_parser, bot_main
from bots.search.bids import BidModel
from bots.search.core import (AlphaBeta, Budget, Mcts, MctsConfig, MixedAlphaBeta, candidate_moves, check_tree_nodes,
                              tree_nodes)
from bots.search.core import MAX_CONTEMPT, MAX_PLAYOUT_NOISE, PLAYOUT_NOISE as ENGINE_NOISE
from bots.search.weights import CHAMPION_WEIGHTS_FILE, DEFAULT_WEIGHTS_FILE, Weights, load_weights
from protocol.engine import Game

DEFAULT_SECONDS = 0.5
DEFAULT_WALL_LIMIT = 5.0
MAX_DEPTH = 64
SEARCHES = ("mcts", "alphabeta")
PROOF_SHARE = 0.2
"""The share of the budget spent trying to prove a win before MCTS searches."""
HORIZON_DAYS = 6
"""Days an MCTS playout plays, once no points are for sale, before the
evaluation values it (0: to the end)."""
EXPLORATION = 0.5
"""MCTS's UCB1 constant (decoupled UCT; values are in [0, 1]) at 2 players."""
EXPLORATION_MULTI = 1.0
"""The same at 3 and 4 players, where 0.5 was not measured better."""
FINISHER = False
"""Whether MCTS's playouts are the engine's finisher (a player buys a points
card that wins at once) rather than its heuristic: not measured better."""
PLAYOUT_NOISE = ENGINE_NOISE
"""MCTS's playouts: the heuristic plays one move in PLAYOUT_NOISE at random
(the engine's own rate, 16; 8, 64 and 256 were not measured better)."""
CONTEMPT = 0.25
"""MCTS's contempt for a draw once the points are sold out, at 2 players."""
CONTEMPT_MULTI = 0.0
"""The same at 3 and 4 players, where it was not measured."""
RACE_DAYS = -1
"""Days an MCTS playout plays from a leaf where points are still for sale
before the evaluation values it (-1: through the race, then HORIZON_DAYS).
1 lost races against mcts-v1 with weights.json and drew them with the
weights fitted to searching players (docs/bots.md, "Race leaves cut
after a day")."""


class ChampionPolicy:
    """`decide(game, me)` backed by one searcher kept across the moves of
    a game (MCTS's tree, alpha-beta's transposition table)."""

    def __init__(
        self,
        *,
        seconds: float = DEFAULT_SECONDS,
        wall_limit: float | None = DEFAULT_WALL_LIMIT,
        depth: int = MAX_DEPTH,
        seed: int | None = None,
        weights: Weights | None = None,
        smab: bool = True,
        search: str = "mcts",
        horizon: int = HORIZON_DAYS,
        bid_model: bool = True,
        exploration: float | None = None,
        sure_losses: bool = True,
        finisher: bool = FINISHER,
        max_nodes: int | None = None,
        playout_noise: int = PLAYOUT_NOISE,
        contempt: float | None = None,
        race_days: int = RACE_DAYS,
    ) -> None:
        if seconds <= 0:
            raise ValueError(f"--time must be positive, got {seconds}")
        if wall_limit is not None and wall_limit <= 0:
            raise ValueError(f"--wall-limit must be positive, got {wall_limit}")
        if depth < 1:
            raise ValueError(f"--depth must be at least 1, got {depth}")
        if horizon < 0:
            raise ValueError(f"--horizon must be 0 (the whole game) or more days, got {horizon}")
        if race_days < -1:
            raise ValueError(f"--race-days must be -1 (play out the race) or 0 or more days, got {race_days}")
        if not 0 <= playout_noise <= MAX_PLAYOUT_NOISE:
            raise ValueError(f"--playout-noise must be 0 (no random moves) or more, up to {MAX_PLAYOUT_NOISE}, "
                             f"got {playout_noise}")
        if contempt is not None and not 0 <= contempt <= MAX_CONTEMPT:
            raise ValueError(f"--contempt must be from 0 to {MAX_CONTEMPT}, got {contempt}")
        if exploration is not None and not exploration > 0:
            raise ValueError(f"--exploration must be positive, got {exploration}")
        check_tree_nodes(max_nodes)
        if search not in SEARCHES:
            raise ValueError(f"--search must be one of {', '.join(SEARCHES)}, got {search!r}")
        self.seconds = seconds
        self.depth = depth
        self.search = search
        self.exploration = exploration
        self.contempt = contempt
        self.sure_losses = sure_losses
        rng = random.Random(seed)
        self.bids = BidModel() if bid_model and search == "mcts" else None
        self.prover: AlphaBeta | None = None
        self.searcher: Mcts | MixedAlphaBeta
        if search == "mcts":
            # The weights grade the playouts cut at the horizon (and those that reach the day limit).
            if max_nodes is None:
                max_nodes = tree_nodes(seconds * (1 - PROOF_SHARE))
            self._mcts = (weights or load_weights(packaged=DEFAULT_WEIGHTS_FILE), horizon, rng.getrandbits(32), finisher,
                          max_nodes, playout_noise, race_days)
            self.searcher = self._mcts_for(2)
            self.prover = AlphaBeta(load_weights(packaged=CHAMPION_WEIGHTS_FILE), rng)
            self.proof_budget = Budget(seconds=seconds * PROOF_SHARE, cpu=True, wall_limit=wall_limit)
            self.budget = Budget(seconds=seconds * (1 - PROOF_SHARE), cpu=True, wall_limit=wall_limit)
        else:
            self.searcher = MixedAlphaBeta(weights or load_weights(packaged=CHAMPION_WEIGHTS_FILE), rng, smab=smab)
            self.budget = Budget(seconds=seconds, depth=depth, cpu=True, wall_limit=wall_limit)

    def _mcts_for(self, players: int) -> Mcts:
        """The MCTS for games of `players` players: the one in use if its
        exploration constant and contempt are theirs, else a new one (its
        tree empty)."""
        explore = self.exploration
        if explore is None:
            explore = EXPLORATION if players == 2 else EXPLORATION_MULTI
        contempt = self.contempt
        if contempt is None:
            contempt = CONTEMPT if players == 2 else CONTEMPT_MULTI
        searcher = getattr(self, "searcher", None)
        if isinstance(searcher, Mcts) and (searcher.config.exploration, searcher.config.contempt) == (explore, contempt):
            return searcher
        weights, horizon, seed, finisher, max_nodes, noise, race_days = self._mcts
        return Mcts(weights, MctsConfig(exploration=explore, horizon=horizon, finish=finisher, noise=noise,
                                        contempt=contempt, race_days=race_days), seed, max_nodes)

    def __call__(self, game: Game, me: int) -> int:
        return self.think(game, me)[0]

    def think(self, game: Game, me: int) -> tuple[int, dict[int, float], frozenset[int]]:
        """The move, the search's shares of the moves it chose among (the
        move alone, share 1, when it was the only one or proven to win) and
        the moves proven to lose: the decision and why, for tools that
        examine one (bench/decisions.py). Playing a move is calling this."""
        if self.search == "mcts":
            self.searcher = self._mcts_for(game.n_players)
        bids = self.bids if game.n_players == 2 else None
        if bids is not None:
            bids.observe(game, me)
        if self.prover is not None:
            moves = candidate_moves(game, me)
            if len(moves) == 1:
                return moves[0], {moves[0]: 1.0}, frozenset()
            win, losing = self.prover.proofs(game, me, self.proof_budget, sure_losses=self.sure_losses)
            if win is not None:
                return win, {win: 1.0}, losing
            assert isinstance(self.searcher, Mcts)
            if bids is not None:
                outcome = self.searcher.search(game, me, self.budget, bids.chances(game, me), bids.denied(game, me))
            else:
                outcome = self.searcher.search(game, me, self.budget)
            lost = losing
            if outcome.move not in lost:
                return outcome.move, outcome.strategy, lost
            # MCTS sampled a move proven to lose against some answer: its
            # most visited move that is not proven to lose, else the first such.
            kept = {move: share for move, share in outcome.strategy.items() if move not in lost}
            move = max(kept, key=kept.__getitem__) if kept else next(m for m in moves if m not in lost)
            return move, outcome.strategy, lost
        outcome = self.searcher.search(game, me, self.budget)
        return outcome.move, outcome.strategy, frozenset()

    def new_game(self, game: Game, me: int) -> None:
        if self.search == "mcts":
            self.searcher = self._mcts_for(game.n_players)
        self.searcher.reset()
        if self.bids is not None:
            self.bids.reset()
        if self.prover is not None:
            self.prover.reset()


def parser() -> argparse.ArgumentParser:
    """The bot's command line (also read by tools that run it in-process)."""
    parser = option_parser(
        "Economancy bot: our strongest search (simultaneous-move MCTS in C) on a CPU-time budget.", prog="champion"
    )
    parser.add_argument("--time", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help="CPU time per move (default %(default)s)")
    parser.add_argument("--wall-limit", type=float, default=DEFAULT_WALL_LIMIT, metavar="SECONDS",
                        help="wall-clock time a move may never exceed, however busy the machine (default %(default)s)")
    parser.add_argument("--search", choices=SEARCHES, default="mcts",
                        help="mcts, or alphabeta: the champion before MCTS (default %(default)s)")
    parser.add_argument("--horizon", type=int, default=HORIZON_DAYS, metavar="DAYS",
                        help="mcts: days a playout plays (more while the shop sells points) before the evaluation "
                             "values it, 0 for the whole game (default %(default)s)")
    parser.add_argument("--exploration", type=float, default=None, metavar="C",
                        help=f"mcts: UCB1 constant of the decoupled UCT (default {EXPLORATION} at 2 players, "
                             f"{EXPLORATION_MULTI} at 3 and 4)")
    parser.add_argument("--no-bid-model", dest="bid_model", action="store_false",
                        help="mcts: search every opponent bid as its best, instead of having each opponent bid 0 in "
                             "the tree as often as it did in this game while it could attack, and the playouts' "
                             "threatened players deny the others (the champion before the bid model; at 3 and 4 "
                             "players the champion never uses it)")
    parser.add_argument("--no-sure-losses", dest="sure_losses", action="store_false",
                        help="mcts: prove only the moves that lose within the day, not those that lose for sure "
                             "beyond it (the champion before the sure losses; docs/bots.md, \"Sure losses beyond "
                             "the day\")")
    parser.add_argument("--finisher", action="store_true", default=FINISHER,
                        help="mcts: the playouts' players buy a points card that wins at once whenever they can (the "
                             "engine's finisher) instead of playing the heuristic throughout")
    parser.add_argument("--playout-noise", type=int, default=PLAYOUT_NOISE, metavar="N",
                        help="mcts: the playouts' players play one move in N at random (default %(default)s, the "
                             "engine's own rate; 0: none)")
    parser.add_argument("--contempt", type=float, default=None, metavar="C",
                        help="mcts: once the points are sold out, taken off our value of a playout that ends drawn "
                             "or locked (the leaders level), so the search prefers lines that decide the game "
                             f"(default {CONTEMPT} at 2 players, {CONTEMPT_MULTI} at 3 and 4; at most {MAX_CONTEMPT})")
    parser.add_argument("--race-days", type=int, default=RACE_DAYS, metavar="D",
                        help="mcts: from a leaf where points are still for sale, play out D days and let the "
                             "evaluation value the rest of the race (default %(default)s: play out the race)")
    parser.add_argument("--tree-nodes", type=int, default=None, metavar="N",
                        help="mcts: the most nodes its tree holds (about 250 bytes each; default: room for about "
                             "three searches of --time, from 2**17 to 2**20)")
    parser.add_argument("--depth", type=int, default=MAX_DEPTH,
                        help="alphabeta: deepest iteration, in steps (default %(default)s: time decides)")
    parser.add_argument("--weights", default=None, metavar="FILE",
                        help="evaluation weights JSON (default: bots/search/weights.json, which grades MCTS's cut "
                             "playouts; alphabeta: the learned bots/search/champion.json)")
    parser.add_argument("--serialise", action="store_true",
                        help="alphabeta: serialise the simultaneous steps below the root (we choose first) instead of "
                             "solving them as matrix games (SMAB): the champion as it was before SMAB")
    return parser


def policy_from(options: argparse.Namespace) -> ChampionPolicy:
    """The policy `options` (parsed by `parser()`) describe; ValueError or
    OSError if they are bad."""
    return ChampionPolicy(
        seconds=options.time, wall_limit=options.wall_limit, depth=options.depth, seed=options.seed,
        weights=load_weights(options.weights) if options.weights is not None else None,
        smab=not options.serialise, search=options.search, horizon=options.horizon, bid_model=options.bid_model,
        exploration=options.exploration, sure_losses=options.sure_losses, finisher=options.finisher,
        max_nodes=options.tree_nodes, playout_noise=options.playout_noise, contempt=options.contempt,
        race_days=options.race_days,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.champion` and `economancy-champion`."""
    bot_main(parser(), policy_from, argv)


if __name__ == "__main__":
    main()
