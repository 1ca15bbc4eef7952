"""Plays normally while a thread writes to standard error without pause,
faster than any reader: the referee must still serve its other pipes."""
import os
import threading

import botlib

CHUNK = b"x" * 65536


def flood():
    while True:
        try:
            os.write(2, CHUNK)
        except OSError:
            return


threading.Thread(target=flood, daemon=True).start()
botlib.serve(lambda state, number: botlib.send([botlib.simple_move(state)]))
