"""Answers a hidden choice only once every player has been asked it:
`rendezvous.py DIR PLAYERS`.

For each investing or buy state it leaves a mark in DIR (a directory
every bot's user may write: bots share /tmp) and waits for the marks of
all PLAYERS for that round before answering. A referee that asks one
player at a time never lets the first one's wait end: it gives up after
30 s, says so on standard error and exits, which forfeits it. So the
test that uses it needs no clock of its own.
"""

import os
import sys
import time

import botlib

directory, players = sys.argv[1], int(sys.argv[2])
rounds = 0


def answer(state, number):
    global rounds
    if state["phase"]["name"] in ("investing", "buy"):
        rounds += 1
        open(os.path.join(directory, "%d.%d" % (rounds, state["player"])), "w").close()
        give_up = time.monotonic() + 30
        while sum(name.startswith("%d." % rounds) for name in os.listdir(directory)) < players:
            if time.monotonic() > give_up:
                botlib.note("round %d: the other players were not asked while I was" % rounds)
                sys.exit(1)
            time.sleep(0.02)
    botlib.send([botlib.simple_move(state)])


botlib.serve(answer)
