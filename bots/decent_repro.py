"""A reproduction of the original driver's strongest bot, `play_decent`.

Written from section 9 of the spec and checked against the original's
behaviour (player/play_decent.rhm and the bots it builds on), so that our
bots have a sparring partner of known strength. It is not the original
program: it reads the same state and makes the same kind of choice, each
time drawing uniformly among the moves the original would consider.

The original's choices, phase by phase:

* investing: the larger of a *denial* amount (match the coins of any
  opponent holding a card that would beat every one of our defenders)
  and an *attack* amount (one more than the richest opponent, when one of
  our cards beats every defender it could meet without fainting, and the
  attack is cheap or can take several cards);
* attacking: among its strongest ready attackers, only those that beat
  every defender without fainting, and never a points card whose loss
  would drop it below the leading opponent; otherwise stop (0);
* defending: one of its ready cards with the highest defense level;
* buying: a fixed route to points (Worker, then Gold Fish, then
  Incantations, with a Board of Monopoly as the fifth card or when an
  Incantation is too dear); when that route offers several cards it buys
  for attack instead (Ghosts up to two, then Senior Worker, then Worker),
  else any affordable card still in the shop.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots.expert import beats
from bots.sdk import Decide, option_parser, run
from protocol.cards import ATK, ATTACKS, CARDS, DEF, DEFENDS, POINTS
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, PASS, Game

_WORKER, _GOLD_FISH, _MONOPOLY, _INCANTATION = 3, 8, 1, 2
_GHOST, _SENIOR_WORKER = 6, 7


def candidates(game: Game, me: int) -> list[int]:
    """Every move the original play_decent might make here (it picks one
    uniformly); never empty for a player who is asked."""
    phase = game.phase
    if phase == INVESTING:
        return [max(min(game.coins(me), _denial_amount(game, me)), attack_investment(game, me))]
    if phase == ATTACKING:
        strongest = _strongest(game, me, [i for i in game.legal_moves(me) if i != 0], attack=True)
        safe = [i for i in beats_every_defender(game, me, strongest) if _can_spare(game, me, i)]
        return safe or [0]
    if phase == DEFENDING:
        return _strongest(game, me, game.legal_moves(me), attack=False)
    if phase == BUY:
        route = points_route(game, me)
        return route if len(route) == 1 else attack_buys(game, me)
    return []


def decide_with(rng: random.Random) -> Decide:
    """A play_decent policy drawing its ties from `rng`."""

    def decide(game: Game, me: int) -> int:
        return rng.choice(candidates(game, me))

    return decide


def _opponents(game: Game, me: int) -> list[int]:
    return [p for p in range(game.n_players) if p != me]


def _denial_amount(game: Game, me: int) -> int:
    """The coins of the richest opponent who holds a card beating all our defenders."""
    mine = [card for card, _ in game.cards(me) if CARDS[card].can_defend]
    amounts = [0]
    for p in _opponents(game, me):
        threat = any(
            ATTACKS[card] >= 1 and all(beats(card, d) for d in mine) for card, _ in game.cards(p)
        )
        amounts.append(game.coins(p) if threat else 0)
    return max(amounts)


def beats_every_defender(game: Game, me: int, indexes: Sequence[int]) -> list[int]:
    """The card indexes (index 0 never) whose card can attack now and beats
    every ready defender of every opponent who has at least as many defenses
    in total as we have attacks (the original's filter, including its
    skipping of opponents it expects to run out of defenders)."""
    cards = game.cards(me)
    our_attacks = sum(ATTACKS[card] for card, _ in cards)
    kept = []
    for i in indexes:
        if i == 0:
            continue
        card, uses = cards[i]
        if ATTACKS[card] <= uses:
            continue
        if all(
            all(beats(card, d) for d, d_uses in game.cards(p) if DEFENDS[d] > d_uses)
            for p in _opponents(game, me)
            if sum(DEFENDS[d] for d, _ in game.cards(p)) >= our_attacks
        ):
            kept.append(i)
    return kept


def attack_investment(game: Game, me: int) -> int:
    coins = game.coins(me)
    ready = beats_every_defender(game, me, range(len(game.cards(me))))
    if not ready:
        return 0
    cost = min(coins, max(game.coins(p) + 1 for p in _opponents(game, me)))
    return cost if cost < coins - 1 or len(ready) > 1 else 0


def _can_spare(game: Game, me: int, index: int) -> bool:
    """Attacking with a points card only if losing it keeps us level with the leader."""
    lost = POINTS[game.cards(me)[index][0]]
    leader = max(game.points(p) for p in _opponents(game, me))
    return lost == 0 or game.points(me) - lost >= leader


def _strongest(game: Game, me: int, indexes: Sequence[int], *, attack: bool) -> list[int]:
    cards = game.cards(me)

    def level(i: int) -> int:
        card = cards[i][0]
        level = ATK[card] if attack else DEF[card]
        assert level is not None  # only attackers or defenders are compared: never the Stipend
        return level

    best = max((level(i) for i in indexes), default=None)
    return [i for i in indexes if level(i) == best]


def _affordable_in_stock(game: Game, me: int) -> list[int]:
    """Cards the original considers buying: affordable and not sold out, or Pass alone."""
    shop = game.shop()
    stock = [m for m in game.legal_moves(me) if m != PASS and shop[m] > 0]
    return stock or [PASS]


def points_route(game: Game, me: int) -> list[int]:
    options = _affordable_in_stock(game, me)
    n_cards = len(game.cards(me))
    if n_cards == 1:
        target = _WORKER
    elif n_cards == 2:
        target = _GOLD_FISH
    elif n_cards == 5:
        target = _MONOPOLY
    else:
        target = _INCANTATION if _INCANTATION in options else _MONOPOLY
    return [target] if target in options else options


def attack_buys(game: Game, me: int) -> list[int]:
    options = _affordable_in_stock(game, me)
    ghosts = sum(1 for card, _ in game.cards(me) if card == _GHOST)
    if ghosts < 2 and _GHOST in options:
        return [_GHOST]
    for card in (_SENIOR_WORKER, _WORKER):
        if card in options:
            return [card]
    return options


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.decent_repro` and `economancy-decent-repro`."""
    parser = option_parser("Economancy bot: a reproduction of the original's play_decent.")
    options = parser.parse_args(argv)
    run(decide_with(random.Random(options.seed)), max_days=options.max_days)


if __name__ == "__main__":
    main()
