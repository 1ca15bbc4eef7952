#!/usr/bin/env python3
"""Invests 0 and passes every buy: nobody ever attacks, so games between
passive bots run the full `max_days` and end in a draw. The cheapest bot
that plays whole games, for throughput measurements."""
import json
import os
import sys

# Not the pid: inside a PID namespace of its own every bot is pid 2.
sys.stderr.write(f"passive bot {int.from_bytes(os.urandom(6), 'big')} started\n")

for line in sys.stdin:
    state = json.loads(line)
    phase = state["phase"]["name"]
    if phase in ("end", "fault") or "player" not in state:
        continue
    if phase == "investing":
        print("[0]", flush=True)
    elif phase == "buy":
        print('["Pass"]', flush=True)
    else:  # attacking: stop at once; defending: first card that can still defend
        me = state["players"][state["player"]]
        if phase == "attacking" and state["phase"]["attacker"] == state["player"]:
            print("[0]", flush=True)
        else:
            print(f"[{max(1, len(me['cards']) - 1)}]", flush=True)
