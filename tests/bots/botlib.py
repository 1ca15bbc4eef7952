"""Shared pieces of the test bots (stdlib only: they run under `python -S`).

`simple_move` plays a small legal strategy without the engine; `serve`
runs a bot loop; `record_pids` lets a test find every process a bot
started (the file named by $ECONOMANCY_TEST_PIDS gets one pid per line).
"""

import json
import os
import sys


def record_pids(*pids):
    path = os.environ.get("ECONOMANCY_TEST_PIDS")
    if path:
        with open(path, "a") as f:
            for pid in pids:
                f.write(f"{pid}\n")


def simple_move(state, role="defender"):
    """A legal move for any state that asks for one.

    attacker: invests 1 coin, attacks with its first unused card, buys one Worker.
    defender: invests nothing, defends with its first unused card, buys one Worker.
    """
    me = state["player"]
    player = state["players"][me]
    cards = player["cards"]
    phase = state["phase"]
    if phase["name"] == "investing":
        return 1 if role == "attacker" and player["coins"] >= 1 else 0
    if phase["name"] == "attacking":
        unused = [i for i, c in enumerate(cards) if i > 0 and c["uses"] == 0]
        if phase["attacker"] == me:
            return unused[0] if unused else 0
        if unused:
            return unused[0]
        return next(i for i, c in enumerate(cards) if c["name"] == "Wall of Wealth" and c["uses"] == 1)
    if phase["name"] == "buy":
        return "Worker" if len(cards) == 1 and player["coins"] >= 1 else "Pass"
    raise ValueError(f"no move in phase {phase['name']}")


def asks_for_move(state):
    return state["phase"]["name"] not in ("end", "fault")


def send(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def serve(answer):
    """Call answer(state, number) for every state that asks for a move
    (number counts them from 1); it writes its own reply."""
    record_pids(os.getpid())
    number = 0
    for line in sys.stdin:
        state = json.loads(line)
        if asks_for_move(state):
            number += 1
            answer(state, number)
