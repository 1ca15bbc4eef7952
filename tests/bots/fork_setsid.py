"""Leaves an orphan behind at start: a child that double-forks, its
grandchild calling setsid and exiting a moment later (once orphaned),
then plays normally. A referee that adopted such orphans and never
reaped them would pile up one zombie per game."""
import os
import time

import botlib

child = os.fork()
if child == 0:
    middle = os.getpid()
    if os.fork() == 0:
        os.setsid()
        while os.getppid() == middle:  # until orphaned
            time.sleep(0.001)
        os._exit(0)
    os._exit(0)
os.waitpid(child, 0)
botlib.serve(lambda state, number: botlib.send([botlib.simple_move(state)]))
