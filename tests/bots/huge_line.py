"""Answers with a 50 MB line."""
import sys

import botlib


def answer(state, number):
    chunk = "9" * (1 << 20)
    sys.stdout.write("[")
    for _ in range(50):
        sys.stdout.write(chunk)
    sys.stdout.write("]\n")
    sys.stdout.flush()


botlib.serve(answer)
