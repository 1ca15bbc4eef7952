"""Plays one game and exits after its end or fault message, as the
original driver's bots do (it starts one process per game).
`one_game.py chatty` also writes a line after the end, which the
original driver ignores; `one_game.py linger SECONDS` waits that long
before exiting (a referee that reuses it may already have sent the
next game's first state by then)."""
import json
import sys
import time

import botlib

chatty = "chatty" in sys.argv[1:]
linger = float(sys.argv[sys.argv.index("linger") + 1]) if "linger" in sys.argv else 0.0
for line in sys.stdin:
    state = json.loads(line)
    if botlib.asks_for_move(state):
        botlib.send([botlib.simple_move(state)])
        continue
    if chatty:
        botlib.send(["good game"])
    break
time.sleep(linger)
