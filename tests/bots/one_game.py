"""Plays one game and exits after its end or fault message, as the
original driver's bots do (it starts one process per game).
`one_game.py chatty` also writes a line after the end, which the
original driver ignores."""
import json
import sys

import botlib

chatty = sys.argv[1:] == ["chatty"]
for line in sys.stdin:
    state = json.loads(line)
    if botlib.asks_for_move(state):
        botlib.send([botlib.simple_move(state)])
        continue
    if chatty:
        botlib.send(["good game"])
    break
