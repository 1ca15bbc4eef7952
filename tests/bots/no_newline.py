"""Writes a valid answer but never ends the line."""
import sys

import botlib


def answer(state, number):
    sys.stdout.write("[0]")
    sys.stdout.flush()


botlib.serve(answer)
