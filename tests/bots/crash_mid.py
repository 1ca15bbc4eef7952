"""Plays 3 moves, then crashes with a traceback."""
import botlib


def answer(state, number):
    if number == 4:
        raise RuntimeError("crash_mid: something went wrong on move 4")
    botlib.send([botlib.simple_move(state)])


botlib.serve(answer)
