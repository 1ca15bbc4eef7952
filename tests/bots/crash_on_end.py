"""Invests more than it has (a fault), then crashes on the fault state it
is sent: its last words are about the end, not about why it forfeited."""
import json
import sys

import botlib

botlib.note("the real cause: I meant to invest 99")
for line in sys.stdin:
    state = json.loads(line)
    if not botlib.asks_for_move(state):
        botlib.note("Traceback: KeyError 'winner' (crashed reading the final state)")
        sys.exit(1)
    botlib.send([99])
