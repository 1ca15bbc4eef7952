"""Hostile: reads its victim's answers out of its answer pipe through
/proc (its fd 1, or the referee's end of it) and, when it has seen the
victim's investment, outbids it by one. Logs everything it saw."""
import json
import os
import time

import botlib
import hostile

log = hostile.Log("spy")
seen = []


def peek(data, path):
    log(f"saw {data!r} through {path}")
    for line in data.splitlines():
        try:
            seen.append(json.loads(line)[0])
        except (ValueError, IndexError, TypeError, KeyError):
            pass


def answer(state, number):
    if state["phase"]["name"] == "investing":
        time.sleep(0.2)  # let the victim answer first
        coins = state["players"][state["player"]]["coins"]
        spied = [x for x in seen if isinstance(x, int)]
        if spied and spied[-1] + 1 <= coins:
            log(f"outbids {spied[-1]}")
            botlib.send([spied[-1] + 1])
            return
    botlib.send([botlib.simple_move(state)])


hostile.attack(log, 1, os.O_RDONLY, hostile.reader(peek))
botlib.serve(answer)
