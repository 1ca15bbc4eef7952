"""The bid model: how often each opponent has bid nothing while it could attack.

Decoupled UCT answers every bid as an opponent who always bids its
best: where the opponent holds Ghosts it outbids us and attacks. Many
bots do not (`evolved` bid 0 on most days it held a ready Ghost), and
against them the champion paid to deny attacks that were not coming,
fell behind in the race for points and was eliminated later by the army
it had let grow (docs/bots.md, the bid model). So the champion counts,
for each opponent, the investing steps at which it held a card that
attacks and had coins to bid, and how many of them it bid 0 at; the C
MCTS then has that opponent bid 0 with this chance at such steps of its
tree (`passive`), and searches its bids otherwise.

The chance is (zeros + 1) / (steps + 2): one half before anything is
seen, and it follows what the opponent does. A bot that bids nothing for
days and then strikes is answered as a passive one on the day it
strikes; the exploiter measures what that costs (docs/bots.md).

A bid is read from the purses: noted at our investing step, the
opponent's purse at our next step of the same day (attacking, defending
or buying; bids are paid at once, and nothing else takes coins then) is
less by exactly its bid. (Only a Shield of Greed, base set, adds coins
then, to its defender: with 3 or 4 players an opponent whose Shield
defended before our step reads a coin short.)
"""

from __future__ import annotations

from protocol.cards import ATTACKS
from protocol.engine import INVESTING, Game

__all__ = ["BidModel"]


class BidModel:
    """Counts, for each opponent, its investing steps while it held an
    attacker and coins, and its bids of 0 at them."""

    def __init__(self) -> None:
        self.zeros: dict[int, int] = {}
        self.steps: dict[int, int] = {}
        self._noted: tuple[int, dict[int, int]] | None = None  # (days played, purses) at our last investing step

    def reset(self) -> None:
        """A new game: nothing seen."""
        self.zeros.clear()
        self.steps.clear()
        self._noted = None

    def observe(self, game: Game, me: int) -> None:
        """Reads the bids made since our last investing step (if this is
        a later step of the same day), and notes the purses at this one."""
        if self._noted is not None:
            day, purses = self._noted
            if game.days_played == day and game.phase != INVESTING:
                for p, before in purses.items():
                    bid = before - game.coins(p)
                    if bid < 0:
                        continue
                    self.steps[p] = self.steps.get(p, 0) + 1
                    self.zeros[p] = self.zeros.get(p, 0) + (bid == 0)
            self._noted = None
        if game.phase == INVESTING:
            self._noted = (game.days_played, {
                p: game.coins(p) for p in range(game.n_players)
                if p != me and game.coins(p) > 0 and any(ATTACKS[card] > 0 for card, _ in game.cards(p))
            })

    def chances(self, game: Game, me: int) -> list[float]:
        """Each player's chance of bidding 0 while it holds an attacker (0
        for `me`: our own bids are searched)."""
        return [0.0 if p == me else (self.zeros.get(p, 0) + 1) / (self.steps.get(p, 0) + 2)
                for p in range(game.n_players)]
