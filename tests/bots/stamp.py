"""Plays like simple.py (`stamp.py [SECONDS]`: pauses that long before each
investing and buy answer) and notes on standard error, as `stamp T`, the
monotonic clock just before each answer: a test compares it with when the
referee wrote things out."""
import sys
import time

import botlib

pause = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0


def answer(state, number):
    if pause and state["phase"]["name"] in ("investing", "buy"):
        time.sleep(pause)
    botlib.note(f"stamp {time.monotonic()}")
    botlib.send([botlib.simple_move(state)])


botlib.serve(answer)
