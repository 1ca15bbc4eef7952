"""The heuristic value of a game state, for cut-off searches.

A player's *material* is a weighted sum of features that predict winning:
points (and their square, since the race ends at 7), coins, the income
its cards bring over the next cycle of days, the army it can attack and
defend with, and its buys. A state's value for `me` is its material
minus the best opponent's, squashed into (-1, 1) so that it always ranks
below a proven win and above a proven loss.

The weights are not guessed: `bots.search.weights` loads them from the
files the self-play tuner wrote (and re-exported here, they are what
this module's callers pass in). The searches evaluate in C
(protocol/search/evaluation.c); this module is its reference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from bots.search.weights import CHAMPION_V1_WEIGHTS_FILE as CHAMPION_V1_WEIGHTS_FILE
from bots.search.weights import CHAMPION_WEIGHTS_FILE as CHAMPION_WEIGHTS_FILE  # re-exported: the
from bots.search.weights import DEFAULT_WEIGHTS_FILE as DEFAULT_WEIGHTS_FILE  # evaluation's callers pass
from bots.search.weights import FEATURES as FEATURES  # weights in, and long imported them from here
from bots.search.weights import Weights as Weights
from bots.search.weights import load_note as load_note
from bots.search.weights import load_weights as load_weights
from bots.search.weights import save_weights as save_weights
from protocol import cards as card_table
from protocol.engine import BUY, Game

# Magic Bean Stock's income depends on the purse when it pays; counted
# as one coin a day.
_BEAN_INCOME_PER_CYCLE = 3.0

_DEAREST_CARD = max(card.cost or 0 for card in card_table.CARDS)
"""Coins count up to the richest opponent's purse plus this: more can
neither win a bid nor buy a card. Uncapped, a purse grown by Magic Bean
Stock swamped every other feature, every move looked equally won, and
alpha-beta hoarded for 100 days instead of ending the game."""


@dataclass(frozen=True)
class _CardTraits:
    points: int
    income: float  # coins over one cycle of days 1, 2, 3
    attack: int  # attack level if the card can attack at all, else 0
    defense: int  # defense level if the card can defend, else 0
    defends: int  # how many times per attack phase it can defend


def _traits() -> dict[int, _CardTraits]:
    traits = {}
    for card in card_table.CARDS:
        traits[card.id] = _CardTraits(
            points=card.points,
            income=float(sum(card.coins)) + (_BEAN_INCOME_PER_CYCLE if card.bean else 0.0),
            attack=(card.atk or 0) if card.can_attack else 0,
            defense=(card.def_ or 0) if card.can_defend else 0,
            defends=card.defends if card.can_defend else 0,
        )
    return traits


_TRAITS = _traits()


_DAY_COINS: dict[int, tuple[int, int, int]] = {
    card.id: tuple(c + (1 if card.bean else 0) for c in card.coins) for card in card_table.CARDS  # type: ignore[misc]
}
"""Coins each card brings on days 1, 2 and 3 of the cycle (Magic Bean
Stock counted as one a day)."""
_INCANTATION, _BOARD = 2, 1
WIN_POINTS = 7
RACE_HORIZON = 12
"""Days a race is looked ahead; a player further from the points counts this many."""


def race_days(game: Game, player: int, target: int) -> int:
    """Days until `player` could hold `target` points, buying nothing but
    points (Incantations, then Boards of Monopoly, as the shop allows) from
    the coins it has and its cards' income, one buy a day, undisturbed:
    0 if it holds them, RACE_HORIZON if not within it. The economy
    features say how rich a player is; this says how soon its wealth
    wins, which is what the race is about (a Gold Fish pays on day 3, a
    Worker on days 2 and 3, and the 7th point is worth more than the
    6th).

    Cash flow is counted in total, not day by day, so it is optimistic by
    at most a day or two for a player whose income comes late."""
    shop = game.shop()
    cards = game.cards(player)
    income = tuple(sum(_DAY_COINS[c][day] for c, _ in cards) for day in range(3))
    return _race(target - game.points(player), game.coins(player), income, game.day,
                 game.phase != BUY or game.buys(player) > 0, shop.get(_INCANTATION, 0), shop.get(_BOARD, 0))


@lru_cache(maxsize=1 << 16)
def _race(need: int, budget: int, income: tuple[int, int, int], day: int, today: bool,
          incantations: int, boards: int) -> int:
    """race_days from its inputs: `today` whether today's buy is still to come."""
    if need <= 0:
        return 0
    buys = 1 if today else 0
    for elapsed in range(0 if today else 1, RACE_HORIZON):
        if elapsed > 0:
            day = day % 3 + 1
            budget += income[day - 1]
            buys += 1
        k = min(buys, budget // 4, incantations)
        m = min(buys - k, (budget - 4 * k) // 2, boards)
        if 3 * k + m >= need:
            return elapsed
    return RACE_HORIZON


class _Army(NamedTuple):
    points: int
    income: float
    attack: int  # the best attack level
    defense: int  # total defense level
    defenders: int
    attackers: int
    blocks: int  # defenses per attack phase (Wall of Wealth counts twice)
    firepower: int  # the attack levels of every card that can attack, summed
    day_income: tuple[int, int, int]  # coins on days 1, 2, 3 of the cycle (race_days)


def _army(game: Game, player: int) -> _Army:
    points = 0
    income = 0.0
    day1 = day2 = day3 = 0
    attack = 0
    defense = 0
    defenders = 0
    attackers = 0
    blocks = 0
    firepower = 0
    for card_id, _uses in game.cards(player):
        t = _TRAITS[card_id]
        points += t.points
        income += t.income
        coins = _DAY_COINS[card_id]
        day1 += coins[0]
        day2 += coins[1]
        day3 += coins[2]
        if t.attack:
            attackers += 1
            firepower += t.attack
            if t.attack > attack:
                attack = t.attack
        if t.defense:
            defense += t.defense
            defenders += 1
            blocks += t.defends
    return _Army(points, income, attack, defense, defenders, attackers, blocks, firepower, (day1, day2, day3))


def all_features(game: Game, race: bool = True) -> list[list[float]]:
    """Every player's feature vector (see FEATURES). Coins are capped
    (see _DEAREST_CARD), and counted from the poorest purse still in the
    game once a purse passes 2**53 (see _coin_floor). `race` (race_days)
    is left at 0 unless asked for: it costs as much as the rest, and
    weights without it do not need it.

    `exposed` is 1 when some opponent could eliminate the player in one
    attack phase: it has more attackers than the player has blocks (each
    attacker attacks once; the one left over finds no defender), and it
    can outbid the player (a tie means nobody attacks). The bid compares
    purses plus a day's average income. Counting attackers alone made
    every card bought look like safety, whatever the purses, and cost
    the games against expert in which alpha-beta built an army while
    expert bought points."""
    armies = [_army(game, p) for p in range(game.n_players)]
    alive = [game.alive(p) for p in range(game.n_players)]
    purses = [game.coins(p) for p in range(game.n_players)]
    # Three times purse plus a day's average income, in exact ints: a float
    # cannot hold a bean-grown purse (and overflows past 1.8e308).
    bids = [3 * purses[p] + int(armies[p].income) for p in range(game.n_players)]
    floor = _coin_floor(purses, alive)
    if race:
        shop = game.shop()
        stock = (shop.get(_INCANTATION, 0), shop.get(_BOARD, 0))
    vectors = []
    for player, army in enumerate(armies):
        others = [p for p in range(game.n_players) if p != player and alive[p]]
        richest = max((purses[p] for p in others), default=0)
        exposed = any(
            armies[p].attackers > army.blocks and bids[p] > bids[player] for p in others
        )
        vectors.append([
            float(army.points),
            army.points * army.points / 7.0,
            _to_float(min(purses[player], richest + _DEAREST_CARD) - floor),
            army.income,
            float(army.attack),
            float(army.defense),
            float(army.defenders),
            float(game.buys(player)),
            float(army.attackers),
            1.0 if exposed else 0.0,
            float(_race(max(WIN_POINTS, 1 + max((armies[p].points for p in others), default=0)) - army.points,
                        purses[player], army.day_income, game.day, game.phase != BUY or game.buys(player) > 0, *stock))
            if race and alive[player] else 0.0,
            float(army.firepower),
        ])
    return vectors


_EXACT_FLOAT = 2**53
_FLOAT_CAP = 1e300  # beyond: equally "more than anyone can spend", and far from overflowing


def _coin_floor(purses: list[int], alive: list[bool]) -> int:
    """0, or once a purse passes 2**53 (Magic Bean Stock compounds purses
    past 1e25 in long games), the poorest purse still in the game: the
    coin feature is counted from it so that the few coins that tell two
    huge purses apart survive the float. Only differences of material
    count (see _squash), and a common offset leaves them unchanged."""
    if max(purses) < _EXACT_FLOAT:
        return 0
    return min((purse for purse, inside in zip(purses, alive) if inside), default=0)


def _to_float(n: int) -> float:
    if -_FLOAT_CAP < n < _FLOAT_CAP:
        return float(n)
    return _FLOAT_CAP if n > 0 else -_FLOAT_CAP


def features(game: Game, player: int) -> list[float]:
    """The feature vector of `player` (see FEATURES)."""
    return all_features(game)[player]


def material(game: Game, player: int, weights: Weights) -> float:
    """`player`'s weighted feature sum; -inf once eliminated."""
    return _materials(game, weights)[player]


def _materials(game: Game, weights: Weights) -> list[float]:
    values = weights.values
    return [
        sum(w * f for w, f in zip(values, vector)) if game.alive(p) else -math.inf
        for p, vector in enumerate(all_features(game, race=values[_RACE] != 0.0))
    ]


_RACE = FEATURES.index("race")


def evaluate(game: Game, me: int, weights: Weights) -> float:
    """`me`'s prospects in (-1, 1): its material against the best
    opponent's. Meaningful for states that are not over."""
    return _squash(_materials(game, weights), me, weights.scale)


def evaluate_all(game: Game, weights: Weights) -> list[float]:
    """Every player's prospects in (0, 1), for Monte Carlo leaves."""
    scores = _materials(game, weights)
    return [(1.0 + _squash(scores, p, weights.scale)) / 2.0 for p in range(game.n_players)]


def _squash(scores: list[float], me: int, scale: float) -> float:
    mine = scores[me]
    best_other = max(s for p, s in enumerate(scores) if p != me)
    if mine == -math.inf:
        return -1.0 + 1e-9
    if best_other == -math.inf:
        return 1.0 - 1e-9
    return math.tanh((mine - best_other) / scale)
