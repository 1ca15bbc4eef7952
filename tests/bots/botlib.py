"""Shared pieces of the test bots (stdlib only: they run under `python -S`).

`simple_move` plays a small legal strategy without the engine; `serve`
runs a bot loop; `note` writes a line to standard error, which the
referee keeps (bots may run as another user in namespaces of their own,
so they report through their pipes, not through files). Tests find every
process a bot started by the marker they put in its environment
(tests/proctable.py).
"""

import json
import sys


def note(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


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
    number = 0
    for line in sys.stdin:
        state = json.loads(line)
        if asks_for_move(state):
            number += 1
            answer(state, number)
