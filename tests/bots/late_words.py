"""Plays game after game, and says so on standard error: "in game N" at
its first move of its Nth game, "after game N" once it has seen that
game's end or fault (news to it, written when the referee has already
stored the game, if it keeps this bot for its next game)."""
import json
import sys

import botlib

games = 0
in_game = False
for line in sys.stdin:
    state = json.loads(line)
    if botlib.asks_for_move(state):
        if not in_game:
            in_game = True
            games += 1
            botlib.note(f"in game {games}")
        botlib.send([botlib.simple_move(state)])
        continue
    in_game = False
    botlib.note(f"after game {games}")
