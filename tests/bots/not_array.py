"""Answers with a JSON value that is not a one-element array."""
import botlib

botlib.serve(lambda state, number: botlib.send({"move": botlib.simple_move(state)}))
