"""A well-behaved bot: `simple.py [attacker|defender] [SECONDS]`, see botlib.simple_move.

With SECONDS, it sleeps that long before each investing and buy answer
(the hidden choices a referee may ask for at the same time).
"""

import sys
import time

import botlib

role = sys.argv[1] if len(sys.argv) > 1 else "defender"
pause = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0


def answer(state, number):
    if pause and state["phase"]["name"] in ("investing", "buy"):
        time.sleep(pause)
    botlib.send([botlib.simple_move(state, role)])


botlib.serve(answer)
