"""Answers its first move with text that is not JSON."""
import sys

import botlib


def answer(state, number):
    sys.stdout.write("I choose the Ghost, obviously!\n")
    sys.stdout.flush()


botlib.serve(answer)
