"""The bid model: how often each opponent has bid nothing when it could attack.

Decoupled UCT answers every bid as an opponent who always bids its
best: where the opponent holds Ghosts that beat our defenders it outbids
us and attacks. Many bots do not (`evolved` bid 0 on most of those
days), and against them the champion paid to deny attacks that were not
coming, fell behind in the race for points and was eliminated later by
the army it had let grow (docs/bots.md, the bid model). So the champion
counts, for each opponent, the investing steps at which it held a sure
attack (a card that beats every card able to defend against it, without
fainting: the attack a player bids for, if it bids at all) and coins to
bid, and how many of them it bid 0 at; the C MCTS then has that opponent
bid 0 with this chance at such steps of its tree (`passive`), and
searches its bids otherwise; in its playouts, a player that opponent
threatens matches its purse with the chance that it does bid (1 - this
chance; protocol/_engine.c, heuristic_move_deny).

The chance is zeros / (steps + 1): nothing is assumed before the
opponent has shown it (a Ghost rush, which bids at every such step, is
searched as before: with one half assumed from the start, the champion
lost 5 of 104 games to `attack-repro` that it won without the model),
and it follows what the opponent does. A bot that passes for days and
then strikes is answered as a passive one on the day it strikes; the
exploiter measures what that costs (docs/bots.md).

The other side of it, our own sure attacks: in the playouts an
opponent they threaten matches our purse with a chance (`denied`) that
makes the playouts charge it what it has paid in this game to stop
them: at our investing steps while we held a sure attack and coins, and
it held at least as many, its bid as a share of our purse (at most
all of it), averaged with one half assumed at the start:
(shares + 1/2) / (steps + 1). The real price varies by bot: replayed
from stored games (bench/bid_prices.py), `mcts-v1` paid about a third
of our purse on average (though it bid something at 70% of those
steps), `evolved` 42%, `expert` 87% and `attack-repro` nothing.
Charged our whole purse every day (the champion before this count), our
Ghosts looked worth more than the points bought instead, and the
champion lost the race for points to `mcts-v1` (docs/bots.md, "What the
opponent pays to stop our attacks").

A bid is read from the purses: noted at our investing step, the
opponent's purse at our next step of the same day (attacking, defending
or buying; bids are paid at once, and nothing else takes coins then) is
less by exactly its bid. (Only a Shield of Greed, base set, adds coins
then, to its defender: with 3 or 4 players an opponent whose Shield
defended before our step reads a coin short.)
"""

from __future__ import annotations

from bots.expert import safe_attackers
from protocol.engine import INVESTING, Game

__all__ = ["BidModel", "holds_sure_attack"]


def holds_sure_attack(game: Game, p: int) -> bool:
    """Whether p holds a card that attacks and beats every card of every
    opponent still in that can defend, without fainting (`expert`'s safe
    attackers; protocol/search/mcts.c asks the engine's sure_attack)."""
    return bool(safe_attackers(game, p))


class BidModel:
    """Counts, for each opponent, its investing steps while it held a
    sure attack and coins, and its bids of 0 at them."""

    def __init__(self) -> None:
        self.zeros: dict[int, int] = {}
        self.steps: dict[int, int] = {}
        self._noted: tuple[int, dict[int, int]] | None = None  # (days played, purses) at our last investing step
        self.threatened: dict[int, int] = {}
        self.paid: dict[int, float] = {}  # the shares of our purse paid at those steps, summed
        self._threat: tuple[int, dict[int, int]] | None = None  # the same, for opponents our sure attack threatened
        self._purse = 1  # ours, at that step

    def reset(self) -> None:
        """A new game: nothing seen."""
        self.zeros.clear()
        self.steps.clear()
        self._noted = None
        self.threatened.clear()
        self.paid.clear()
        self._threat = None

    def observe(self, game: Game, me: int) -> None:
        """Reads the bids made since our last investing step (if this is
        a later step of the same day), and notes the purses at this one."""
        for p, bid in _bids(self._noted, game):
            self.steps[p] = self.steps.get(p, 0) + 1
            self.zeros[p] = self.zeros.get(p, 0) + (bid == 0)
        for p, bid in _bids(self._threat, game):
            self.threatened[p] = self.threatened.get(p, 0) + 1
            self.paid[p] = self.paid.get(p, 0.0) + min(bid, self._purse) / self._purse
        self._noted = self._threat = None
        if game.phase == INVESTING:
            self._noted = (game.days_played, {
                p: game.coins(p) for p in range(game.n_players)
                if p != me and game.coins(p) > 0 and holds_sure_attack(game, p)
            })
            if game.coins(me) > 0 and holds_sure_attack(game, me):
                self._purse = game.coins(me)
                self._threat = (game.days_played, {
                    p: game.coins(p) for p in range(game.n_players)
                    if p != me and game.coins(p) >= game.coins(me)
                })

    def chances(self, game: Game, me: int) -> list[float]:
        """Each player's chance of bidding 0 while it holds a sure attack
        (0 for `me`: our own bids are searched)."""
        return [0.0 if p == me else self.zeros.get(p, 0) / (self.steps.get(p, 0) + 1) for p in range(game.n_players)]

    def denied(self, game: Game, me: int) -> float:
        """The chance with which an opponent our sure attack threatens
        matches our purse in the playouts: the share of it that it paid at
        such steps, one half until it has shown it; the most of any
        opponent's."""
        return max((self.paid.get(p, 0.0) + 0.5) / (self.threatened.get(p, 0) + 1)
                   for p in range(game.n_players) if p != me)


def _bids(noted: tuple[int, dict[int, int]] | None, game: Game) -> list[tuple[int, int]]:
    """The bids since the purses were noted at an investing step, if
    `game` is a later step of the same day."""
    if noted is None or game.days_played != noted[0] or game.phase == INVESTING:
        return []
    return [(p, before - game.coins(p)) for p, before in noted[1].items() if before >= game.coins(p)]
