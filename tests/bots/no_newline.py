"""Writes [0] for every state, never a newline (a JSON value needs none)."""
import sys

import botlib


def answer(state, number):
    sys.stdout.write("[0]")
    sys.stdout.flush()


botlib.serve(answer)
