"""Hostile: reads its victim's states out of its input pipe through /proc
(its fd 0, or the referee's end of it), so that the victim never sees
them and times out. Plays legal moves itself."""
import os

import botlib
import hostile

log = hostile.Log("thief")


def steal(data, path):
    log(f"stole {len(data)} bytes through {path}")


hostile.attack(log, 0, os.O_RDONLY, hostile.reader(steal))
botlib.serve(lambda state, number: botlib.send([botlib.simple_move(state)]))
