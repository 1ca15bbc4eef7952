"""Hostile: writes answers into its victim's answer pipe through /proc (its
fd 1, or the referee's end of it), so that the victim forfeits for text
it never wrote. Plays legal moves itself."""
import os
import time

import botlib
import hostile

log = hostile.Log("injector")


def inject(fd, path):
    while True:
        try:
            os.write(fd, b'"forged by the injector"\n')
        except OSError:
            pass
        time.sleep(0.01)


hostile.attack(log, 1, os.O_WRONLY | os.O_NONBLOCK, inject)
botlib.serve(lambda state, number: botlib.send([botlib.simple_move(state)]))
