"""A bot that lays traps for the referee's files: `trapper.py TARGET LINK...`.

Before its first answer it makes each LINK a symbolic link to TARGET (a
file it may not write itself), as a bot sharing the host's /tmp can, then
plays simple moves. A referee that later writes through one of the links
overwrites TARGET. It notes on standard error which links it laid.
"""

import os
import sys

import botlib

target, links = sys.argv[1], sys.argv[2:]
laid = []
for link in links:
    try:
        os.symlink(target, link)
        laid.append(link)
    except OSError as e:
        botlib.note(f"could not lay {link}: {e}")
botlib.note(f"laid {laid}")


def answer(state, number):
    botlib.send([botlib.simple_move(state)])


botlib.serve(answer)
