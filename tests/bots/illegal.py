"""Invests one coin more than it has."""
import botlib


def answer(state, number):
    botlib.send([state["players"][state["player"]]["coins"] + 1])


botlib.serve(answer)
