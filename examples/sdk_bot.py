"""A complete bot on the SDK: never attack, buy the dearest card in stock."""
from bots.sdk import run
from protocol.cards import COST
from protocol.engine import BUY, PASS, Game


def decide(game: Game, me: int) -> int:
    moves = game.legal_moves(me)  # investing: 0..coins; attacking: 0 first
    if game.phase != BUY:
        return moves[0]  # invest 0, stop attacking, defend with the first card
    in_stock = [m for m in moves if m != PASS and game.shop()[m] > 0]
    return max(in_stock, key=lambda m: COST[m], default=PASS)


if __name__ == "__main__":
    run(decide)
