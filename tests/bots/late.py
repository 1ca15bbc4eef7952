"""Answers its second move correctly but after $LATE_SECONDS (default 1 s)."""
import os
import time

import botlib


def answer(state, number):
    if number == 2:
        time.sleep(float(os.environ.get("LATE_SECONDS", "1")))
    botlib.send([botlib.simple_move(state)])


botlib.serve(answer)
