"""Plays normally while writing megabytes to standard error."""
import sys

import botlib

LINE = "flood " * 170 + "\n"  # about 1 KiB


def answer(state, number):
    for i in range(600):  # about 600 KiB per move
        sys.stderr.write(LINE)
    sys.stderr.write(f"stderr_flood: move {number} done\n")
    sys.stderr.flush()
    botlib.send([botlib.simple_move(state)])


botlib.serve(answer)
