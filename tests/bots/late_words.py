"""Plays game after game, and says so on standard error: "in game N" at
its first move of its Nth game, "after game N" once it has seen that
game's end or fault (news to it, written when the referee has already
stored the game, if it keeps this bot for its next game).

With an argument SECONDS it first works that long on the end (a busy
loop), so that the referee has sent its next game's first state before the
"after game N" line is written, unless it waits for the bot to be done."""
import json
import sys
import time

import botlib

busy = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
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
    until = time.process_time() + busy
    while time.process_time() < until:
        pass
    botlib.note(f"after game {games}")
