"""Reads every state and never answers."""
import botlib

botlib.serve(lambda state, number: None)
