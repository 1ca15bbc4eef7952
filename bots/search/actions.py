"""The reduced move sets the searches branch over.

The engine's legal moves are exact but wasteful to search: an investment
ranges over 0..coins although only a few amounts change who attacks;
buying a sold-out card only burns coins; two identical cards attack or
defend identically. Both searches branch over `candidate_moves` instead,
so their trees stay small enough to be useful; every candidate is a
legal move.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, PASS, Game


def candidate_moves(game: Game, player: int) -> list[int]:
    """The moves of `player` worth searching, a non-empty subset of
    `game.legal_moves(player)` when the player is pending ([] otherwise)."""
    legal = game.legal_moves(player)
    if not legal:
        return []
    phase = game.phase
    if phase == INVESTING:
        return investments(game, player)
    if phase == BUY:
        shop = game.shop()
        useful = [move for move in legal if move == PASS or shop.get(move, 0) > 0]
        return useful
    if phase in (ATTACKING, DEFENDING):
        return _distinct_cards(game, player, legal)
    return list(legal)


def investments(game: Game, player: int) -> list[int]:
    """The amounts that can change the outcome of the bid: nothing; one
    coin (beats an opponent who invests nothing); each opponent's whole
    purse (a tie, which denies that opponent the attack) and one more (a
    sure win of the bid against them); and everything."""
    coins = game.coins(player)
    amounts = {0, 1, coins}
    for other in range(game.n_players):
        if other != player and game.alive(other):
            theirs = game.coins(other)
            amounts.add(theirs)
            amounts.add(theirs + 1)
    return sorted(amount for amount in amounts if amount <= coins)


def _distinct_cards(game: Game, player: int, legal: Sequence[int]) -> list[int]:
    """One index per distinct (card, uses) pair: identical cards fight
    identically, so searching both only doubles the tree."""
    cards = game.cards(player)
    seen: set[tuple[int, int]] = set()
    moves = []
    for move in legal:
        if move == 0 and game.phase == ATTACKING:
            moves.append(move)  # stop attacking
            continue
        card = cards[move]
        if card not in seen:
            seen.add(card)
            moves.append(move)
    return moves
